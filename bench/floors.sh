#!/usr/bin/env bash
# Prints every floor of docs/performance.md as this machine meets it: for
# each row, llmmetrics' time beside the Python pipeline's on the same input
# (the ratio, numpy's median over ours), and for the report rows the peak
# resident memory against the file's size; then whether the floor holds.
# The machine comes first: cores, processor, level-1 data cache and its
# sharers, transparent huge pages, Go. It calls the same generators and
# pipelines as compare_formats.sh, compare_vllm.sh and compare.sh.
#
#   bash bench/floors.sh            # the documented sizes: about 4 GB of memory, 10-20 minutes
#   SCALE=100 bash bench/floors.sh  # every size divided by 100, to check the script (ratios then mean little)
#
# RUNS sets the alternations of each pair (default 3). Needs python3 with
# numpy from Debian (apt-get install -y python3-numpy); numpy is run with the
# OpenBLAS overrides of this workplace unset for it alone, as elsewhere.
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
runs=${RUNS:-3}
scale=${SCALE:-1}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
py=/usr/bin/python3

cache=/sys/devices/system/cpu/cpu0/cache
l1d="unknown"
for d in "$cache"/index*; do
	if [[ $(cat "$d/level" 2>/dev/null) == 1 && $(cat "$d/type" 2>/dev/null) == Data ]]; then
		l1d="$(cat "$d/size") shared by cpus $(cat "$d/shared_cpu_list")"
	fi
done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), L1d $l1d," \
	"threads per core $(lscpu 2>/dev/null | awk -F: '/^Thread\(s\) per core/ {gsub(/ /, "", $2); print $2}')," \
	"huge pages $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown), $(go version | cut -d' ' -f3)"
[[ $scale == 1 ]] || echo "SCALE=$scale: every size divided by $scale; these are not the documented figures"
go build -o "$dir/llmmetrics" ./cmd/llmmetrics

# timed CMD…: runs it under /usr/bin/time; appends "seconds KB" to $dir/t.
timed() { /usr/bin/time -a -o "$dir/t" -f "%e %M" "$@" >/dev/null; }

# pair NAME FILE NUMPY-CMD… -- OURS-CMD…: alternates the two commands RUNS
# times and prints the medians, the ratio and the peak against the file.
pair() {
	local name=$1 file=$2
	shift 2
	local theirs=() ours=()
	while [[ $1 != -- ]]; do theirs+=("$1"); shift; done
	shift
	ours=("$@")
	: >"$dir/numpy.t"
	: >"$dir/ours.t"
	for _ in $(seq "$runs"); do
		rm -f "$dir/t"; timed env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "${theirs[@]}"; cat "$dir/t" >>"$dir/numpy.t"
		rm -f "$dir/t"; timed "${ours[@]}"; cat "$dir/t" >>"$dir/ours.t"
	done
	$py - "$name" "$(stat -c %s "$file")" "$dir/numpy.t" "$dir/ours.t" <<-'EOF'
		import statistics, sys
		name, size = sys.argv[1], int(sys.argv[2])
		def load(p):
		    rows = [tuple(map(float, l.split())) for l in open(p) if l.strip()]
		    return [r[0] for r in rows], [r[1] for r in rows]
		nt, nm = load(sys.argv[3])
		ot, om = load(sys.argv[4])
		ratio = statistics.median(nt) / max(statistics.median(ot), 1e-3)
		rss = max(om) * 1024 / size
		print(f"{name}: numpy {min(nt):.2f}-{max(nt):.2f} s, peak {max(nm)/1024:.0f} MB; "
		      f"llmmetrics {min(ot):.2f}-{max(ot):.2f} s, peak {max(om)/1024:.0f} MB; file {size/1e6:.0f} MB")
		print(f"  ratio {ratio:.1f}x (floor 10x): {'holds' if ratio >= 10 else 'BELOW'}")
		print(f"  peak {rss:.2f}x the file (floor 2x): {'holds' if rss <= 2 else 'ABOVE'}")
	EOF
}

n=$((200000 / scale))
$py "$shared/bench/gen_records.py" "$n" 128 "$dir/run.jsonl" >/dev/null
pair "report --json, JSONL, $n requests x 128 chunk arrivals" "$dir/run.jsonl" \
	$py "$shared/bench/numpy_jsonl.py" "$dir/run.jsonl" -- "$dir/llmmetrics" report --json "$dir/run.jsonl"
rm -f "$dir/run.jsonl"

n=$((5000000 / scale))
$py "$shared/bench/gen_records.py" "$n" 128 "$dir/run.csv" >/dev/null
pair "report --json, CSV, $n rows" "$dir/run.csv" \
	$py "$shared/bench/numpy_csv.py" "$dir/run.csv" -- "$dir/llmmetrics" report --json "$dir/run.csv"
rm -f "$dir/run.csv"

# The CSV of issue #29's regression: 2,000,000 rows, 2% failed.
n=$((2000000 / scale))
$py "$shared/bench/gen_records.py" "$n" 1 "$dir/run.csv" >/dev/null
pair "report --json, CSV, $n rows of one chunk" "$dir/run.csv" \
	$py "$shared/bench/numpy_csv.py" "$dir/run.csv" -- "$dir/llmmetrics" report --json "$dir/run.csv"
rm -f "$dir/run.csv"

n=$((100000 / scale))
$py "$shared/bench/gen_vllm_result.py" "$n" 256 1 "$dir/big.json"
pair "report --from vllm --dialect vllm --json, $n requests up to 256 gaps" "$dir/big.json" \
	$py "$shared/bench/numpy_reference.py" "$dir/big.json" -- "$dir/llmmetrics" report --from vllm --dialect vllm --json "$dir/big.json"
rm -f "$dir/big.json"

# Summarize beside numpy.percentile on the same pooled arrays (compare.sh):
# the benchmark's sizes are 10^5 and 10^6 records.
n=1000000
short=""
[[ $scale == 1 ]] || { n=100000; short=-short; }
go run ./bench/pooled -records "$n" -chunks 128 -out "$dir"
numpy=$(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE $py bench/numpy_percentiles.py "$dir" | sed 's/.*= \([0-9.]*\) s/\1/')
rm -f "$dir"/*.f64
# Best of RUNS, as numpy's is best of 3: each a mean of 3 calls.
ours=$(go test -run XXX -bench "Summarize$/^records=$n$" -benchtime 3x -count "$runs" $short . | awk '/^BenchmarkSummarize/ {print $3 / 1e9}' | sort -g | head -1)
$py - "$n" "$numpy" "$ours" <<-'EOF'
	import sys
	n, numpy, ours = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
	ratio = numpy / ours
	print(f"Summarize, {n} records x 128 chunk arrivals: numpy.percentile {numpy:.3f} s (best of 3), Summarize {ours:.3f} s (best of RUNS)")
	print(f"  ratio {ratio:.1f}x (floor 5x): {'holds' if ratio >= 5 else 'BELOW'}")
EOF
