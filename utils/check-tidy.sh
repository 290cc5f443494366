#!/bin/sh
# Run clang-tidy 22 with the project's checks (.clang-tidy: bugprone-* and
# performance-*, less those that report style or cannot see the code's
# invariants) on kvalidate's C++ sources; print each warning and exit 1 if
# there is one. Needs a configured build (its compile_commands.json; set
# KV_BUILD_DIR for another than build/) and the Debian package
# clang-tidy-22. About 10 s per file: the whole tree takes minutes, so it
# is not part of the test lanes. Arguments limit it to those files.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${KV_BUILD_DIR:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
tidy=${CLANG_TIDY:-/usr/lib/llvm-22/bin/clang-tidy}
run=${RUN_CLANG_TIDY:-/usr/lib/llvm-22/bin/run-clang-tidy}
if [ ! -x "$tidy" ] || [ ! -x "$run" ]; then
  echo "check-tidy: $tidy not found (Debian package clang-tidy-22)" >&2
  exit 2
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "check-tidy: no $build/compile_commands.json (configure the build" \
       "first: utils/build.sh)" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=""
  for f in "$@"; do
    files="$files $(cd "$(dirname "$f")" && pwd)/$(basename "$f")"
  done
  set -- $files
else
  set -- "$root/(dialect|equiv|passes|smt-encode|utils|test)/"
fi
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$run" -p "$build" -clang-tidy-binary "$tidy" -quiet \
  -j "$(nproc 2>/dev/null || echo 2)" "$@" >"$out" 2>&1 || true
if grep -q 'warning:\|error:' "$out"; then
  grep -A3 'warning:\|error:' "$out"
  echo "check-tidy: $(grep -c 'warning:\|error:' "$out") findings"
  exit 1
fi
echo "check-tidy: clean"
