#!/usr/bin/env bash
# The GPU's figures of a run on a real device (label gpu: `ctest -L gpu`): two 2KiB sectors proven
# with --gpu and --gpu-price-per-hour must give a report with gpu_busy, energy_joules (the run's and each
# sector's) and average_watts read through the driver's NVML, and the metrics file their series. A device
# without an energy counter (older than Volta) or a driver without NVML passes with what is there, the reason
# printed. Then the same run with CUZK_NVML_LIBRARY naming a missing file: the figures absent with the reason,
# the run proven all the same.
set -euo pipefail
: "${CUZK_BIN:?CUZK_BIN must name the cuzk binary}"
params="${CUZK_BINARY_DIR:-/tmp}/test-params"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# The GPU machine has python3 but no Node.js or jq: the report is read with python3.
command -v python3 >/dev/null 2>&1 || fail "python3 is not installed"
# shellcheck source=tests/scripts/lib/shared_params.bash
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/shared_params.bash"
shared_test_params "$params" || fail "params setup exited $?"
export CUZK_PCE_CACHE="$tmp/pce"
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 41 --sector-id 41 -o "$tmp/a.json" >/dev/null 2>&1 || fail gen-c1
"$CUZK_BIN" gen-c1 --sector-size 2KiB --seed 42 --sector-id 42 -o "$tmp/b.json" >/dev/null 2>&1 || fail gen-c1

"$CUZK_BIN" prove --gpu "$tmp/a.json" "$tmp/b.json" -o "$tmp/out" --params-dir "$params" --report "$tmp/r.json" \
  --metrics-file "$tmp/m.prom" --gpu-price-per-hour 3.6 >"$tmp/log" 2>&1 ||
  { cat "$tmp/log" >&2; fail "prove --gpu failed"; }
python3 - "$tmp/r.json" "$tmp/m.prom" <<'PY' || fail "the GPU figures of the report are wrong"
import json, sys
r = json.load(open(sys.argv[1]))
metrics = open(sys.argv[2]).read()
g = r["gpu_metrics"]
print("gpu_metrics:", json.dumps(g))
print("gpu_busy:", r.get("gpu_busy"), "energy_joules:", r.get("energy_joules"),
      "average_watts:", r.get("average_watts"))
assert "unavailable" not in g, "NVML not used on a GPU machine: " + g.get("unavailable", "")
assert g["source"] == "nvml" and g["samples"] > 0 and g["devices"], g
assert "busy_unavailable" in g or 0 <= r["gpu_busy"]["run"] <= 1, r.get("gpu_busy")
assert ("busy_unavailable" in g) != ("cuzk_gpu_busy_run_ratio{" in metrics), metrics
if "energy_unavailable" in g:
    print("no energy counter:", g["energy_unavailable"])
    assert "energy_joules" not in r and "average_watts" not in r
else:
    assert r["energy_joules"] > 0 and r["average_watts"] > 0, r
    assert abs(r["average_watts"] * g["energy_span_s"] - r["energy_joules"]) < 1e-6 * r["energy_joules"]
    assert all(s["energy_joules"] >= 0 for s in r["sectors"]), r["sectors"]
    assert sum(s["energy_joules"] for s in r["sectors"]) <= r["energy_joules"] + 1e-9
    assert "cuzk_gpu_energy_joules{" in metrics and "cuzk_gpu_average_watts{" in metrics, metrics
assert abs(r["cost"]["usd"] - 3.6 * r["total"]["wall_s"] / 3600) < 1e-12, r["cost"]
assert "cuzk_cost_usd_per_proof{" in metrics, metrics
PY

# Without NVML: the same run is proven; the figures are absent with the reason, and one info line says so.
CUZK_NVML_LIBRARY="$tmp/no-such-libnvidia-ml.so.1" "$CUZK_BIN" prove --gpu "$tmp/a.json" -o "$tmp/out2" \
  --params-dir "$params" --report "$tmp/r2.json" >"$tmp/log2" 2>&1 ||
  { cat "$tmp/log2" >&2; fail "prove --gpu without NVML failed"; }
grep -q "GPU busy share and energy are not measured" "$tmp/log2" || fail "no info line without NVML: $(cat "$tmp/log2")"
python3 - "$tmp/r2.json" <<'PY' || fail "the report without NVML is wrong"
import json, sys
r = json.load(open(sys.argv[1]))
assert not any(k in r for k in ("gpu_busy", "energy_joules", "average_watts", "cost")), r.keys()
assert "no-such-libnvidia-ml.so.1" in r["gpu_metrics"]["unavailable"], r["gpu_metrics"]
PY
echo "OK: NVML's busy share, energy and cost in the report and the metrics; absent with the reason without NVML"
