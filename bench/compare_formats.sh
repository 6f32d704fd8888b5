#!/usr/bin/env bash
# Times `llmmetrics report --json` beside the numpy pipelines a Python user
# runs today on the project's own formats (../shared/bench/numpy_jsonl.py and
# numpy_csv.py), on the same files, alternating, on this machine; then checks
# that the figures agree (bench/same_figures.py).
#   JSONL: 200,000 requests × 128 chunk arrivals; CSV: 5,000,000 rows.
# Needs python3 with numpy from Debian (apt-get install -y python3-numpy) and
# about 4 GB of memory; RUNS sets the number of alternations (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
runs=${RUNS:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(go version | cut -d' ' -f3)"
/usr/bin/python3 "$shared/bench/gen_records.py" 200000 128 "$dir/run.jsonl" >/dev/null
/usr/bin/python3 "$shared/bench/gen_records.py" 5000000 128 "$dir/run.csv" >/dev/null
go build -o "$dir/llmmetrics" ./cmd/llmmetrics
for f in run.jsonl run.csv; do
	ls -l "$dir/$f" | awk '{print "file:", $9, $5, "bytes"}'
	peer=numpy_jsonl.py
	[[ $f == *.csv ]] && peer=numpy_csv.py
	# numpy is timed as the environment notes advise for a current numpy:
	# with the OpenBLAS overrides of this workplace unset for it alone.
	for i in $(seq "$runs"); do
		env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/time -f "numpy      %e s  cpu %U+%S s  peak %M KB" \
			/usr/bin/python3 "$shared/bench/$peer" "$dir/$f" >"$dir/numpy.json"
		/usr/bin/time -f "llmmetrics %e s  cpu %U+%S s  peak %M KB" \
			"$dir/llmmetrics" report --json "$dir/$f" >"$dir/ours.json"
	done
	/usr/bin/python3 bench/same_figures.py "$dir/ours.json" "$dir/numpy.json"
done
