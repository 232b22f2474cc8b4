#!/bin/sh
# Builds and tests the example package (it rebuilds FenceLab inside Examples/GeofenceTeam/.build).
# Usage: Examples/GeofenceTeam/test.sh   (from anywhere; needs swift and libgsl-dev, like FenceLab)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
exec swift test --package-path "$here" "$@"
