# Sourced by the device jobs (gpu_job.sh, soup_job.sh) from the repository root: the carried folder ($PACK, default
# .gpu), the wheels the device image lacks, and the environment the jobs' Python needs; sets PACK and PY.
PACK=$(cd "${PACK:-.gpu}" && pwd)
if compgen -G "$PACK/wheels/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$PACK"/wheels/*.whl
  export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} RAGEVAL_MINILM_PATH="$PACK/base" RAGEVAL_SHARED_DIR="$PACK/shared" HF_HUB_OFFLINE=1 PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
