#!/usr/bin/env python3
"""FenceLab's corpus check: real recordings nobody here wrote, read by `fencelab replay` and by an
independent parser, must agree (docs/device-logs.md, "Corpus check").

Run by Tests/Corpus/run.sh, which fetches the source distributions of gpxpy and pynmea2 from PyPI
and unpacks them into SOURCES. Nothing of them is committed. The oracles are imported from those
unpacked sources (both are pure Python: the code pip would install).

- GPX: every `test_files/*.gpx` of gpxpy. The oracle is `gpxpy.parse`: every timed waypoint,
  route point and track point that does not say `<fix>none</fix>` is a fix.
- NMEA: pynmea2's `examples/data.log` as one recording, and every sentence its tests embed in
  Python string literals (found with `ast`), each written to a temporary one-line NMEA file. The
  oracle is `pynmea2.parse(line, check=True)`: a GGA, RMC or GLL with a time and a position is a
  fix (consecutive sentences with the same time are one epoch); the date is the RMC's, else
  --date.

`fencelab replay FILE --assume-accuracy 5 [--date 2000-01-01] --fixes-csv OUT` writes the fixes it
read at full precision. A recording agrees when both give the same number of fixes and, pairing
them in time order, every position differs by at most 1e-9 degrees and every time by at most
1 ms. A recording fencelab refuses agrees only when the refusal is one of the documented reasons in
REFUSALS and the oracle, too, finds no fix there.

Exit: 0 every recording agrees, 1 at least one disagrees (or none was found), 2 bad arguments.
"""

import argparse
import ast
import calendar
import csv
import datetime
import glob
import os
import re
import subprocess
import sys

TOLERANCE_DEG = 1e-9
TOLERANCE_S = 1e-3
ASSUMED_ACCURACY_M = "5"
ASSUMED_DATE = "2000-01-01"
ASSUMED_DAY = datetime.date(2000, 1, 1)

# The refusals fencelab documents for a recording without a fix (docs/device-logs.md, "Ingest
# policy"): (format, text in the message, why). A refusal agrees only when the oracle finds no fix.
REFUSALS = [
    ("gpx", "GPX: no timed point", "no timed point"),
    ("nmea", "NMEA: no fix: every sentence was skipped", "no fix: every sentence skipped"),
    ("nmea", "is decimal degrees, expected", "decimal degrees in a ddmm.mmmm field"),
]


def unix_seconds(dt):
    """Seconds since 1970 of a datetime; a time without a zone is UTC (the GPX schema's rule)."""
    if dt.tzinfo is not None:
        dt = dt.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    return calendar.timegm(dt.timetuple()) + dt.microsecond / 1e6


def seconds_of_day(t):
    return t.hour * 3600 + t.minute * 60 + t.second + t.microsecond / 1e6


# ---- oracles ---------------------------------------------------------------------------------


def gpx_oracle(path):
    """The fixes gpxpy reads: [(t, lat, lon)], or raises what gpxpy raises."""
    import gpxpy

    with open(path, encoding="utf-8-sig") as f:
        gpx = gpxpy.parse(f)
    points = list(gpx.waypoints)
    for route in gpx.routes:
        points += route.points
    for track in gpx.tracks:
        for segment in track.segments:
            points += segment.points
    return [
        (unix_seconds(p.time), p.latitude, p.longitude)
        for p in points
        if p.time is not None and p.type_of_gpx_fix != "none"
    ]


def nmea_oracle(lines):
    """The fixes pynmea2 reads from NMEA lines: one per epoch with a position."""
    import pynmea2

    epochs = []  # [time text, sentences]
    for line in lines:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            msg = pynmea2.parse(line, check=True)
        except (pynmea2.ParseError, ValueError, TypeError, AttributeError):
            continue  # damaged or not NMEA: no fix
        kind = getattr(msg, "sentence_type", "")
        if kind not in ("GGA", "RMC", "GLL", "GST") or getattr(msg, "timestamp", None) in (None, ""):
            continue
        text = msg.data[4] if kind == "GLL" else msg.data[0]
        if epochs and epochs[-1][0] == text:
            epochs[-1][1].append(msg)
        else:
            epochs.append((text, [msg]))
    fixes = []
    for _, msgs in epochs:
        by_kind = {}
        for m in msgs:
            by_kind.setdefault(m.sentence_type, m)
        source = next((by_kind[k] for k in ("GGA", "RMC", "GLL") if k in by_kind and by_kind[k].lat), None)
        if source is None:
            continue
        rmc = by_kind.get("RMC")
        day = rmc.datestamp if rmc is not None and rmc.datestamp else ASSUMED_DAY
        t = calendar.timegm(day.timetuple()) + seconds_of_day(source.timestamp)
        fixes.append((t, source.latitude, source.longitude))
    return fixes


def embedded_sentences(test_dir):
    """Every string literal in pynmea2's tests that is an NMEA sentence, in order, once each."""
    found = []
    for path in sorted(glob.glob(os.path.join(test_dir, "*.py"))):
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), filename=path)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Constant):
                continue
            value = node.value
            if isinstance(value, bytes):
                value = value.decode("ascii", "replace")
            if not isinstance(value, str):
                continue
            for line in re.split(r"[\r\n]+", value):
                line = line.strip()
                if re.match(r"^[$!][A-Z][A-Z0-9]+,", line) and (os.path.basename(path), line) not in found:
                    found.append((os.path.basename(path), line))
    # The same sentence in two test files is one recording.
    unique, seen = [], set()
    for name, line in found:
        if line not in seen:
            seen.add(line)
            unique.append((name, line))
    return unique


# ---- fencelab --------------------------------------------------------------------------------


def fencelab_fixes(fencelab, path, fmt, work):
    """(fixes, None) with [(t, lat, lon)], or (None, stderr) when fencelab refuses the file."""
    out_csv = os.path.join(work, "fixes.csv")
    if os.path.exists(out_csv):
        os.remove(out_csv)
    command = [
        fencelab, "replay", path, "--fence", "0,0", "--format", fmt, "--assume-accuracy", ASSUMED_ACCURACY_M,
        "--out", os.path.join(work, "report"), "--fixes-csv", out_csv,
    ]
    if fmt == "nmea":
        command += ["--date", ASSUMED_DATE]
    r = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if r.returncode == 2:
        return None, r.stderr.strip()
    if r.returncode not in (0, 1):
        raise RuntimeError(f"fencelab replay {path}: exit {r.returncode}: {r.stderr.strip()}")
    with open(out_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    return [(float(r["timestamp"]), float(r["latitude"]), float(r["longitude"])) for r in rows], None


# ---- comparison ------------------------------------------------------------------------------


class Row:
    def __init__(self, name, ours, theirs, delta, verdict, note=""):
        self.name, self.ours, self.theirs, self.delta, self.verdict, self.note = (
            name, ours, theirs, delta, verdict, note)


def compare(name, fmt, ours, refusal, theirs, oracle_error):
    """One table row for a recording."""
    n_theirs = "error" if oracle_error else str(len(theirs))
    if ours is None:
        documented = next((why for f, text, why in REFUSALS if f == fmt and text in refusal), None)
        if documented and not theirs:
            return Row(name, "refused", n_theirs, "-", "agree", f"refused: {documented}")
        return Row(name, "refused", n_theirs, "-", "DISAGREE", f"refused: {refusal}")
    if oracle_error:
        return Row(name, str(len(ours)), n_theirs, "-", "DISAGREE", f"oracle: {oracle_error}")
    if len(ours) != len(theirs):
        return Row(name, str(len(ours)), n_theirs, "-", "DISAGREE", "fix counts differ")
    d_deg = d_s = 0.0
    for a, b in zip(sorted(ours), sorted(theirs)):
        d_s = max(d_s, abs(a[0] - b[0]))
        d_deg = max(d_deg, abs(a[1] - b[1]), abs(a[2] - b[2]))
    delta = f"{d_deg:.1e} deg, {d_s * 1000:.3f} ms"
    if not ours:
        return Row(name, "0", n_theirs, delta, "DISAGREE", "loaded without a fix")
    ok = d_deg <= TOLERANCE_DEG and d_s <= TOLERANCE_S
    return Row(name, str(len(ours)), n_theirs, delta, "agree" if ok else "DISAGREE")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fencelab", required=True, help="the fencelab executable")
    parser.add_argument("--sources", required=True, help="folder holding the unpacked gpxpy-* and pynmea2-*")
    parser.add_argument("--work", required=True, help="scratch folder")
    args = parser.parse_args()

    gpxpy_src = sorted(glob.glob(os.path.join(args.sources, "gpxpy-*")))
    pynmea2_src = sorted(glob.glob(os.path.join(args.sources, "pynmea2-*")))
    if not gpxpy_src or not pynmea2_src:
        print("corpus: gpxpy-* or pynmea2-* missing under --sources", file=sys.stderr)
        return 2
    sys.path[:0] = [gpxpy_src[-1], pynmea2_src[-1]]
    import gpxpy  # noqa: F401  (fail early when the unpacked source is not importable)
    import pynmea2

    work = args.work
    rows = []
    for path in sorted(glob.glob(os.path.join(gpxpy_src[-1], "test_files", "*.gpx"))):
        try:
            theirs, oracle_error = gpx_oracle(path), None
        except Exception as e:  # gpxpy's own refusal: compared with fencelab's
            theirs, oracle_error = [], f"{type(e).__name__}: {e}"
        ours, refusal = fencelab_fixes(args.fencelab, path, "gpx", work)
        rows.append(compare("gpxpy/" + os.path.basename(path), "gpx", ours, refusal, theirs, oracle_error))
    n_gpx = len(rows)

    nmea_files = sorted(glob.glob(os.path.join(pynmea2_src[-1], "examples", "*.log")))
    for path in nmea_files:
        with open(path, encoding="utf-8", errors="replace") as f:
            theirs = nmea_oracle(f.read().splitlines())
        ours, refusal = fencelab_fixes(args.fencelab, path, "nmea", work)
        rows.append(compare("pynmea2/examples/" + os.path.basename(path), "nmea", ours, refusal, theirs, None))
    sentences = embedded_sentences(os.path.join(pynmea2_src[-1], "test"))
    for i, (source, line) in enumerate(sentences):
        path = os.path.join(work, f"sentence-{i:03d}.nmea")
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(line + "\r\n")
        try:
            theirs, oracle_error = nmea_oracle([line]), None
        except ValueError as e:  # pynmea2's own refusal of a field
            theirs, oracle_error = [], f"{type(e).__name__}: {e}"
        ours, refusal = fencelab_fixes(args.fencelab, path, "nmea", work)
        label = f"pynmea2/test/{source} {line[:24]}"
        rows.append(compare(label, "nmea", ours, refusal, theirs, oracle_error))

    widths = [max(len(r.name) for r in rows), 14, 12, 26]
    header = ("file", "fixes fencelab", "fixes oracle", "max Δ (position, time)")
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)) + "  verdict")
    for r in rows:
        cells = (r.name, r.ours, r.theirs, r.delta)
        print("  ".join(c.ljust(w) for c, w in zip(cells, widths)) + f"  {r.verdict}" + (f" ({r.note})" if r.note else ""))

    agree = [r for r in rows if r.verdict == "agree"]
    gpx_loaded = sum(1 for r in rows[:n_gpx] if r.verdict == "agree" and r.ours != "refused")
    gpx_refused = sum(1 for r in rows[:n_gpx] if r.verdict == "agree" and r.ours == "refused")
    nmea_fixes = sum(int(r.ours) for r in rows[n_gpx:] if r.verdict == "agree" and r.ours != "refused")
    print(
        f"corpus check: {len(agree)} of {len(rows)} recordings agree with the oracles "
        f"(gpxpy {gpxpy_src[-1].rsplit('-', 1)[-1]}: {gpx_loaded} GPX files loaded, {gpx_refused} refused for a "
        f"documented reason; pynmea2 {pynmea2_src[-1].rsplit('-', 1)[-1]}: {len(nmea_files)} log and "
        f"{len(sentences)} embedded sentences, {nmea_fixes} NMEA fixes compared); "
        f"{len(rows) - len(agree)} disagree"
    )
    if gpx_loaded == 0 or nmea_fixes == 0:
        print("corpus check: FAILED: no GPX or no NMEA fix was compared (did the packages' layout change?)")
        return 1
    return 0 if len(agree) == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
