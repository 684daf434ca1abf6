#!/usr/bin/env bash
# End to end: a quick Ctrl+A (xdotool sends Ctrl down, A down, Ctrl up, A up within a millisecond) selects the
# whole Sentences box of the real window under Xvfb, so the letters typed next replace it. Every trial must
# hit. Usage: quick_taps.sh PATH_TO_ATTNLAB WORK_DIR [TRIALS]
set -uo pipefail
app=$1
work=$2
trials=${3:-5}
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing"; exit 1; }
command -v xdotool >/dev/null || { echo "xdotool is missing"; exit 1; }
rm -rf "$work" && mkdir -p "$work/config"

cat >"$work/drive.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
app=$1 work=$2 trials=$3 here=$4
source "$here/window_driver.sh"
start_window "$app" "$work" || exit 1
xdotool mousemove --window "$win" 150 120 click 1 # into the Sentences box of the default layout
sleep 0.5
# The sentences as the autosave (written at most once a second) holds them, one line each.
sentences() {
    sed -n '/"text"/,/\]/p' "$work/config/attnlab/last_session.json" 2>/dev/null | tr -d '\n '
}
hits=0
for i in $(seq 1 "$trials"); do
    xdotool key ctrl+a
    xdotool type --delay 20 "w$i"
    sleep 1.5
    text=$(sentences)
    if [ "$text" = "\"text\":[\"w$i\"]," ] || [ "$text" = "\"text\":[\"w$i\"]" ]; then
        hits=$((hits + 1))
    else
        echo "trial $i: Ctrl+A missed; the sentences are $text"
    fi
done
kill "$pid"
wait "$pid" 2>/dev/null
echo "Ctrl+A then typing: $hits of $trials trials replaced the sentences"
[ "$hits" -eq "$trials" ]
INNER

xvfb-run -n $((100 + $$ % 800)) -a -s '-noreset -screen 0 1600x1000x24' bash "$work/drive.sh" "$app" "$work" "$trials" "$(cd "$(dirname "$0")" && pwd)"
