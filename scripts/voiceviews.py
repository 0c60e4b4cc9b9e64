"""What scripts/enrolled.py and scripts/learned.py share: views of the command suites with only
some of their recordings (one voice's, one half of it), and `heed test` runs over them."""
import json, os, re, subprocess

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
heed = os.path.join(root, ".build/release/heed")
SUITES = ["builtins", "coffee", "home", "workshop"]


def voice_of(name):
    """The espeak-ng voice in a recording's name (en, en_f4, en_m3, en-us, en-us_f2), or None."""
    match = re.search(r"-(en(?:-us)?(?:_[a-z0-9]+)?)(?:-\d+)?\.wav$", name)
    return match.group(1) if match else None


def view(folder, keep, audio=None):
    """The suites' recordings whose names `keep` accepts, as suites of their own under `folder`
    (links to the WAVs): a list of (suite folder, its contexts' paths, its recordings' paths).
    With `audio`, the WAVs are linked from `audio`/<suite> instead (copies of the suites' files
    made by `heed test --keep-audio`), with the suites' own expectations."""
    suites = []
    for suite in SUITES:
        source = os.path.join(root, "Audio", suite)
        recordings = os.path.join(audio, suite) if audio else source
        target = os.path.join(folder, suite)
        os.makedirs(target)
        lines, files, contexts = [], [], []
        for line in open(os.path.join(source, "suite.yml")):
            if line.startswith("contexts:"):
                contexts = [os.path.normpath(os.path.join(source, c.strip())) for c in line.split("[")[1].split("]")[0].split(",")]
                line = line.replace("../../Models", os.path.relpath(os.path.join(root, "Models"), target))
            entry = re.match(r"\s+(\S+\.wav):", line)
            if entry:
                if not keep(entry.group(1)):
                    continue
                os.symlink(os.path.join(recordings, entry.group(1)), os.path.join(target, entry.group(1)))
                files.append(os.path.join(target, entry.group(1)))
            lines.append(line)
        if files:
            open(os.path.join(target, "suite.yml"), "w").write("".join(lines))
            suites.append((target, contexts, files))
    return suites


def test(suites, report, options, snrs, noises, env):
    """Runs `heed test` on the views' suites at each of `snrs` ("clean" or dB) in each of `noises`
    (names in Audio/noise); returns {condition: (accepted, commands, false, non-commands)}, and the
    same for the contexts alone under "<condition> contexts"."""
    conditions = [snr for snr in snrs if snr != "clean"]
    command = [heed, "test", "run", *[suite for suite, _, _ in suites], "--json", report, *options]
    if conditions:
        command += [arg for noise in noises for arg in ("--noise", os.path.join(root, "Audio/noise", noise + ".wav"))]
        command += ["--snr", ",".join(conditions)]
        if "clean" not in snrs:
            command.append("--no-clean")
    # heed test exits 1 when any recording fails; only a missing report is an error here.
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL)
    results = {}
    for condition in json.load(open(report))["conditions"]:
        for scope, left_out in (("", None), (" contexts", "builtins")):
            rows = [r for r in condition["results"] if r["suite"] != left_out]
            positive = [r for r in rows if r["expected"] and r["expected"][0].get("understood") is not False]
            accepted = sum(1 for r in positive if r["verdict"] == "passed")
            false = sum(1 for r in rows if r not in positive and r["verdict"] != "passed")
            results[condition["name"] + scope] = (accepted, len(positive), false, len(rows) - len(positive))
    return results


def number(value):
    """A number as `heed test` names conditions with it: "1" for 1.0, "0.3" for 0.3."""
    return str(int(value)) if value == int(value) else str(value)


def reverberant_copies(folder, rt60, env):
    """The four suites as heard in a room of reverberation time `rt60` (`heed test --reverb`,
    the same seeded rooms as a sweep), written under `folder`; returns the folder holding one
    folder per suite, for `view(..., audio=)`."""
    command = [heed, "test", "run", *[os.path.join(root, "Audio", suite) for suite in SUITES],
               "--reverb", number(rt60), "--no-clean", "--keep-audio", folder]
    subprocess.run(command, env=env, stdout=subprocess.DEVNULL)
    return os.path.join(folder, f"reverb{number(rt60)}s")
