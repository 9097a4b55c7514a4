#!/bin/bash
# Records the replays TestReplayMatchesTmux checks: each program runs in a
# tmux pane of a fixed size; what it writes to the pane is kept as NAME.raw
# (pipe-pane), and tmux's view of the result as NAME.screen (capture-pane,
# trailing blanks trimmed) and NAME.size ("cols rows cursorX cursorY alt").
# Needs tmux, vim, less, git and python3; the agent CLIs are recorded when
# codex and gemini are on PATH (npm: @openai/codex, @google/gemini-cli),
# with a fresh HOME, so what they show is their sign-in screens. Run from
# this directory:
#   bash record.sh
set -eu
here=$(pwd)
repo=$(git rev-parse --show-toplevel)

record() {
	local name=$1 cols=$2 rows=$3
	shift 3
	local home
	home=$(mktemp -d)
	rm -f "$here/$name.raw"
	tmux kill-session -t vtrec 2>/dev/null || true
	tmux new-session -d -s vtrec -x "$cols" -y "$rows" \
		"env -i HOME=$home PATH=$PATH TERM=tmux-256color LANG=C.UTF-8 PS1='\$ ' bash --norc --noprofile"
	tmux set-option -t vtrec status off >/dev/null
	sleep 0.3
	tmux pipe-pane -t vtrec -o "cat >> '$here/$name.raw'"
	sleep 0.2
	tmux send-keys -t vtrec clear Enter
	sleep 0.3
	for k in "$@"; do
		case $k in
		sleep:*) sleep "${k#sleep:}" ;;
		*) tmux send-keys -t vtrec "$k" ;;
		esac
	done
	sleep 1
	tmux capture-pane -t vtrec -p | sed -e 's/[[:space:]]*$//' >"$here/$name.screen"
	tmux display -t vtrec -p "$cols $rows #{cursor_x} #{cursor_y} #{alternate_on}" >"$here/$name.size"
	tmux kill-session -t vtrec
	rm -rf "$home"
	echo "$name: $(wc -c <"$here/$name.raw") bytes"
}

left=()
for _ in $(seq 26); do left+=(Left); done

record ls 100 30 "ls -la --color=always /usr/bin | head -60" Enter
record unicode 60 20 "cat $here/inputs/unicode.txt" Enter
record vim 90 25 "vim -u NONE -N $repo/supervisor/vt/print.go" Enter sleep:1 50G ix Escape ":set number" Enter sleep:0.5
record less 80 24 "less $repo/supervisor/vt/csi.go" Enter sleep:0.5 " " " " /eraseDisplay Enter
record gitlog 120 30 "git -C $repo log --oneline --graph --color=always --decorate -n 40" Enter
record readline 40 10 "echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa bbbbbbbbbb" "${left[@]}" "XYZ日本" BSpace BSpace C-a C-k "echo done" Enter
record regions 40 20 "bash $here/inputs/regions.sh" Enter
record curses 60 20 "python3 $here/inputs/curses_demo.py" Enter sleep:2
if command -v codex >/dev/null; then
	record codex 90 24 codex Enter sleep:4 Down Down Enter sleep:1 Down Enter sleep:1 "sk-test-日本-not-a-key" sleep:1
fi
if command -v gemini >/dev/null; then
	record gemini 100 30 gemini Enter sleep:12 Down Down sleep:1
fi
