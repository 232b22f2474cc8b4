#!/usr/bin/env python3
"""Seed 000's geofence rules behind FenceLab's engine protocol v1 (docs/engine-protocol.md)."""
import json, math, sys

def distance_m(a, b, r=6_371_000.0):
    p1, p2 = math.radians(a[0]), math.radians(b[0])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[1] - a[1]) / 2) ** 2
    return 2 * r * math.asin(math.sqrt(min(1.0, max(0.0, h))))

def next_state(state, d, rule):
    """Seed 000: inside at d <= enter, outside at d >= exit, hold in between."""
    if d <= rule.get("enter_m", 80):
        return "inside"
    if d >= rule.get("exit_m", 120):
        return "outside"
    return state

def serve(next_state=next_state, stdin=sys.stdin, out=sys.stdout):
    state, center, rule = "unknown", None, None
    for line in stdin:
        msg = json.loads(line)
        if msg.get("type") == "fence":
            center, rule = msg["center"], msg["rule"]
            out.write(json.dumps({"type": "ready", "protocol": 1, "engine": "seed_rules.py"}) + "\n")
            continue
        # float() reads the protocol's "NaN" / "Infinity" strings too.
        lat, lon, acc = float(msg["latitude"]), float(msg["longitude"]), float(msg["horizontal_accuracy"])
        answer = {"index": msg["index"]}
        if not (math.isfinite(lat) and math.isfinite(lon) and -90 <= lat <= 90 and -180 <= lon <= 180):
            answer["rejected"] = "invalidCoordinate"
        elif not (math.isfinite(acc) and acc >= 0):
            answer["rejected"] = "invalidAccuracy"
        elif acc > rule.get("maxAccuracy_m", 30):
            answer["rejected"] = "inaccurate"
        else:
            state = next_state(state, distance_m(center, (lat, lon)), rule)
        answer["state"] = state
        out.write(json.dumps(answer) + "\n")

if __name__ == "__main__":
    serve()
