#!/usr/bin/env bash
# Runs the Summarize benchmark beside numpy.percentile on the same pooled
# arrays, on this machine, in one go. Needs numpy for the system python3
# (apt-get install -y python3-numpy) and about 4 GB of memory.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(go version)"
go run ./bench/pooled -records 1000000 -chunks 128 -out "$dir"
/usr/bin/python3 bench/numpy_percentiles.py "$dir"
go test -run XXX -bench 'Summarize/records=1000000' -benchmem -benchtime 3x .
