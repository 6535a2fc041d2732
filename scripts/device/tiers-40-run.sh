# The 40 GiB tier of issue 25 at 32GiB beside the whole device (an 80 GB H100 is the 80 GiB card; on an H200
# the 80 GiB tier runs too, under --gpu-memory): 3 sectors
# each in one sitting, proofs byte-identical (scripts/tiers-run.sh). The update parameters of an earlier call
# on the same machine are removed first: the PoRep ones (~44 GiB) do not fit beside them on its disk.
set -u
export LD_LIBRARY_PATH=$PWD/out/small/lib CUZK_BIN=$PWD/out/small/cuzk CUZK_LOG=info
rm -f build-scale/params/v28-empty-sector-update-*
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader > $OUT/gpu.txt
limits="40GiB"
[ "$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)" -gt 100000 ] && limits="80GiB 40GiB"
OUT=/tmp/tiers timeout 560 scripts/tiers-run.sh 32GiB 3 "$limits" > $OUT/tiers-stdout.txt 2>&1
cat /tmp/tiers/tiers-*.txt > $OUT/tiers.txt 2>/dev/null
