#!/usr/bin/env python3
"""Draws the mix frontiers of input-restricted sweeps into one SVG (docs/filter-in-the-loop.md).

Usage: python3 scripts/filter_frontier_svg.py RAW/sweep.json KALMAN/sweep.json IMM/sweep.json > docs/filter-in-the-loop-frontier.svg

Reads each sweep.json's `frontier` (the mix frontier: unwanted visits per hour against the worst
scenario's p95 entry latency) and `recommendation`, and plots them per input. Python only draws
the figure for the docs from FenceLab's own output; nothing in FenceLab needs it.
"""
import json
import sys

COLOURS = {"raw": "#8c8c8c", "kalman": "#0072b2", "imm": "#d55e00"}
W, H, LEFT, RIGHT, TOP, BOTTOM = 760, 420, 64, 20, 20, 64


def load(path):
    with open(path) as f:
        return json.load(f)


def main(paths):
    sweeps = [(name, load(p)) for name, p in zip(["raw", "kalman", "imm"], paths)]
    series = []
    for name, s in sweeps:
        pts = [(p["worstEntryP95_s"], p["unwantedPerHour"], p["label"]) for p in s["frontier"]
               if p["worstEntryP95_s"] is not None and p["worstRecall"] is not None and p["worstRecall"] >= 0.95]
        pts.sort()
        rec = s["recommendation"]
        series.append((name, pts, rec))
    xmax = max(x for _, pts, _ in series for x, _, _ in pts)
    ymax = max(y for _, pts, _ in series for _, y, _ in pts)
    xtop = 10 * int(xmax / 10 + 1)
    ytop = max(0.5, round(ymax + 0.25, 1))

    def x(v):
        return LEFT + v / xtop * (W - LEFT - RIGHT)

    def y(v):
        return TOP + (1 - v / ytop) * (H - TOP - BOTTOM)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
           'font-family="sans-serif" font-size="12" role="img" '
           'aria-label="Mix frontier per fence input: unwanted visits per hour against worst p95 entry latency">',
           f'<rect width="{W}" height="{H}" fill="#fff"/>']
    for k in range(6):
        v = xtop * k / 5
        out.append(f'<line x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{TOP}" y2="{H - BOTTOM}" stroke="#e6e6e6"/>')
        out.append(f'<text x="{x(v):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{v:g}</text>')
    for k in range(6):
        v = ytop * k / 5
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#e6e6e6"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.2g}</text>')
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 22}" text-anchor="middle">'
               'worst scenario p95 entry latency, s (early entries as 0)</text>')
    out.append(f'<text x="16" y="{(TOP + H - BOTTOM) / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {(TOP + H - BOTTOM) / 2})">unwanted visits per hour (weighted)</text>')
    for name, pts, rec in series:
        c = COLOURS[name]
        path = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b, _ in pts)
        out.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{path}"/>')
        for a, b, label in pts:
            out.append(f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="3.5" fill="{c}"><title>{label}</title></circle>')
        point = rec.get("mix") or {}
        lat, unw = point.get("worstEntryP95_s"), point.get("unwantedPerHour")
        if lat is not None and unw is not None:
            out.append(f'<circle cx="{x(lat):.1f}" cy="{y(unw):.1f}" r="8" fill="none" stroke="{c}" stroke-width="2">'
                       f'<title>recommended on {name}: {rec.get("label")}</title></circle>')
    lx = LEFT + 10
    for i, (name, _, rec) in enumerate(series):
        ly = TOP + 14 + 16 * i
        out.append(f'<line x1="{lx}" x2="{lx + 18}" y1="{ly - 4}" y2="{ly - 4}" stroke="{COLOURS[name]}" stroke-width="2"/>')
        out.append(f'<text x="{lx + 24}" y="{ly}">{name}: recommended {rec.get("label")}</text>')
    out.append(f'<text x="{lx}" y="{TOP + 14 + 16 * 3}" fill="#59636e">circled: the recommendation; '
               'frontier points with recall ≥ 0.95 in every scenario</text>')
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(sys.argv[1:])
