#!/usr/bin/env python3
"""Each voice of the suites with and without its own speaker profile (`heed enroll`).

Audio/builtins, coffee, home and workshop are recorded by five espeak-ng voices, named in each
file name (en, en_f4, en_m3: British; en-us, en-us_f2: American). For each voice this makes a view
of the four suites with only that voice's recordings, enrolls the voice from Audio/enroll/<voice>
(twenty sentences, none of them a command), and runs `heed test` on the view twice: as trained
and with --speaker. Non-commands without a voice in their name (coffee/none-*) are left out.
Each condition is reported for all four suites and for the three contexts alone (issue 4).
Usage: make release && scripts/enrolled.py [--snr clean,12,6] [--noise pink] [-- extra heed test args]
"""
import argparse, json, os, re, subprocess, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
heed = os.path.join(root, ".build/release/heed")
VOICES = ["en", "en_f4", "en_m3", "en-us", "en-us_f2"]
SUITES = ["builtins", "coffee", "home", "workshop"]
parser = argparse.ArgumentParser()
parser.add_argument("--snr", default="clean,12,6", help="comma-separated; 'clean' for no noise")
parser.add_argument("--noise", default="pink")
parser.add_argument("extra", nargs="*", help="more arguments for heed test (after --)")
args = parser.parse_args()
work = tempfile.mkdtemp(prefix="heed-enrolled-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))


def voice_of(name):
    match = re.search(r"-(en(?:-us)?(?:_[a-z0-9]+)?)(?:-\d+)?\.wav$", name)
    return match.group(1) if match else None


def view(voice):
    """The suites' recordings by `voice`, as suites of their own (links to the WAVs)."""
    suites = []
    for suite in SUITES:
        source = os.path.join(root, "Audio", suite)
        target = os.path.join(work, voice, suite)
        os.makedirs(target)
        lines, files = [], 0
        for line in open(os.path.join(source, "suite.yml")):
            if line.startswith("contexts:"):
                line = line.replace("../../Models", os.path.relpath(os.path.join(root, "Models"), target))
            entry = re.match(r"\s+(\S+\.wav):", line)
            if entry:
                if voice_of(entry.group(1)) != voice:
                    continue
                os.symlink(os.path.join(source, entry.group(1)), os.path.join(target, entry.group(1)))
                files += 1
            lines.append(line)
        if files:
            open(os.path.join(target, "suite.yml"), "w").write("".join(lines))
            suites.append(target)
    return suites


def run(suites, label, *options):
    report = os.path.join(work, label + ".json")
    conditions = []
    for snr in args.snr.split(","):
        if snr != "clean":
            conditions.append(snr)
    command = [heed, "test", "run", *suites, "--json", report, *options, *args.extra]
    if conditions:
        command += [arg for noise in args.noise.split(",") for arg in ("--noise", os.path.join(root, "Audio/noise", noise + ".wav"))]
        command += ["--snr", ",".join(conditions)]
        if "clean" not in args.snr.split(","):
            command.append("--no-clean")
    # heed test exits 1 when any recording fails; only a missing report is an error here.
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL)
    results = {}
    for condition in json.load(open(report))["conditions"]:
        for scope, wanted in (("", None), (" contexts", "builtins")):
            rows = [r for r in condition["results"] if r["suite"] != wanted]
            positive = [r for r in rows if r["expected"] and r["expected"][0].get("understood") is not False]
            accepted = sum(1 for r in positive if r["verdict"] == "passed")
            false = sum(1 for r in rows if r not in positive and r["verdict"] != "passed")
            results[condition["name"] + scope] = (accepted, len(positive), false, len(rows) - len(positive))
    return results


subprocess.run([heed, "auth", "grant", "speech-recognition"], env=env, stdout=subprocess.DEVNULL, check=True)
totals = {}
print(f"{'voice':10} {'condition':16} {'as trained':>20} {'enrolled':>20}")
for voice in VOICES:
    suites = view(voice)
    profile = os.path.join(work, voice + ".speaker.json")
    subprocess.run([heed, "enroll", os.path.join(root, "Audio/enroll", voice, "enroll.txt"), "--output", profile],
                   env=env, stdout=subprocess.DEVNULL, check=True)
    trained = run(suites, voice + "-trained")
    enrolled = run(suites, voice + "-enrolled", "--speaker", profile)
    for name in trained:
        a, n, f, m = trained[name]
        b, _, g, _ = enrolled[name]
        print(f"{voice:10} {name:16} {a:>4}/{n:<4} FA {f:>2}/{m:<4} {b:>4}/{n:<4} FA {g:>2}/{m:<4}")
        t = totals.setdefault(name, [0, 0, 0, 0, 0, 0])
        for i, value in enumerate((a, n, f, m, b, g)):
            t[i] += value
for name, (a, n, f, m, b, g) in totals.items():
    print(f"{'all':10} {name:16} {a:>4}/{n:<4} FA {f:>2}/{m:<4} {b:>4}/{n:<4} FA {g:>2}/{m:<4}")
