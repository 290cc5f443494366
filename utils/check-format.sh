#!/bin/sh
# Check that kvalidate's C++ sources are formatted as clang-format 22
# formats them (LLVM style, .clang-format); print each file that is not and
# exit 1. `utils/check-format.sh --fix` formats them in place. The kernels
# under test/Inputs keep the layout their tests refer to by line.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cf=${CLANG_FORMAT:-clang-format-22}
if ! command -v "$cf" >/dev/null 2>&1; then
  echo "check-format: $cf not found (Debian package clang-format-22)" >&2
  exit 2
fi
fix=0
[ "${1:-}" = "--fix" ] && fix=1
cd "$root"
bad=0
for f in $(find dialect equiv passes smt-encode utils test/unit test/lib \
             -type f \( -name '*.cpp' -o -name '*.h' \) | sort); do
  if [ $fix = 1 ]; then
    "$cf" -i "$f"
  elif ! "$cf" --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "check-format: $f is not formatted (utils/check-format.sh --fix)"
    bad=1
  fi
done
exit $bad
