#!/usr/bin/env python3
"""Scores `heed recognize` on Audio/builtins: acceptance, wrong intents, false acceptance.

File names carry the expectation: <intent>-<voice>-<speed>.wav, or none-<n>-<voice>.wav for
speech that must not be understood. Extra arguments go to `heed recognize`.
Until `heed test` exists (issue 6), this is how BENCHMARKS.md's figures are reproduced:
    scripts/score-builtins.py [.build/release/heed] [recognize options...]
"""
import glob, json, os, subprocess, sys, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = sys.argv[1:]
heed = args.pop(0) if args and not args[0].startswith("-") else os.path.join(root, ".build/release/heed")
files = sorted(glob.glob(os.path.join(root, "Audio/builtins/*.wav")))
# A test rig: a temporary state directory and the test-rig policy, never the user's decisions.
state = tempfile.mkdtemp()
env = dict(os.environ, HEED_STATE_DIR=os.path.join(state, "heed"),
           HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))
out = subprocess.run([heed, "recognize", "--json", *args, *files], capture_output=True, text=True, check=True, env=env).stdout
found = {}
for line in out.splitlines():
    item = json.loads(line)
    found.setdefault(item["file"], []).append(item)

positives = accepted = wrong = negatives = false_accepts = 0
failures = []
for path in files:
    name = os.path.basename(path)
    expected = name.split("-")[0]
    understood = [u for u in found.get(path, []) if u["understood"]]
    got = [u["intent"] for u in understood]
    if expected == "none":
        negatives += 1
        if understood:
            false_accepts += 1
            failures.append(f"{name}: expected nothing, got {got}")
    else:
        positives += 1
        if got == [expected]:
            accepted += 1
        else:
            wrong += any(g != expected for g in got)
            failures.append(f"{name}: expected {expected}, got {got or 'not understood'}")

print(f"commands accepted   {accepted}/{positives} ({100 * accepted / positives:.1f} %)")
print(f"wrong intent        {wrong}/{positives} ({100 * wrong / positives:.1f} %)")
print(f"false acceptance    {false_accepts}/{negatives} ({100 * false_accepts / negatives:.1f} %)")
for failure in failures:
    print("  " + failure)
