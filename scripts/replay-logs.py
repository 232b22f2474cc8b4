#!/usr/bin/env python3
"""Write the device logs that measure `fencelab replay` at scale (docs/benchmarks.md,
"Device-log replay at scale"): CSV logs in the app's own format about a fence at
52.52,13.405, deterministic (fixed seeds), never committed (the week is 27 MB).

    python3 scripts/replay-logs.py DIR
    fencelab replay DIR/flips-10000.csv --fence 52.52,13.405 --out /tmp/r

flips-N.csv      N fixes at 1 Hz alternating 50 m and 150 m from the centre (accuracy 5 m),
                 no event: every fix crosses the 80/120 m band (N = 2 500 and 10 000)
flips-dense.csv  2 500 such fixes 0.01 s apart (every crossing within the flutter window
                 of every other)
loiter-Hh.csv    H hours at 1 Hz loitering at the edge (H = 6, 24, 168): true distance a
                 mean-reverting walk about 100 m (step sigma 2 m, 0.5 % reversion a second),
                 fixes with noise sigma 12 m, accuracy about 10 m, an enter/exit event when
                 the truth crosses 78/122 m
unsupported-N.csv  N fixes 200 m out and N enter/exit events between them (N = 40 000), each
                 event unsupported by the fixes around it
Python's standard library only; nothing at build, test or run time needs it.
"""
import math
import os
import random
import sys

LAT0, LON0 = 52.52, 13.405
M_PER_DEG = 6371000 * math.pi / 180
T0 = 1772366400
HEADER = "timestamp,latitude,longitude,horizontal_accuracy,speed,course,event\n"


def position(d, bearing):
    north, east = d * math.cos(bearing), d * math.sin(bearing)
    return LAT0 + north / M_PER_DEG, LON0 + east / (M_PER_DEG * math.cos(math.radians(LAT0)))


def flips(path, n, dt):
    with open(path, "w") as f:
        f.write(HEADER)
        for i in range(n):
            lat, lon = position(50 if i % 2 == 0 else 150, 1.0)
            f.write(f"{T0 + i * dt:.3f},{lat:.7f},{lon:.7f},5,,,\n")


def loiter(path, hours, seed=1):
    rng = random.Random(seed)
    d, inside = 100.0, False
    with open(path, "w") as f:
        f.write(HEADER)
        for i in range(int(hours * 3600)):
            d += rng.gauss(0, 2.0) - 0.005 * (d - 100)
            accuracy = max(3.0, rng.gauss(10, 3))
            lat, lon = position(max(0.0, d + rng.gauss(0, 12)), 0.5)
            event = ""
            if not inside and d < 78:
                inside, event = True, "enter"
            elif inside and d > 122:
                inside, event = False, "exit"
            f.write(f"{T0 + i}.000,{lat:.7f},{lon:.7f},{accuracy:.1f},,,{event}\n")


def unsupported(path, n):
    lat, lon = position(200, 0.3)
    with open(path, "w") as f:
        f.write(HEADER)
        for i in range(n):
            f.write(f"{T0 + i}.000,{lat:.7f},{lon:.7f},5,,,\n")
            f.write(f"{T0 + i}.500,,,,,,{'enter' if i % 2 == 0 else 'exit'}\n")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: replay-logs.py DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for n in (2500, 10000):
        flips(os.path.join(out, f"flips-{n}.csv"), n, 1)
    flips(os.path.join(out, "flips-dense.csv"), 2500, 0.01)
    for hours in (6, 24, 168):
        loiter(os.path.join(out, f"loiter-{hours}h.csv"), hours)
    unsupported(os.path.join(out, "unsupported-40000.csv"), 40000)


if __name__ == "__main__":
    main()
