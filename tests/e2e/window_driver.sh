# Sourced by the end-to-end scripts that drive the real window with xdotool (inside xvfb-run).
# start_window APP WORK [ARG...]: starts APP (with the ARGs) with its config folder in WORK/config and its output in WORK/stdout.txt and
# WORK/stderr.txt, waits for its window and focuses it. Sets pid (the app) and win (the window's id); prints
# why and returns 1 if the window never appears.
start_window() {
    local app=$1 work=$2
    shift 2
    XDG_CONFIG_HOME="$work/config" "$app" "$@" >"$work/stdout.txt" 2>"$work/stderr.txt" &
    pid=$!
    win=""
    for _ in $(seq 1 100); do
        win=$(xdotool search --name "Attention Lab" 2>/dev/null | head -1)
        [ -n "$win" ] && break
        sleep 0.1
    done
    [ -n "$win" ] || { echo "the window never appeared"; kill "$pid"; return 1; }
    sleep 0.5
    xdotool windowfocus --sync "$win" 2>/dev/null || true
}

# export_slides_to DIR: in the focused window, opens File > Export lesson slides (Ctrl+Shift+E), replaces the
# dialog's folder with DIR and presses Enter to start the export.
export_slides_to() {
    local dir=$1
    xdotool key ctrl+shift+e
    sleep 1
    xdotool key ctrl+a
    xdotool type --delay 20 "$dir"
    xdotool key Return
}
