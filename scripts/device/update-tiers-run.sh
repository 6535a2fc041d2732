# SnapDeals update proofs at 32GiB under the device-memory tiers (issues 25 and 28): the whole device, then
# --gpu-memory 24GiB and 16GiB standing in for smaller cards, 2 sectors each in one sitting, every tier's
# proofs byte-identical to the whole device's (scripts/device/update-gpu-run.sh), and the dry run's plans
# beside the real runs' (the job's and the engine's logged plans).
set -u
export LD_LIBRARY_PATH=$PWD/out/small/lib CUZK_BIN=$PWD/out/small/cuzk CUZK_LOG=info
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > $OUT/gpu.txt
OUT=$OUT/u GPU_VARIANTS="g24:--gpu-memory=24GiB g16:--gpu-memory=16GiB" timeout 540 \
  bash scripts/device/update-gpu-run.sh 32GiB 2 "" > $OUT/run-stdout.txt 2>&1
for limit in 24GiB 16GiB; do
  $CUZK_BIN prove --dry-run --gpu --gpu-memory $limit build-scale/update/32GiB-u1.json \
    --params-dir build-scale/params -o /tmp/dry > $OUT/dry-$limit.txt 2>&1
done
$CUZK_BIN prove --dry-run --gpu build-scale/update/32GiB-u1.json --params-dir build-scale/params -o /tmp/dry \
  > $OUT/dry-whole.txt 2>&1
