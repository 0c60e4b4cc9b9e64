#!/usr/bin/env python3
"""`make soak`: an hour of paced audio through `heed listen --input` (not part of CI).

The audio is Audio/builtins (commands and negatives) played over and over. Checks what the
issue asks: RSS sampled every minute stays flat (growth under 1 MB after the first sample), no
samples dropped, and every file gives in the long run what it gives alone (`heed recognize`).
Usage: scripts/soak.py [MINUTES]   (default 60)
"""
import glob, json, os, subprocess, sys, tempfile, threading, time, wave

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
heed = os.path.join(root, ".build/release/heed")
minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 60.0
work = tempfile.mkdtemp(prefix="heed-soak-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))

# One cycle: every builtins recording in order; the reference is what each gives on its own.
files = sorted(glob.glob(os.path.join(root, "Audio/builtins/*.wav")))
alone = subprocess.run([heed, "recognize", "--json", *files], capture_output=True, text=True, env=env, check=True).stdout
reference = {f: [] for f in files}
for line in alone.splitlines():
    event = json.loads(line)
    if event["understood"]:
        reference[event["file"]].append(event["intent"])
cycle_intents = [intent for f in files for intent in reference[f]]
cycle = os.path.join(work, "cycle.wav")
subprocess.run(["sox", *files, cycle], check=True)
with wave.open(cycle) as w:
    cycle_seconds = w.getnframes() / w.getframerate()
repeats = max(1, round(minutes * 60 / cycle_seconds))
soak = os.path.join(work, "soak.wav")
subprocess.run(["sox", cycle, soak, "repeat", str(repeats - 1)], check=True)
print(f"soak: {repeats} cycles of {len(files)} files ({cycle_seconds:.0f} s each), {repeats * cycle_seconds / 60:.1f} min of paced audio", flush=True)

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
intents, dropped, overruns, stopped = [], 0, 0, None
for line in process.stdout:
    event = json.loads(line)
    kind = event["event"]
    if kind == "intent":
        intents.append(event["intent"])
    elif kind == "overrun":
        dropped, overruns = event["droppedSamples"], event["deviceOverruns"]
    elif kind == "stopped":
        stopped = event
process.wait()
stop.set()
sampler.join()

expected = cycle_intents * repeats
mismatched_cycles = sum(1 for c in range(repeats) if intents[c * len(cycle_intents):(c + 1) * len(cycle_intents)] != cycle_intents)
# The first sample is taken while the recording is being loaded; growth is measured after it.
steady = [rss for t, rss in samples if t >= 1] or [rss for _, rss in samples]
growth = steady[-1] - steady[0] if steady else float("nan")
print(f"audio {stopped['seconds'] / 60 if stopped else 0:.1f} min, exit {process.returncode}")
print(f"intents {len(intents)} (alone: {len(expected)}), cycles that differ from the files alone: {mismatched_cycles}/{repeats}")
print(f"dropped samples {stopped['droppedSamples'] if stopped else dropped}, device overruns {stopped['deviceOverruns'] if stopped else overruns}")
print(f"RSS from minute 1 to the end: {steady[0]:.1f} -> {steady[-1]:.1f} MB (growth {growth:+.2f} MB, peak {max(steady):.1f} MB)")
ok = process.returncode == 0 and stopped and stopped["droppedSamples"] == 0 and mismatched_cycles == 0 and growth < 1.0
print("soak passed" if ok else "soak FAILED")
sys.exit(0 if ok else 1)
