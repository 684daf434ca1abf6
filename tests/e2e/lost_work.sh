#!/usr/bin/env bash
# End to end: no work is lost by the real window under Xvfb. (1) Words typed half a second before a kill -9 are
# in the autosave, and the next start keeps them. (2) Two windows on one config folder: A types, B types, A
# types again, both quit with Ctrl+Q: each window's words are in its own autosave.
# Usage: lost_work.sh PATH_TO_ATTNLAB WORK_DIR
set -uo pipefail
app=$1
work=$2
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing"; exit 1; }
command -v xdotool >/dev/null || { echo "xdotool is missing"; exit 1; }
rm -rf "$work" && mkdir -p "$work"

cat >"$work/drive.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
app=$1 work=$2
fail() { echo "$*"; import -window root "$work/failed.png" 2>/dev/null; exit 1; }

# start NAME CONFIG X: a window whose process id is in $pid_NAME and X window in $win_NAME, at x = X.
start() {
    XDG_CONFIG_HOME="$2" "$app" --width 700 --height 500 >"$work/$1.out" 2>"$work/$1.err" &
    local pid=$! win=""
    for _ in $(seq 1 100); do
        win=$(xdotool search --all --pid "$pid" --name "Attention Lab" 2>/dev/null | head -1)
        [ -n "$win" ] && break
        sleep 0.1
    done
    [ -n "$win" ] || fail "window $1 never appeared"
    xdotool windowmove --sync "$win" "$3" 0 2>/dev/null || true
    sleep 0.7
    printf -v "pid_$1" '%s' "$pid"
    printf -v "win_$1" '%s' "$win"
}
# type_in WIN TEXT: click into the Sentences box of the default layout (700x500), go to its end and type.
type_in() {
    xdotool windowraise "$1" windowfocus --sync "$1" 2>/dev/null || true
    # Into the Sentences box at 700x500, below the model line (two lines when it wraps) and its label.
    xdotool mousemove --window "$1" 60 140 click 1
    sleep 0.2
    xdotool keydown ctrl key End keyup ctrl
    xdotool type --delay 40 "$2"
}
# quit WIN PID: Ctrl+Q, then wait for a clean exit.
quit() {
    xdotool windowraise "$1" windowfocus --sync "$1" 2>/dev/null || true
    xdotool keydown ctrl key q keyup ctrl
    for _ in $(seq 1 100); do kill -0 "$2" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$2" 2>/dev/null && fail "Ctrl+Q did not quit window $2"
    wait "$2" || fail "window $2 exited with status $?"
}

# (1) kill -9 half a second after the last key.
config="$work/config1"
start A "$config" 0
type_in "$win_A" " kept after a kill"
sleep 0.5
kill -9 "$pid_A"
wait "$pid_A" 2>/dev/null
grep -q "kept after a kill" "$config/attnlab/last_session.json" ||
    fail "the words typed 0.5 s before kill -9 are not in the autosave: $(cat "$config/attnlab/last_session.json")"
start A2 "$config" 0
quit "$win_A2" "$pid_A2"
grep -q "kept after a kill" "$config/attnlab/last_session.json" || fail "the next start lost the words"

# (2) two windows on one config folder.
config="$work/config2"
start A "$config" 0
start B "$config" 800
[ -f "$config/attnlab/last_session.lock" ] || fail "no lock file"
type_in "$win_A" " alpha one"
type_in "$win_B" " bravo two"
type_in "$win_A" " alpha three"
quit "$win_A" "$pid_A"
quit "$win_B" "$pid_B"
grep -q "alpha one alpha three" "$config/attnlab/last_session.json" ||
    fail "A's words are not in last_session.json: $(cat "$config/attnlab/last_session.json")"
grep -q "bravo two" "$config/attnlab/last_session-window2.json" ||
    fail "B's words are not in last_session-window2.json"
exit 0
INNER

# -noreset: the X server resets when its last client goes, and a window started during that reset could not
# open the display (after the kill -9 below, under load: "Failed to open display").
xvfb-run -n $((100 + $$ % 800)) -a -s '-noreset -screen 0 1600x1000x24' bash "$work/drive.sh" "$app" "$work"
status=$?
[ $status -eq 0 ] || { echo "stderr of the windows:"; cat "$work"/*.err; exit 1; }
echo "lost work: words typed 0.5 s before kill -9 kept; two windows kept both windows' words"
