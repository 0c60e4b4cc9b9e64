"""The wake phrase on real audio (`make wake`): how often it is heard when nobody said it, and how
often it is missed when somebody did.

- False wakes per hour: every real noise recording (../shared/real-noise) and AN4 talk (real
  people reading numbers, names and dates; ../shared/real-speech/an4), decoded as `heed serve`
  decodes them, with the built-ins, the coffee context and the wake phrase in the grammar.
- Missed wakes: the real words set holds two names that people said as wake words ("sheila",
  15 clips; "marvin", 7): each is the wake phrase in turn, and every other word clip counts as a
  false wake if it wakes it. No real recordings of "hey barista" exist here, so for it only the
  false wakes are measured.

The wake phrase is put in the grammar as an intent of its own (heed.wake), exactly as serve does
with --wake; `heed recognize` decodes the same streams the same way, faster than real time.
"""
import json, os, subprocess, sys, tempfile
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from realspeech import heed, real, real_noises, root, talk_streams

work = tempfile.mkdtemp(prefix="heed-wake-")
env = dict(os.environ, HEED_STATE_DIR=os.path.join(work, "state"), HEED_POLICY=os.path.join(root, "Models/test-rig.policy.yml"))
coffee = os.path.join(root, "Models/contexts/coffee_maker.yaml")


def wake_context(phrase):
    path = os.path.join(work, phrase.replace(" ", "_") + ".yml")
    with open(path, "w") as out:
        out.write(f'context:\n  expressions:\n    heed.wake:\n      - "{phrase}"\n')
    return path


def wakes(phrase, files):
    """{file: number of wakes heard in it}, and the seconds decoded."""
    out = subprocess.run([heed, "recognize", "--json", "--context", coffee, "--context", wake_context(phrase), *files],
                         env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(out.stderr)
    counts = {f: 0 for f in files}
    for line in out.stdout.splitlines():
        event = json.loads(line)
        if event.get("understood") and event.get("intent") == "heed.wake":
            counts[event["file"]] += 1
    return counts


def duration(path):
    import wave
    with wave.open(path) as w:
        return w.getnframes() / w.getframerate()


streams = real_noises() + [path for (vocabulary, _), path in talk_streams(work).items() if vocabulary == "coffee"]
hours = sum(duration(s) for s in streams) / 3600
words = os.path.join(real, "words")
clips = sorted(os.path.join(words, f) for f in os.listdir(words) if f.endswith(".wav"))

print(f"False wakes on {hours * 60:.1f} min of real noise and talk, and on the real word clips; missed wakes on real clips of the phrase")
print("| wake phrase | false wakes per hour (noise / talk) | other words that woke it | wakes missed |")
print("|---|---|---|---|")
for phrase in ["hey barista", "sheila", "marvin"]:
    heard = wakes(phrase, streams)
    noise = sum(n for s, n in heard.items() if "real-noise" in s)
    talk = sum(n for s, n in heard.items() if "real-noise" not in s)
    noise_hours = sum(duration(s) for s in streams if "real-noise" in s) / 3600
    talk_hours = hours - noise_hours
    clip_wakes = wakes(phrase, clips)
    said = [c for c in clips if os.path.basename(c).startswith(phrase + "-")]
    others = [c for c in clips if c not in said]
    woke = sum(1 for c in others if clip_wakes[c])
    missed = f"{sum(1 for c in said if not clip_wakes[c])} of {len(said)}" if said else "(no real recordings)"
    print(f"| {phrase} | {(noise + talk) / hours:.1f} ({noise / noise_hours:.1f} / {talk / talk_hours:.1f}) | {woke} of {len(others)} ({100 * woke / len(others):.2f} %) | {missed} |")
