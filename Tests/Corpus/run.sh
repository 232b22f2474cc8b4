#!/usr/bin/env bash
# The corpus check (docs/device-logs.md, "Corpus check"): real GPX and NMEA recordings from the
# source distributions of gpxpy and pynmea2 on PyPI, fetched now into a temporary folder (nothing
# of them is committed), replayed by fencelab and compared with those packages as oracles
# (Tests/Corpus/corpus.py): positions to 1e-9 degrees, times to 1 ms, equal fix counts; a file
# fencelab refuses must be refused for a documented reason.
#
# Usage: Tests/Corpus/run.sh [FENCELAB]   (default: the debug build, built if needed)
# Environment: PYTHON (default python3), CORPUS_PACKAGES (default the pinned versions below).
# Exit: 0 every recording agrees; 1 a disagreement; 77 SKIPPED (the packages could not be
# fetched: the line 'SKIPPED: <reason>' says why; this is never a pass).
set -uo pipefail
cd "$(dirname "$0")/../.."
readonly skipped=77
python=${PYTHON:-python3}
# Pinned, so that the table is the same on every run; raise them deliberately.
packages=${CORPUS_PACKAGES:-"gpxpy==1.6.2 pynmea2==1.19.0"}

fencelab=${1:-}
if [ -z "$fencelab" ]; then
    export PATH="/opt/swift/usr/bin:$PATH"
    swift build --product fencelab >&2 || { echo "corpus: swift build failed" >&2; exit 1; }
    fencelab="$(swift build --show-bin-path)/fencelab"
fi
[ -x "$fencelab" ] || { echo "corpus: $fencelab is not an executable" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/fencelab-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT

if ! "$python" -m pip --version >/dev/null 2>&1; then
    echo "SKIPPED: $python has no pip to fetch gpxpy and pynmea2 with"
    exit $skipped
fi
# Source distributions only (--no-binary): they carry the test files the wheels leave out.
# shellcheck disable=SC2086
if ! timeout 600 "$python" -m pip download --disable-pip-version-check --no-binary :all: --no-deps \
    --dest "$work/sdist" $packages >"$work/pip.log" 2>&1; then
    echo "SKIPPED: could not fetch the source distributions of $packages: $(grep -v '^ *$' "$work/pip.log" | tail -n 1)"
    exit $skipped
fi
mkdir -p "$work/src" "$work/scratch"
for archive in "$work"/sdist/*; do
    case "$archive" in
        *.tar.gz | *.tgz) tar -xzf "$archive" -C "$work/src" ;;
        *.zip) "$python" -m zipfile -e "$archive" "$work/src" ;;
        *) echo "corpus: unexpected download $archive" >&2; exit 1 ;;
    esac || { echo "corpus: cannot unpack $archive" >&2; exit 1; }
done
"$python" Tests/Corpus/corpus.py --fencelab "$fencelab" --sources "$work/src" --work "$work/scratch"
