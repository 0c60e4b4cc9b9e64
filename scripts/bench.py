#!/usr/bin/env python3
"""`make bench`: what Heed costs on a board, beside plain PocketSphinx on the same files in the same run.

1. A real context: people ordering coffee (../shared/real-speech/coffee) against Picovoice's
   coffee-maker context (80 expressions), in quiet and mixed with a real running tap and a real kitchen sink
   at 12 dB. Heed (`heed recognize`, one process) against pocketsphinx_batch on the context's
   language as a minimal word graph (`heed context export --language-only`), interleaved A B A B:
   CPU per audio second, the ratio, peak RSS, accuracy of both. The same noisy files against a
   generated 100-expression context: peak RSS.
2. Long speech: a person reading (librivox), one stream, against pocketsphinx_continuous.
3. Memory over a long noisy stream (15 minutes; 5 with --quick) piped into `heed recognize -`:
   RSS sampled as it runs.
4. Latency from the end of speech to the intent event on paced live input (`heed listen --input`):
   whole commands nothing can follow (the built-ins), and real coffee orders (which may go on).
5. Start-up, context compile, the ring buffer.
6. The service: `heed serve --wyoming` with 1, 4 and 8 Wyoming clients (the PyPI client from
   .build/test-venv) each sending a real request at once: wall time per request and the
   service's peak RSS.

Prints one report. Figures go to BENCHMARKS.md by hand, with the machine they came from.
Usage: scripts/bench.py [--quick]   (--quick: every 10th request instead of every 3rd, shorter streams)
"""
import array, atexit, glob, json, math, os, re, resource, shutil, statistics, subprocess, sys, tempfile, threading, time, wave
from realspeech import COMMANDS, batch_command, expectations, heed, model, read_hyp, real, rhino_to_regex_and_jsgf, root, shared, subset, to_16k

quick = "--quick" in sys.argv
every = 10 if quick else 3
work = tempfile.mkdtemp(prefix="heed-bench-")
# Mixes and streams: removed when the bench ends, on an error or Ctrl-C too.
atexit.register(shutil.rmtree, work, ignore_errors=True)
# A test rig: temporary decisions and the test-rig policy, never the user's own.
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))
if not os.path.isdir(real):
    sys.exit(f"bench: {real} is missing (the real-speech suites live beside the project)")


def log(text):
    print(text, file=sys.stderr, flush=True)


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


# --- 1. The coffee-maker context on real requests ---------------------------------------------

suite_dir = subset("coffee", every, work)
suite, expected = expectations(suite_dir)
context = os.path.join(suite_dir, suite["contexts"][0])
_, meaning = rhino_to_regex_and_jsgf(context)
fsg, dictionary = os.path.join(work, "coffee.fsg"), os.path.join(work, "coffee.dict")
subprocess.run([heed, "context", "export", "--language-only", "--no-builtins", "--context", context,
                "--write-fsg", fsg, "--write-dict", dictionary], env=env, check=True)
graph_size = re.search(r"(\d[\d,]*) states", subprocess.run([heed, "context", "check", context], env=env, capture_output=True, text=True).stdout)


def heed_accepted(out, files):
    """`heed recognize --json` lines -> how many files gave exactly their one expected intent and slots."""
    got = {f: [] for f in files}
    for line in out.splitlines():
        item = json.loads(line)
        if item.get("understood"):
            got[item["file"]].append((item["intent"], item.get("slots", {})))
    return sum(got[f] == [expected[os.path.basename(f)]] for f in files)


def batch_accepted(files):
    """pocketsphinx_batch (one process, timed) on `files` -> (accepted, cpu s, peak RSS MB)."""
    ctl, hyp = os.path.join(work, "batch.ctl"), os.path.join(work, "batch.hyp")
    open(ctl, "w").write("".join(f[:-4] + "\n" for f in files))
    _, _, cpu, rss = timed(batch_command(ctl, hyp, fsg=fsg, dictionary=dictionary))
    words = read_hyp(hyp)
    accepted = sum(meaning(words.get(f[:-4], [])) == expected[os.path.basename(f)] for f in files if words.get(f[:-4]))
    return accepted, cpu, rss


def compare(label, files):
    """Heed and pocketsphinx_batch on `files`, interleaved twice; one row of the table."""
    seconds = sum(duration(f) for f in files)
    converted = to_16k(files, os.path.join(work, "plain", label.replace(" ", "")))
    heed_runs, plain_runs = [], []
    for _ in range(2):
        out, _, cpu, rss = timed([heed, "recognize", "--json", "--no-builtins", "--context", context, *files], env=env)
        heed_runs.append((cpu, rss, heed_accepted(out, files)))
        accepted, cpu, rss = batch_accepted(converted)
        plain_runs.append((cpu, rss, accepted))
    h_cpu, p_cpu = statistics.median(r[0] for r in heed_runs), statistics.median(r[0] for r in plain_runs)
    row = (label, len(files), seconds, h_cpu / seconds, p_cpu / seconds, h_cpu / p_cpu, max(r[1] for r in heed_runs),
           max(r[1] for r in plain_runs), heed_runs[-1][2], plain_runs[-1][2])
    log(f"   {label}: heed {row[3]:.3f} CPU/s {row[6]:.1f} MB {row[8]}/{len(files)}; plain {row[4]:.3f} {row[7]:.1f} MB {row[9]}/{len(files)}")
    return row


log(f"== coffee requests, every {every}. file ({len(expected)})")
quiet_files = [os.path.realpath(os.path.join(suite_dir, f)) for f in expected]
rows = [compare("quiet", quiet_files)]
mixes = {}
# Real noise: a running tap (steady) and a kitchen sink (clatter that changes), from ../shared/real-noise.
NOISES = {"tap": "running-tap", "dishes": "doing-the-dishes"}
for noise, recording in NOISES.items():
    keep = os.path.join(work, "mixes-" + noise)
    subprocess.run([heed, "test", suite_dir, "--noise", os.path.join(shared, "real-noise", recording + ".wav"), "--snr", "12",
                    "--no-clean", "--keep-audio", keep], env=env, capture_output=True)
    mixes[noise] = sorted(glob.glob(os.path.join(keep, "*", "*", "*.wav")))
    rows.append(compare(f"real {recording} at 12 dB", mixes[noise]))

# The largest context the issue allows (100 expressions, three 20-word slots), on the noisy files.
words = ["red", "green", "blue", "white", "black", "brown", "gray", "pink", "orange", "yellow",
         "kitchen", "garden", "hallway", "office", "garage", "bedroom", "bathroom", "attic", "porch", "cellar"]
big = os.path.join(work, "big.yml")
with open(big, "w") as f:
    f.write("context:\n  expressions:\n")
    for n in range(100):
        f.write(f"    intent{n}:\n      - \"[turn, make, set, switch] (the) $a:x [on, off, up, down] $b:y (the) [lights, lamp, fan, heater] $c:z [now, please, quickly, today]\"\n")
    f.write("  slots:\n" + "".join(f"    {s}: [{', '.join(words)}]\n" for s in "abc"))
_, big_wall, big_cpu, big_rss = timed([heed, "recognize", "--json", "--context", big, *mixes["dishes"]], env=env)
big_check = timed([heed, "context", "check", big])[1]

# --- 2. Long speech: a person reading ---------------------------------------------------------

log("== long speech")
reading = os.path.join(work, "librivox.wav")
librivox = sorted(glob.glob(os.path.join(os.path.dirname(real), "corpus/pocketsphinx-test-data/librivox/*.wav")))
subprocess.run(["sox", *librivox, *librivox, "-r", "16000", "-c", "1", "-b", "16", reading], check=True)
gram = os.path.join(work, "commands.gram")
open(gram, "w").write("#JSGF V1.0;\ngrammar commands;\npublic <c> = " + " | ".join(COMMANDS) + ";\n")
long_runs = {"heed": [], "plain": []}
for _ in range(2):
    out, _, cpu, rss = timed([heed, "recognize", "--json", reading], env=env)
    long_runs["heed"].append((cpu, rss, sum(bool(json.loads(l).get("understood")) for l in out.splitlines())))
    out, _, cpu, rss = timed(["pocketsphinx_continuous", "-infile", reading, "-hmm", os.path.join(model, "en-us"),
                              "-dict", os.path.join(model, "cmudict-en-us.dict"), "-jsgf", gram, "-logfn", "/dev/null"])
    long_runs["plain"].append((cpu, rss, sum(1 for l in out.splitlines() if l.strip() in COMMANDS)))
reading_seconds = duration(reading)

# --- 3. Memory over a long noisy stream -------------------------------------------------------

minutes = 5 if quick else 15
log(f"== {minutes}-minute noisy stream")
pieces, total = [], 0.0
while total < minutes * 60:
    for f in mixes["tap"] + mixes["dishes"]:
        pieces.append(f)
        total += duration(f)
        if total >= minutes * 60:
            break
stream = os.path.join(work, "stream.raw")
subprocess.run(["sox", *pieces, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", "-t", "raw", stream], check=True)
samples_rss = []  # (seconds of audio read, RSS MB)
started, before = time.time(), resource.getrusage(resource.RUSAGE_CHILDREN)
with open(stream, "rb") as audio:
    proc = subprocess.Popen([heed, "recognize", "--json", "--no-builtins", "--context", context, "-"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    fed = 0

    def watch():
        while proc.poll() is None:
            try:
                rss = int(re.search(r"VmRSS:\s+(\d+)", open(f"/proc/{proc.pid}/status").read()).group(1)) / 1024
                samples_rss.append((fed / 32000, rss))
            except (OSError, AttributeError):
                pass
            time.sleep(0.5)
    watcher = threading.Thread(target=watch)
    watcher.start()
    while chunk := audio.read(32000):
        proc.stdin.write(chunk)
        fed += len(chunk)
    proc.stdin.close()
    proc.wait()
    watcher.join()
after = resource.getrusage(resource.RUSAGE_CHILDREN)
stream_cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
stream_wall = time.time() - started
first_minute = [rss for at, rss in samples_rss if 60 <= at <= 120] or [samples_rss[0][1]]
last_minute = [rss for at, rss in samples_rss if at >= total - 60] or [samples_rss[-1][1]]

# --- 4. Latency ------------------------------------------------------------------------------

def latency(files, extra, label):
    """heed listen --input on `files` as one paced stream: ms from the end of each recording's speech
    to its event, for intents and for utterances not understood; and start-up to listening."""
    log(f"== latency: {label}")
    stream_wav = os.path.join(work, label + ".wav")
    ends, offset = [], 0.0
    with wave.open(stream_wav, "wb") as out:
        out.setnchannels(1); out.setsampwidth(2); out.setframerate(16000)
        for f in files:
            with wave.open(f) as w:
                frames = w.readframes(w.getnframes())
            out.writeframes(frames)
            ends.append(offset + speech_end(frames))
            offset += len(frames) / 2 / 16000
    started = time.time()
    out, wall, cpu, rss = timed([heed, "listen", "--json", "--input", stream_wav, *extra], env=env)
    events = [json.loads(l) for l in out.splitlines()]
    listening = next(e for e in events if e["event"] == "listening")
    by_kind = {"intent": [], "not-understood": []}
    for e in events:
        if e["event"] in by_kind and any(end <= e["end"] + 0.5 for end in ends):
            spoken = max(end for end in ends if end <= e["end"] + 0.5)
            by_kind[e["event"]].append((e["timestamp"] - listening["timestamp"] - spoken) * 1000)
    return by_kind, listening["timestamp"] - started, rss, 100 * cpu / wall


count = 30 if quick else 100
builtin_commands = [f for f in sorted(glob.glob(os.path.join(root, "Audio/builtins/*.wav"))) if os.path.basename(f).split("-")[0] in COMMANDS]
commands_latency, startup, listen_rss, listen_cpu = latency([builtin_commands[i % len(builtin_commands)] for i in range(count)], [], "builtins")
orders = quiet_files[: (8 if quick else 25)]
orders_latency, coffee_startup, coffee_rss, _ = latency(orders, ["--no-builtins", "--context", context], "coffee")

noise = os.path.join(shared, "real-noise", "dude-miaowing.wav")  # a room with a cat and people moving about
_, idle_wall, idle_cpu, _ = timed([heed, "listen", "--json", "--input", noise], env=env)

# --- 5. The ring buffer ----------------------------------------------------------------------

ring_bin = os.path.join(os.path.dirname(heed), "heed-ring-bench")
ring_runs = [json.loads(subprocess.run([ring_bin], capture_output=True, text=True, check=True).stdout) for _ in range(3)]
ring = sorted(ring_runs, key=lambda r: r["samplesPerSecond"])[1]

# --- 6. The service ---------------------------------------------------------------------------

def wyoming_clients(counts):
    """{clients: (median s per request, max s, peak RSS MB of heed serve)} with that many clients at once."""
    python = os.path.join(root, ".build/test-venv/bin/python")
    client = os.path.join(root, "Tests/HeedCLITests/Resources/wyoming_client.py")
    if not os.path.exists(python):
        log("== service: skipped (.build/test-venv is missing; make test makes it)")
        return {}
    log("== service: Wyoming clients at once")
    serve = subprocess.Popen([heed, "serve", "--no-builtins", "--context", context, "--wyoming", "tcp://127.0.0.1:0"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    port = int(re.search(r"wyoming: [^:]+:(\d+)", serve.stderr.readline()).group(1))
    results = {}
    for n in counts:
        chosen = [quiet_files[i % len(quiet_files)] for i in range(n)]
        started = time.time()
        procs = [(subprocess.Popen([python, client, str(port), "transcribe", f, "20"], stdout=subprocess.PIPE, text=True), f) for f in chosen]
        walls = []
        for p, f in procs:
            p.communicate()
            walls.append(time.time() - started)
        with open(f"/proc/{serve.pid}/status") as status:
            peak = int(re.search(r"VmHWM:\s+(\d+)", status.read()).group(1)) / 1024
        results[n] = (statistics.median(walls), max(walls), peak)
    serve.terminate()
    serve.wait()
    return results


service = wyoming_clients([1, 4, 8])

# --- Report ----------------------------------------------------------------------------------

def quantiles(values):
    if len(values) < 2:
        return "-" if not values else f"{values[0]:.0f} ms (one)"
    q = statistics.quantiles(values, n=20, method="inclusive")  # never past the largest
    return f"p50 {statistics.median(values):.0f} ms, p95 {q[18]:.0f} ms, max {max(values):.0f} ms ({len(values)})"


print(f"machine: {os.uname().nodename} {os.uname().machine}, {os.cpu_count()} cores")
print(f"coffee-maker context ({graph_size.group(1) if graph_size else '?'} states as a word graph), real requests "
      f"(every {every}. of ../shared/real-speech/coffee), one process each, median CPU of 2 interleaved runs:")
print("")
print("| condition | files (audio s) | Heed CPU s / audio s | plain CPU s / audio s | ratio | Heed peak RSS | plain peak RSS | Heed accepted | plain accepted |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for label, n, seconds, h, p, ratio, h_rss, p_rss, h_acc, p_acc in rows:
    print(f"| {label} | {n} ({seconds:.0f} s) | {h:.3f} | {p:.3f} | {ratio:.1f}x | {h_rss:.1f} MB | {p_rss:.1f} MB | "
          f"{h_acc}/{n} ({100 * h_acc / n:.1f} %) | {p_acc}/{n} ({100 * p_acc / n:.1f} %) |")
print("")
print(f"100-expression context on the dishes mixes: peak RSS {big_rss:.1f} MB, {big_cpu / rows[2][2]:.3f} CPU s per audio s; "
      f"compile + model load (heed context check): {big_check:.2f} s")
h_long, p_long = (statistics.median(r[0] for r in long_runs[k]) for k in ("heed", "plain"))
print(f"long speech, a person reading ({reading_seconds:.0f} s of librivox, one stream, built-ins): Heed {h_long / reading_seconds:.3f} CPU s "
      f"per audio s, {max(r[1] for r in long_runs['heed']):.1f} MB, {long_runs['heed'][-1][2]} commands heard; "
      f"pocketsphinx_continuous (six-word JSGF) {p_long / reading_seconds:.3f}, {max(r[1] for r in long_runs['plain']):.1f} MB, "
      f"{long_runs['plain'][-1][2]} commands ({h_long / p_long:.1f}x)")
print(f"{total / 60:.0f}-minute noisy stream (the tap and dishes mixes back to back, piped to heed recognize -): RSS "
      f"{statistics.median(first_minute):.1f} MB in minute 2, {statistics.median(last_minute):.1f} MB in the last minute, "
      f"peak {max(r for _, r in samples_rss):.1f} MB; {stream_cpu / total:.3f} CPU s per audio s")
print(f"latency to the intent event, heed listen --input, from the end of the speech in the recording:")
print(f"  whole commands nothing can follow (synthesized built-ins): intents {quantiles(commands_latency['intent'])}; "
      f"not understood {quantiles(commands_latency['not-understood'])}")
print(f"  real coffee orders (a whole order may go on, so it waits longer): intents {quantiles(orders_latency['intent'])}; "
      f"not understood {quantiles(orders_latency['not-understood'])}")
print(f"listen: peak RSS {listen_rss:.1f} MB (coffee context: {coffee_rss:.1f} MB), CPU {listen_cpu:.1f} % of one core while "
      f"commands are spoken, {100 * idle_cpu / idle_wall:.1f} % in a real room (62 s, a cat and people moving about)")
for n, (median, longest, peak) in service.items():
    print(f"heed serve --wyoming, {n} client{'s' if n > 1 else ''} sending a real request at once (20 ms chunks, unpaced): "
          f"{median:.2f} s per request (median), {longest:.2f} s the last; peak RSS {peak:.1f} MB")
print(f"start-up to listening: built-ins {startup:.2f} s, coffee-maker context {coffee_startup:.2f} s")
print(f"ring buffer (2 s at 16 kHz, 160-sample periods, producer flat out): {ring['samplesPerSecond'] / 1e6:.0f} M samples/s "
      f"delivered to the consumer ({ring['samplesPerSecond'] / 16000:.0f}x real time), {ring['outOfOrder']} out of order, "
      f"{ring['dropped'] / ring['samples']:.0%} dropped because the producer lapped the consumer")
