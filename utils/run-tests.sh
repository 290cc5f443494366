#!/bin/sh
# Install what is missing, build, run the lit suite (test/) and print a last
# line "N passed, N failed". Exits nonzero when a test failed or lit could not
# run. Passed counts PASS and XFAIL; failed counts FAIL, XPASS, UNRESOLVED and
# TIMEOUT. Extra arguments go to lit (for example a test path or -j1).
#
# KV_SKIP_BUILD=1 skips the install and build steps (an existing build).
# KV_LANE=quick runs the quick lane only (the tests not marked
# `REQUIRES: long`, under 3 minutes on 2 cores); KV_LANE=long the long lane
# only; unset or "all", both.
# KV_TEST_TIMEOUT sets lit's per-test limit in seconds (default 600); lit
# needs psutil for it, in the Python that runs lit (python3-psutil for
# Debian's /usr/bin/python3), which utils/install-deps.sh installs.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${KV_BUILD_DIR:-build}

if [ "${KV_SKIP_BUILD:-0}" != 1 ]; then
  utils/install-deps.sh
  utils/build.sh
fi

LIT=/usr/lib/llvm-22/bin/lit
[ -x "$LIT" ] || LIT=$(command -v lit-22 || command -v lit)
RESULTS="$ROOT/$BUILD_DIR/test/lit-results.json"
rm -f "$RESULTS"
# lit starts the slowest tests first when it knows their times (it keeps
# .lit_test_times.txt up to date): a fresh build starts from the committed
# times, so that no long test is left to run alone at the end.
TIMES="$BUILD_DIR/test/.lit_test_times.txt"
if [ ! -f "$TIMES" ] && [ -f test/lit-test-times.txt ] && [ -d "$BUILD_DIR/test" ]; then
  cp test/lit-test-times.txt "$TIMES"
fi

# Test paths among the arguments? (Paths under build/test need not exist:
# lit maps them to the sources.) Otherwise run the whole suite.
have_path=no
for a in "$@"; do
  case "$a" in
    -*) ;;
    *test*|*.cu|*.mlir|*.ll) have_path=yes ;;
    *) if [ -e "$a" ]; then have_path=yes; fi ;;
  esac
done
case "${KV_LANE:-all}" in
  all) ;;
  quick) set -- --param lane=quick "$@" ;;
  long)
    # The long lane: the test files that require it.
    if [ "$have_path" = no ]; then
      for f in $(grep -rl --include='*.test' --include='*.cu' \
                   --include='*.ll' --include='*.mlir' \
                   -e '^\(// \|# \|; \)\?REQUIRES: long' test \
                 | grep -v '^test/Inputs/' | sort); do
        set -- "$@" "$BUILD_DIR/$f"
      done
      have_path=yes
    fi ;;
  *) echo "run-tests: KV_LANE must be quick, long or all" >&2; exit 2 ;;
esac
[ "$have_path" = yes ] || set -- "$@" "$BUILD_DIR/test"

set -- -sv -o "$RESULTS" "$@"
# The interpreter that runs lit (its #! line), not whichever python3 is
# first on PATH (pyenv on these machines): psutil must be importable there.
LIT_PY=$(sed -n '1s/^#! *//p' "$LIT" | awk '{print $1}')
case "$LIT_PY" in
  */env) LIT_PY=python3 ;;
  "") LIT_PY=python3 ;;
esac
if "$LIT_PY" -c 'import psutil' >/dev/null 2>&1; then
  set -- --timeout "${KV_TEST_TIMEOUT:-600}" "$@"
else
  echo "run-tests: psutil missing for $LIT_PY: no per-test time limit" >&2
fi

set +e
"$LIT" "$@"
lit_rc=$?
set -e

python3 - "$RESULTS" "$lit_rc" <<'PY'
import json, sys
path, lit_rc = sys.argv[1], int(sys.argv[2])
try:
    with open(path) as f:
        tests = json.load(f).get("tests", [])
except (OSError, ValueError):
    tests = []
passed = sum(t["code"] in ("PASS", "XFAIL") for t in tests)
failed = sum(t["code"] in ("FAIL", "XPASS", "UNRESOLVED", "TIMEOUT")
             for t in tests)
if not tests and lit_rc != 0:
    failed = max(failed, 1)   # lit did not get as far as running tests
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or (lit_rc != 0 and not tests) else 0)
PY
