#!/bin/sh
# Install the Debian 12 packages kvalidate needs, but only those that are
# missing: when everything is there, apt-get is not run at all. Uses sudo
# only when not root. Used by utils/demo.sh and utils/run-tests.sh.
set -eu

# LLVM/Clang/MLIR 22 (bookworm-security), Z3, the build tools, python3 for
# lit and python3-psutil for its per-test time limit, clang-format-22 for
# the formatting check (test/style), lld-22 (CMake
# links with /usr/lib/llvm-22/bin/ld.lld when present;
# bfd is about 5x slower), GoogleTest for the unit tests (test/unit), and
# hiredis with redis-server for the verdict cache in Redis
# (-kvalidate-cache=redis://HOST:PORT) and its test.
PACKAGES="llvm-22-dev clang-22 clang-format-22 llvm-22-tools libmlir-22-dev mlir-22-tools
libz3-dev z3 cmake ninja-build pkg-config g++ python3 python3-psutil lld-22
libgtest-dev libhiredis-dev redis-server"

missing=""
for p in $PACKAGES; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  case "$status" in
    *" installed") ;;
    *) missing="$missing $p" ;;
  esac
done

if [ -z "$missing" ]; then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing:$missing"
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "install-deps: not root and no sudo; install these as root:$missing" >&2
  exit 1
fi
$SUDO apt-get update
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
