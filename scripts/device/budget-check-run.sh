# The device budget with CUDA's own memory counted: the whole device and the 24 and 16 GiB tiers at 32GiB
# (3 sectors each, proofs compared with the whole device's), the plans and the peak device memory.
set -u
export LD_LIBRARY_PATH=$PWD/out/small/lib CUZK_BIN=$PWD/out/small/cuzk CUZK_LOG=info
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > $OUT/gpu.txt
OUT=/tmp/tiers timeout 560 scripts/tiers-run.sh 32GiB 3 "24GiB 16GiB" > $OUT/tiers-stdout.txt 2>&1
cat /tmp/tiers/tiers-*.txt > $OUT/tiers.txt 2>/dev/null
grep -h "memory plan\|stacks grew\|CUDA holds" /tmp/tiers/*.log | sed 's/^\[[^]]*\] //' | cut -c1-700 | sort -u | head -40 > $OUT/plans.txt
