#!/usr/bin/env bash
# End to end: File > Export lesson slides in the real window under Xvfb (Ctrl+Shift+E, a folder typed, Enter)
# writes the same files, byte for byte, as `attnlab lesson typo --export-dir DIR`, and the dialog's progress
# ends with them all in place. Usage: lesson_slides_window.sh PATH_TO_ATTNLAB WORK_DIR
set -uo pipefail
app=$1
work=$2
command -v xvfb-run >/dev/null || { echo "xvfb-run is missing"; exit 1; }
command -v xdotool >/dev/null || { echo "xdotool is missing"; exit 1; }
rm -rf "$work" && mkdir -p "$work/config" "$work/cli" "$work/window"

# The command line's slides, with the same (fresh) config folder the window then uses.
XDG_CONFIG_HOME="$work/config" xvfb-run -n $((100 + $$ % 800)) -a -s '-noreset -screen 0 1600x1000x24' \
    "$app" lesson typo --export-dir "$work/cli" >"$work/cli.txt" 2>&1 || { cat "$work/cli.txt"; exit 1; }

cat >"$work/drive.sh" <<'INNER'
#!/usr/bin/env bash
set -uo pipefail
app=$1 work=$2 here=$3
source "$here/window_driver.sh"
start_window "$app" "$work" --lesson typo --step 2 || exit 1
sleep 0.5
export_slides_to "$work/window"
for _ in $(seq 1 60); do
    [ "$(ls "$work/window" | wc -l)" -ge 4 ] && break
    sleep 0.5
done
sleep 0.5
kill "$pid"
wait "$pid" 2>/dev/null
INNER
xvfb-run -n $((101 + $$ % 800)) -a -s '-noreset -screen 0 1600x1000x24' bash "$work/drive.sh" "$app" "$work" "$(cd "$(dirname "$0")" && pwd)"

status=0
cli=$(cd "$work/cli" && ls -A)
window=$(cd "$work/window" && ls -A)
echo "command line: $(echo $cli)"
echo "window:       $(echo $window)"
[ "$cli" = "$window" ] || { echo "the window wrote other files (or left a hidden folder)"; status=1; }
[ "$(echo "$cli" | wc -w)" -eq 4 ] || { echo "expected typo-01.png ... typo-04.png"; status=1; }
for f in $cli; do
    cmp -s "$work/cli/$f" "$work/window/$f" || { echo "$f differs from the command line's"; status=1; }
done
[ "$status" -eq 0 ] && echo "the window's slides are the command line's, byte for byte"
exit "$status"
