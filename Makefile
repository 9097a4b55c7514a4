# The two commands of the README: `make run` and `make test`. Each installs
# the system packages it needs first (scripts/deps.sh), so both work on a
# fresh Debian 12 machine with Go 1.26.

SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin
GO ?= go
BIN := bin/switchboard
# Packages that must build and test without cgo (SPEC §1).
PURE := ./store/... ./mcpserver/... ./supervisor/... ./app/daemon/... ./app/cli/... ./bench/mcpbench/ ./gitcmd/... ./workspace/ ./internal/... ./usage/... ./test/standinmodel/
XVFB := xvfb-run -a -s "-screen 0 1280x800x24"

.PHONY: run test build deps-run deps-test test-pure test-gui test-e2e bench fuzz soak vet clean

run: deps-run build
	./$(BIN)

build:
	$(GO) build -o $(BIN) .

deps-run:
	@sh scripts/deps.sh run

deps-test:
	@sh scripts/deps.sh test

test: deps-test vet test-pure test-gui test-e2e

vet:
	CGO_ENABLED=0 $(GO) vet $(PURE)
	CGO_ENABLED=0 $(GO) vet ./bench/...
	$(GO) vet ./app/ ./test/...

# The cgo-free core, race detector on (it needs cgo itself, not the code).
test-pure:
	CGO_ENABLED=0 $(GO) test -count=1 $(PURE)
	$(GO) test -race -count=1 $(PURE)

# Widget tests of the tray, headless through fyne's test driver, plus the
# keyring against a real gnome-keyring on a private session bus.
test-gui:
	$(GO) test -count=1 ./app/ ./app/termview/ fyne.io/fyne/v2/lang fyne.io/fyne/v2/dialog
	sh scripts/with-keyring.sh env CGO_ENABLED=0 $(GO) test -count=1 -run 'Keyring|System' ./store/keyring/

# The real binary under a virtual display, a private session bus and a real
# gnome-keyring: headless daemon, CLI, crashes, keyring restarts, the tray
# over D-Bus and the clipboard.
test-e2e:
	SWITCHBOARD_E2E_GUI=1 SWITCHBOARD_E2E_NODE=1 $(XVFB) sh scripts/with-keyring.sh $(GO) test -count=1 -timeout 10m ./test/e2e/

# The Go benchmarks of the store, the MCP path, the emulator and the
# recorder, then bench/mcpbench, whose table comes last: it builds the
# switchboard binary (cgo, hence deps-run) and bench/peers, and runs the
# supervisor's PTY benchmarks and bench/vtcompare itself to put their
# figures in the same table. It writes bench/latest.json.
bench: deps-run
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench . -benchmem ./store/ ./mcpserver/
	CGO_ENABLED=0 $(GO) test -run '^$$' -bench . -benchtime 3x ./supervisor/vt/ ./supervisor/asciicast/
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
FUZZ_TARGETS := ./store:FuzzParseToken ./mcpserver:FuzzParseEnvelope ./mcpserver:FuzzHTTPFront \
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
