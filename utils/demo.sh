#!/bin/sh
# kvalidate demo on a fresh Debian 12 machine: install what is missing, build,
# and check the bundled transpose pair (test/Inputs/transpose.cu):
#   1. naive vs shared-memory tiled transpose, square blocks of side <= 16:
#      equivalent (exit 0);
#   2. a 2x1 block: not-equivalent, with a replayed counterexample (exit 1);
#   3. no assumptions: out-of-bounds, blocks wider than the tile overrun it
#      (exit 4).
set -eu
cd "$(dirname "$0")/.."

utils/install-deps.sh
utils/build.sh

KV=build/bin/kvalidate
BEFORE=test/Inputs/transpose.cu:transpose_naive
AFTER=test/Inputs/transpose.cu:transpose_tiled
SQ16='blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1 && gridDim.z == 1'
DIMS='width > 0 && height > 0 && width <= 32768 && height <= 32768'
NONSQUARE='blockDim.x == 2 && blockDim.y == 1 && blockDim.z == 1 && gridDim.z == 1'

set +e
# Square blocks that fit the 16x16 tile: equivalent (exit 0).
echo
echo "\$ $KV --assume='$SQ16' --assume='$DIMS' \\"
echo "    $BEFORE $AFTER"
"$KV" --assume="$SQ16" --assume="$DIMS" "$BEFORE" "$AFTER"
rc1=$?
echo "(exit status $rc1)"

# A non-square block within the tile: a replayed counterexample (exit 1).
echo
echo "\$ $KV --assume='$NONSQUARE' \\"
echo "    $BEFORE $AFTER"
"$KV" --assume="$NONSQUARE" "$BEFORE" "$AFTER"
rc2=$?
echo "(exit status $rc2)"

# No assumption at all: blocks wider than the tile overrun it, a defect of
# the tiled kernel (exit 4).
echo
echo "\$ $KV $BEFORE $AFTER"
"$KV" "$BEFORE" "$AFTER"
rc3=$?
echo "(exit status $rc3)"
set -e

echo
if [ "$rc1" -eq 0 ] && [ "$rc2" -eq 1 ] && [ "$rc3" -eq 4 ]; then
  echo "demo: as expected: equivalent for square blocks within the tile," \
       "not-equivalent for a non-square block, out-of-bounds without assumptions"
  exit 0
fi
echo "demo: unexpected exit statuses $rc1, $rc2, $rc3 (expected 0, 1, 4)" >&2
exit 1
