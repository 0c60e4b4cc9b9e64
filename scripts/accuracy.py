#!/usr/bin/env python3
"""`make accuracy`: Heed on the real-speech suites, in quiet and mixed with noise, beside plain
PocketSphinx on the very same files in the same run.

Heed runs as a user runs it (`heed test SUITE --noise FILE --snr ...`), writing every noisy copy
it decoded (--keep-audio); pocketsphinx_batch then decodes those same copies with default settings
and no rejection: coffee against the context as a JSGF (the same YAML), words against the six
built-ins as a JSGF. Prints one table: accepted and false acceptance per condition, both side by
side, plus Heed's CPU per audio second.

Usage: scripts/accuracy.py [--every N] [--snr 24,18,12,9,6] [--noise FILE ...] [--suites coffee,words]
                           [--quiet-only] [--json OUT] [-- HEED TEST OPTIONS]
  --every N   every Nth file of each suite only (a quick subset; default 1: all of them)
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time
from realspeech import COMMANDS, expectations, heed, plain_batch, real, rhino_to_regex_and_jsgf, root, score_plain, subset, to_16k

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--every", type=int, default=1)
parser.add_argument("--snr", default="24,18,12,9,6")
parser.add_argument("--noise", action="append", default=[])
parser.add_argument("--suites", default="coffee,words")
parser.add_argument("--quiet-only", action="store_true")
parser.add_argument("--json")
parser.add_argument("--no-plain", action="store_true", help="Heed only (plain PocketSphinx's figures do not change with Heed)")
parser.add_argument("heed_args", nargs="*")
args = parser.parse_args()
if not os.path.isdir(real):
    sys.exit(f"accuracy: {real} is missing (the real-speech suites live beside the project)")
noises = args.noise or [os.path.join(root, "Audio/noise/babble.wav")]

work = tempfile.mkdtemp(prefix="heed-accuracy-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))


def log(text):
    print(text, file=sys.stderr, flush=True)


# --- the run -------------------------------------------------------------------------------------

snrs = [] if args.quiet_only else [float(x) for x in args.snr.split(",") if x]
rows = []
report = {"every": args.every, "heedArgs": args.heed_args, "conditions": []}
for name in args.suites.split(","):
    suite_dir = subset(name, args.every, work)
    suite, expected = expectations(suite_dir)
    if suite.get("contexts"):
        grammar, meaning = rhino_to_regex_and_jsgf(os.path.join(suite_dir, suite["contexts"][0]))
    else:
        grammar = "#JSGF V1.0;\ngrammar commands;\npublic <c> = " + " | ".join(COMMANDS) + ";\n"
        meaning = lambda words: (words[0], {}) if len(words) == 1 and words[0] in COMMANDS else None
    gram_path = os.path.join(work, f"{name}.gram")
    open(gram_path, "w").write(grammar)
    fsg_path = dict_path = None
    if suite.get("contexts"):
        # The same YAML as the minimal word graph (a JSGF of 80 expressions costs plain PocketSphinx 10x the CPU).
        fsg_path, dict_path = os.path.join(work, f"{name}.fsg"), os.path.join(work, f"{name}.dict")
        subprocess.run([heed, "context", "export", "--language-only", "--no-builtins", "--context",
                        os.path.join(suite_dir, suite["contexts"][0]), "--write-fsg", fsg_path, "--write-dict", dict_path],
                       env=env, check=True)
    keep = os.path.join(work, "keep", name)
    heed_json = os.path.join(work, f"{name}.json")
    command = [heed, "test", suite_dir, "--json", heed_json, "--keep-audio", keep, *args.heed_args]
    for noise in ([] if args.quiet_only else noises):
        command += ["--noise", noise]
    if snrs:
        command += ["--snr", ",".join(f"{s:g}" for s in snrs)]
    log(f"== {name}: {len(expected)} files; heed test ({len(snrs) * max(1, len(noises)) + 1} conditions)")
    started = time.time()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL)
    log(f"   heed: {time.time() - started:.0f} s")
    heed_report = json.load(open(heed_json))
    for condition in heed_report["conditions"]:
        label = condition["name"]
        if condition["kind"] == "clean":
            folder = suite_dir
        else:
            folder = os.path.join(keep, label.replace(" ", ""), os.path.basename(suite_dir))
        plain = None
        if not args.no_plain:
            files = [os.path.realpath(os.path.join(folder, f)) for f in expected]
            converted = to_16k(files, os.path.join(work, "plain", label.replace(" ", ""), name))
            words = plain_batch(converted, gram_path, os.path.join(work, f"{name}-{label.replace(' ', '')}.hyp"), fsg_path, dict_path)
            results = {os.path.basename(f): meaning(words[c]) if words[c] else None for f, c in zip(files, converted)}
            plain = score_plain(results, expected, meaning)
        heed_scores = (condition["accepted"], condition["positives"], condition["falseAcceptances"], condition["negatives"])
        cpu = condition["cpuSeconds"] / max(condition["audioSeconds"], 1e-9)
        rows.append((name, label, heed_scores, plain, cpu))
        report["conditions"].append({"suite": name, "condition": label, "heed": heed_scores, "plain": plain, "heedCPUPerAudioSecond": cpu})
        log(f"   {label}: heed {heed_scores[0]}/{heed_scores[1]} fa {heed_scores[2]}/{heed_scores[3]}"
            + (f"; plain {plain[0]}/{plain[1]} fa {plain[2]}/{plain[3]}" if plain else ""))


def pct(a, b):
    return f"{100 * a / b:5.1f} %" if b else "    -  "


print(f"\nReal speech (every {args.every}. file); noise: {', '.join(os.path.basename(n) for n in noises)}"
      + (f"; heed {' '.join(args.heed_args)}" if args.heed_args else ""))
print(f"| suite | condition | Heed accepted | Heed false acc. | plain accepted | plain false acc. | Heed CPU s / audio s |")
print("|---|---|---|---|---|---|---|")
for name, label, h, p, cpu in rows:
    plain_cells = (f"{p[0]}/{p[1]} {pct(p[0], p[1])} | {p[2]}/{p[3]} {pct(p[2], p[3])}" if p else "- | -")
    print(f"| {name} | {label} | {h[0]}/{h[1]} {pct(h[0], h[1])} | {h[2]}/{h[3]} {pct(h[2], h[3])} | {plain_cells} | {cpu:.3f} |")
if args.json:
    json.dump(report, open(args.json, "w"), indent=1)
shutil.rmtree(work, ignore_errors=True)
