#!/usr/bin/env python3
"""Draws icons/{48,128,256}.png from attnlab.svg's squares with ImageMagick (no SVG renderer needed).

Run from this folder after changing attnlab.svg: python3 draw_icon_pngs.py
"""
import re
import subprocess

svg = open("attnlab.svg", encoding="utf-8").read()
cmd = ["convert", "-size", "256x256", "xc:none", "-fill", "#1b1f2a", "-draw", "roundrectangle 8,8 247,247 44,44"]
for x, y, colour in re.findall(r'<rect x="(\d+)" y="(\d+)" width="40" height="40" rx="6" fill="(#\w+)"/>', svg):
    left, top = int(x) + 40, int(y) + 40  # the squares' group is translated by (40, 40)
    cmd += ["-fill", colour, "-draw", f"roundrectangle {left},{top} {left + 39},{top + 39} 6,6"]
subprocess.run(cmd + ["icons/256.png"], check=True)
for size in (48, 128):
    subprocess.run(["convert", "icons/256.png", "-resize", f"{size}x{size}", f"icons/{size}.png"], check=True)
