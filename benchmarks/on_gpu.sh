#!/usr/bin/env bash
# What this project can only check on a CUDA GPU, in one go, each part's output in OUTDIR:
#   1. the two Triton suites on the reference kernels, compiled by Triton rather than interpreted;
#   2. the self-checks' Triton variant pools: each variant's verdict (cause ids, kinds, points) is pinned
#      from runs on Triton's CPU interpreter, so a pass here says the GPU gives every variant the same one;
#   3. the two kernel benchmarks (timings, CSV and plot).
# Parts 1-2 need a Triton the grader was tested with (requirements.txt); part 3 runs on whatever Triton
# is installed, so that torch.compile gets the Triton its PyTorch was built with. TRITON_SITE, where set,
# is a folder holding the tested Triton, put first on the path for parts 1-2 only.
#
#   benchmarks/on_gpu.sh OUTDIR [SECONDS_FOR_THE_POOLS]
set -uo pipefail
case "${1:-}" in
  -h|--help) echo "usage: benchmarks/on_gpu.sh OUTDIR [SECONDS_FOR_THE_POOLS]"; sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0;;
esac
out=${1:?usage: benchmarks/on_gpu.sh OUTDIR [SECONDS_FOR_THE_POOLS]}
pool_seconds=${2:-240}
mkdir -p "$out"
cd "$(dirname "$0")/.." || exit 1
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
python=${PYTHON:-python3}
tested=(env)
if [ -n "${TRITON_SITE:-}" ]; then tested+=("PYTHONPATH=$TRITON_SITE"); fi

{ nvidia-smi -L; "${tested[@]}" "$python" -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__, torch.cuda.get_device_name())"; } 2>&1 | tee "$out/device.txt"

"${tested[@]}" timeout 180 "$python" -m pytest tests -m "swiglu or gated" --target reference -q -p no:cacheprovider 2>&1 | tee "$out/suites.txt"

"${tested[@]}" timeout "$pool_seconds" "$python" -m pytest selfcheck/test_triton_variants.py selfcheck/test_gated_mlp_variants.py -q -p no:cacheprovider 2>&1 | tee "$out/pools.txt"

timeout 150 "$python" benchmarks/swiglu_bench.py --quick --out "$out" 2>&1 | tee "$out/swiglu_bench.txt"
timeout 90 "$python" benchmarks/gated_mlp_bench.py 2>&1 | tee "$out/gated_mlp_bench.txt"
