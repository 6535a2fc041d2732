# Issue 25's host memory aim (<= 64 GiB in every tier) at 32GiB: 3 sectors in one sitting with
# --host-memory 64GiB, on the whole device (the baseline), then under --gpu-memory 24GiB and 16GiB, every
# tier's proofs byte-identical to the baseline's (scripts/tiers-run.sh), and the dry run's plans beside them.
set -u
export LD_LIBRARY_PATH=$PWD/out/small/lib CUZK_BIN=$PWD/out/small/cuzk CUZK_LOG=info
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > $OUT/gpu.txt
rm -f build-scale/params/v28-empty-sector-update-*
CUZK_TIERS_FLAGS="--host-memory 64GiB" OUT=/tmp/tiers timeout 570 scripts/tiers-run.sh 32GiB 3 "24GiB 16GiB" \
  > $OUT/tiers-stdout.txt 2>&1
cat /tmp/tiers/tiers-*.txt > $OUT/tiers.txt 2>/dev/null
for f in /tmp/tiers/*.json; do cp "$f" $OUT/ 2>/dev/null; done
grep -h "synthesis worker\|memory plan" /tmp/tiers/prove-*.log | sed 's/^\[[^]]*\] //' | head -20 > $OUT/plans.txt
