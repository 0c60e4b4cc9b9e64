#!/usr/bin/env python3
"""Probe (not on Heed's audio path): a small learned mask that keeps the voice in front and
takes out background talk, measured offline on `heed test --keep-audio` mixes.
BENCHMARKS.md, "A learned mask for background talk".

  talk-mask.py data DIR [--seed N]   espeak-ng utterances and six-voice babble, voices and
                                   texts disjoint from Audio/ and Audio/noise/babble.wav
  talk-mask.py train DIR OUT.npz [--seed N]
                                   an MLP from 7 frames of log spectrum to each bin's chance
                                   that the speech in front outweighs the noise there
  talk-mask.py export W.npz OUT.weights
                                   the weights in the format Heed reads (TalkMask.swift):
                                   Models/talk-mask.weights is seed 1's
  talk-mask.py apply W.npz KEPT DST [--floor F]
                                   mask every WAV of one kept condition (KEPT = DIR/babble@12dB)
                                   and lay DST out as suites: DST/Audio/<suite>/suite.yml, with
                                   DST/Models pointing at this repository's, so that
                                   `heed test DST/Audio/builtins ...` runs them
Needs python3-numpy, espeak-ng and sox. The same --seed gives the same data and weights on
the same machine; two seeds give two masks whose decodes can be asked to agree.
"""
import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import wave

import numpy as np

SR, N, HOP, CTX = 16000, 512, 160, 3      # 32 ms frames every 10 ms, 3 frames either side
BINS = N // 2 + 1
WINDOW = np.hanning(N + 1)[:N]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Voices and texts that none of the suites or the test babble use (they use en, en-us and the
# m1, m3, m5, f2, f4 variants), so the mask is not measured on what it was trained on.
BASES = ["en-gb-scotland", "en-gb-x-rp", "en-029", "en-us-nyc", "en-gb-x-gbclan", "en-gb-x-gbcwmd"]
VARIANTS = ["", "+m2", "+m4", "+m6", "+m7", "+f1", "+f3", "+f5"]
SENTENCES = """the train leaves the station at half past nine
please bring me the blue notebook from the desk
it is going to rain again this evening
open the window a little wider
my sister lives in a small town by the sea
how much does the red bicycle cost
we walked along the river until it got dark
the dog is sleeping under the kitchen table
put the heavy boxes in the garage
could you read the first page aloud
the market is busy on saturday mornings
she painted the fence green last summer
turn left after the old church
the soup needs a little more salt
i have never seen such a tall tree
write your name at the top of the form
the library closes early on fridays
he forgot his umbrella at the office
there are seven apples in the basket
let us meet at the corner of the square
the baby laughed at the yellow balloon
my phone battery is almost empty
they built a new school near the park
the garden looks lovely in the spring
bring two chairs from the other room
the film starts in twenty minutes
we need more paper for the printer
a cold wind is blowing from the north
her grandfather was a fisherman
the kettle is already boiling
hello
yes please
no thank you
maybe later
good morning
what time is it
where are my keys
thank you very much
excuse me
see you tomorrow
water
music
window
garden
seven
morning
listen
quickly
orange
travel""".split("\n")
PASSAGES = [
    "The committee met on Tuesday to discuss the budget for the coming year, and after a long debate they agreed to spend more on roads.",
    "When I was young we used to spend every summer at my aunt's farm, feeding the chickens and picking strawberries in the long afternoons.",
    "The recipe calls for two cups of flour, a pinch of salt, three eggs and a little warm milk, mixed slowly until smooth.",
    "Scientists have discovered a new species of frog in the mountains, bright orange with small black spots along its back.",
    "The concert was cancelled because of the storm, so we stayed at home and played cards by candlelight until midnight.",
    "Our neighbours are repainting their house, and the workers arrive every morning at seven with ladders and loud radios.",
    "The old bridge will be closed for repairs for most of the winter, and buses will take a longer route through the village.",
    "She told me that the best way to learn a language is to listen to the radio and to speak with people every day.",
]


def read_wav(path):
    with wave.open(path) as w:
        if w.getframerate() != SR or w.getnchannels() != 1 or w.getsampwidth() != 2:
            sys.exit(f"talk-mask: {path}: not 16 kHz mono 16-bit")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float64)


def write_wav(path, x):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(SR)
        w.writeframes(np.clip(np.round(x), -32768, 32767).astype("<i2").tobytes())


def stft(x):
    padded = np.concatenate([np.zeros(N), x, np.zeros(N)])
    frames = np.lib.stride_tricks.sliding_window_view(padded, N)[::HOP]
    return np.fft.rfft(frames * WINDOW, axis=1), len(padded)


def istft(spectrum, padded_length, length):
    frames = np.fft.irfft(spectrum, N, axis=1) * WINDOW
    out, weight = np.zeros(padded_length), np.zeros(padded_length)
    for t, frame in enumerate(frames):
        out[t * HOP:t * HOP + N] += frame
        weight[t * HOP:t * HOP + N] += WINDOW ** 2
    return (out / np.maximum(weight, 1e-3))[N:N + length]


def features(spectrum):
    """Log power per bin relative to the utterance's loud frames (its 95th percentile), so
    the net sees levels relative to the voice, not absolute ones."""
    power = 10 * np.log10(np.abs(spectrum) ** 2 + 1.0)
    reference = np.percentile(power.mean(axis=1), 95)
    frames = ((power - reference) / 20.0).astype(np.float32)
    edge = lambda f: np.repeat(f, CTX, axis=0)
    padded = np.concatenate([edge(frames[:1]), frames, edge(frames[-1:])])
    return np.concatenate([padded[i:i + len(frames)] for i in range(2 * CTX + 1)], axis=1)


def loudest_quarter_power(x):
    """The speech level `heed test` mixes against by default (Perturbation.speechLevel)."""
    frame = 320
    n = len(x) // frame
    powers = np.sort(np.mean(x[:n * frame].reshape(n, frame) ** 2, axis=1))[::-1]
    return powers[:max(1, n // 4)].mean()


def run(*command):
    subprocess.run(command, check=True)

# Every sox call takes -D: sox dithers 16-bit output at random by default, and the data would then
# differ by a sample step or two from run to run, and the trained weights with them.


def make_data(directory, seed):
    rng = random.Random(776 + seed)  # seed 1 draws the data BENCHMARKS measured
    os.makedirs(f"{directory}/utterances", exist_ok=True)
    os.makedirs(f"{directory}/babble", exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        count = 0
        for sentence in SENTENCES:
            for _ in range(6):
                voice = rng.choice(BASES) + rng.choice(VARIANTS)
                run("espeak-ng", "-v", voice, "-s", str(rng.randrange(120, 190)), "-w", f"{tmp}/u.wav", sentence)
                run("sox", "-q", "-D", f"{tmp}/u.wav", "-r", str(SR), "-c", "1", "-b", "16",
                    f"{directory}/utterances/u{count:04d}.wav",
                    "pad", f"0.{rng.randrange(3, 9)}", f"0.{rng.randrange(3, 9)}", "norm", f"-{rng.randrange(3, 13)}")
                count += 1
        for track in range(3):
            parts = []
            for talker in range(6):
                voice = rng.choice(BASES) + rng.choice(VARIANTS)
                first = (track * 6 + talker) % len(PASSAGES)
                text = " ".join(PASSAGES[(first + k) % len(PASSAGES)] for k in (0, 3, 5))
                run("espeak-ng", "-v", voice, "-s", str(rng.randrange(130, 180)), "-w", f"{tmp}/v.wav", text)
                run("sox", "-q", "-D", f"{tmp}/v.wav", "-r", str(SR), "-c", "1", f"{tmp}/r{talker}.wav",
                    "pad", f"0.{rng.randrange(10)}", "repeat", "4", "trim", "0", "60")
                parts.append(f"{tmp}/r{talker}.wav")
            run("sox", "-q", "-D", "-m", *parts, f"{tmp}/b.wav")
            run("sox", "-q", "-D", f"{tmp}/b.wav", "-r", str(SR), "-c", "1", "-b", "16",
                f"{directory}/babble/b{track}.wav", "norm", "-3")


def training_set(directory, rng, mixes_per_utterance=2):
    """Each utterance under babble (70 %), pink (20 %) or brown noise at -3..20 dB; the label
    is the ideal binary mask: 1 where the speech's power is above the noise's."""
    babble = [read_wav(f"{directory}/babble/{f}") for f in sorted(os.listdir(f"{directory}/babble"))]
    inputs, labels = [], []
    for name in sorted(os.listdir(f"{directory}/utterances")):
        speech = read_wav(f"{directory}/utterances/{name}")
        n = len(speech)
        for _ in range(mixes_per_utterance):
            kind = rng.random()
            if kind < 0.7:
                track = babble[rng.integers(len(babble))]
                start = rng.integers(len(track) - n)
                noise = track[start:start + n].copy()
            elif kind < 0.9:
                white = np.fft.rfft(rng.standard_normal(n))
                noise = np.fft.irfft(white / np.sqrt(np.maximum(np.fft.rfftfreq(n, 1 / SR), 20.0)), n)
            else:
                noise = np.cumsum(rng.standard_normal(n))
                noise -= np.convolve(noise, np.ones(400) / 400, "same")
            snr = rng.uniform(-3, 20)
            noise *= np.sqrt(loudest_quarter_power(speech) / (np.mean(noise ** 2) + 1e-9) / 10 ** (snr / 10))
            mixed, _ = stft(speech + noise)
            clean, _ = stft(speech)
            residue, _ = stft(noise)
            inputs.append(features(mixed))
            labels.append((np.abs(clean) > np.abs(residue)).astype(np.float32))
    return np.concatenate(inputs), np.concatenate(labels)


def forward(weights, x):
    hidden1 = np.maximum(x @ weights["W1"] + weights["b1"], 0)
    hidden2 = np.maximum(hidden1 @ weights["W2"] + weights["b2"], 0)
    logits = np.clip(hidden2 @ weights["W3"] + weights["b3"], -30, 30)
    return hidden1, hidden2, 1 / (1 + np.exp(-logits))


def train(directory, out, seed):
    rng = np.random.default_rng(seed)
    x, y = training_set(directory, rng)
    print(f"{len(x)} frames, {y.mean():.3f} of bins held by the speech", flush=True)
    fit(x, y, rng, out)


def fit(x, y, rng, out):
    """Trains the network from inputs `x` to masks `y` and saves it to `out` (steady-mask.py too)."""
    inputs, hidden = x.shape[1], 256
    weights = {
        "W1": (rng.standard_normal((inputs, hidden)) * np.sqrt(2 / inputs)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "W2": (rng.standard_normal((hidden, hidden)) * np.sqrt(2 / hidden)).astype(np.float32),
        "b2": np.zeros(hidden, np.float32),
        "W3": (rng.standard_normal((hidden, BINS)) * np.sqrt(1 / hidden)).astype(np.float32),
        "b3": np.zeros(BINS, np.float32),
    }
    # Adam on the binary cross-entropy, batches of 256 frames; 5 % of frames held out.
    first = {k: np.zeros_like(v) for k, v in weights.items()}
    second = {k: np.zeros_like(v) for k, v in weights.items()}
    rate, beta1, beta2, step = 1e-3, 0.9, 0.999, 0
    order = rng.permutation(len(x))
    held, used = order[:len(x) // 20], order[len(x) // 20:]
    for epoch in range(12):
        rng.shuffle(used)
        for i in range(0, len(used), 256):
            batch = used[i:i + 256]
            h1, h2, p = forward(weights, x[batch])
            dz = (p - y[batch]) / len(batch)
            grads = {"W3": h2.T @ dz, "b3": dz.sum(0)}
            dh2 = (dz @ weights["W3"].T) * (h2 > 0)
            grads["W2"], grads["b2"] = h1.T @ dh2, dh2.sum(0)
            dh1 = (dh2 @ weights["W2"].T) * (h1 > 0)
            grads["W1"], grads["b1"] = x[batch].T @ dh1, dh1.sum(0)
            step += 1
            for k in weights:
                first[k] = beta1 * first[k] + (1 - beta1) * grads[k]
                second[k] = beta2 * second[k] + (1 - beta2) * grads[k] ** 2
                weights[k] -= rate * (first[k] / (1 - beta1 ** step)) / (np.sqrt(second[k] / (1 - beta2 ** step)) + 1e-8)
        _, _, p = forward(weights, x[held])
        loss = -np.mean(y[held] * np.log(p + 1e-7) + (1 - y[held]) * np.log(1 - p + 1e-7))
        print(f"epoch {epoch}: held-out cross-entropy {loss:.4f}, bins right {np.mean((p > 0.5) == (y[held] > 0.5)):.4f}", flush=True)
        if epoch == 7:
            rate /= 3
    np.savez(out, **weights)


def apply(weights_path, kept, destination, floor, features=features):
    weights = dict(np.load(weights_path))
    # The kept condition's folders named as this repository's suites.
    suites = sorted(d for d in os.listdir(kept)
                    if os.path.isdir(os.path.join(kept, d)) and os.path.exists(os.path.join(REPO, "Audio", d, "suite.yml")))
    for suite in suites:
        for root, _, files in os.walk(os.path.join(kept, suite)):
            target = os.path.join(destination, "Audio", os.path.relpath(root, kept))
            os.makedirs(target, exist_ok=True)
            for name in files:
                if not name.endswith(".wav"):
                    continue
                x = read_wav(os.path.join(root, name))
                spectrum, padded = stft(x)
                _, _, p = forward(weights, features(spectrum))
                write_wav(os.path.join(target, name), istft(spectrum * (floor + (1 - floor) * p), padded, len(x)))
        # Kept mixes of ../shared files sit under the suite's folder as shared/...
        text = open(os.path.join(REPO, "Audio", suite, "suite.yml")).read().replace("../../../shared/", "shared/")
        text = re.sub(r"^grammar: shared/", "grammar: ../../shared/", text, flags=re.M)
        open(os.path.join(destination, "Audio", suite, "suite.yml"), "w").write(text)
    shared = os.path.join(REPO, "..", "shared")
    if os.path.isdir(shared) and not os.path.exists(os.path.join(destination, "shared")):
        os.symlink(os.path.abspath(shared), os.path.join(destination, "shared"))
    if not os.path.exists(os.path.join(destination, "Models")):
        os.symlink(os.path.join(REPO, "Models"), os.path.join(destination, "Models"))


def export(weights_path, out, noise_floor_input=False):
    """Little-endian: the magic "HEEDTMK1", five uint32 (frame, hop, context, hidden, bins), then
    float32 W1 (inputs x hidden, row-major), b1, W2, b2, W3, b3. TalkMask.swift reads it.
    With the noise floor input (steady-mask.py): "HEEDTMK2" and a sixth uint32, 1."""
    weights = dict(np.load(weights_path))
    hidden = weights["b1"].shape[0]
    with open(out, "wb") as f:
        f.write(b"HEEDTMK2" if noise_floor_input else b"HEEDTMK1")
        f.write(np.array([N, HOP, CTX, hidden, BINS] + ([1] if noise_floor_input else []), dtype="<u4").tobytes())
        for key in ("W1", "b1", "W2", "b2", "W3", "b3"):
            f.write(weights[key].astype("<f4").tobytes())


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    data = commands.add_parser("data")
    data.add_argument("directory")
    fit = commands.add_parser("train")
    fit.add_argument("directory")
    fit.add_argument("out")
    for command in (data, fit):
        command.add_argument("--seed", type=int, default=1, help="which random draws of voices, levels and weights (default 1)")
    use = commands.add_parser("apply")
    use.add_argument("weights")
    use.add_argument("kept")
    use.add_argument("destination")
    use.add_argument("--floor", type=float, default=0.1, help="gain where the mask says noise (default 0.1, -20 dB)")
    out = commands.add_parser("export")
    out.add_argument("weights")
    out.add_argument("out")
    args = parser.parse_args()
    if args.command == "data":
        make_data(args.directory, args.seed)
    elif args.command == "train":
        train(args.directory, args.out, args.seed)
    elif args.command == "export":
        export(args.weights, args.out)
    else:
        apply(args.weights, args.kept, args.destination, args.floor)


if __name__ == "__main__":
    main()
