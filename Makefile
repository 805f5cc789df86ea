# Set-up and checks for capture. `make demo` and `make test` work on a fresh Debian 12 machine:
# run as root they install what they need; as a user, `make deps` prints the apt-get line.

SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= release

# Build: FFmpeg's libraries, libasound, libpulse, the kernel's V4L2 header.
BUILD_PACKAGES = pkg-config libavdevice-dev libavformat-dev libavcodec-dev libswscale-dev \
	libswresample-dev libavutil-dev libasound2-dev libpulse-dev linux-libc-dev
# Tests and the oracles they compare against: ffmpeg/ffprobe, v4l2-ctl, arecord, a PulseAudio
# server, valgrind; the guest suite's QEMU comes from Tests/VM/setup.
TEST_PACKAGES = ffmpeg v4l-utils alsa-utils pulseaudio pulseaudio-utils libasound2-plugins valgrind util-linux \
	python3
PACKAGES = $(BUILD_PACKAGES) $(TEST_PACKAGES)

BIN = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path 2>/dev/null)

.PHONY: deps build test test-unit test-vm demo lint install clean bench

deps:
	@missing=$$(for p in $(PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else \
		echo "Missing packages. Install them with:"; \
		echo "  sudo apt-get install --no-install-recommends" $$missing; \
		exit 1; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG)

# The whole suite: unit and end-to-end tests on the host, then the guest suite on real drivers.
test: test-unit test-vm

test-unit: deps
	$(SWIFT) build -c $(CONFIG)
	CAPTURE=$(BIN)/capture $(SWIFT) test

test-vm: build
	Tests/VM/setup
	CAPTURE=$(BIN)/capture Tests/VM/run-suite

# capture against the ffmpeg CLI on the same jobs (Bench/bench.py; issue 7): a table on stdout,
# JSON in bench-results/. Not part of `make test`; jobs 5 and 6 boot the guest that `make test` sets up.
# BENCH_ARGS passes options through, e.g. BENCH_ARGS='--jobs 1,3 --rounds 9'.
BENCH_PYTHON = $(shell test -x /usr/bin/python3 && echo /usr/bin/python3 || echo python3)
bench: build
	Tests/VM/setup
	$(BENCH_PYTHON) Bench/bench.py --capture $(BIN)/capture $(BENCH_ARGS)

DEMO_OUTPUT ?= .build/demo/demo.mp4

# Five seconds of H.264 + AAC from the built-in test pattern and tone: works without a camera.
demo: build
	$(BIN)/capture list
	$(BIN)/capture probe test
	@mkdir -p $(dir $(DEMO_OUTPUT))
	$(BIN)/capture record --video test --audio test --duration 5 --force $(DEMO_OUTPUT)
	@echo "Demo recording: $(abspath $(DEMO_OUTPUT))"

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

install: build
	install -D -m 755 $(BIN)/capture $(DESTDIR)$(PREFIX)/bin/capture

clean:
	$(SWIFT) package clean
	rm -rf .build
