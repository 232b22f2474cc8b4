#!/usr/bin/env python3
"""A deliberately broken copy of seed_rules.py (d < enter instead of d <= enter), for engine-check demos. Seed 000 rules behind FenceLab's engine protocol v1 (docs/engine-protocol.md)."""
import json, math, sys

def num(v):
    return float(v)  # float("NaN") and float("Infinity") parse the protocol's string forms

def distance_m(a, b, r=6_371_000.0):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[1] - a[1]) / 2) ** 2
    return 2 * r * math.asin(math.sqrt(min(1.0, max(0.0, h))))

state, center, rule, out = "unknown", None, None, sys.stdout
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "fence":
        center, rule = msg["center"], msg["rule"]
        out.write(json.dumps({"type": "ready", "protocol": 1, "engine": "seed_rules.py"}) + "\n")
        continue
    lat, lon, acc = num(msg["latitude"]), num(msg["longitude"]), num(msg["horizontal_accuracy"])
    answer = {"index": msg["index"]}
    if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
        answer["rejected"] = "invalidCoordinate"
    elif not (math.isfinite(acc) and acc >= 0):
        answer["rejected"] = "invalidAccuracy"
    elif acc > rule.get("maxAccuracy_m", 30):
        answer["rejected"] = "inaccurate"
    else:
        d = distance_m(center, (lat, lon))
        if d < rule.get("enter_m", 80):  # BROKEN on purpose: boundary equality (d = enter) must be inside
            state = "inside"
        elif d >= rule.get("exit_m", 120):
            state = "outside"
    answer["state"] = state
    out.write(json.dumps(answer) + "\n")
