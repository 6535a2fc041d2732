# Sourced by the script tests that prove 2KiB sectors (PoRep and update). The 2KiB test parameters in $1 are
# shared by every such test of a build tree (and by `make demo`) and made once. ctest runs tests in parallel, so the check and the
# setup hold a lock: two tests must never both make them, because the second set (new random toxic waste)
# replaces the first, and a proof made with one set does not verify against the other.
#   shared_test_params DIR      (CUZK_BIN set; returns non-zero when the setup fails)
shared_test_params() {
  local dir="$1" vk_name
  mkdir -p "$dir"
  vk_name="$("$CUZK_BIN" params names --sector-size 2KiB | awk '/\.vk$/ {print $2}')"
  (
    flock 9
    if ! "$CUZK_BIN" params info "$dir/$vk_name" >/dev/null 2>&1; then
      "$CUZK_BIN" params setup --sector-size 2KiB --params-dir "$dir" --force
    fi
  ) 9>"$dir/.setup.lock"
}

# The 2KiB update (SnapDeals) test parameters, in the same folder and under the same lock as the PoRep ones
# (one --params-dir then serves a run that proves both kinds), made once per build tree.
#   shared_update_params DIR    (CUZK_BIN set; returns non-zero when the setup fails)
shared_update_params() {
  local dir="$1" vk_name
  mkdir -p "$dir"
  vk_name="$("$CUZK_BIN" params names --circuit update --sector-size 2KiB | awk '/\.vk$/ {print $2}')"
  (
    flock 9
    if ! "$CUZK_BIN" params info "$dir/$vk_name" >/dev/null 2>&1; then
      "$CUZK_BIN" params setup --circuit update --sector-size 2KiB --params-dir "$dir" --force
    fi
  ) 9>"$dir/.setup.lock"
}
