# Set-up and checks for capture. `make demo` and `make test` work on a fresh Debian 12 machine:
# run as root they install what they need; as a user, `make deps` prints the apt-get line.

SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= release

# Build: FFmpeg's libraries, libasound, libpulse, the kernel's V4L2 header.
BUILD_PACKAGES = pkg-config libavdevice-dev libavformat-dev libavcodec-dev libswscale-dev \
	libswresample-dev libavutil-dev libasound2-dev libpulse-dev linux-libc-dev
# Tests and the oracles they compare against: ffmpeg/ffprobe, v4l2-ctl, arecord, a PulseAudio
# server, valgrind, nginx with its RTMP module and its TLS-ending stream module (the streaming
# tests' server; openssl makes its certificate); chromium (the preview page's browser test);
# ustreamer (the preview's benchmark); the guest suite's QEMU comes from Tests/VM/setup.
# The manual page and completions: groff, man-db, zsh, fish, bash-completion; the package: dpkg-dev
# (dpkg-shlibdeps), binutils (strip), lintian.
TEST_PACKAGES = ffmpeg v4l-utils alsa-utils pulseaudio pulseaudio-utils libasound2-plugins valgrind util-linux \
	python3 groff man-db zsh fish bash-completion dpkg-dev binutils lintian nginx libnginx-mod-rtmp \
	libnginx-mod-stream openssl python3-gst-1.0 gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-good \
	gstreamer1.0-plugins-bad chromium ustreamer
PACKAGES = $(BUILD_PACKAGES) $(TEST_PACKAGES)

# The Swift runtime, Dispatch and FoundationEssentials are linked into the binary
# (--static-swift-stdlib), so the installed program and the Debian package run without a Swift
# toolchain. The sources import FoundationEssentials, never full Foundation, which would link ICU
# and its 34 MB of data too. Measured with Swift 6.3.1 on Debian 12, stripped: 15.5 MB; peak RSS of
# `capture --version` 51.5 MiB against 47.2 MiB for `ffmpeg -version` (the same FFmpeg libraries).
# With full Foundation: 59.2 MB static, against 1.3 MB plus 78.8 MB of the toolchain's runtime
# libraries to ship in /usr/lib/capture (14 of them, ICU's data alone 40.8 MB); peak RSS 57.9 MiB
# static against 63.7 MiB with the shared libraries.
#
# Linked by the toolchain's lld with packed relative relocations (RELR; glibc 2.36, Debian 12) and
# without exporting the program's own symbols (the toolchain's default exports them all, for no
# caller: nothing loads symbols from the executable). The loader then reads 8 kB of relocations
# instead of 0.9 MB and searches no 3,800-symbol table of ours for each of its libraries' symbols:
# `capture --version` peaks 0.9 MiB lower (54.7 to 53.8 MiB; ffmpeg -version 49.2 on the same run).
# No run path either (SwiftPM adds $ORIGIN by default): the program finds its libraries where
# the system keeps them, never beside itself.
SWIFT_BUILD_FLAGS ?= --static-swift-stdlib --disable-local-rpath -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
	-Xlinker --no-export-dynamic
BIN = $(shell $(SWIFT) build -c $(CONFIG) --show-bin-path 2>/dev/null)

# Where `make install` puts things, below $(DESTDIR)$(PREFIX): the places Debian's man, bash-completion,
# zsh and fish look in.
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man/man1
BASH_COMPLETION_DIR = $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR = $(PREFIX)/share/zsh/vendor-completions
FISH_COMPLETION_DIR = $(PREFIX)/share/fish/vendor_completions.d
# The binary `install` and `deb` take: the release build, or CAPTURE_BIN when given (nothing is built).
CAPTURE_BIN ?=
INSTALL_BIN = $(or $(CAPTURE_BIN),$(BIN)/capture)
BUILD_STEP = $(if $(CAPTURE_BIN),,build)
DEB_DIR ?= .build/deb
DEB_MAINTAINER ?= capture maintainers <capture@example.org>

.PHONY: deps build test test-unit test-vm demo lint install uninstall deb clean bench

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
	$(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS)

# The whole suite: unit and end-to-end tests on the host, then the guest suite on real drivers.
test: test-unit test-vm

test-unit: deps
	$(SWIFT) build -c $(CONFIG) $(SWIFT_BUILD_FLAGS)
	# The library client (README's Library section) is built first, so its compile does not run
	# beside the suite's timing-sensitive recordings; LibraryClientTests then runs it.
	$(SWIFT) build --package-path Tests/LibraryClient --scratch-path .build/library-client
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

# The binary, the manual page and the completion scripts, the last two written by the binary itself
# from its command specs.
install: $(BUILD_STEP)
	install -D -m 755 $(INSTALL_BIN) $(DESTDIR)$(BINDIR)/capture
	install -d $(DESTDIR)$(MANDIR) $(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(ZSH_COMPLETION_DIR) \
		$(DESTDIR)$(FISH_COMPLETION_DIR)
	$(INSTALL_BIN) --generate-manual > $(DESTDIR)$(MANDIR)/capture.1
	$(INSTALL_BIN) --generate-completion-script bash > $(DESTDIR)$(BASH_COMPLETION_DIR)/capture
	$(INSTALL_BIN) --generate-completion-script zsh > $(DESTDIR)$(ZSH_COMPLETION_DIR)/_capture
	$(INSTALL_BIN) --generate-completion-script fish > $(DESTDIR)$(FISH_COMPLETION_DIR)/capture.fish
	chmod 644 $(DESTDIR)$(MANDIR)/capture.1 $(DESTDIR)$(BASH_COMPLETION_DIR)/capture \
		$(DESTDIR)$(ZSH_COMPLETION_DIR)/_capture $(DESTDIR)$(FISH_COMPLETION_DIR)/capture.fish

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/capture $(DESTDIR)$(MANDIR)/capture.1 $(DESTDIR)$(BASH_COMPLETION_DIR)/capture \
		$(DESTDIR)$(ZSH_COMPLETION_DIR)/_capture $(DESTDIR)$(FISH_COMPLETION_DIR)/capture.fish

# capture_<version>_<arch>.deb in $(DEB_DIR), from the tree `install` fills (debian/build-deb).
deb: $(BUILD_STEP)
	@test -n "$(strip $(DEB_DIR))" || { echo "make deb: DEB_DIR is empty" >&2; exit 1; }
	rm -rf $(abspath $(DEB_DIR))/root
	$(MAKE) --no-print-directory install CAPTURE_BIN=$(abspath $(INSTALL_BIN)) PREFIX=/usr \
		DESTDIR=$(abspath $(DEB_DIR))/root
	debian/build-deb $(DEB_DIR)/root $(DEB_DIR) "$(DEB_MAINTAINER)"

clean:
	$(SWIFT) package clean
	rm -rf .build
