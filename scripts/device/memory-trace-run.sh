# The device memory trace at 32GiB (CUZK_GPU_MEMORY_TRACE=1): per-kernel stack use (cuobjdump), and the
# memory in use after each stage at 24 GiB with and without the scalar prefetch and at 16 GiB.
set -u
export LD_LIBRARY_PATH=$PWD/out/small/lib CUZK_BIN=$PWD/out/small/cuzk CUZK_LOG=info CUZK_GPU_MEMORY_TRACE=1 CUZK_TIERS_BASELINE=0
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv > $OUT/gpu.txt
CUO=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump 2>/dev/null | head -1)
[ -n "$CUO" ] && $CUO -res-usage out/small/cuzk 2>&1 | python3 -c '
import sys,re
name=None
rows=[]
for line in sys.stdin:
    m=re.search(r"Function ([^:\s]+)",line)
    if m: name=m.group(1); continue
    m=re.search(r"STACK:(\d+).*LOCAL:(\d+)",line)
    if m and name: rows.append((int(m.group(1)),int(m.group(2)),name)); name=None
rows.sort(reverse=True)
for r in rows[:40]: print(r[0],r[1],r[2][:160])
print("kernels",len(rows))' > $OUT/res-usage.txt
for run in "24on::24GiB:260" "24off:CUZK_GPU_SCALAR_PREFETCH=0:24GiB:130" "16on::16GiB:130"; do
  t=${run##*:}; run=${run%:*}; label=${run%%:*}; rest=${run#*:}; envs=${rest%:*}; limit=${rest##*:}
  env $envs OUT=/tmp/t-$label timeout $t scripts/tiers-run.sh 32GiB 2 $limit > /dev/null 2>&1
  { echo "== $label"; cat /tmp/t-$label/tiers-*.txt; grep -h "memory trace\|memory plan" /tmp/t-$label/prove*.log | sed 's/^\[[^]]*\] //' | head -60; } >> $OUT/trace.txt
done
