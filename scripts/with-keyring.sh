#!/bin/sh
# with-keyring.sh CMD [ARG...] runs CMD inside a private D-Bus session bus
# with an unlocked gnome-keyring, and with SWITCHBOARD_TEST_KEYRING=1 so the
# keyring tests insist on reaching it:
#
#	bash scripts/with-keyring.sh go test ./store/keyring/
#
# The keyring's files and control socket go to a temporary directory, so the
# caller's own session and login keyring are never touched (a gnome-keyring
# already running for the user would otherwise take the --unlock request).
# It exits with CMD's status.
#
# Needs the packages dbus (dbus-run-session, dbus-send) and gnome-keyring.
set -eu

if [ "$#" -eq 0 ]; then
	echo "usage: $0 CMD [ARG...]" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/switchboard-keyring.XXXXXX")
trap 'rm -rf "$tmp" || true' EXIT
mkdir -m 700 "$tmp/data" "$tmp/run"
export XDG_DATA_HOME="$tmp/data" XDG_RUNTIME_DIR="$tmp/run"
export SWITCHBOARD_TEST_KEYRING=1

# The inner script gets CMD and its arguments as "$@", untouched
# ("with-keyring" fills $0). The daemon runs in the foreground so that it can
# be stopped by its pid: daemonized, it outlives the bus. It claims its bus
# name only after --unlock returns, so wait for that. The password only
# creates and unlocks the throwaway login keyring.
status=0
dbus-run-session -- sh -c '
	printf %s pw | gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null &
	daemon=$!
	tries=0
	until dbus-send --session --print-reply --dest=org.freedesktop.DBus \
		/org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner \
		string:org.freedesktop.secrets 2>/dev/null | grep -q "boolean true"
	do
		tries=$((tries + 1))
		if [ "$tries" -ge 100 ] || ! kill -0 "$daemon" 2>/dev/null; then
			echo "with-keyring: gnome-keyring-daemon did not start" >&2
			kill "$daemon" 2>/dev/null
			exit 1
		fi
		sleep 0.1
	done
	status=0
	"$@" || status=$?
	kill "$daemon" && wait "$daemon"
	exit "$status"
' with-keyring "$@" || status=$?
exit "$status"
