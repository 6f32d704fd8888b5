#!/usr/bin/env bash
# Times `llmmetrics report --from vllm --dialect vllm` beside the numpy
# pipeline a Python user runs today (../shared/bench/numpy_reference.py) on
# the same 270 MB vLLM-layout file, in one run on this machine.
# Needs python3 with numpy from Debian (apt-get install -y python3-numpy).
set -euo pipefail
cd "$(dirname "$0")/.."
shared=${SHARED:-../shared}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(go version | cut -d' ' -f3)"
python3 "$shared/bench/gen_vllm_result.py" 100000 256 1 "$dir/big.json"
ls -l "$dir/big.json" | awk '{print "file:", $5, "bytes"}'
go build -o "$dir/llmmetrics" ./cmd/llmmetrics
# numpy is timed as the environment notes advise for a current numpy: with
# the OpenBLAS overrides of this workplace unset for that command alone.
for i in 1 2 3; do
	env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/time -f "numpy      %e s  peak %M KB" \
		/usr/bin/python3 "$shared/bench/numpy_reference.py" "$dir/big.json" >/dev/null
	/usr/bin/time -f "llmmetrics %e s  peak %M KB" \
		"$dir/llmmetrics" report --from vllm --dialect vllm --json "$dir/big.json" >/dev/null
done
