#!/usr/bin/env bash
# A model soup on a lent GPU: train RUNS (default 3) full fine-tunings side by side from the same start, differing
# only in the order of the training pairs, then average them (training/soup.py). One command, inside a 10-minute
# device call; the ingredients' and the soup's held-out tables come back in $OUT:
#
#   here:   python training/pack_gpu_job.py            (writes .gpu/)
#   device: bash training/soup_job.sh                   (carry [".gpu"])
#
# On a CPU, a tiny slice: GPU_JOB_TINY=1 OUT=/tmp/out PACK=/tmp/gpu bash training/soup_job.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source training/gpu_env.sh  # PACK, wheels, PYTHONPATH, PY
OUT=${OUT:-/tmp/soup_job_out}
RUNS=${SOUP_RUNS:-3}
mkdir -p "$OUT"
if [ -n "${GPU_JOB_TINY:-}" ]; then
  TRAIN=(--limit 64 --eval-limit 16 --epochs 1 --batch-size 16 --export-rank 8 --threads 1)
  SOUP=(--eval-limit 16 --export-rank 8 --threads 1)
else
  # 4 epochs each (the single 7-epoch run's curve was flat from epoch 3); --max-minutes is a hard stop
  TRAIN=(--epochs ${SOUP_EPOCHS:-4} --batch-size 128 --lr 1e-4 --threads 4 --max-minutes ${SOUP_MINUTES:-5})
  SOUP=(--threads 8)
fi
pids=()
for i in $(seq 1 "$RUNS"); do
  "$PY" training/train_nli.py --full --save-full --order-seed $((100 + i)) --data "$PACK/nli" --out "$OUT/run$i" \
    --work "$(mktemp -d)" --log-every 500 --checkpoint-every 100000 "${TRAIN[@]}" >"$OUT/run$i.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
"$PY" training/soup.py $(for i in $(seq 1 "$RUNS"); do echo "$OUT/run$i"; done) --out "$OUT/soup" --data "$PACK/nli" \
  "${SOUP[@]}" 2>&1 | tee "$OUT/soup.log"
rm -f "$OUT"/run*/full_weights.safetensors  # 43 MB each: only the shipped adapters come back
grep -h "mnli_dev_matched\|snli_test\|cad_snli\|healthver" "$OUT"/run*.log "$OUT/soup.log" || true
