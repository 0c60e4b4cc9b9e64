#!/usr/bin/env python3
"""`make bench`: Heed's decode cost, latency and memory, side by side with plain PocketSphinx
(pocketsphinx_batch on the files, pocketsphinx_continuous -infile on the same files as one stream; each with
the six-word JSGF, and with Heed's own grammar from `heed context export`).

Prints one table. Figures go to BENCHMARKS.md by hand, with the machine they came from.
Usage: scripts/bench.py [--quick]   (--quick: 30 utterances of latency instead of 100)
"""
import array, atexit, glob, json, math, os, re, shutil, statistics, subprocess, sys, tempfile, time, wave

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
heed = os.path.join(root, ".build/release/heed")
model = "/usr/share/pocketsphinx/model/en-us"
corpus = os.path.join(os.path.dirname(root), "shared/corpus/pocketsphinx-test-data")
quick = "--quick" in sys.argv
work = tempfile.mkdtemp(prefix="heed-bench-")
# Some 26 MB of mixes and streams: removed when the bench ends, on an error or Ctrl-C too.
atexit.register(shutil.rmtree, work, ignore_errors=True)
# A test rig: temporary decisions and the test-rig policy, never the user's own.
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))
COMMANDS = ["start", "stop", "pause", "resume", "done", "cancel"]


def timed(cmd, **kw):
    """Runs cmd under GNU time; returns (stdout, wall s, cpu s, peak RSS MB)."""
    stats = os.path.join(work, "time.txt")
    out = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%e %U %S %M", *cmd], capture_output=True, text=True, **kw)
    wall, user, system, rss = open(stats).read().split()[-4:]
    return out.stdout, float(wall), float(user) + float(system), int(rss) / 1024


def duration(path):
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


def speech_end(frames, rate=16000, below=40):
    """Seconds from the start of 16-bit mono `frames` to the end of their last 10 ms frame within
    `below` dB of the loudest: where the speech in the recording ends, whatever the decoder says."""
    samples, n = array.array("h", frames), rate // 100
    levels = [10 * math.log10(max(sum(x * x for x in samples[i:i + n]) / n, 1)) for i in range(0, len(samples) - n + 1, n)]
    peak = max(levels)
    return (max(i for i, level in enumerate(levels) if level >= peak - below) + 1) * n / rate


def expected(path):
    name = os.path.basename(path).split("-")[0]
    return name if name in COMMANDS else None


def score(results):
    """results: {path: [intent or None for each understood utterance]} -> (accepted, positives, false, negatives)."""
    acc = pos = fa = neg = 0
    for path, got in results.items():
        want = expected(path)
        if want is None:
            neg += 1
            fa += bool(got)
        else:
            pos += 1
            acc += got == [want]
    return acc, pos, fa, neg


# 1. Decode cost on the same files, same model, same six-word grammar; interleaved A B A B.
files = sorted(glob.glob(os.path.join(root, "Audio/builtins/*.wav")))
audio_seconds = sum(duration(f) for f in files)
gram = os.path.join(work, "commands.gram")
open(gram, "w").write("#JSGF V1.0;\ngrammar commands;\npublic <c> = " + " | ".join(COMMANDS) + ";\n")
ctl = os.path.join(work, "files.ctl")
open(ctl, "w").write("".join(os.path.relpath(f, root)[:-4] + "\n" for f in files))
hyp = os.path.join(work, "batch.hyp")
batch = ["pocketsphinx_batch", "-adcin", "yes", "-adchdr", "44", "-cepdir", root, "-cepext", ".wav", "-ctl", ctl,
         "-hmm", os.path.join(model, "en-us"), "-dict", os.path.join(model, "cmudict-en-us.dict"), "-jsgf", gram,
         "-hyp", hyp, "-logfn", "/dev/null"]
# Heed's own grammar (the commands, their accent variants and the garbage loops), written out for
# plain PocketSphinx: the same language, so its runs on it compare at (nearly) Heed's rejection.
heed_fsg, heed_dict = os.path.join(work, "heed.fsg"), os.path.join(work, "heed.dict")
subprocess.run([heed, "context", "export", "--write-fsg", heed_fsg, "--write-dict", heed_dict], env=env, check=True)
hyp_fsg = os.path.join(work, "batch-fsg.hyp")
batch_fsg = ["pocketsphinx_batch", "-adcin", "yes", "-adchdr", "44", "-cepdir", root, "-cepext", ".wav", "-ctl", ctl,
             "-hmm", os.path.join(model, "en-us"), "-dict", heed_dict, "-fsg", heed_fsg, "-hyp", hyp_fsg, "-logfn", "/dev/null",
             # Heed's own setting (see Decoder.swift): PocketSphinx's noise removal wrecks the contexts' clean
             # recordings ("make me a large latte with oat milk" -> "are stop really old").
             "-remove_noise", "no"]


def command_of(words):
    """The built-in command that `words` (PocketSphinx's, with Heed's grammar) are, or None: a path
    through the garbage loops is not a command."""
    spoken = [re.sub(r"\(\d+\)$", "", w).replace("~nr", "") for w in words if w[:1] not in "<[+("]
    return spoken[0] if len(spoken) == 1 and spoken[0] in COMMANDS else None


def heed_intents(out, paths):
    """`heed recognize --json` output -> {path: [intent of each understood utterance]}."""
    results = {f: [] for f in paths}
    for line in out.splitlines():
        item = json.loads(line)
        if item["understood"]:
            results[item["file"]].append(item["intent"])
    return results


def batch_intents(hyp_file, base, paths, intent_of):
    """pocketsphinx_batch's -hyp file (utterance ids relative to `base`) -> {path: [intent]}, where
    `intent_of` turns a hypothesis text into a command or None."""
    results = {f: [] for f in paths}
    for line in open(hyp_file):
        text, _, rest = line.rpartition(" (")
        path = os.path.join(base, rest.split()[0] + ".wav")
        intent = intent_of(text)
        if path in results and intent:
            results[path] = [intent]
    return results


def six_word_intent(text):
    return text.strip() or None


runs = {"heed": [], "batch": [], "batch-fsg": []}
heed_results = {}
for _ in range(2):
    out, wall, cpu, rss = timed([heed, "recognize", "--json", *files], env=env)
    runs["heed"].append((cpu, rss))
    heed_results = heed_intents(out, files)
    _, wall, cpu, rss = timed(batch)
    runs["batch"].append((cpu, rss))
    _, wall, cpu, rss = timed(batch_fsg)
    runs["batch-fsg"].append((cpu, rss))
batch_results = batch_intents(hyp, root, files, six_word_intent)
batch_fsg_results = batch_intents(hyp_fsg, root, files, lambda text: command_of(text.split()))
model_load = timed([heed, "context", "check", os.path.join(root, "Models/contexts/lights.yml")])[1]

# 1b. The same recordings as one long stream: heed recognize against pocketsphinx_continuous
# -infile (its own voice activity detection), interleaved A B A B. Each decoded command is
# credited to the recording its middle falls in, then scored as above.
stream_wav = os.path.join(work, "builtins-stream.wav")
subprocess.run(["sox", *files, stream_wav], check=True)
spans, t = [], 0.0
for f in files:
    spans.append((t, t + duration(f), f))
    t += duration(f)

def credit(found):
    results = {f: [] for f in files}
    for start, end, intent in found:
        middle = (start + end) / 2
        owner = next((f for a, b, f in spans if a <= middle < b), None)
        if owner:
            results[owner].append(intent)
    return results

continuous = ["pocketsphinx_continuous", "-infile", stream_wav, "-hmm", os.path.join(model, "en-us"),
              "-dict", os.path.join(model, "cmudict-en-us.dict"), "-jsgf", gram, "-time", "yes", "-logfn", "/dev/null"]
continuous_fsg = ["pocketsphinx_continuous", "-infile", stream_wav, "-hmm", os.path.join(model, "en-us"),
                  "-dict", heed_dict, "-fsg", heed_fsg, "-time", "yes", "-logfn", "/dev/null", "-remove_noise", "no"]


def continuous_commands(out):
    """(start, end, command) for each utterance pocketsphinx_continuous -time yes decoded to a command:
    a hypothesis line, then one 'word start end probability' line per word."""
    found, words = [], None
    def close():
        spoken = [w for w in (words or []) if w[0][:1] not in "<[+("]
        intent = command_of([w for w, _, _ in spoken])
        if intent:
            found.append((spoken[0][1], spoken[-1][2], intent))
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and re.fullmatch(r"-?[\d.]+", fields[1]) and re.fullmatch(r"-?[\d.]+", fields[2]):
            words = (words or []) + [(fields[0], float(fields[1]), float(fields[2]))]
        else:
            close()
            words = []
    close()
    return found


stream_runs = {"heed": [], "continuous": [], "continuous-fsg": []}
for _ in range(2):
    out, _, cpu, rss = timed([heed, "recognize", "--json", stream_wav], env=env)
    stream_runs["heed"].append((cpu, rss))
    heed_stream = credit([(e["start"], e["end"], e["intent"]) for e in map(json.loads, out.splitlines()) if e["understood"]])
    out, _, cpu, rss = timed(continuous)
    stream_runs["continuous"].append((cpu, rss))
    words = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[0] in COMMANDS:
            words.append((float(fields[1]), float(fields[2]), fields[0]))
    continuous_stream = credit(words)
    out, _, cpu, rss = timed(continuous_fsg)
    stream_runs["continuous-fsg"].append((cpu, rss))
    continuous_fsg_stream = credit(continuous_commands(out))

# 1c. Noisy input: the same recordings mixed with room noise at 12 dB (`heed test --keep-audio` makes
# the mixes), decoded by heed recognize and by pocketsphinx_batch with the six-word JSGF, interleaved.
# Quiet files never reach Heed's noisy-utterance passes (suppressed audio, background talk), so only
# this shows what they cost.
noisy = {}
for noise_name in ["pink", "babble"]:
    keep = os.path.join(work, "mixes-" + noise_name)
    subprocess.run([heed, "test", os.path.join(root, "Audio/builtins"), "--noise", os.path.join(root, "Audio/noise", noise_name + ".wav"),
                    "--snr", "12", "--no-clean", "--keep-audio", keep], env=env, capture_output=True)
    mixes = sorted(glob.glob(os.path.join(keep, "*", "*", "*.wav")))
    mix_ctl, mix_hyp = os.path.join(work, noise_name + ".ctl"), os.path.join(work, noise_name + ".hyp")
    open(mix_ctl, "w").write("".join(os.path.relpath(f, keep)[:-4] + "\n" for f in mixes))
    mix_batch = batch[:]
    for flag, value in [("-cepdir", keep), ("-ctl", mix_ctl), ("-hyp", mix_hyp)]:
        mix_batch[mix_batch.index(flag) + 1] = value
    mix_runs = {"heed": [], "batch": []}
    for _ in range(2):
        out, _, cpu, rss = timed([heed, "recognize", "--json", *mixes], env=env)
        mix_runs["heed"].append((cpu, rss))
        heed_mix = heed_intents(out, mixes)
        _, _, cpu, rss = timed(mix_batch)
        mix_runs["batch"].append((cpu, rss))
    noisy[noise_name] = (mix_runs, heed_mix, batch_intents(mix_hyp, keep, mixes, six_word_intent))

# 2. Latency: end of speech to intent event, on paced live input (heed listen --input).
count = 30 if quick else 100
positives = [f for f in files if expected(f)]
chosen = [positives[i % len(positives)] for i in range(count)]
long_wav = os.path.join(work, "commands.wav")
speech_ends, offset = [], 0.0  # where each recording's speech ends in the stream, in seconds
with wave.open(long_wav, "wb") as out:
    out.setnchannels(1); out.setsampwidth(2); out.setframerate(16000)
    for f in chosen:
        with wave.open(f) as w:
            frames = w.readframes(w.getnframes())
            out.writeframes(frames)
            speech_ends.append(offset + speech_end(frames))
            offset += w.getnframes() / 16000
started = time.time()
out, wall, cpu, listen_rss = timed([heed, "listen", "--json", "--input", long_wav], env=env)
events = [json.loads(l) for l in out.splitlines()]
listening = next(e for e in events if e["event"] == "listening")
heard = [e for e in events if e["event"] in ("intent", "not-understood")]
# Two yardsticks: the end of the decoder's last word (where it aligned the word, which moves with
# the model: over the quiet floor it came ~130 ms earlier), and the end of the speech in the
# recording the event came from (the last recording whose speech ends before the decoder's end
# plus half a second).
latencies = [(e["timestamp"] - listening["timestamp"] - e["end"]) * 1000 for e in heard]
audio_latencies = [(e["timestamp"] - listening["timestamp"] - max(end for end in speech_ends if end <= e["end"] + 0.5)) * 1000
                   for e in heard if any(end <= e["end"] + 0.5 for end in speech_ends)]
stopped = events[-1]
startup = listening["timestamp"] - started

# Idle: 30 s of room noise only.
noise = os.path.join(work, "noise.wav")
subprocess.run(["sox", "-q", "-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", "30", "pinknoise", "vol", "0.002"], check=True)
_, idle_wall, idle_cpu, _ = timed([heed, "listen", "--json", "--input", noise], env=env)

# 4. Ring buffer: samples per second from a producer thread to a consumer thread (median of 3).
ring_bin = os.path.join(os.path.dirname(heed), "heed-ring-bench")
ring_runs = [json.loads(subprocess.run([ring_bin], capture_output=True, text=True, check=True).stdout) for _ in range(3)]
ring = sorted(ring_runs, key=lambda r: r["samplesPerSecond"])[1]

# 3. Context compile: a large generated context (100 expressions), against the smallest one.
words = ["red", "green", "blue", "white", "black", "brown", "gray", "pink", "orange", "yellow",
         "kitchen", "garden", "hallway", "office", "garage", "bedroom", "bathroom", "attic", "porch", "cellar"]
big = os.path.join(work, "big.yml")
with open(big, "w") as f:
    f.write("context:\n  expressions:\n")
    for n in range(100):
        f.write(f"    intent{n}:\n      - \"[turn, make, set, switch] (the) $a:x [on, off, up, down] $b:y (the) [lights, lamp, fan, heater] $c:z [now, please, quickly, today]\"\n")
    f.write("  slots:\n" + "".join(f"    {s}: [{', '.join(words)}]\n" for s in "abc"))
big_check = timed([heed, "context", "check", big])[1]

def comparison(other, heed_runs, heed_results, other_runs, other_results):
    """One side-by-side table: heed against `other`, CPU as the median of the interleaved runs."""
    h_cpu, o_cpu = (statistics.median(c for c, _ in r) for r in (heed_runs, other_runs))
    (h_acc, h_pos, h_fa, h_neg), (o_acc, o_pos, o_fa, o_neg) = score(heed_results), score(other_results)
    print(f"| | heed recognize | {other} |")
    print("| --- | --- | --- |")
    print(f"| CPU s per audio s | {h_cpu / audio_seconds:.4f} | {o_cpu / audio_seconds:.4f} |")
    print(f"| ratio | {h_cpu / o_cpu:.2f}x | 1x |")
    print(f"| commands accepted | {h_acc}/{h_pos} | {o_acc}/{o_pos} |")
    print(f"| false acceptance | {h_fa}/{h_neg} | {o_fa}/{o_neg} |")
    print(f"| peak RSS | {max(r for _, r in heed_runs):.1f} MB | {max(r for _, r in other_runs):.1f} MB |")
    print("")


q = statistics.quantiles(latencies, n=20)
print(f"machine: {os.uname().nodename} {os.uname().machine}, {os.cpu_count()} cores")
print(f"decode set: Audio/builtins, {len(files)} files, {audio_seconds:.1f} s of audio, one process each, median of 2 interleaved runs")
print("")
comparison("pocketsphinx_batch (same model, six-word JSGF)", runs["heed"], heed_results, runs["batch"], batch_results)
print("the same files against Heed's own grammar (`heed context export`: commands, accent variants, garbage loops):")
print("")
comparison("pocketsphinx_batch -fsg (Heed's grammar)", runs["heed"], heed_results, runs["batch-fsg"], batch_fsg_results)
print(f"the same {len(files)} recordings as one {audio_seconds:.0f} s stream, median of 2 interleaved runs:")
print("")
comparison("pocketsphinx_continuous -infile (six-word JSGF)", stream_runs["heed"], heed_stream, stream_runs["continuous"], continuous_stream)
comparison("pocketsphinx_continuous -infile -fsg (Heed's grammar)", stream_runs["heed"], heed_stream, stream_runs["continuous-fsg"], continuous_fsg_stream)
for noise_name, (mix_runs, heed_mix, batch_mix) in noisy.items():
    print(f"the same {len(files)} recordings mixed with {noise_name} noise at 12 dB (heed test --keep-audio), median of 2 interleaved runs:")
    print("")
    comparison("pocketsphinx_batch (six-word JSGF)", mix_runs["heed"], heed_mix, mix_runs["batch"], batch_mix)
qa = statistics.quantiles(audio_latencies, n=20)
print(f"latency to the intent event, heed listen --input, {len(latencies)} utterances (includes the trailing silence that ends an utterance):")
print(f"  from the end of the speech in the recording ({len(audio_latencies)}): p50 {statistics.median(audio_latencies):.0f} ms, "
      f"p95 {qa[18]:.0f} ms, max {max(audio_latencies):.0f} ms")
print(f"  from the end of the decoder's last word: p50 {statistics.median(latencies):.0f} ms, p95 {q[18]:.0f} ms, max {max(latencies):.0f} ms")
print(f"listen: peak RSS {listen_rss:.1f} MB, CPU {100 * cpu / wall:.1f} % of one core while commands are spoken, "
      f"{100 * idle_cpu / idle_wall:.1f} % in 30 s of room noise; dropped samples {stopped.get('droppedSamples')}")
print(f"start-up to listening: {startup:.2f} s; model load alone (heed context check, small context): {model_load:.2f} s")
print(f"context compile, 100 expressions of ~4e9 sentences each (heed context check, model load included): {big_check:.2f} s")
print(f"ring buffer (2 s at 16 kHz, 160-sample periods, producer flat out): {ring['samplesPerSecond'] / 1e6:.0f} M samples/s "
      f"delivered to the consumer ({ring['samplesPerSecond'] / 16000:.0f}x real time), {ring['outOfOrder']} out of order, "
      f"{ring['dropped'] / ring['samples']:.0%} dropped because the producer lapped the consumer")
