# Heed: set-up, build, demo and tests. `make demo` and `make test` are all a fresh machine needs.
SHELL := /bin/bash
SWIFT ?= swift
# Debian packages the build and tests need; installed only when missing.
APT_PACKAGES := pkg-config libasound2-dev libyaml-dev libpocketsphinx-dev libsphinxbase-dev pocketsphinx-en-us \
                libspeexdsp-dev libwebrtc-audio-processing-dev libsndfile1-dev sndfile-programs pocketsphinx espeak-ng sox libxml2-utils \
                libmosquitto-dev mosquitto libsystemd-dev systemd openssl
RELEASE_BIN = $(shell $(SWIFT) build -c release --show-bin-path 2>/dev/null)/heed

.PHONY: all deps build release install demo test accuracy wake detector bench fuzz leaks soak clean fixtures

all: build

# Installs missing Debian packages (as root, or through sudo when it is available).
deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing:" $$missing; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product heed

# Installs heed as a service (docs/service.md): the binary, its models and contexts, the systemd
# unit, an example configuration (kept if one is there) and an example admin policy; and, as root
# on a real system, the `heed` user in the `audio` group. DESTDIR stages it elsewhere.
PREFIX ?= /usr/local
install: release
	install -D -m 755 $(RELEASE_BIN) $(DESTDIR)$(PREFIX)/bin/heed
	install -d $(DESTDIR)$(PREFIX)/share/heed/contexts $(DESTDIR)$(PREFIX)/share/heed/examples $(DESTDIR)$(PREFIX)/share/doc/heed
	install -m 644 Models/heed.app.yml $(DESTDIR)$(PREFIX)/share/heed/
	install -m 644 Models/contexts/* $(DESTDIR)$(PREFIX)/share/heed/contexts/
	install -m 644 systemd/heed.yml systemd/policy.yml $(DESTDIR)$(PREFIX)/share/heed/examples/
	install -m 644 docs/service.md README.md $(DESTDIR)$(PREFIX)/share/doc/heed/
	install -d $(DESTDIR)/etc/systemd/system $(DESTDIR)/etc/heed
	sed -e 's#/usr/local/#$(PREFIX)/#g' systemd/heed.service > $(DESTDIR)/etc/systemd/system/heed.service
	chmod 644 $(DESTDIR)/etc/systemd/system/heed.service
	@if [ -e $(DESTDIR)/etc/heed/heed.yml ]; then echo "kept $(DESTDIR)/etc/heed/heed.yml"; \
	else sed -e 's#/usr/local/#$(PREFIX)/#g' systemd/heed.yml > $(DESTDIR)/etc/heed/heed.yml && chmod 644 $(DESTDIR)/etc/heed/heed.yml; fi
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && ! id heed >/dev/null 2>&1; then \
	  useradd --system --no-create-home --home-dir /var/lib/heed --shell /usr/sbin/nologin --user-group --groups audio heed; fi
	@echo "installed; next: docs/service.md (authorize in /etc/heed/policy.yml, then systemctl enable --now heed)"

# The main job on the bundled default: real people (Tests/Golden) through the whole pipeline:
# one-word clips against the built-ins ("stop", "start", and two words that are no command), then
# four coffee orders against Picovoice's coffee-maker context, then `heed test` on both, which
# checks each against its label. On a terminal the first run asks, once, for permission to use
# speech recognition. Without a terminal nobody can be asked, so the demo runs as a test rig: a
# temporary state directory and Models/test-rig.policy.yml, leaving the user's own decisions untouched.
DEMO_WORDS = recognize Tests/Golden/real-words/*.wav
DEMO_COFFEE = recognize --no-builtins --context Models/contexts/coffee_maker.yaml Tests/Golden/real-coffee/*.wav
DEMO_CHECK = test Tests/Golden/real-words Tests/Golden/real-coffee
demo: release
	@echo "== heed $(DEMO_WORDS); heed $(DEMO_COFFEE); heed $(DEMO_CHECK)"
	@if [ -t 0 ] && [ -t 1 ]; then \
	  $(RELEASE_BIN) $(DEMO_WORDS) && $(RELEASE_BIN) $(DEMO_COFFEE) && $(RELEASE_BIN) $(DEMO_CHECK) | grep '^accepted'; \
	else \
	  echo "(no terminal to ask for permission on: running as a test rig with a temporary state directory)"; \
	  state=$$(mktemp -d); \
	  export HEED_STATE_DIR=$$state/heed HEED_POLICY=Models/test-rig.policy.yml; \
	  $(RELEASE_BIN) $(DEMO_WORDS) && $(RELEASE_BIN) $(DEMO_COFFEE) && $(RELEASE_BIN) $(DEMO_CHECK) | grep '^accepted'; \
	  status=$$?; rm -rf $$state; exit $$status; \
	fi

# The peers the service tests talk to heed with: the PyPI wyoming client (as Home Assistant uses
# it) and paho-mqtt, in a virtual environment of the tests' own.
TEST_VENV = .build/test-venv
$(TEST_VENV)/ready: Tests/requirements.txt
	python3 -m venv $(TEST_VENV)
	$(TEST_VENV)/bin/pip install -q -r Tests/requirements.txt
	touch $@

# Unit tests and a small golden set (a few minutes). The tests run a debug build, but with Heed's
# own C (the Gaussian scorer and the noise adaptation, where decoding spends its time) optimized.
test: deps $(TEST_VENV)/ready
	$(SWIFT) build --build-tests -Xcc -O2
	$(SWIFT) test --skip-build

# The wake phrase on real audio: false wakes per hour on real noise and talk, wakes missed on
# real clips of two names people said as wake words (scripts/wake.py; about 15 minutes).
wake: release
	python3 scripts/wake.py

# Accuracy on real recorded speech (../shared/real-speech: coffee, words, keywords), in quiet and
# with the real noises of ../shared/real-noise mixed in turn at 24/18/12/6 dB, beside plain
# PocketSphinx on the same files and mixes in the same run; and false commands per hour on long
# real noise and talk. EVERY=5 takes every 5th file (minutes instead of about an hour).
EVERY ?= 1
accuracy: release
	python3 scripts/accuracy.py --every $(EVERY)

# Fits the detector on the dev sets' real recordings and writes Sources/Heed/Detector+Trained.swift
# (cross-validated by speaker and noise file; prints the DET table and, with ABLATE=1, the
# ablation). It fits on every 2nd file (about 16 minutes); `make accuracy` scores the others too.
detector: release
	ABLATE=$(ABLATE) python3 scripts/detector.py --every 2 --write
	$(SWIFT) build -c release --product heed

# Cost, latency and memory on a real context (real coffee requests against the coffee-maker
# context, quiet and at 12 dB) beside plain PocketSphinx on the same files; long speech; memory over
# a 15-minute noisy stream. About half an hour (QUICK=1: about ten minutes); not part of CI.
QUICK ?=
ABLATE ?=
bench: release $(TEST_VENV)/ready
	$(SWIFT) build -c release --product heed-ring-bench
	python3 scripts/bench.py $(if $(QUICK),--quick)

# libFuzzer over every parser (WAV, context, suite, app manifest, policy, dictionary), SECONDS
# each. The fuzz build is instrumented and kept apart in .build/fuzz.
SECONDS ?= 60
fuzz: deps
	$(SWIFT) build --product heed-fuzz --build-path .build/fuzz \
	  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DHEED_FUZZING
	scripts/fuzz.sh $(SECONDS)

# heed built with AddressSanitizer/LeakSanitizer over the suites and the error paths: any leak or
# memory error fails (a few minutes; not part of CI).
leaks: deps
	$(SWIFT) build --product heed --build-path .build/asan -Xswiftc -sanitize=address
	scripts/leaks.sh

# An hour of paced commands and negatives through `heed listen --input`: RSS every minute, drops,
# and the same intents as each file alone (MINUTES=5 for a short one; not part of CI).
MINUTES ?= 60
soak: release
	python3 scripts/soak.py $(MINUTES)

# Regenerates the synthetic recordings (they are committed; see Audio/make-fixtures.sh).
fixtures: deps
	Audio/make-fixtures.sh

clean:
	rm -rf .build
