#!/bin/sh
# kvalidate demo on a fresh Debian 12 machine: install what is missing, build,
# and check the bundled transpose pair (test/Inputs/transpose.cu):
#   1. naive vs shared-memory tiled transpose, square blocks of side <= 16:
#      equivalent (exit 0);
#   2. the same pair with no assumptions: not-equivalent, with a replayed
#      counterexample (a non-square block) (exit 1).
set -eu
cd "$(dirname "$0")/.."

utils/install-deps.sh
utils/build.sh

KV=build/bin/kvalidate
BEFORE=test/Inputs/transpose.cu:transpose_naive
AFTER=test/Inputs/transpose.cu:transpose_tiled
SQ16='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1'
DIMS='width > 0 && height > 0 && width <= 32768 && height <= 32768'

echo
echo "\$ $KV --assume='$SQ16' --assume='$DIMS' \\"
echo "    $BEFORE $AFTER"
set +e
"$KV" --assume="$SQ16" --assume="$DIMS" "$BEFORE" "$AFTER"
rc1=$?
echo "(exit status $rc1)"

echo
echo "\$ $KV $BEFORE $AFTER"
"$KV" "$BEFORE" "$AFTER"
rc2=$?
echo "(exit status $rc2)"
set -e

echo
if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 1 ]; then
  echo "demo: as expected: equivalent for square blocks, not-equivalent otherwise"
  exit 0
fi
echo "demo: unexpected exit statuses $rc1 and $rc2 (expected 0 and 1)" >&2
exit 1
