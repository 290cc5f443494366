#!/bin/sh
# Configure (once) and build kvalidate in ./build with Ninja. KV_JOBS sets
# the parallelism (default 2). When flock(1) exists the build holds
# /tmp/kv-build.lock, so that builds sharing a machine do not overlap.
set -eu
cd "$(dirname "$0")/.."
JOBS=${KV_JOBS:-2}
BUILD_DIR=${KV_BUILD_DIR:-build}

run() {
  if command -v flock >/dev/null 2>&1; then
    flock /tmp/kv-build.lock "$@"
  else
    "$@"
  fi
}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  run cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
run cmake --build "$BUILD_DIR" -j "$JOBS"
