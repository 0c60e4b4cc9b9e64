#!/usr/bin/env python3
"""Scores `heed recognize` on a suite directory with a suite.yml (e.g. Audio/coffee).

suite.yml names the contexts to load (relative to the suite), whether the built-in commands stay
active, and per file the expected intent and slots, or `understood: false`. A file passes when
exactly one utterance is understood, with the expected intent and every slot right.
Needs PyYAML. Until `heed test` exists (issue 6), this reproduces BENCHMARKS.md's context figures:
    scripts/score-suite.py Audio/coffee [--heed .build/release/heed] [recognize options...]
"""
import json, os, subprocess, sys, tempfile
import yaml

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
suite_dir = os.path.abspath(args.pop(0))
heed = os.path.join(root, ".build/release/heed")
if args[:1] == ["--heed"]:
    heed = args[1]
    args = args[2:]
suite = yaml.safe_load(open(os.path.join(suite_dir, "suite.yml")))
options = [o for c in suite.get("contexts", []) for o in ("--context", os.path.normpath(os.path.join(suite_dir, c)))]
if suite.get("builtins") is False:
    options.append("--no-builtins")
files = [os.path.join(suite_dir, f) for f in suite["files"]]
state = tempfile.mkdtemp()  # a test rig: never the user's own decisions
env = dict(os.environ, HEED_STATE_DIR=os.path.join(state, "heed"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))
out = subprocess.run([heed, "recognize", "--json", *options, *args, *files], capture_output=True, text=True, env=env)
if out.returncode not in (0, 65):
    sys.exit(out.stderr)
found = {}
for line in out.stdout.splitlines():
    item = json.loads(line)
    found.setdefault(os.path.basename(item["file"]), []).append(item)

positives = accepted = wrong = negatives = false_accepts = 0
failures = []
for name, expected in suite["files"].items():
    understood = [u for u in found.get(name, []) if u["understood"]]
    got = [(u["intent"], u["slots"]) for u in understood]
    if expected.get("understood") is False:
        negatives += 1
        if understood:
            false_accepts += 1
            failures.append(f"{name}: expected nothing, got {got}")
    else:
        positives += 1
        want = (expected["intent"], {k: str(v) for k, v in (expected.get("slots") or {}).items()})
        if got == [want]:
            accepted += 1
        else:
            wrong += bool(understood)
            failures.append(f"{name}: expected {want}, got {got or 'not understood'}")

print(f"accepted (intent and every slot)  {accepted}/{positives} ({100 * accepted / positives:.1f} %)")
print(f"wrong intent or slot              {wrong}/{positives} ({100 * wrong / positives:.1f} %)")
print(f"false acceptance                  {false_accepts}/{negatives} ({100 * false_accepts / negatives:.1f} %)")
for failure in failures:
    print("  " + failure)
