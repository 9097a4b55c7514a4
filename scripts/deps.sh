#!/bin/sh
# deps.sh run|test|bench|package|cross installs the Debian packages
# Switchboard needs to build and run (run), to run every test (test), to
# measure it (bench), to build the release packages (package) or to
# cross-build for Windows (cross). It is
# idempotent and quiet when everything is already there; it uses sudo when
# not root.
set -eu

mode=${1:-run}

# Build: cgo for Fyne's OpenGL driver and its X11 headers.
pkgs="gcc pkg-config libgl1-mesa-dev libx11-dev libxrandr-dev libxcursor-dev libxinerama-dev libxi-dev libxxf86vm-dev"
# Run: a session bus and the Secret Service for the keyring, a clipboard,
# git, which gives each agent a worktree of its own (the tests of gitcmd
# and workspace run it too), and bubblewrap, which confines each agent.
pkgs="$pkgs dbus dbus-x11 gnome-keyring xclip git bubblewrap"
if [ "$mode" = test ]; then
	# A virtual display for the tray test, gdbus and imagemagick to look at it;
	# desktop-file-validate for the menu and autostart entries, and xz for
	# the release archive test/install builds.
	pkgs="$pkgs xvfb xauth x11-utils libglib2.0-bin imagemagick desktop-file-utils xz-utils"
fi
if [ "$mode" = package ]; then
	# make package: fyne package compresses its archive with tar -J.
	pkgs="$pkgs xz-utils"
fi
if [ "$mode" = test ] || [ "$mode" = cross ]; then
	# make cross: the Windows build of the whole app needs cgo for Fyne,
	# through the MinGW-w64 cross compiler (x86_64-w64-mingw32-gcc).
	pkgs="$pkgs gcc-mingw-w64-x86-64"
fi

if [ "$mode" = test ] || [ "$mode" = bench ]; then
	# A real PostgreSQL server for the team-mode store's tests and bench
	# rows, which make clusters of their own (internal/pgtest) and never
	# touch the one the package may make.
	pkgs="$pkgs postgresql"
fi

missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done

if [ -n "$missing" ]; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	echo "deps: installing$missing" >&2
	$sudo apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# The end-to-end tests drive the server with the official TypeScript MCP SDK
# and the conformance suite (test/node), which need Node.js and npm; make
# bench installs the pinned agent CLIs (test/agents) with npm ci to time
# their starts, and without npm prints those rows as skipped.
if { [ "$mode" = test ] || [ "$mode" = bench ]; } && ! command -v npm >/dev/null 2>&1; then
	sudo=""
	if [ "$(id -u)" -ne 0 ]; then
		sudo="sudo"
	fi
	echo "deps: installing nodejs npm" >&2
	$sudo apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
fi

if ! command -v go >/dev/null 2>&1; then
	if [ -x /usr/local/go/bin/go ]; then
		echo "deps: Go is in /usr/local/go/bin; add it to PATH" >&2
	else
		echo "deps: Go 1.26 or newer is needed (https://go.dev/dl/), then run this again" >&2
	fi
	exit 1
fi
