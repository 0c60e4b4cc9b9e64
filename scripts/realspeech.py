"""What scripts/accuracy.py and scripts/bench.py share about the real-speech suites
(`../shared/real-speech`): subsets, the expected results, and plain PocketSphinx on the same files
(the context's YAML as a JSGF and as the regexes that give its word sequences a meaning)."""
import os, re, subprocess, wave
try:
    import yaml
except ImportError:
    raise SystemExit("needs PyYAML (pip install pyyaml, or apt install python3-yaml)")

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
shared = os.path.join(os.path.dirname(root), "shared")
real = os.path.join(shared, "real-speech")
heed = os.path.join(root, ".build/release/heed")
model = "/usr/share/pocketsphinx/model/en-us"
COMMANDS = ["start", "stop", "pause", "resume", "done", "cancel"]
KEYWORDS = ["yes", "no", "up", "down", "left", "right", "on", "off", "stop", "go"]
noise_dir = os.path.join(shared, "real-noise")


def real_noises():
    """The real noise recordings (../shared/real-noise), in name order."""
    return sorted(os.path.join(noise_dir, f) for f in os.listdir(noise_dir) if f.endswith(".wav"))


def unit_fold(unit):
    """0 or 1: speakers (or files) split by a stable hash."""
    return int.from_bytes(unit.encode(), "little") % 7 % 2 if unit else 0


def speaker(file):
    """The speaker id in a real-speech file name (the file itself when it names none)."""
    base = os.path.basename(file)
    match = re.match(r"[a-z]+-(?:sc1|sc2|an4)-([0-9a-z]+)_", base)
    return match.group(1) if match else os.path.splitext(base)[0]


def subset(name, every, work, offset=0):
    """A copy of suite `name` under `work` holding every Nth file from the `offset`th (symlinks),
    with its suite.yml cut to match."""
    source = os.path.join(real, name)
    target = os.path.join(work, "suites", name)
    os.makedirs(target, exist_ok=True)
    lines = open(os.path.join(source, "suite.yml")).read().splitlines()
    kept, index, in_files = [], 0, False
    for line in lines:
        if line.startswith("files:"):
            in_files = True
        match = re.match(r"  ([^ #][^:]*\.wav):", line) if in_files else None
        if match:
            if index % every == offset % every:
                kept.append(line)
                link = os.path.join(target, match.group(1))
                os.makedirs(os.path.dirname(link), exist_ok=True)
                if not os.path.lexists(link):
                    os.symlink(os.path.realpath(os.path.join(source, match.group(1))), link)
            index += 1
        else:
            kept.append(line)
    open(os.path.join(target, "suite.yml"), "w").write("\n".join(kept) + "\n")
    for extra in os.listdir(source):
        if extra.endswith((".yaml", ".yml")) and extra != "suite.yml":
            os.symlink(os.path.join(source, extra), os.path.join(target, extra))
    return target


def rhino_to_regex_and_jsgf(context_path):
    """The context's expressions as one regex per expression (slots as named groups) and as a JSGF."""
    context = yaml.safe_load(open(context_path))["context"]
    slots = context.get("slots", {})
    macros = context.get("macros", {})

    def parse(text):
        tokens = re.findall(r"\$[\w]+:[\w]+|@\w+|[\[\](),]|[^\s\[\](),]+", text)
        position = 0

        def sequence(closer):
            nonlocal position
            items = []
            while position < len(tokens) and tokens[position] not in (closer, ","):
                token = tokens[position]
                position += 1
                if token in "[(":
                    close = "]" if token == "[" else ")"
                    alternatives = [sequence(close)]
                    while tokens[position] == ",":
                        position += 1
                        alternatives.append(sequence(close))
                    position += 1
                    items.append(("choice", alternatives, token == "("))
                elif token.startswith("$"):
                    slot_type, slot_name = token[1:].split(":")
                    items.append(("slot", slot_type, slot_name))
                elif token.startswith("@"):
                    items.append(("macro", token[1:]))
                else:
                    items.append(("word", token.lower()))
            return ("seq", items)
        return sequence(None)

    def regex(node, names):
        kind = node[0]
        if kind == "word":
            return re.escape(node[1]) + " "
        if kind == "seq":
            return "".join(regex(item, names) for item in node[1])
        if kind == "choice":
            body = "|".join(regex(item, names) for item in node[1])
            return f"(?:{body})" + ("?" if node[2] else "")
        if kind == "slot":
            values = sorted(slots[node[1]], key=len, reverse=True)
            group = node[2] if node[2] not in names else None
            names.add(node[2])
            body = "|".join(re.escape(value.lower()) + " " for value in values)
            return f"(?P<{group}>{body})" if group else f"(?:{body})"
        if kind == "macro":
            return "(?:" + "|".join(regex(parse(text), names) for text in macros[node[1]]) + ")"

    def jsgf(node):
        kind = node[0]
        if kind == "word":
            return node[1]
        if kind == "seq":
            return " ".join(jsgf(item) for item in node[1]) or "<NULL>"
        if kind == "choice":
            body = " | ".join(jsgf(item) for item in node[1])
            return f"[{body}]" if node[2] else f"({body})"
        if kind == "slot":
            return f"<slot_{node[1]}>"
        if kind == "macro":
            return "(" + " | ".join(jsgf(parse(text)) for text in macros[node[1]]) + ")"

    patterns, rules = [], []
    for intent, expressions in context["expressions"].items():
        for text in expressions:
            tree = parse(text)
            patterns.append((intent, re.compile(regex(tree, set()))))
            rules.append(jsgf(tree))
    grammar = "#JSGF V1.0;\ngrammar context;\npublic <request> = " + " |\n    ".join(f"({rule})" for rule in rules) + ";\n"
    for slot_type, values in slots.items():
        grammar += f"<slot_{slot_type}> = " + " | ".join(f"({value.lower()})" for value in values) + ";\n"

    def meaning(words):
        text = " ".join(words) + " "
        for intent, pattern in patterns:
            match = pattern.fullmatch(text)
            if match:
                return intent, {k: v.strip() for k, v in match.groupdict().items() if v}
        return None
    return grammar, meaning


def expectations(suite_dir):
    """file -> (intent, slots) or None (must not be understood), from the suite's suite.yml."""
    suite = yaml.safe_load(open(os.path.join(suite_dir, "suite.yml")))
    expected = {}
    for name, entry in suite["files"].items():
        if entry.get("understood") is False:
            expected[name] = None
        else:
            expected[name] = (entry["intent"], entry.get("slots", {}))
    return suite, expected


def to_16k(files, folder):
    """16 kHz mono 16-bit copies of `files` in `folder` (pocketsphinx_batch reads the samples raw
    after a 44-byte header)."""
    os.makedirs(folder, exist_ok=True)
    copies = []
    for f in files:
        target = os.path.join(folder, os.path.basename(f))
        subprocess.run(["sox", f, "-r", "16000", "-c", "1", "-b", "16", "-e", "signed-integer", target], check=True)
        copies.append(target)
    return copies


def batch_command(ctl, hyp, grammar_path=None, fsg=None, dictionary=None):
    """pocketsphinx_batch, default settings, over the absolute paths (without .wav) listed in `ctl`."""
    return ["pocketsphinx_batch", "-adcin", "yes", "-adchdr", "44", "-cepdir", "/", "-cepext", ".wav", "-ctl", ctl,
            "-hmm", os.path.join(model, "en-us"), "-dict", dictionary or os.path.join(model, "cmudict-en-us.dict"),
            *(["-fsg", fsg] if fsg else ["-jsgf", grammar_path]), "-hyp", hyp, "-logfn", "/dev/null"]


def read_hyp(path):
    """A -hyp file -> {utterance id: [words]}, fillers dropped and "word(2)" read as "word"."""
    words = {}
    for line in open(path):
        match = re.match(r"(.*?)\s*\((\S+)(?: -?\d+)?\)\s*$", line)
        if match:
            words[match.group(2)] = [re.sub(r"\(\d+\)$", "", w) for w in match.group(1).split()
                                     if not w.startswith("<") and w != "[NOISE]"]
    return words


def plain_batch(files, grammar_path, hyp_path, fsg=None, dictionary=None):
    """pocketsphinx_batch over `files` (16 kHz mono WAVs) on both cores; returns {file: [words]}."""
    procs = []
    for index, half in enumerate([files[0::2], files[1::2]]):
        if not half:
            continue
        ctl, hyp = f"{hyp_path}.{index}.ctl", f"{hyp_path}.{index}"
        open(ctl, "w").write("".join(f"{f[:-4]}\n" for f in half))
        procs.append((subprocess.Popen(batch_command(ctl, hyp, grammar_path, fsg, dictionary)), hyp))
    words = {}
    for proc, hyp in procs:
        proc.wait()
        words.update(read_hyp(hyp))
    return {f: words.get(f[:-4], []) for f in files}


def score_plain(results, expected, meaning):
    accepted = positives = false = negatives = 0
    for name, want in expected.items():
        got = results[name]
        if want is None:
            negatives += 1
            false += got is not None
        else:
            positives += 1
            accepted += got is not None and got[0] == want[0] and got[1] == want[1]
    return accepted, positives, false, negatives


def write_wav(path, frames):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(16000)
        w.writeframes(frames)


def read_frames(path):
    with wave.open(path) as w:
        assert w.getframerate() == 16000 and w.getnchannels() == 1 and w.getsampwidth() == 2, path
        return w.readframes(w.getnframes())


def talk_streams(work):
    """AN4 utterances without a word of `vocabulary`'s commands, end to end with a second between,
    by speaker fold: {(vocabulary, fold): wav}."""
    an4 = os.path.join(real, "an4")
    transcripts = {}
    for line in open(os.path.join(an4, "an4.transcription")):
        match = re.match(r"(?:<s> )?(.*?)(?: </s>)? \((\S+)\)$", line.strip())
        if match:
            transcripts[match.group(2)] = match.group(1).lower().split()
    ids = [line.strip() for line in open(os.path.join(an4, "an4.fileids")) if line.strip()]
    command_words = {"coffee": {"coffee", "espresso", "latte", "mocha", "americano", "cappuccino"},
                     "builtins": set(COMMANDS), "keywords": set(KEYWORDS)}
    gap = b"\0\0" * 16000
    streams = {}
    for vocabulary, words in command_words.items():
        for fold in (0, 1):
            chosen = [i for i in ids if not set(transcripts.get(os.path.basename(i), [])) & words
                      and unit_fold(i.split("/")[0]) == fold]
            path = os.path.join(work, f"talk-{vocabulary}-{fold}.wav")
            write_wav(path, gap.join(read_frames(os.path.join(an4, "wav", i + ".wav")) for i in chosen) + gap)
            streams[(vocabulary, fold)] = path
    return streams
