#!/usr/bin/env bash
# End to end: text copied from the Sentences box, where a long sentence wraps softly, and pasted back is the
# sentence as typed, with no line break where the box wrapped it (real window under Xvfb, xdotool).
# Usage: copy_wrapped.sh PATH_TO_ATTNLAB WORK_DIR
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
xdotool mousemove --window "$win" 150 120 click 1 # into the Sentences box of the default layout
sleep 0.5
line="the cat sat on the mat under the old dog while the small bird flew over the tall green tree"
xdotool key ctrl+a
xdotool type --delay 15 "$line"
sleep 0.5
# One key a frame or more: ImGui 1.86 reads the keys' state once a frame, so presses sent together can
# land in one slow frame (a loaded machine) and some are lost.
for keys in ctrl+a ctrl+c ctrl+End ctrl+v; do
    xdotool key "$keys"
    sleep 0.4
done
want=$(python3 -c 'import json,sys; print(json.dumps([sys.argv[1] + sys.argv[1]]))' "$line")
# The autosave follows the edit within a second or two; a loaded machine may take longer.
got=""
for _ in $(seq 1 30); do
    got=$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["text"]))' \
        "$work/config/attnlab/last_session.json" 2>/dev/null)
    [ "$got" = "$want" ] && break
    sleep 0.5
done
kill "$pid"
wait "$pid" 2>/dev/null
if [ "$got" != "$want" ]; then
    echo "copied and pasted back: $got"
    echo "expected:               $want"
    exit 1
fi
echo "copy of a soft-wrapped sentence pasted back as one line"
INNER

xvfb-run -n $((100 + $$ % 800)) -a -s '-noreset -screen 0 1600x1000x24' bash "$work/drive.sh" "$app" "$work" "$(cd "$(dirname "$0")" && pwd)"
