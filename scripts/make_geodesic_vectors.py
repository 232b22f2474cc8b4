#!/usr/bin/env python3
"""Generate Tests/GeoPolicyTests/GeodesicReferenceVectors.swift from GeographicLib.

Oracle data for the WGS84 inverse geodesic (Karney 2013): each vector is
(lat1, lon1, lat2, lon2, s12_m) in degrees and metres, with s12_m computed by
GeographicLib's Geodesic.WGS84.Inverse. Python is only the generator of this
committed file; nothing at build, test or run time needs it.

    pip install geographiclib
    python3 scripts/make_geodesic_vectors.py > Tests/GeoPolicyTests/GeodesicReferenceVectors.swift

The output is deterministic (fixed seed), so re-running it reproduces the file.
"""
import math
import random
import sys

import geographiclib
from geographiclib.geodesic import Geodesic

G = Geodesic.WGS84
SEED = 20261129


def wrap(lon):
    """Longitude into [-180, 180] (180 stays 180)."""
    while lon > 180:
        lon -= 360
    while lon < -180:
        lon += 360
    return lon


def uniform_point(rng):
    """A point uniform on the sphere (latitude by arcsine of a uniform draw)."""
    return math.degrees(math.asin(rng.uniform(-1, 1))), rng.uniform(-180, 180)


def clamp_lat(lat):
    # Generator-side only: builds valid test inputs; the engine never clamps.
    return max(-90.0, min(90.0, lat))


def random_global(rng, n):
    return [uniform_point(rng) + uniform_point(rng) for _ in range(n)]


def short_pairs(rng, n):
    out = []
    for i in range(n):
        lat1, lon1 = uniform_point(rng)
        if i % 10 == 0:  # some short pairs very close to a pole
            lat1 = math.copysign(rng.uniform(89.9, 90.0), lat1)
        s = rng.choice([rng.uniform(0, 1000), rng.uniform(0, 1), rng.uniform(0, 50)])
        d = G.Direct(lat1, lon1, rng.uniform(-180, 180), s)
        out.append((lat1, lon1, d["lat2"], wrap(d["lon2"])))
    return out


def medium_pairs(rng, n):
    """1–20 km, straddling the 5 km switch between the chord path and the iteration."""
    out = []
    for i in range(n):
        lat1, lon1 = uniform_point(rng)
        if i % 10 == 0:
            lat1 = math.copysign(rng.uniform(89.8, 90.0), lat1)
        if i % 10 == 1:
            lon1 = math.copysign(180 - rng.uniform(0, 0.05), lon1)
        s = rng.uniform(4900, 5100) if i % 3 == 0 else rng.uniform(1000, 20000)
        d = G.Direct(lat1, lon1, rng.uniform(-180, 180), s)
        out.append((lat1, lon1, d["lat2"], wrap(d["lon2"])))
    return out


def near_antipodal(rng, n, n_equator):
    out = []
    for _ in range(n - n_equator):
        lat1, lon1 = uniform_point(rng)
        lat2 = clamp_lat(-lat1 + rng.uniform(-0.5, 0.5))
        lon2 = wrap(lon1 + 180 + rng.uniform(-0.5, 0.5))
        out.append((lat1, lon1, lat2, lon2))
    for i in range(n_equator):
        lon1 = rng.uniform(-180, 180)
        dlon = 180 - rng.uniform(0, 0.5) if i % 4 else 180 - rng.uniform(0, 0.7)
        if i % 5 == 0:  # exactly on the equator but also slightly off it
            out.append((0.0, lon1, rng.uniform(-0.01, 0.01), wrap(lon1 + dlon)))
        else:
            out.append((0.0, lon1, 0.0, wrap(lon1 + dlon)))
    return out


def polar(rng, n):
    out = []
    for i in range(n):
        lat1 = math.copysign(rng.uniform(89.0, 90.0), rng.uniform(-1, 1))
        if i % 10 == 0:
            lat1 = math.copysign(90.0, lat1)
        if i % 2:
            lat2, lon2 = math.copysign(rng.uniform(85.0, 90.0), rng.choice([-1, 1])), rng.uniform(-180, 180)
        else:
            lat2, lon2 = uniform_point(rng)
        out.append((lat1, rng.uniform(-180, 180), lat2, lon2))
    return out


def meridional(rng, n):
    out = []
    for i in range(n):
        lat1, lon1 = uniform_point(rng)
        lat2 = uniform_point(rng)[0]
        lon2 = lon1 if i % 2 == 0 else wrap(lon1 + 180)
        out.append((lat1, lon1, lat2, lon2))
    return out


def equatorial(rng, n):
    out = []
    for _ in range(n):
        lon1 = rng.uniform(-180, 180)
        out.append((0.0, lon1, 0.0, wrap(lon1 + rng.uniform(-179.5, 179.5))))
    return out


def across_antimeridian(rng, n):
    out = []
    for i in range(n):
        lat1 = math.degrees(math.asin(rng.uniform(-1, 1)))
        lat2 = clamp_lat(lat1 + rng.uniform(-2, 2))
        a = rng.uniform(0, 2)
        b = rng.uniform(0, 2)
        if i % 10 == 0:
            a, b = rng.uniform(0, 1e-3), rng.uniform(0, 1e-3)
        pair = (lat1, 180 - a, lat2, -180 + b)
        if i % 3 == 0:
            pair = (lat1, 180.0, lat2, -180.0) if i % 6 == 0 else (lat1, -180 + a, lat2, 180 - b)
        out.append(pair)
    return out


def identical(rng, n):
    out = [(0.0, 0.0, 0.0, 0.0), (90.0, 0.0, 90.0, 0.0), (-90.0, 180.0, -90.0, 180.0),
           (0.0, 180.0, 0.0, 180.0), (0.0, -180.0, 0.0, -180.0)]
    while len(out) < n:
        lat, lon = uniform_point(rng)
        out.append((lat, lon, lat, lon))
    return out


def swift_number(x):
    """Shortest round-trip decimal, which Swift parses back to the same Double."""
    return repr(float(x))


def emit(categories):
    w = sys.stdout.write
    w("// Generated by scripts/make_geodesic_vectors.py with GeographicLib %s (Python),\n" % geographiclib.__version__)
    w("// seed %d. Do not edit: re-run the script instead.\n" % SEED)
    w("// Each vector: (lat1_deg, lon1_deg, lat2_deg, lon2_deg, s12_m) on WGS84,\n")
    w("// s12_m from geodesic.Geodesic.WGS84.Inverse (Karney 2013, accurate to ~15 nm).\n\n")
    w("/// One GeographicLib inverse-geodesic result on WGS84: degrees in, metres out.\n")
    w("typealias GeodesicReferenceVector = (lat1: Double, lon1: Double, lat2: Double, lon2: Double, s12_m: Double)\n\n")
    w("/// GeographicLib reference distances, grouped by the kind of pair they test.\n")
    w("enum GeodesicReferenceVectors {\n")
    for name, pairs in categories:
        w("    static let %s: [GeodesicReferenceVector] = [\n" % name)
        for lat1, lon1, lat2, lon2 in pairs:
            s12 = G.Inverse(lat1, lon1, lat2, lon2)["s12"]
            w("        (%s, %s, %s, %s, %s),\n" % tuple(swift_number(v) for v in (lat1, lon1, lat2, lon2, s12)))
        w("    ]\n\n")
    w("    /// Azimuths (degrees, in (-180, 180]) at both ends for a sample of the pairs above:\n")
    w("    /// (lat1, lon1, lat2, lon2, azi1_deg, azi2_deg).\n")
    w("    static let azimuths: [(lat1: Double, lon1: Double, lat2: Double, lon2: Double, azi1_deg: Double, azi2_deg: Double)] = [\n")
    sample = dict(categories)
    for lat1, lon1, lat2, lon2 in (sample["randomGlobal"][:100] + sample["shortPairs"][:50]
                                   + sample["nearlyAntipodal"][:50] + sample["polar"][:20]):
        r = G.Inverse(lat1, lon1, lat2, lon2)
        if r["s12"] == 0:
            continue
        w("        (%s, %s, %s, %s, %s, %s),\n" % tuple(swift_number(v) for v in (lat1, lon1, lat2, lon2, r["azi1"], r["azi2"])))
    w("    ]\n\n")
    w("    /// Every vector, each category once.\n")
    w("    static let all: [GeodesicReferenceVector] =\n        ")
    w(" + ".join(name for name, _ in categories))
    w("\n}\n")


def main():
    rng = random.Random(SEED)
    categories = [
        ("randomGlobal", random_global(rng, 650)),
        ("shortPairs", short_pairs(rng, 400)),
        ("mediumPairs", medium_pairs(rng, 150)),
        ("nearlyAntipodal", near_antipodal(rng, 400, 120)),
        ("polar", polar(rng, 150)),
        ("meridional", meridional(rng, 100)),
        ("equatorial", equatorial(rng, 100)),
        ("acrossAntimeridian", across_antimeridian(rng, 100)),
        ("identical", identical(rng, 50)),
    ]
    for _, pairs in categories:
        for lat1, lon1, lat2, lon2 in pairs:
            assert -90 <= lat1 <= 90 and -90 <= lat2 <= 90, (lat1, lat2)
            assert -180 <= lon1 <= 180 and -180 <= lon2 <= 180, (lon1, lon2)
    emit(categories)


if __name__ == "__main__":
    main()
