#!/usr/bin/env bash
# End to end: quitting the real window under Xvfb (Ctrl+Q) while File > Export lesson slides runs on its worker
# (a lesson whose steps train runs, so the export is still training when the quit comes) ends the app cleanly:
# it exits with 0, no file of the export is left (not even its hidden folder), and nothing is said on stderr
# about a crash. Usage: lesson_slides_quit.sh PATH_TO_ATTNLAB WORK_DIR
set -uo pipefail
app=$1
work=$2
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing"; exit 1; }
command -v xdotool >/dev/null || { echo "xdotool is missing"; exit 1; }
rm -rf "$work" && mkdir -p "$work/config" "$work/window"

cat >"$work/drive.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
app=$1 work=$2 here=$3
source "$here/window_driver.sh"
start_window "$app" "$work" --lesson induction_heads --step 1 || exit 1
sleep 0.5
export_slides_to "$work/window"
# The export has begun when its hidden folder is there.
for _ in $(seq 1 120); do
    [ -d "$work/window/.attnlab-export-induction_heads" ] && break
    sleep 0.5
done
[ -d "$work/window/.attnlab-export-induction_heads" ] || { echo "the export never began"; kill "$pid"; exit 1; }
xdotool key ctrl+q
# A hang guard, not a speed check: the worker stops within a training step.
for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
done
if kill -0 "$pid" 2>/dev/null; then
    echo "the app did not quit within a minute of Ctrl+Q while exporting"
    kill -9 "$pid"
    exit 1
fi
wait "$pid"
echo "$?" >"$work/exit_code.txt"
INNER
xvfb-run -n $((102 + $$ % 800)) -a -s '-noreset -screen 0 1600x1000x24' bash "$work/drive.sh" "$app" "$work" \
    "$(cd "$(dirname "$0")" && pwd)" || exit 1

status=0
code=$(cat "$work/exit_code.txt" 2>/dev/null || echo none)
[ "$code" = 0 ] || { echo "exit code $code"; status=1; }
left=$(cd "$work/window" && ls -A)
[ -z "$left" ] || { echo "left in the folder: $left"; status=1; }
if grep -E "AddressSanitizer|runtime error|terminate called|Segmentation" "$work/stderr.txt"; then
    status=1
fi
[ "$status" -eq 0 ] && echo "quitting while the slides were exported left nothing and exited with 0"
exit "$status"
