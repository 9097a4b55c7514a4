# The two commands of the README: `make run` and `make test`. Each installs
# the system packages it needs first (scripts/deps.sh), so both work on a
# fresh Debian 12 machine with Go 1.26.

SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
BIN := bin/switchboard
# Packages that must build and test without cgo (SPEC §1).
PURE := ./store/... ./mcpserver/... ./mcphttp/ ./supervisor/... ./app/daemon/... ./app/cli/... ./bench/mcpbench/ ./gitcmd/... ./workspace/ ./internal/... ./test/standinmodel/
XVFB := xvfb-run -a -s "-screen 0 1280x800x24"

.PHONY: run test build deps-run deps-test deps-cross test-pure test-race test-plain test-postgres test-team test-gui test-e2e test-e2e-desktop test-e2e-agents test-beside-e2e bench fuzz soak vet vet-cross cross clean
.PHONY: install uninstall package package-deb package-archive deps-package test-install

run: deps-run build
	./$(BIN)

build:
	$(GO) build -o $(BIN) .
	CGO_ENABLED=0 $(GO) build -o bin/switchboard-sandbox ./cmd/switchboard-sandbox

deps-run:
	@sh scripts/deps.sh run

deps-test:
	@sh scripts/deps.sh test

deps-cross:
	@sh scripts/deps.sh cross

# One step after another: the vet; the cgo-free packages' tests (the core
# under race, the rest plain beside it: test-pure) beside the PostgreSQL
# suites and team mode's daemons (test-shared), which wait most of their
# time on their servers (a warm make test used 1.3 of the 2 cores with the
# two one after the other); make build. Then two lanes side by side
# (-j2): the end-to-end suite, which waits most of its time (agent CLIs,
# the stand-in model, idle-CPU and screenshot windows, kills and
# restarts), and the GUI's tests, the installs and the cross builds, which
# mostly compile (test-beside-e2e). The suite in two processes
# (test-e2e-agents beside test-e2e-desktop) was faster but, on 2 cores,
# timed out a real CLI's MCP connection and the conformance tool's
# scenarios once in two runs;
# -Otarget prints each one's output whole when it ends. Nothing in them
# shares a file, a port, a display or a bus: the e2e tests run
# bin/switchboard, built first, which the installs' make build then finds
# up to date. docs/testing.md has the times.
test: deps-test
	$(MAKE) --no-print-directory vet
	$(MAKE) --no-print-directory -j2 -Otarget test-pure test-shared
	$(MAKE) --no-print-directory build
	$(MAKE) --no-print-directory -j2 -Otarget test-e2e test-beside-e2e

test-beside-e2e:
	$(MAKE) --no-print-directory vet-cross
	$(MAKE) --no-print-directory test-gui
	$(MAKE) --no-print-directory test-install
	$(MAKE) --no-print-directory cross

# vet also checks that every module of the tree is tidy and that the
# modules of their own under bench/ build (scripts/gomod-check.sh): make
# bench runs go test and go build in them, which stop on an untidy go.mod.
vet:
	sh scripts/gomod-check.sh
	CGO_ENABLED=0 $(GO) vet $(PURE)
	CGO_ENABLED=0 $(GO) vet ./bench/...
	CGO_ENABLED=0 $(GO) vet ./app/launch/ ./cmd/...
	$(GO) vet ./app/ ./test/...

# The cgo-free packages (the core and what it imports, the daemon, the CLI)
# for the two desktops this machine only builds for: windows (ConPTY,
# AF_UNIX control socket, Job Objects) and darwin (creack/pty, sysctl).
vet-cross:
	@for os in windows darwin; do \
		echo "vet GOOS=$$os"; \
		GOOS=$$os GOARCH=amd64 CGO_ENABLED=0 $(GO) vet $(PURE) ./app/launch/ ./cmd/... || exit 1; \
	done

# Windows: the whole app, Fyne included, through the MinGW-w64 cross
# compiler, as a console program (the CLI must print; the tray lets go of a
# console it does not share). macOS: the headless daemon and CLI without
# cgo (Fyne's macOS driver needs Apple's SDK). test/crossbin then checks
# the files: PE32+ amd64 with OpenGL linked, Mach-O amd64 and arm64.
WIN_EXE := bin/switchboard-windows-amd64.exe
cross: deps-cross
	CGO_ENABLED=1 GOOS=windows GOARCH=amd64 CC=x86_64-w64-mingw32-gcc $(GO) build -o $(WIN_EXE) .
	CGO_ENABLED=0 GOOS=darwin GOARCH=amd64 $(GO) build -o bin/switchboard-darwin-amd64 ./cmd/switchboard-daemon
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build -o bin/switchboard-darwin-arm64 ./cmd/switchboard-daemon
	SWITCHBOARD_CROSS_BIN=$(CURDIR)/bin $(GO) test -count=1 ./test/crossbin/

# The cgo-free packages' tests, each once: the concurrent core (the store,
# the registry, the MCP front, the supervisor, the daemon) under the race
# detector, which needs cgo itself, not the code (the Linux app links these
# packages with cgo too; that they build without cgo, tests included, make
# vet checks). The rest without it (test-plain): git, the workspace, the
# benchmark harness, the test helpers and the CLI, whose tests run the
# test binary again as the CLI for each command, each start paying the
# race runtime's (TestCLIWithoutDaemon: 48 s under race, 8 s without).
# Race adds little there: git and the workspace share no memory between
# goroutines, the harness and the helpers are test code, and the CLI's
# one concurrent code of its own, the MCP bridge and agent attach, runs
# its tests under race (RACE_CLI), and only there. The two lanes run side by
# side; in each, -p 4 runs four packages at a time, not one per core,
# since the longest suites wait much of their time on agents, git and
# sockets, and the longest come first in RACE so none starts last.
RACE := ./app/daemon/... ./mcpserver/... ./mcphttp/ ./store/... ./supervisor/...
PLAIN := ./app/cli/ ./bench/mcpbench/ ./workspace/ ./gitcmd/... ./internal/... ./test/standinmodel/
RACE_CLI := ^(TestBridge|TestCLIAgentAttach)
test-pure:
	$(MAKE) --no-print-directory -j2 -Otarget test-race test-plain

test-race:
	$(GO) test -race -count=1 -p 4 $(RACE)

test-plain:
	$(GO) test -count=1 -p 4 -skip '$(RACE_CLI)' $(PLAIN)
	$(GO) test -race -count=1 -run '$(RACE_CLI)' ./app/cli/

# The store's and the registry's tests again, on PostgreSQL: each test's
# database a schema of a real server the tests start (internal/pgtest).
# -short only makes the eight-agent drain 500 packets instead of 5,000.
test-postgres:
	SWITCHBOARD_STORE_SUITE=postgres CGO_ENABLED=0 $(GO) test -count=1 -short ./store/ ./mcpserver/ ./mcphttp/

# make test runs the two above side by side: each waits mostly on its
# PostgreSQL servers and processes. go test runs two packages at a time
# and starts them in the order given: team mode's, the longest, first,
# beside the store's, then the registry's and the MCP front's as slots
# free (team last, it started when the three others had ended: 294 s
# instead of about 200, under others' load).
test-shared:
	SWITCHBOARD_STORE_SUITE=postgres SWITCHBOARD_TEAM_KILLS=$(TEAMKILLS) CGO_ENABLED=0 $(GO) test -count=1 -short -timeout 10m ./test/team/ ./store/ ./mcphttp/ ./mcpserver/

# Team mode as deployed: real headless daemons, each with folders of its
# own, on one real PostgreSQL server; eight agents drain 1,000 packets, one
# instance is SIGKILLed under load TEAMKILLS times (the other ends its
# sessions and takes its leases back), the database is stopped for 10 s
# under load. About 80 s.
TEAMKILLS ?= 20
test-team:
	SWITCHBOARD_TEAM_KILLS=$(TEAMKILLS) $(GO) test -count=1 -timeout 10m ./test/team/

# Widget tests of the tray, headless through fyne's test driver, plus the
# keyring against a real gnome-keyring on a private session bus.
test-gui:
	$(GO) test -count=1 ./app/ ./app/termview/ fyne.io/fyne/v2/lang fyne.io/fyne/v2/dialog fyne.io/fyne/v2/app
	sh scripts/with-keyring.sh env CGO_ENABLED=0 $(GO) test -count=1 -run 'Keyring|System' ./store/keyring/

# The real binary under a virtual display, a private session bus and a real
# gnome-keyring: headless daemon, CLI, crashes, keyring restarts, the tray
# over D-Bus and the clipboard. It runs make build's binary (bin/), linked
# once for the tests and the installs. Two go test processes run it side
# by side, each under its own display, bus and keyring: the real agent
# CLIs against the stand-in model (test-e2e-agents: E2E_AGENTS, the tests
# of realcli*_test.go) and everything else (test-e2e-desktop). Both wait
# most of their time, on agents, restarts, idle and screenshot windows,
# and take about as long as each other (4½ and 5 min under others' load,
# beside the third lane of make test; 12 min in one process). The -timeout is a last resort for a hang,
# kept well above that, not a bound of speed.
E2E_ENV := SWITCHBOARD_E2E_BIN=$(CURDIR)/bin SWITCHBOARD_E2E_GUI=1 SWITCHBOARD_E2E_NODE=1
E2E_AGENTS := ^(TestRealCLI|TestResume|TestProfileFlagsInHelp|TestClaudeBypassRefusedAsRoot|TestConversationFlagsInHelp)
test-e2e: build
	$(E2E_ENV) $(XVFB) sh scripts/with-keyring.sh $(GO) test -count=1 -timeout 20m ./test/e2e/

test-e2e-desktop: build
	$(E2E_ENV) $(XVFB) sh scripts/with-keyring.sh $(GO) test -count=1 -timeout 20m -skip '$(E2E_AGENTS)' ./test/e2e/

test-e2e-agents: build
	$(E2E_ENV) $(XVFB) sh scripts/with-keyring.sh $(GO) test -count=1 -timeout 20m -run '$(E2E_AGENTS)' ./test/e2e/

# The Go benchmarks of the store, the MCP path, the emulator and the
# recorder, the agent host (adoption, throughput, memory), the main window's first paint, then bench/mcpbench, whose table comes last: it builds the
# switchboard binary (cgo, hence deps-run) and bench/peers, and runs the
# supervisor's PTY benchmarks and bench/vtcompare itself to put their
# figures in the same table. It writes bench/latest.json.
bench: deps-run
	@sh scripts/deps.sh bench
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench . -benchmem ./store/ ./mcpserver/ ./mcphttp/
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench . -benchtime 3x ./supervisor/vt/ ./supervisor/asciicast/
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench ConflictStatus -benchtime 5x ./workspace/
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench 'HostAdopt|HostPTY|HostMemory' -benchtime 5x ./supervisor/
	$(GO) test -run '^$$' -bench 'MainWindowFirstPaint|MainWindowFrame' -benchtime 5x ./app/
	CGO_ENABLED=0 $(GO) run ./bench/mcpbench

# The real daemon on loopback under 200 MCP clients and 100 SSE streams for
# SOAKTIME after a warm-up; fails on any failed call or a leak. Then the
# crash suite at length: CRASHKILLS SIGKILLs of the real daemon under
# workflow load, and as many while tokens are created, each restart checked
# (make test runs the same tests with 20 and 5).
SOAKTIME ?= 60s
CRASHKILLS ?= 100
soak: deps-test
	CGO_ENABLED=0 $(GO) run ./bench/soak -duration $(SOAKTIME)
	set -o pipefail; SWITCHBOARD_CRASH_KILLS=$(CRASHKILLS) $(GO) test -count=1 -timeout 60m -v -run '^TestKill' ./test/e2e/ \
		| grep -E '^(--- |ok|FAIL|PASS)|kills survived'

# Each fuzz target for FUZZTIME (their seeds run in make test). A crash
# leaves its input under the package's testdata/fuzz/ and stops here.
FUZZTIME ?= 1m
FUZZ_TARGETS := ./store:FuzzParseToken ./mcphttp:FuzzParseEnvelope ./mcphttp:FuzzHTTPFront \
	./supervisor/vt:FuzzWrite ./supervisor/vt:FuzzDecodeLine \
	./supervisor/asciicast:FuzzRoundTrip ./supervisor/asciicast:FuzzParseEvent
fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$name ($$pkg) for $(FUZZTIME)"; \
		CGO_ENABLED=0 $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	done

clean:
	rm -rf bin

# Installing. `make install` puts the binary, a menu entry and the icons
# under PREFIX (default ~/.local: no root needed); `sudo make install
# PREFIX=/usr/local` for everyone. DESTDIR stages the same tree elsewhere
# (the .deb is built that way), with paths inside the files still PREFIX's.
# `make uninstall` (same PREFIX, DESTDIR) removes exactly those files and
# leaves the folders, which other applications share.
PREFIX ?= $(HOME)/.local
APPID := dev.switchboard.app
VERSION := $(shell sed -n 's/^ *Version = "\(.*\)"/\1/p' FyneApp.toml)
# assets/hicolor/N.png are drawn by assets/gen_icons.go; 256 is assets/app.png.
ICON_SIZES := 16 22 24 32 48 64 128 256
BINDIR = $(PREFIX)/bin
APPSDIR = $(PREFIX)/share/applications
ICONDIR = $(PREFIX)/share/icons/hicolor
INSTALLED = $(BINDIR)/switchboard $(BINDIR)/switchboard-sandbox $(APPSDIR)/$(APPID).desktop \
	$(foreach s,$(ICON_SIZES),$(ICONDIR)/$(s)x$(s)/apps/$(APPID).png)
# Exec= takes PREFIX as it is, and make splits words at spaces, so PREFIX
# keeps to characters that need no quoting in either.
define check_prefix
	@case '$(PREFIX)' in /*) ;; *) echo "make: PREFIX must be an absolute path, not '$(PREFIX)'" >&2; exit 1;; esac
	@case '$(PREFIX)$(DESTDIR)' in *[!A-Za-z0-9/._+-]*) echo "make: PREFIX and DESTDIR may hold only letters, digits and / . _ + -" >&2; exit 1;; esac
endef
# A hicolor folder with an icon-theme.cache must have it refreshed, or the
# desktop keeps looking up icons in the stale cache; one without is scanned
# directly, and making a cache there would go stale in the same way.
define refresh_icon_cache
	@if [ -z '$(DESTDIR)' ] && [ -f '$(ICONDIR)/icon-theme.cache' ] && command -v gtk-update-icon-cache >/dev/null; then \
		gtk-update-icon-cache -q -t -f '$(ICONDIR)'; fi
endef

install: build
	$(check_prefix)
	sed 's|@BINDIR@|$(BINDIR)|g' packaging/$(APPID).desktop.in > bin/$(APPID).desktop
	umask 022 && install -d -m 0755 '$(DESTDIR)$(BINDIR)' '$(DESTDIR)$(APPSDIR)' \
		$(foreach s,$(ICON_SIZES),'$(DESTDIR)$(ICONDIR)/$(s)x$(s)/apps')
	install -m 0755 $(BIN) '$(DESTDIR)$(BINDIR)/switchboard'
	install -m 0755 bin/switchboard-sandbox '$(DESTDIR)$(BINDIR)/switchboard-sandbox'
	install -m 0644 bin/$(APPID).desktop '$(DESTDIR)$(APPSDIR)/$(APPID).desktop'
	@for s in $(ICON_SIZES); do \
		src=assets/hicolor/$$s.png; [ $$s = 256 ] && src=assets/app.png; \
		install -m 0644 $$src '$(DESTDIR)$(ICONDIR)/'$$s'x'$$s'/apps/$(APPID).png' || exit 1; \
	done
	$(refresh_icon_cache)
	@echo "installed Switchboard in $(DESTDIR)$(PREFIX) (run 'switchboard autostart on' to start it at login)"

uninstall:
	$(check_prefix)
	rm -f $(foreach f,$(INSTALLED),'$(DESTDIR)$(f)')
	$(refresh_icon_cache)

# make package: dist/switchboard_VERSION_ARCH.deb (dpkg-deb, from the tree
# make install stages with PREFIX=/usr) and the archive `fyne package`
# makes (a tar.xz with its own Makefile), both of bin/switchboard.
DIST ?= dist
# dpkg-deb's own flags: test/install passes -z0, the fastest xz, as it looks
# at what the package holds rather than how small it is.
DEBFLAGS ?=
ARCH = $(shell dpkg --print-architecture)

package: deps-package package-deb package-archive

deps-package:
	@sh scripts/deps.sh package

# packaging/control.in's Depends: the packages of the libraries the binary
# links (libGL, libX11, libc: test/install checks each against dpkg -S), and
# of those GLFW opens at run time (Xcursor, Xrandr, Xinerama, Xi, Xxf86vm).
package-deb: build
	rm -rf '$(DIST)/deb'
	$(MAKE) --no-print-directory install PREFIX=/usr DESTDIR='$(abspath $(DIST))/deb'
	umask 022 && install -d -m 0755 '$(DIST)/deb/DEBIAN'
	sed -e 's|@VERSION@|$(VERSION)|' -e 's|@ARCH@|$(ARCH)|' \
		-e "s|@SIZE@|$$(du -sk '$(DIST)/deb/usr' | cut -f1)|" packaging/control.in > '$(DIST)/deb/DEBIAN/control'
	chmod 0644 '$(DIST)/deb/DEBIAN/control'
	dpkg-deb --build --root-owner-group $(DEBFLAGS) '$(DIST)/deb' '$(DIST)/switchboard_$(VERSION)_$(ARCH).deb'
	rm -rf '$(DIST)/deb'

# fyne package adds one to FyneApp.toml's Build each time it runs, so it
# runs on a copy: its source folder holds that copy, the icon, and main.go
# (it wants to see Go code there; with --executable it builds nothing). It
# writes the archive into the folder it runs in, named after the app.
# fyne.io/tools 1.7.2 names the icon without its .png in the archive's
# Makefile, so its install fails (fixed in 1.7.3, which needs Fyne 2.8):
# the archive is unpacked, that one line corrected, and packed again.
package-archive: build
	rm -rf '$(DIST)/fyne'
	mkdir -p '$(DIST)/fyne/src/assets' '$(DIST)/fyne/out'
	cp FyneApp.toml main.go '$(DIST)/fyne/src/'
	cp assets/app.png '$(DIST)/fyne/src/assets/'
	$(GO) tool fyne package --target linux --executable '$(CURDIR)/$(BIN)' --src '$(abspath $(DIST))/fyne/src'
	tar -xJf Switchboard.tar.xz -C '$(DIST)/fyne/out' && rm Switchboard.tar.xz
	grep -q '^Icon := "$(APPID)"$$' '$(DIST)/fyne/out/switchboard/Makefile'
	sed -i 's/^Icon := "$(APPID)"$$/Icon := "$(APPID).png"/' '$(DIST)/fyne/out/switchboard/Makefile'
	tar -cJf '$(DIST)/switchboard_$(VERSION)_linux_$(ARCH).tar.xz' --owner=0 --group=0 --numeric-owner \
		-C '$(DIST)/fyne/out' switchboard
	rm -rf '$(DIST)/fyne'

# make install and uninstall into a temporary PREFIX, and the .deb, checked
# (test/install, with the binary make build makes).
test-install:
	$(GO) test -count=1 -timeout 5m ./test/install/
