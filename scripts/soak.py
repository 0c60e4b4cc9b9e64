#!/usr/bin/env python3
"""`make soak`: an hour of paced audio through `heed listen --input` (not part of CI).

The audio is Audio/builtins (commands and negatives) played over and over. Checks what the
issue asks: RSS sampled every minute stays flat (growth under 1 MB after the first minute), no
samples dropped, and every cycle scores as well as a short run of the same stream (within 2 files).
Run it on an otherwise idle machine: a busy one makes the decoder fall behind and drop audio.
Usage: scripts/soak.py [MINUTES]   (default 60)
"""
import glob, json, os, subprocess, sys, tempfile, threading, time, wave

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
heed = os.path.join(root, ".build/release/heed")
minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
work = tempfile.mkdtemp(prefix="heed-soak-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))

# One cycle: every builtins recording in order, each file's expectation in its name
# (<intent>-... or none-...). Each cycle is scored like `heed test` (acceptance, false
# acceptance), and so is a short run of the same stream path over two cycles (`heed recognize`,
# unpaced). Which borderline files pass can change from cycle to cycle (frame alignment and the
# noise estimate carry over), so the soak passes when no cycle scores more than 2 files worse
# than the short run's second cycle: no drift over the hour.
files = sorted(glob.glob(os.path.join(root, "Audio/builtins/*.wav")))
cycle = os.path.join(work, "cycle.wav")
subprocess.run(["sox", *files, cycle], check=True)
spans, t = [], 0.0
for f in files:
    with wave.open(f) as w:
        length = w.getnframes() / w.getframerate()
    label = os.path.basename(f).split("-")[0]
    spans.append((t, t + length, None if label == "none" else label))
    t += length
cycle_seconds = t
two = os.path.join(work, "two.wav")
subprocess.run(["sox", cycle, cycle, two], check=True)

def score(events, cycles):
    """Per cycle: files right (exactly their one intent, or nothing for negatives)."""
    got = [[[] for _ in spans] for _ in range(cycles)]
    for e in events:
        index, offset = int(e["start"] // cycle_seconds), e["start"] % cycle_seconds
        middle = offset + (e["end"] - e["start"]) / 2
        file = next((n for n, (a, b, _) in enumerate(spans) if a <= middle < b), None)
        if index < cycles and file is not None:
            got[index][file].append(e["intent"])
    return [sum(1 for n, (_, _, label) in enumerate(spans) if c[n] == ([label] if label else [])) for c in got]

short = subprocess.run([heed, "recognize", "--json", two], capture_output=True, text=True, env=env, check=True).stdout
reference = score([e for e in map(json.loads, short.splitlines()) if e["understood"]], 2)
repeats = max(2, round(minutes * 60 / cycle_seconds))
soak = os.path.join(work, "soak.wav")
subprocess.run(["sox", cycle, soak, "repeat", str(repeats - 1)], check=True)
print(f"soak: {repeats} cycles of {len(files)} files ({cycle_seconds:.0f} s each), {repeats * cycle_seconds / 60:.1f} min of paced audio")
print(f"short run: {reference[0]} then {reference[1]} of {len(files)} files right", flush=True)

process = subprocess.Popen([heed, "listen", "--input", soak, "--json"], stdout=subprocess.PIPE, text=True, env=env)
samples = []  # (minutes since start, RSS MB)
stop = threading.Event()

def sample_rss():
    started = time.monotonic()
    while not stop.is_set():
        try:
            with open(f"/proc/{process.pid}/status") as status:
                rss = next(int(l.split()[1]) for l in status if l.startswith("VmRSS:")) / 1024
            samples.append(((time.monotonic() - started) / 60, rss))
            print(f"  {samples[-1][0]:5.1f} min  RSS {rss:6.1f} MB", flush=True)
        except (FileNotFoundError, StopIteration, ProcessLookupError):
            return
        stop.wait(60)

sampler = threading.Thread(target=sample_rss)
sampler.start()
heard, dropped, overruns, stopped = [], 0, 0, None
for line in process.stdout:
    event = json.loads(line)
    kind = event["event"]
    if kind == "intent":
        heard.append(event)
    elif kind == "overrun":
        dropped, overruns = event["droppedSamples"], event["deviceOverruns"]
    elif kind == "stopped":
        stopped = event
process.wait()
stop.set()
sampler.join()

right = score(heard, repeats)
worst = min(right[1:]) if repeats > 1 else right[0]
# The first sample is taken while the recording is being loaded; growth is measured after it.
steady = [rss for t, rss in samples if t >= 1] or [rss for _, rss in samples]
growth = steady[-1] - steady[0] if steady else float("nan")
print(f"audio {stopped['seconds'] / 60 if stopped else 0:.1f} min, exit {process.returncode}")
print(f"files right per cycle: {right} of {len(files)} (short run {reference[0]}, then {reference[1]})")
print(f"dropped samples {stopped['droppedSamples'] if stopped else dropped}, device overruns {stopped['deviceOverruns'] if stopped else overruns}")
print(f"RSS from minute 1 to the end: {steady[0]:.1f} -> {steady[-1]:.1f} MB (growth {growth:+.2f} MB, peak {max(steady):.1f} MB)")
ok = process.returncode == 0 and stopped and stopped["droppedSamples"] == 0 and right[0] >= reference[0] - 2 and worst >= reference[1] - 2 and growth < 1.0
print("soak passed" if ok else "soak FAILED")
sys.exit(0 if ok else 1)
