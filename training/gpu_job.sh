#!/usr/bin/env bash
# The GPU job of issue 22: train the offline judge's NLI model fully on a lent GPU, evaluate it held out, then
# time the offline judge there. One command, well inside a 10-minute device call:
#
#   here:   python training/pack_gpu_job.py          (writes .gpu/, ~60 MiB: base fp16, NLI data, wheels, rows,
#           and the twins' NLI pairs when training/twin_pairs.py has written .cache/twins/nli/)
#   device: bash training/gpu_job.sh                  (run with carry [".gpu"]; results in $OUT)
#
# On a CPU it runs the same steps on a tiny slice (what tests/test_train_nli.py does):
#   GPU_JOB_TINY=1 OUT=/tmp/out PACK=/tmp/gpu bash training/gpu_job.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source training/gpu_env.sh  # PACK, wheels, PYTHONPATH, PY
OUT=${OUT:-/tmp/gpu_job_out}
mkdir -p "$OUT"
if [ -n "${GPU_JOB_TINY:-}" ]; then
  TRAIN=(--limit 64 --eval-limit 16 --epochs 1 --batch-size 16 --curve-every 2 --curve-pairs 16 --export-rank 8)
  BENCH=(--rows 4)
else
  # ~117k pairs x 7 epochs at batch 128: 6,391 steps, 3.4 minutes on one H200 in bfloat16 (2026-11-26);
  # --max-minutes stops training early (then exports) should a slower card need more than 6
  TRAIN=(--epochs ${GPU_JOB_EPOCHS:-7} --batch-size 128 --lr 1e-4 --curve-every 500 --curve-pairs 2000 --export-rank 96 --threads 8 --max-minutes ${GPU_JOB_MINUTES:-6})
  BENCH=(--rows 600)
fi
TWINS=()  # the twins' pairs, where packed: twins_fit trains (twice), twins_held is evaluated
if [ -d "$PACK/twins" ]; then TWINS=(--twins "$PACK/twins"); fi
WORK=$(mktemp -d)  # a fresh run: no checkpoint or curve of an earlier one
"$PY" training/train_nli.py --full --data "$PACK/nli" --out "$OUT/nli" --work "$WORK" \
  --log-every 100 --checkpoint-every 1000 "${TRAIN[@]}" ${TWINS[@]+"${TWINS[@]}"} 2>&1 | tee "$OUT/train.log"
cp "$WORK/curve_stage1.jsonl" "$OUT/curve.jsonl"
[ "${GPU_JOB_BENCH:-1}" = 0 ] || "$PY" benchmarks/offline_judge_device.py "${BENCH[@]}" 2>&1 | tee "$OUT/device_benchmark.log"
ls -la "$OUT" "$OUT/nli"
