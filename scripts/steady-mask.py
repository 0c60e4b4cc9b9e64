#!/usr/bin/env python3
"""The steady-noise mask (Models/steady-mask.weights): talk-mask.py's network, trained on steady
noises (coloured, brown, mains hum) instead of babble, with each bin's noise floor as extra
input. BENCHMARKS.md, "A learned mask for steady noise".

  steady-mask.py train DIR OUT.npz [--seed N] [--mixes M]
                        DIR is `talk-mask.py data DIR`'s (its espeak-ng utterances; the babble
                        there is not used); Models/steady-mask.weights is seed 1, 3 mixes
  steady-mask.py export W.npz OUT.weights     the HEEDTMK2 format TalkMask.swift reads
  steady-mask.py apply W.npz KEPT DST [--floor F]
                        as talk-mask.py apply: mask a `heed test --keep-audio` condition

To make the shipped weights again:
  scripts/talk-mask.py data /tmp/tm
  scripts/steady-mask.py train /tmp/tm /tmp/tm/steady.npz
  scripts/steady-mask.py export /tmp/tm/steady.npz Models/steady-mask.weights
Needs python3-numpy (and espeak-ng and sox for the data).
"""
import argparse
import importlib.util
import os

import numpy as np

_spec = importlib.util.spec_from_file_location("talk_mask", os.path.join(os.path.dirname(os.path.abspath(__file__)), "talk-mask.py"))
tm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tm)
SR, BINS = tm.SR, tm.BINS


def features(spectrum):
    """talk-mask.py's features, and each bin's noise floor after them."""
    power = 10 * np.log10(np.abs(spectrum) ** 2 + 1.0)
    reference = np.percentile(power.mean(axis=1), 95)
    frames = ((power - reference) / 20.0).astype(np.float32)
    CTX = tm.CTX
    edge = lambda f: np.repeat(f, CTX, axis=0)
    padded = np.concatenate([edge(frames[:1]), frames, edge(frames[-1:])])
    parts = [padded[i:i + len(frames)] for i in range(2 * CTX + 1)]
    floor = np.percentile(frames, 10, axis=0)   # each bin's noise floor: its quietest tenth of frames
    parts.append(np.repeat(floor[None, :], len(frames), axis=0))
    return np.concatenate(parts, axis=1).astype(np.float32)

def noise(rng, n):
    """A steady noise: coloured, brown or mains hum; mostly rolled off below Nyquist."""
    kind = rng.random()
    if kind < 0.55:       # coloured: 1/f^a, a in [0, 2]
        a = rng.uniform(0.0, 2.0)
        white = np.fft.rfft(rng.standard_normal(n))
        f = np.maximum(np.fft.rfftfreq(n, 1 / SR), 20.0)
        x = np.fft.irfft(white / f ** (a / 2), n)
    elif kind < 0.75:     # brown, DC removed
        x = np.cumsum(rng.standard_normal(n)); x -= np.convolve(x, np.ones(400) / 400, "same")
    else:                 # mains hum: 50 or 60 Hz and harmonics, a pink floor
        f0 = rng.choice([50.0, 60.0]); t = np.arange(n) / SR
        x = sum(rng.uniform(0, 1) / (k ** rng.uniform(0.3, 1.5)) * np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 6.3)) for k in range(1, 12))
        white = np.fft.rfft(rng.standard_normal(n)); f = np.maximum(np.fft.rfftfreq(n, 1 / SR), 20.0)
        pink = np.fft.irfft(white / np.sqrt(f), n)
        x = x / np.sqrt(np.mean(x ** 2)) + rng.uniform(0.02, 0.3) * pink / np.sqrt(np.mean(pink ** 2))
    if rng.random() < 0.7:  # an anti-alias filter's roll-off below Nyquist, as a real ADC (and sox) gives
        X = np.fft.rfft(x); f = np.fft.rfftfreq(n, 1 / SR)
        fc, width = rng.uniform(6500, 7900), rng.uniform(100, 800)
        g = np.clip((f - fc) / width, 0, 1); X *= 10 ** (-rng.uniform(20, 70) * g / 20)
        x = np.fft.irfft(X, n)
    if rng.random() < 0.3:  # slow level drift
        x *= 1 + 0.3 * np.sin(2 * np.pi * rng.uniform(0.1, 1) * np.arange(n) / SR)
    return x

def training_set(directory, rng, mixes=2):
    """Each utterance under `mixes` steady noises at -3..24 dB; the label is the ideal binary mask."""
    inputs, labels = [], []
    for name in sorted(os.listdir(f"{directory}/utterances")):
        speech = tm.read_wav(f"{directory}/utterances/{name}")
        n = len(speech)
        for _ in range(mixes):
            nz = noise(rng, n)
            snr = rng.uniform(-3, 24)
            nz *= np.sqrt(tm.loudest_quarter_power(speech) / (np.mean(nz ** 2) + 1e-9) / 10 ** (snr / 10))
            mixed, _ = tm.stft(speech + nz); clean, _ = tm.stft(speech); residue, _ = tm.stft(nz)
            inputs.append(features(mixed))
            labels.append((np.abs(clean) > np.abs(residue)).astype(np.float32))
    return np.concatenate(inputs), np.concatenate(labels)

def train(directory, out, seed, mixes):
    rng = np.random.default_rng(seed)
    x, y = training_set(directory, rng, mixes)
    print(f"{len(x)} frames, {x.shape[1]} inputs, {y.mean():.3f} speech bins", flush=True)
    tm.fit(x, y, rng, out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    fit = commands.add_parser("train")
    fit.add_argument("directory")
    fit.add_argument("out")
    fit.add_argument("--seed", type=int, default=1, help="which random draws of noises, levels and weights (default 1)")
    fit.add_argument("--mixes", type=int, default=3, help="noisy mixes of each utterance (default 3)")
    out = commands.add_parser("export")
    out.add_argument("weights")
    out.add_argument("out")
    use = commands.add_parser("apply")
    use.add_argument("weights")
    use.add_argument("kept")
    use.add_argument("destination")
    use.add_argument("--floor", type=float, default=0.1, help="gain where the mask says noise (default 0.1, -20 dB)")
    args = parser.parse_args()
    if args.command == "train":
        train(args.directory, args.out, args.seed, args.mixes)
    elif args.command == "export":
        tm.export(args.weights, args.out, noise_floor_input=True)
    else:
        tm.apply(args.weights, args.kept, args.destination, args.floor, features=features)


if __name__ == "__main__":
    main()
