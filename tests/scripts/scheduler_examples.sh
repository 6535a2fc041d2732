#!/usr/bin/env bash
# The scheduler examples of docs/integration.md ("Many hosts"): docs/examples/cuzk-array.sbatch (a Slurm job
# array; tests/scripts/slurm_array.sh submits this very file to a real Slurm) and
# docs/examples/cuzk-indexed-job.yaml (a Kubernetes indexed Job). Checks that the page's copies are the
# files; that the Job parses and has what it needs (indexed, --shard-count equal to completions, one GPU per
# pod, the exit codes that fail a slice at once being those the page says not to retry, the parameter and
# output volumes); and runs both commands with a stand-in for cuzk that exits as told, to check the flags
# they pass and their retries by exit code. No cluster and no proving: seconds.
set -euo pipefail
src="$(cd "${CUZK_SOURCE_DIR:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)"
sbatch_script="$src/docs/examples/cuzk-array.sbatch"
job_yaml="$src/docs/examples/cuzk-indexed-job.yaml"
page="$src/docs/integration.md"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v jq >/dev/null 2>&1 || fail "jq is not installed (run scripts/install-deps.sh)"
python3 -c 'import yaml' 2>/dev/null || fail "python3 with PyYAML (python3-yaml) is needed to parse the Job (run scripts/install-deps.sh)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# 1. docs/integration.md shows both files: its copies are the files.
for name in cuzk-array.sbatch cuzk-indexed-job.yaml; do
  awk -v marker="<!-- copy of examples/$name " 'index($0, marker) == 1 {want = 1; next}
    want && !on && /^```/ {on = 1; next}  on && /^```$/ {exit}  on' "$page" >"$tmp/copy"
  [ -s "$tmp/copy" ] || fail "docs/integration.md has no copy of examples/$name (after a '<!-- copy of examples/$name' line)"
  cmp -s "$tmp/copy" "$src/docs/examples/$name" || {
    diff "$tmp/copy" "$src/docs/examples/$name" >&2 || true
    fail "docs/integration.md's copy of examples/$name differs from the file"
  }
done

# 2. The Slurm script: sbatch reads #SBATCH lines only before the first command; one GPU per task.
awk '/^#SBATCH/ && seen {exit 1} !/^#/ && !/^[[:space:]]*$/ {seen = 1}' "$sbatch_script" ||
  fail "an #SBATCH line of cuzk-array.sbatch comes after a command: sbatch would ignore it"
grep -qx '#SBATCH --gres=gpu:1' "$sbatch_script" || fail "cuzk-array.sbatch does not ask for one GPU per task"
bash -n "$sbatch_script" || fail "cuzk-array.sbatch is not valid bash"

# 3. The Job: parsed, its keys checked. The codes that fail a slice at once must be the ones docs/
# integration.md's exit code table says not to retry (its "retry?" cell begins with "no" or "not until").
python3 - "$job_yaml" "$page" "$tmp/job-command.sh" <<'EOF' || fail "cuzk-indexed-job.yaml: see above"
import re, sys, yaml
path, page, command_out = sys.argv[1:]
errors = []
def check(ok, message):
    if not ok:
        errors.append(message)

docs = [d for d in yaml.safe_load_all(open(path)) if d is not None]
if len(docs) != 1:
    sys.exit(f"{path}: {len(docs)} documents, expected one Job")
job = docs[0]
check(job.get("apiVersion") == "batch/v1" and job.get("kind") == "Job", "not a batch/v1 Job")
spec = job.get("spec", {})
n = spec.get("completions")
check(spec.get("completionMode") == "Indexed", "completionMode is not Indexed (no JOB_COMPLETION_INDEX)")
check(isinstance(n, int) and n >= 1, f"completions is {n!r}")
check(isinstance(spec.get("parallelism"), int) and 1 <= spec["parallelism"] <= (n or 0), "parallelism not in 1..completions")
check(isinstance(spec.get("backoffLimitPerIndex"), int) and spec["backoffLimitPerIndex"] >= 1,
      "no backoffLimitPerIndex >= 1: a failed slice is never retried")
pod = spec.get("template", {}).get("spec", {})
check(pod.get("restartPolicy") == "Never", "restartPolicy is not Never (backoffLimitPerIndex and podFailurePolicy need it)")
containers = pod.get("containers", [])
if len(containers) != 1:
    sys.exit(f"{len(containers)} containers, expected one")
c = containers[0]
check(c.get("resources", {}).get("limits", {}).get("nvidia.com/gpu") == 1, "not one nvidia.com/gpu per pod")

# The command: a shell line around cuzk prove.
check(c.get("command") == ["/bin/sh", "-c"] and len(c.get("args", [])) == 1, "command is not /bin/sh -c SCRIPT")
script = (c.get("args") or [""])[0]
m = re.search(r"--shard-count (\d+)", script)
check(m is not None and int(m.group(1)) == n, f"--shard-count {m and m.group(1)} is not completions ({n})")
for flag in ("exec cuzk prove ", " --gpu ", " --shard auto ", " --skip-existing ", " --keep-going ", " --json "):
    check(flag in script, f"the command lacks '{flag.strip()}'")

# Volumes: the parameters read only, the output folder on a writable shared volume.
volumes = {v["name"]: v for v in pod.get("volumes", [])}
mounts = c.get("volumeMounts", [])
env = {e["name"]: e.get("value") for e in c.get("env", [])}
def mount_of(p):
    hits = [m for m in mounts if p == m["mountPath"] or p.startswith(m["mountPath"].rstrip("/") + "/")]
    return hits[0] if hits else None
params = env.get("FIL_PROOFS_PARAMETER_CACHE")
pm = mount_of(params or "")
check(pm is not None and pm.get("readOnly") is True, f"FIL_PROOFS_PARAMETER_CACHE ({params}) is not on a read-only mount")
check(pm is not None and volumes.get(pm["name"], {}).get("persistentVolumeClaim", {}).get("readOnly") is True,
      "the parameter volume is not a read-only persistentVolumeClaim")
o = re.search(r" -o (\S+)", script)
om = mount_of(o.group(1)) if o else None
check(om is not None and not om.get("readOnly", False), f"-o {o and o.group(1)} is not on a writable mount")
check(om is not None and "persistentVolumeClaim" in volumes.get(om["name"], {}), "the output volume is not a persistentVolumeClaim")
for m in mounts:
    check(m["name"] in volumes, f"volumeMount {m['name']} has no volume")

# Retries by exit code.
text = open(page).read()
table = text.split("## Exit codes: what to retry", 1)[1].split("\n## ", 1)[0]
final = set()
for row in re.findall(r"^\| ([0-9, ]+) \|.*\| ([^|]*) \|$", table, re.M):
    if row[1].strip().startswith(("no", "not until")):
        final |= {int(x) for x in row[0].split(",")}
check(3 in final and 8 not in final and 1 not in final, f"reading the exit code table of {page} went wrong: {sorted(final)}")
rules = spec.get("podFailurePolicy", {}).get("rules", [])
fail_index = [r for r in rules if r.get("action") == "FailIndex"]
check(len(fail_index) == 1, "not one FailIndex rule")
for r in fail_index:
    codes = r.get("onExitCodes", {})
    check(codes.get("operator") == "In" and codes.get("containerName") == c.get("name"),
          "the FailIndex rule is not 'In' on the cuzk container")
    check(set(codes.get("values", [])) == final,
          f"FailIndex on {sorted(codes.get('values', []))}, the page's final codes are {sorted(final)}")
check(not any(r.get("action") == "FailJob" for r in rules), "a FailJob rule: one slice's failure would stop all")
check(any(r.get("action") == "Ignore" and {"type": "DisruptionTarget"} in r.get("onPodConditions", [])
          for r in rules), "no Ignore rule for DisruptionTarget (evicted or preempted pods)")

if errors:
    sys.exit("\n".join(f"{path}: {e}" for e in errors))
# The command, with each mount moved under $ROOT, for step 5.
for m in sorted(mounts, key=lambda m: -len(m["mountPath"])):
    script = script.replace(m["mountPath"], "$ROOT" + m["mountPath"])
open(command_out, "w").write(script + "\n")
EOF

# A stand-in for cuzk: each call takes the next line "CODE KINDS [SECONDS]" of $FAKE_PLAN, writes its
# arguments to $FAKE_CALLS, sleeps SECONDS, prints one "proven" record for KINDS "ok", one "failed" record
# per kind of the comma-separated KINDS, none for "-", and exits CODE.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/cuzk" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
read -r code kinds delay < <(head -n 1 "$FAKE_PLAN")
sed -i 1d "$FAKE_PLAN"
echo "$* | CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-} JOB_COMPLETION_INDEX=${JOB_COMPLETION_INDEX:-}" >>"$FAKE_CALLS"
[ -z "${delay:-}" ] || sleep "$delay"  # a run that takes a while (SIGTERM to the script meanwhile)
case "$kinds" in
  ok) echo '{"schema":"cuzk.prove.result/1","status":"proven","c1":"a.json","sector":"1"}' ;;
  -) ;;
  *) for kind in ${kinds//,/ }; do
       echo "{\"schema\":\"cuzk.prove.result/1\",\"status\":\"failed\",\"c1\":\"a.json\",\"sector\":\"1\",\"error\":{\"kind\":\"$kind\",\"exit_code\":$code,\"message\":\"m\"}}"
     done ;;
esac
exit "$code"
EOF
chmod +x "$tmp/bin/cuzk"

# 4. The Slurm script as a task of an array (job 77, task 1 of 4), outside Slurm: the flags it passes,
# and its retries. run_task NAME EXPECTED_EXIT EXPECTED_CALLS PLAN_LINE...
run_task() {
  local name="$1" want="$2" want_calls="$3" got=0
  shift 3
  printf '%s\n' "$@" >"$tmp/plan"
  : >"$tmp/calls"
  rm -rf "$tmp/out-$name"
  (
    export FAKE_PLAN="$tmp/plan" FAKE_CALLS="$tmp/calls" CUZK="$tmp/bin/cuzk" RETRY_PAUSE=0
    export SLURM_ARRAY_JOB_ID=77 SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4 CUDA_VISIBLE_DEVICES=3
    bash "$sbatch_script" "$tmp/out-$name" "$tmp/c1 a.json" "$tmp/b.json"
  ) >"$tmp/task-$name.txt" 2>&1 || got=$?
  [ "$got" -eq "$want" ] || { cat "$tmp/task-$name.txt" >&2; fail "task '$name' exited $got, expected $want"; }
  [ "$(wc -l <"$tmp/calls")" -eq "$want_calls" ] || { cat "$tmp/task-$name.txt" >&2; fail "task '$name' ran cuzk $(wc -l <"$tmp/calls") times, expected $want_calls"; }
  local n
  for ((n = 1; n <= want_calls; n++)); do
    [ -f "$tmp/out-$name/results/77_1.$n.jsonl" ] || fail "task '$name' attempt $n left no record file"
  done
}
run_task ok 0 1 "0 ok"
want="prove --gpu --shard auto --skip-existing --keep-going --json --progress-interval 60 -o $tmp/out-ok $tmp/c1 a.json $tmp/b.json | CUDA_VISIBLE_DEVICES=3 JOB_COMPLETION_INDEX="
[ "$(cat "$tmp/calls")" = "$want" ] || fail "the Slurm script ran: $(cat "$tmp/calls"); expected: $want"
jq -e '.status == "proven"' "$tmp/out-ok/results/77_1.1.jsonl" >/dev/null || fail "the records are not cuzk's stdout"
grep -q "shard 1 of 4" "$tmp/task-ok.txt" || fail "the task's log does not name its shard"
run_task gpu-then-ok 0 2 "8 gpu" "0 ok"
run_task verification-then-ok 0 2 "5 verification" "0 ok"
run_task internal-then-ok 0 2 "1 internal" "0 ok"
run_task interrupted-then-ok 0 2 "143 interrupted" "0 ok"
run_task killed-thrice 137 3 "137 -" "137 -" "137 -" "0 ok"
run_task input 3 1 "3 input"
run_task circuit 7 1 "7 circuit"
run_task parameters 6 1 "6 parameters" "0 ok"
run_task no-device 8 1 "8 no-device" "0 ok"
run_task gpu-and-no-device 8 1 "8 gpu,no-device" "0 ok"  # no usable GPU left on this host: no retry
run_task input-and-gpu 3 2 "3 input,gpu" "3 input"  # a bad input does not stop the retry of the GPU error
run_task usage 2 1 "2 -"
grep -q "retrying (failed: gpu" "$tmp/task-gpu-then-ok.txt" || fail "the retry is not logged with its reason"
# SIGTERM to the task (scancel, the time limit: Slurm signals every process of the task, cuzk stops at a
# safe point): the script waits for cuzk, exits with its status and does not retry.
printf '%s\n' "143 interrupted 2" "0 ok" >"$tmp/plan"
: >"$tmp/calls"
(export FAKE_PLAN="$tmp/plan" FAKE_CALLS="$tmp/calls" CUZK="$tmp/bin/cuzk" RETRY_PAUSE=0
 export SLURM_ARRAY_JOB_ID=77 SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=4
 exec bash "$sbatch_script" "$tmp/out-term" "$tmp/a.json") >"$tmp/task-term.txt" 2>&1 &
task_pid=$!
for _ in $(seq 50); do [ -s "$tmp/calls" ] && break; sleep 0.1; done
kill -TERM "$task_pid"
got=0
wait "$task_pid" || got=$?
[ "$got" -eq 143 ] || { cat "$tmp/task-term.txt" >&2; fail "a task stopped by SIGTERM exited $got, expected 143 (cuzk's)"; }
grep -q "attempt 1: cuzk exited 143" "$tmp/task-term.txt" && grep -q "stopped by SIGTERM" "$tmp/task-term.txt" ||
  { cat "$tmp/task-term.txt" >&2; fail "the task did not wait for cuzk to stop"; }
[ "$(wc -l <"$tmp/calls")" -eq 1 ] || fail "a task stopped by SIGTERM ran cuzk again"
got=0
(export FAKE_PLAN="$tmp/plan" FAKE_CALLS="$tmp/calls" CUZK="$tmp/bin/cuzk" CUZK_ENGINE=cpu CUZK_FLAGS="--threads 1 --miner-id 7"
 export SLURM_ARRAY_JOB_ID=77 SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_COUNT=1
 echo "0 ok" >"$FAKE_PLAN"; : >"$FAKE_CALLS"
 bash "$sbatch_script" "$tmp/out-cpu" "$tmp/a.json") >"$tmp/task-cpu.txt" 2>&1 || got=$?
[ "$got" -eq 0 ] || { cat "$tmp/task-cpu.txt" >&2; fail "CUZK_ENGINE=cpu exited $got"; }
grep -q "^prove --shard auto .* --progress-interval 60 --threads 1 --miner-id 7 -o $tmp/out-cpu $tmp/a.json |" "$tmp/calls" ||
  fail "CUZK_ENGINE=cpu CUZK_FLAGS=...: $(cat "$tmp/calls")"
# Not a task of an array, or no inputs: a usage error before cuzk runs.
: >"$tmp/calls"
got=0
(export CUZK="$tmp/bin/cuzk" FAKE_CALLS="$tmp/calls"; unset SLURM_ARRAY_TASK_ID
 bash "$sbatch_script" "$tmp/out-x" "$tmp/a.json") >"$tmp/task-x.txt" 2>&1 || got=$?
[ "$got" -eq 2 ] && grep -q "not a task of a job array" "$tmp/task-x.txt" || fail "outside an array: exit $got, $(cat "$tmp/task-x.txt")"
got=0
(export CUZK="$tmp/bin/cuzk" FAKE_CALLS="$tmp/calls" SLURM_ARRAY_TASK_ID=0
 bash "$sbatch_script" "$tmp/out-x") >"$tmp/task-y.txt" 2>&1 || got=$?
[ "$got" -eq 2 ] || fail "no C1 files: exit $got"
[ ! -s "$tmp/calls" ] || fail "cuzk ran on a usage error of the script"

# 5. The Job's command, as its pod 2 would run it (the mounts under $ROOT): the flags, the C1 files of the
# shared folder, the records beside the proofs, cuzk's exit status as the pod's.
for code in 0 7; do
  root="$tmp/pod-$code"
  mkdir -p "$root/work/c1"
  touch "$root/work/c1/101.json" "$root/work/c1/102.json"
  echo "$code $([ "$code" = 0 ] && echo ok || echo circuit)" >"$tmp/plan"
  : >"$tmp/calls"
  got=0
  env PATH="$tmp/bin:$PATH" ROOT="$root" JOB_COMPLETION_INDEX=2 HOSTNAME=cuzk-c2-2-x7k FAKE_PLAN="$tmp/plan" \
    FAKE_CALLS="$tmp/calls" /bin/sh -c "$(cat "$tmp/job-command.sh")" >"$tmp/pod.txt" 2>&1 || got=$?
  [ "$got" -eq "$code" ] || { cat "$tmp/pod.txt" >&2; fail "the Job's command exited $got when cuzk exited $code"; }
  grep -q "^prove --gpu --shard auto --shard-count 4 --skip-existing --keep-going --json .*-o $root/work/proofs $root/work/c1/101.json $root/work/c1/102.json | .*JOB_COMPLETION_INDEX=2\$" "$tmp/calls" ||
    fail "the Job ran: $(cat "$tmp/calls")"
  [ -s "$root/work/proofs/results/2-cuzk-c2-2-x7k.jsonl" ] || fail "the Job's records are not in proofs/results/<index>-<pod>.jsonl"
done
echo "ok: the Slurm and Kubernetes examples: copies, keys, flags, retries by exit code"
