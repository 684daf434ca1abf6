#!/usr/bin/env bash
# End to end: keys typed faster than the frame rate (remote desktops, macro tools, clickers) reach the real
# window under Xvfb. Capitals (Shift down and up around each letter) and quick Ctrl+A taps must not abort the
# app; Ctrl+Q must then quit it normally. Usage: fast_typing.sh PATH_TO_ATTNLAB WORK_DIR
set -uo pipefail
app=$1
work=$2
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing"; exit 1; }
command -v xdotool >/dev/null || { echo "xdotool is missing"; exit 1; }
rm -rf "$work" && mkdir -p "$work/config"

cat >"$work/drive.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
app=$1 work=$2 here=$3
source "$here/window_driver.sh"
start_window "$app" "$work" || exit 1
# Click into the Sentences box of the default layout, then type fast: each capital is Shift down, the letter
# down and up, Shift up, all within a few milliseconds.
xdotool mousemove --window "$win" 150 120 click 1
for round in 1 2 3; do
    xdotool type --delay 5 "ABCDEFGHIJKLMNOP"
    xdotool key --delay 5 ctrl+a ctrl+a BackSpace
    sleep 0.2
    kill -0 "$pid" 2>/dev/null || { echo "the app died while typing (round $round)"; wait "$pid"; echo "exit status $?"; exit 1; }
done
xdotool key --delay 30 ctrl+q
for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then
    echo "Ctrl+Q did not quit the app within 20 s (the screen is in $work/not_quit.png)"
    import -window root "$work/not_quit.png" 2>/dev/null
    kill "$pid"; exit 1
fi
wait "$pid"
status=$?
[ "$status" -eq 0 ] || { echo "the app exited with status $status"; exit 1; }
INNER

xvfb-run -n $((100 + $$ % 800)) -a -s '-noreset -screen 0 1600x1000x24' bash "$work/drive.sh" "$app" "$work" "$(cd "$(dirname "$0")" && pwd)"
status=$?
if grep -q "Assertion" "$work/stderr.txt"; then
    echo "stderr of the app:"; cat "$work/stderr.txt"; exit 1
fi
[ $status -eq 0 ] || { echo "stderr of the app:"; cat "$work/stderr.txt"; exit 1; }
echo "fast typing: the app kept running and quit with status 0"
