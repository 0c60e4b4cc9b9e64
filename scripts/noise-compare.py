#!/usr/bin/env python3
"""Plain PocketSphinx beside Heed on the same noisy mixes of Audio/builtins.

For each noise and SNR, `heed test --keep-audio` mixes the recordings (seeded, so both decoders
get exactly the same audio) and scores Heed; pocketsphinx_batch then decodes the kept mixes with
the six commands as one JSGF rule, the way PocketSphinx is usually used for commands.
Usage: make release && scripts/noise-compare.py [--snr 24,12,6] [--noise pink,babble,...]
"""
import argparse, glob, json, os, subprocess, tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
heed = os.path.join(root, ".build/release/heed")
model = "/usr/share/pocketsphinx/model/en-us"
COMMANDS = ["start", "stop", "pause", "resume", "done", "cancel"]
parser = argparse.ArgumentParser()
parser.add_argument("--snr", default="24,18,12,9,6")
parser.add_argument("--noise", default="pink,brown,hum,babble,clatter")
args = parser.parse_args()
work = tempfile.mkdtemp(prefix="heed-noise-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))
gram = os.path.join(work, "commands.gram")
open(gram, "w").write("#JSGF V1.0;\ngrammar commands;\npublic <c> = " + " | ".join(COMMANDS) + ";\n")


def expected(name):
    word = os.path.basename(name).split("-")[0]
    return word if word in COMMANDS else None


def batch_scores(folder):
    files = sorted(glob.glob(os.path.join(folder, "*.wav")))
    ctl = os.path.join(work, "files.ctl")
    open(ctl, "w").write("".join(os.path.basename(f)[:-4] + "\n" for f in files))
    hyp = os.path.join(work, "batch.hyp")
    subprocess.run(["pocketsphinx_batch", "-adcin", "yes", "-adchdr", "44", "-cepdir", folder, "-cepext", ".wav", "-ctl", ctl,
                    "-hmm", os.path.join(model, "en-us"), "-dict", os.path.join(model, "cmudict-en-us.dict"), "-jsgf", gram,
                    "-hyp", hyp, "-logfn", "/dev/null"], check=True)
    got = {}
    for line in open(hyp):
        text, _, rest = line.rpartition(" (")
        got[rest.split()[0]] = text.strip()
    acc = pos = fa = neg = 0
    for f in files:
        name = os.path.basename(f)[:-4]
        want, heard = expected(name), got.get(name, "")
        if want is None:
            neg += 1
            fa += bool(heard)
        else:
            pos += 1
            acc += heard == want
    return acc, pos, fa, neg


print(f"{'condition':<16} {'pocketsphinx accepted':>22} {'false accept':>13}   {'Heed accepted':>14} {'false accept':>13}")
for noise in args.noise.split(","):
    for snr in args.snr.split(","):
        keep = os.path.join(work, f"{noise}{snr}")
        report = os.path.join(work, "report.json")
        subprocess.run([heed, "test", os.path.join(root, "Audio/builtins"), "--noise", os.path.join(root, f"Audio/noise/{noise}.wav"),
                        f"--snr={snr}", "--no-clean", "--keep-audio", keep, "--json", report], env=env, capture_output=True)
        condition = json.load(open(report))["conditions"][0]
        folder = glob.glob(os.path.join(keep, "*", "builtins"))[0]
        acc, pos, fa, neg = batch_scores(folder)
        print(f"{noise + ' @ ' + snr + ' dB':<16} {acc:>10}/{pos} {100 * acc / pos:5.1f} % {fa:>6}/{neg} {100 * fa / neg:4.0f} %"
              f"   {condition['accepted']:>6}/{condition['positives']} {100 * condition['acceptance']:5.1f} %"
              f" {condition['falseAcceptances']:>4}/{condition['negatives']} {100 * condition['falseAcceptance']:4.0f} %", flush=True)
