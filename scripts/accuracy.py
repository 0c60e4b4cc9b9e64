#!/usr/bin/env python3
"""`make accuracy`: Heed on the real-speech suites, in quiet and with real noise, beside plain
PocketSphinx on the very same files and mixes in the same run; and false commands per hour.

- Suites: coffee (the coffee-maker context), words (the built-ins: "stop"/"start" must be heard,
  every other word and the silence clips not), keywords (the ten Speech Commands keywords).
  Heed runs as a user runs it: `heed test SUITE --noise ... --rotate-noises --snr ...`, every
  real noise of ../shared/real-noise mixed in turn (one noise per file and SNR, a fixed rule),
  writing every mix it decoded (--keep-audio). pocketsphinx_batch then decodes those same mixes
  with default settings and no rejection: coffee against the context's language as a minimal
  word graph, words and keywords against their words as a JSGF.
- Streams nobody gives a command in: every real-noise recording, and the AN4 utterances without
  a command word, through `heed recognize` with each vocabulary; plain PocketSphinx
  (pocketsphinx_continuous, the same grammars) on the same streams.

Usage: scripts/accuracy.py [--every N] [--snr 24,18,12,6] [--suites coffee,words,keywords]
                           [--quiet-only] [--no-streams] [--no-plain] [--json OUT] [-- HEED OPTIONS]
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time
from concurrent.futures import ThreadPoolExecutor
from realspeech import (COMMANDS, KEYWORDS, expectations, heed, model, plain_batch, real, real_noises, rhino_to_regex_and_jsgf,
                        root, subset, talk_streams, to_16k)

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("--every", type=int, default=1, help="every Nth file of each suite only (default 1: all)")
parser.add_argument("--offset", type=int, default=0, help="with --every N, start from this file (make detector fits on --every 2 --offset 0)")
parser.add_argument("--snr", default="24,18,12,6")
parser.add_argument("--suites", default="coffee,words,keywords")
parser.add_argument("--quiet-only", action="store_true")
parser.add_argument("--no-streams", action="store_true")
parser.add_argument("--no-plain", action="store_true", help="Heed only")
parser.add_argument("--json")
parser.add_argument("heed_args", nargs="*")
args = parser.parse_args()
if not os.path.isdir(real):
    sys.exit(f"accuracy: {real} is missing (the real-speech suites live beside the project)")
noises = real_noises()
work = tempfile.mkdtemp(prefix="heed-accuracy-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))
coffee_context = os.path.join(real, "coffee", "coffee_maker.yaml")
keywords_context = os.path.join(real, "keywords", "keywords.yml")
VOCABULARY_FLAGS = {"coffee": ["--no-builtins", "--context", coffee_context], "builtins": [],
                    "keywords": ["--no-builtins", "--context", keywords_context]}


def log(text):
    print(text, file=sys.stderr, flush=True)


def jsgf(words):
    return "#JSGF V1.0;\ngrammar commands;\npublic <c> = " + " | ".join(words) + ";\n"


def single_word(words):
    return lambda heard: (heard[0], {}) if len(heard) == 1 and heard[0] in words else None


def plain_grammar(vocabulary):
    """(JSGF path, FSG path, dictionary path, meaning) for plain PocketSphinx."""
    if vocabulary == "coffee":
        _, meaning = rhino_to_regex_and_jsgf(coffee_context)
        fsg, dictionary = os.path.join(work, "coffee.fsg"), os.path.join(work, "coffee.dict")
        subprocess.run([heed, "context", "export", "--language-only", "--no-builtins", "--context", coffee_context,
                        "--write-fsg", fsg, "--write-dict", dictionary], env=env, check=True)
        return None, fsg, dictionary, meaning
    words = COMMANDS if vocabulary == "builtins" else KEYWORDS
    path = os.path.join(work, f"{vocabulary}.gram")
    open(path, "w").write(jsgf(words))
    return path, None, None, single_word(words)


SUITES = {"coffee": "coffee", "words": "builtins", "keywords": "keywords"}
snrs = [] if args.quiet_only else [float(x) for x in args.snr.split(",") if x]
report = {"every": args.every, "heedArgs": args.heed_args, "noises": [os.path.basename(n) for n in noises], "suites": {}, "streams": []}

# --- the suites -----------------------------------------------------------------------------------
for name in [n for n in args.suites.split(",") if n]:
    vocabulary = SUITES[name]
    suite_dir = subset(name, args.every, os.path.join(work, "suites-" + name), args.offset)
    suite, expected = expectations(suite_dir)
    gram, fsg, dictionary, meaning = plain_grammar(vocabulary)
    keep = os.path.join(work, "keep", name)
    heed_json = os.path.join(work, f"{name}.json")
    command = [heed, "test", suite_dir, "--json", heed_json, "--keep-audio", keep, *args.heed_args]
    if snrs:
        command += ["--rotate-noises", "--snr", ",".join(f"{s:g}" for s in snrs)]
        for noise in noises:
            command += ["--noise", noise]
    log(f"== {name}: {len(expected)} files, {len(snrs) + 1} conditions")
    started = time.time()
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL)
    log(f"   heed: {time.time() - started:.0f} s")
    rows = []  # one per file and condition: snr, noise, expected, heed's outcome, plain's outcome
    for condition in json.load(open(heed_json))["conditions"]:
        label = condition["name"]
        snr = condition.get("snr")
        folder = suite_dir if condition["kind"] == "clean" else os.path.join(keep, label.replace(" ", ""), os.path.basename(suite_dir))
        results = {os.path.basename(r["file"]): r for r in condition["results"]}
        plain = {}
        if not args.no_plain:
            files = [os.path.realpath(os.path.join(folder, f.replace("../", "") if condition["kind"] != "clean" else f)) for f in expected]
            converted = to_16k(files, os.path.join(work, "plain", label.replace(" ", ""), name))
            words = plain_batch(converted, gram, os.path.join(work, f"{name}-{label.replace(' ', '')}.hyp"), fsg, dictionary)
            plain = {os.path.basename(f): meaning(words[c]) if words[c] else None for f, c in zip(files, converted)}
        for file, want in expected.items():
            result = results[os.path.basename(file)]
            understood = [(g["intent"], g.get("slots", {})) for g in result["got"] if g["understood"] and g.get("intent")]
            rows.append({"file": file, "snr": snr, "noise": result.get("noise"), "want": want,
                         "heed": understood, "plain": plain.get(os.path.basename(file), "-") if plain else "-",
                         "cpu": result["cpuSeconds"], "audio": result["audioSeconds"]})
        log(f"   {label}: done")
    report["suites"][name] = rows

# --- the streams ----------------------------------------------------------------------------------


def heed_stream(wav, vocabulary):
    out = subprocess.run([heed, "recognize", "--json", *VOCABULARY_FLAGS[vocabulary], *args.heed_args, wav],
                         env=env, capture_output=True, text=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{") and '"understood":true' in line]


def plain_stream(wav, vocabulary):
    gram, fsg, dictionary, meaning = plain_grammar(vocabulary)
    command = ["pocketsphinx_continuous", "-infile", wav, "-hmm", os.path.join(model, "en-us"),
               "-dict", dictionary or os.path.join(model, "cmudict-en-us.dict"), *(["-fsg", fsg] if fsg else ["-jsgf", gram]),
               "-logfn", "/dev/null"]
    out = subprocess.run(command, capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line.strip() and meaning(line.split())]


if not args.no_streams:
    streams = [(n, "noise") for n in noises] + [(p, "talk") for p in sorted(set(talk_streams(work).values()))]
    jobs = []
    for wav, kind in streams:
        for vocabulary in VOCABULARY_FLAGS:
            if kind == "talk" and f"talk-{vocabulary}-" not in wav:
                continue
            jobs.append((wav, kind, vocabulary))
    log(f"== streams: {len(jobs)} runs")
    started = time.time()

    def run(job):
        wav, kind, vocabulary = job
        converted = wav
        if kind == "noise":
            converted = to_16k([wav], os.path.join(work, "streams"))[0]
        plain = None if args.no_plain else len(plain_stream(converted, vocabulary))
        return {"file": os.path.basename(wav), "kind": kind, "vocabulary": vocabulary, "seconds": os.path.getsize(converted) / 32000,
                "heed": [(u["intent"], u["transcript"], u["start"]) for u in heed_stream(wav, vocabulary)], "plain": plain}
    with ThreadPoolExecutor(2) as pool:
        report["streams"] = list(pool.map(run, jobs))
    log(f"   streams: {time.time() - started:.0f} s")

# --- PocketSphinx keyword spotting, for the DET table ----------------------------------------------
KWS_THRESHOLDS = ["1e+30", "1e+20", "1e+10", "1e-1"]


def kws_file(words, threshold):
    path = os.path.join(work, f"kws-{len(words)}-{threshold}.txt")
    open(path, "w").write("".join(f"{w} /{threshold}/\n" for w in words))
    return path


def kws_batch(files, words, threshold, hyp_path):
    """{file: the first keyword spotted, or None} for 16 kHz WAVs, on both cores."""
    procs = []
    for index, half in enumerate([files[0::2], files[1::2]]):
        ctl, hyp = f"{hyp_path}.{index}.ctl", f"{hyp_path}.{index}"
        open(ctl, "w").write("".join(f"{f[:-4]}\n" for f in half))
        procs.append((subprocess.Popen(["pocketsphinx_batch", "-adcin", "yes", "-adchdr", "44", "-cepdir", "/", "-cepext", ".wav",
                                        "-ctl", ctl, "-hmm", os.path.join(model, "en-us"),
                                        "-dict", os.path.join(model, "cmudict-en-us.dict"), "-kws", kws_file(words, threshold),
                                        "-hyp", hyp, "-logfn", "/dev/null"]), hyp))
    spotted = {}
    for proc, hyp in procs:
        proc.wait()
        for line in open(hyp):
            match = re.match(r"(.*?)\s*\((\S+)(?: -?\d+)?\)\s*$", line)
            if match:
                heard = match.group(1).split()
                spotted[match.group(2)] = heard[0] if heard else None
    return {f: spotted.get(f[:-4]) for f in files}


def kws_stream(wav, words, threshold):
    out = subprocess.run(["pocketsphinx_continuous", "-infile", wav, "-hmm", os.path.join(model, "en-us"),
                          "-dict", os.path.join(model, "cmudict-en-us.dict"), "-kws", kws_file(words, threshold), "-logfn", "/dev/null"],
                         capture_output=True, text=True)
    return sum(len([w for w in line.split() if w in words]) for line in out.stdout.splitlines())


kws = {}
if not args.no_plain and not args.no_streams:
    log("== keyword spotting (quiet suites and the streams)")
    for name, vocabulary in (("words", "builtins"), ("keywords", "keywords")):
        if name not in report["suites"]:
            continue
        words = COMMANDS if vocabulary == "builtins" else KEYWORDS
        suite_dir = os.path.join(work, "suites-" + name, "suites", name)
        _, expected = expectations(suite_dir)
        files = to_16k([os.path.realpath(os.path.join(suite_dir, f)) for f in expected], os.path.join(work, "kws", name))
        for threshold in KWS_THRESHOLDS:
            spotted = kws_batch(files, words, threshold, os.path.join(work, f"kws-{name}-{threshold}.hyp"))
            results = dict(zip(expected, files))
            positives = [f for f, want in expected.items() if want]
            negatives = [f for f, want in expected.items() if not want]
            heard = sum(spotted[results[f]] == expected[f][0] for f in positives)
            another = sum(spotted[results[f]] not in (None, expected[f][0]) for f in positives)
            taken = sum(spotted[results[f]] is not None for f in negatives)
            streams_run = [s for s in report["streams"] if s["vocabulary"] == vocabulary]
            hours = sum(s["seconds"] for s in streams_run) / 3600
            wavs = [s for s in streams_run]
            false = sum(kws_stream(os.path.join(work, "streams", s["file"]) if s["kind"] == "noise" else os.path.join(work, s["file"]),
                                   words, threshold) for s in wavs)
            kws[(name, threshold)] = dict(heard=heard, positives=len(positives), another=another, taken=taken,
                                          negatives=len(negatives), perHour=false / max(hours, 1e-9))
    report["kws"] = {f"{k[0]} {k[1]}": v for k, v in kws.items()}

# --- the tables -----------------------------------------------------------------------------------


def pct(a, b):
    return f"{100 * a / b:.1f} %" if b else "-"


def right(outcome, want):
    """Heed's outcome: every command understood; plain's: one meaning or None."""
    if isinstance(outcome, list):
        return len(outcome) == 1 and outcome[0][0] == want[0] and outcome[0][1] == want[1]
    return outcome is not None and outcome != "-" and outcome[0] == want[0] and outcome[1] == want[1]


def taken(outcome):
    return bool(outcome) if isinstance(outcome, list) else outcome not in (None, "-")


def another(outcome, want):
    """Heard as a different command (a "stop" heard as "start")."""
    if isinstance(outcome, list):
        return any(o[0] != want[0] for o in outcome)
    return outcome not in (None, "-") and outcome[0] != want[0]


def condition_name(snr):
    return "quiet" if snr is None else f"real noise @ {snr:g} dB"


print(f"\nReal speech (every {args.every}. file from the {args.offset}.); noises in turn: {len(noises)} real recordings"
      + (f"; heed {' '.join(args.heed_args)}" if args.heed_args else ""))
print("| suite | condition | Heed heard | plain heard | Heed: other words taken | plain: other words taken | Heed: as another command | plain: as another command | Heed CPU s / audio s |")
print("|---|---|---|---|---|---|---|---|---|")
for name, rows in report["suites"].items():
    for snr in [None] + snrs:
        chosen = [r for r in rows if r["snr"] == snr]
        positives = [r for r in chosen if r["want"]]
        negatives = [r for r in chosen if not r["want"]]
        cells = []
        for who in ("heed", "plain"):
            cells.append(f"{sum(right(r[who], r['want']) for r in positives)}/{len(positives)} {pct(sum(right(r[who], r['want']) for r in positives), len(positives))}")
        for who in ("heed", "plain"):
            cells.append(f"{sum(taken(r[who]) for r in negatives)}/{len(negatives)} {pct(sum(taken(r[who]) for r in negatives), len(negatives))}" if negatives else "-")
        for who in ("heed", "plain"):
            cells.append(f"{sum(another(r[who], r['want']) for r in positives)} {pct(sum(another(r[who], r['want']) for r in positives), len(positives))}")
        cpu = sum(r["cpu"] for r in chosen) / max(sum(r["audio"] for r in chosen), 1e-9)
        print(f"| {name} | {condition_name(snr)} | " + " | ".join(cells) + f" | {cpu:.3f} |")
    if snrs:
        noisy = [r for r in rows if r["snr"] is not None and r["want"]]
        h = sum(right(r["heed"], r["want"]) for r in noisy)
        p = sum(right(r["plain"], r["want"]) for r in noisy)
        print(f"| {name} | real noise, mean of {'/'.join(f'{s:g}' for s in snrs)} dB | {pct(h, len(noisy))} | {pct(p, len(noisy))} | | | | | |")

if snrs:
    print("\nPer noise (all SNRs together; requests and keywords heard):")
    print("| noise | " + " | ".join(f"{n}: Heed | {n}: plain" for n in report["suites"]) + " |")
    print("|---|" + "---|---|" * len(report["suites"]))
    for noise in noises:
        label = os.path.splitext(os.path.basename(noise))[0]
        cells = []
        for name, rows in report["suites"].items():
            chosen = [r for r in rows if r["noise"] == label and r["want"]]
            cells.append(pct(sum(right(r["heed"], r["want"]) for r in chosen), len(chosen)))
            cells.append(pct(sum(right(r["plain"], r["want"]) for r in chosen), len(chosen)))
        print(f"| {label} | " + " | ".join(cells) + " |")

if report["streams"]:
    print("\nFalse commands per hour, streams with no command in them:")
    print("| stream | vocabulary | hours | Heed commands | Heed per hour | plain commands | plain per hour |")
    print("|---|---|---|---|---|---|---|")
    for kind in ("noise", "talk"):
        for vocabulary in VOCABULARY_FLAGS:
            chosen = [s for s in report["streams"] if s["kind"] == kind and s["vocabulary"] == vocabulary]
            hours = sum(s["seconds"] for s in chosen) / 3600
            h = sum(len(s["heed"]) for s in chosen)
            p = sum(s["plain"] or 0 for s in chosen)
            label = "real noise (14 recordings)" if kind == "noise" else "AN4 talk without command words"
            print(f"| {label} | {vocabulary} | {hours:.2f} | {h} | {h / hours:.1f} | {p if not args.no_plain else '-'} | "
                  + (f"{p / hours:.0f}" if not args.no_plain else "-") + " |")
    for s in report["streams"]:
        for intent, transcript, start in s["heed"]:
            log(f"   false command: {s['file']} ({s['vocabulary']}) at {start:.1f} s: {intent} \"{transcript}\"")
if kws:
    print("\nPocketSphinx keyword spotting (pocketsphinx_batch / _continuous -kws, one threshold for every word), quiet:")
    print("| suite | threshold | heard | as another command | other words taken | false commands per hour (streams) |")
    print("|---|---|---|---|---|---|")
    for (name, threshold), k in kws.items():
        print(f"| {name} | {threshold} | {pct(k['heard'], k['positives'])} | {pct(k['another'], k['positives'])} | "
              f"{pct(k['taken'], k['negatives'])} | {k['perHour']:.0f} |")
if args.json:
    json.dump(report, open(args.json, "w"), indent=1)
shutil.rmtree(work, ignore_errors=True)
