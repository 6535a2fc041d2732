# The MSM workspace buffer by buffer (the memory trace) at 24 GiB, prefetch off, one 32GiB sector.
set -u
export LD_LIBRARY_PATH=$PWD/out/small/lib CUZK_BIN=$PWD/out/small/cuzk CUZK_LOG=info CUZK_GPU_MEMORY_TRACE=1 CUZK_TIERS_BASELINE=0
for run in "24off:CUZK_GPU_SCALAR_PREFETCH=0:24GiB:200"; do
  t=${run##*:}; run=${run%:*}; label=${run%%:*}; rest=${run#*:}; envs=${rest%:*}; limit=${rest##*:}
  env $envs OUT=/tmp/t-$label timeout $t scripts/tiers-run.sh 32GiB 1 $limit > /dev/null 2>&1
  { echo "== $label"; cat /tmp/t-$label/tiers-*.txt; grep -h "memory trace" /tmp/t-$label/prove*.log | sed 's/^\[[^]]*\] //' | head -14; } >> $OUT/trace.txt
done
