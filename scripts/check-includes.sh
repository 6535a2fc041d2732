#!/usr/bin/env bash
# The include rule of docs/architecture.md: folders follow the data flow
#   io/ -> prover/ (algebra, hash -> r1cs -> gadgets -> groth16 -> porep -> update) -> pce/, gpu/ -> job/ -> cli/
# and a file includes only its own folder and the folders this table allows. Prints every include that
# breaks the rule and exits 1 if there is one. Run from anywhere; tests/CMakeLists.txt runs it as a test.
set -euo pipefail
cd "$(dirname "$0")/.."

prover_all="prover prover/algebra prover/hash prover/r1cs prover/gadgets prover/groth16 prover/porep prover/update"
declare -A allowed=(
  [io]=""
  [prover]="prover/algebra"
  [prover/algebra]=""
  [prover/hash]=""
  [prover/r1cs]="prover/algebra"
  [prover/gadgets]="prover/algebra prover/hash prover/r1cs"
  [prover/groth16]="io prover prover/algebra prover/hash prover/r1cs"
  [prover/porep]="io prover prover/algebra prover/hash prover/r1cs prover/gadgets prover/groth16"
  [prover/update]="io prover prover/algebra prover/hash prover/r1cs prover/gadgets prover/groth16 prover/porep"
  [pce]="io $prover_all"
  [gpu]="io $prover_all"
  [job]="io $prover_all pce gpu"
  [cli]="io $prover_all pce gpu job"
)

# The folder a path belongs to: prover/<part>/ for prover's parts, else the top folder.
folder_of() {
  local path=$1 top=${1%%/*}
  if [ "$top" = prover ]; then
    local rest=${path#prover/}
    if [[ "$rest" == */* ]]; then echo "prover/${rest%%/*}"; else echo prover; fi
  else
    echo "$top"
  fi
}

broken=0
checked=0
while IFS= read -r file; do
  from=$(folder_of "$file")
  while IFS= read -r target; do
    [[ "$target" == */* ]] || continue  # a file beside this one or a system header
    to=$(folder_of "$target")
    [ -n "${allowed[$to]+set}" ] || continue  # not a project folder (tests/, generated headers)
    checked=$((checked + 1))
    [ "$to" = "$from" ] && continue
    if [[ " ${allowed[$from]} " != *" $to "* ]]; then
      echo "$file includes $target: $from/ may not include $to/ (docs/architecture.md, \"The include rule\")"
      broken=1
    fi
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$file")
done < <(find io prover pce gpu job cli -type f \( -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' -o -name '*.h' \) | sort)

[ "$checked" -gt 0 ] || { echo "no project include found: is this the source tree?"; exit 1; }
[ "$broken" = 0 ] && echo "include rule: $checked includes checked, none against the data flow"
exit "$broken"
