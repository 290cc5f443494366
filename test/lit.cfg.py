# -*- Python -*-
# lit configuration of the kvalidate tests.
#
#   lit build/test        (build/test/lit.site.cfg.py, written by CMake)
#   lit test              (this file directly; tools from ./build or from
#                          $KV_BUILD_DIR)
#   ninja -C build check-kvalidate
#
# Layout: equiv/ (solver-backed verdicts), cli/ (error paths and options),
# dialect/ (kv-opt round trips and verifier), lowering/ (--emit-kv),
# plugin/ (clang -fpass-plugin and opt -load-pass-plugin). Inputs/ holds the
# kernel pairs and is not a test directory. unit/ is a nested suite of its
# own (GoogleTest, unit/lit.cfg.py): lit hands that directory to it, so it
# must not be listed in config.excludes, which would hide it altogether.

import os
import shutil

import lit.formats

config.name = "kvalidate"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test", ".cu", ".mlir", ".ll"]
config.excludes = ["Inputs", "utils", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "lit.site.cfg.py.in"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))

# Two lanes. The quick lane is every test that takes a few seconds (under 3
# minutes in all on 2 cores); the tests that take ten seconds or more (most
# run the solver on several pairs) say `REQUIRES: long`. Both
# run by default (utils/run-tests.sh, .ci/run, check-kvalidate); with
# `--param lane=quick` (KV_LANE=quick utils/run-tests.sh,
# check-kvalidate-quick) the long ones are skipped as unsupported.
if lit_config.params.get("lane", "all") != "quick":
    config.available_features.add("long")

# Without the site configuration (lit run on the source tree), assume the
# build directory is ./build next to test/, or $KV_BUILD_DIR.
if not hasattr(config, "kv_obj_root"):
    config.kv_src_root = os.path.dirname(config.test_source_root)
    config.kv_obj_root = os.path.abspath(os.environ.get(
        "KV_BUILD_DIR", os.path.join(config.kv_src_root, "build")))
    config.kv_tools_dir = os.path.join(config.kv_obj_root, "bin")
    config.kv_plugin = os.path.join(config.kv_obj_root, "lib",
                                    "libkvalidate.so")
    config.llvm_tools_dir = "/usr/lib/llvm-22/bin"
    config.kv_clang = os.path.join(config.llvm_tools_dir, "clang++")
    if not os.path.isdir(config.kv_tools_dir):
        lit_config.fatal("no kvalidate build at %s: build it first "
                         "(cmake -S . -B build -G Ninja && ninja -C build) or "
                         "set KV_BUILD_DIR" % config.kv_obj_root)

# Test outputs (%t) go to the build tree, never next to the sources.
config.test_exec_root = os.path.join(config.kv_obj_root, "test")
# kvalidate's cache (the CUDA SDK's precompiled headers, --cache-dir) as well:
# one per build tree, shared by the tests, not the user's.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root,
                                                    "cache")
# Every kvalidate run a test expects to be not-equivalent (%expect-exit 1)
# also replays its saved counterexample (test/utils/expect-exit).
config.environment["KV_REPLAY_CHECK"] = "1"

for tool in ("kvalidate", "kv-opt"):
    if not os.path.exists(os.path.join(config.kv_tools_dir, tool)):
        lit_config.warning("%s not found in %s" % (tool, config.kv_tools_dir))
if not os.path.exists(config.kv_plugin):
    lit_config.warning("pass plugin not found: %s" % config.kv_plugin)

# Our tools first, then LLVM 22's FileCheck/not/count (the unversioned ones
# on these machines are LLVM 14), then the test helpers.
utils_dir = os.path.join(config.test_source_root, "utils")
config.environment["PATH"] = os.pathsep.join(
    [config.kv_tools_dir, config.llvm_tools_dir, utils_dir,
     config.environment.get("PATH", "")])
inputs = os.path.join(config.test_source_root, "Inputs")
kv_cuda_h = os.path.join(config.kv_src_root, "utils", "kv_cuda.h")
clang = config.kv_clang
if not os.path.exists(clang):
    clang = shutil.which("clang++-22") or clang

# Order matters only for prefixes: lit applies these before its own %s/%p/%t.
config.substitutions.append(("%kvalidate",
                             os.path.join(config.kv_tools_dir, "kvalidate")))
config.substitutions.append(("%kv-opt",
                             os.path.join(config.kv_tools_dir, "kv-opt")))
# The deliberately wrong pass of the per-pass tests (test/lib) first: the
# plugin's substitution is a prefix of it.
config.substitutions.append((
    "%test-break-plugin",
    os.path.join(os.path.dirname(config.kv_plugin),
                 "libkvalidate-test-break.so")))
# The mlir-opt plugin and its wrong pass, before %plugin for the same
# reason.
config.substitutions.append((
    "%mlir-test-break-plugin",
    os.path.join(os.path.dirname(config.kv_plugin),
                 "libkvalidate-test-break-mlir.so")))
# The Z3 lifetime check (test/lib/Z3LifetimeCheck.cpp), for LD_PRELOAD.
z3_lifetime_check = os.path.join(os.path.dirname(config.kv_plugin),
                                 "libkvalidate-z3-lifetime-check.so")
config.substitutions.append(("%z3-lifetime-check", z3_lifetime_check))
# KV_Z3_LIFETIME_CHECK=1 runs every test under it, with each Z3 context
# deleted when its lease ends (no context factory), so that a Z3 object
# used after its context is gone aborts at the use.
if os.environ.get("KV_Z3_LIFETIME_CHECK", "0") not in ("", "0"):
    config.environment["LD_PRELOAD"] = z3_lifetime_check
    config.environment["KV_NO_CONTEXT_FACTORY"] = "1"
# $KV_DEBUG (smt-encode/Debug.h) reaches the tools the tests run: for
# example KV_DEBUG=strategies with lit -a, for utils/solver-configs.py.
if os.environ.get("KV_DEBUG"):
    config.environment["KV_DEBUG"] = os.environ["KV_DEBUG"]
config.substitutions.append((
    "%mlir-plugin",
    os.path.join(os.path.dirname(config.kv_plugin), "libkvalidate-mlir.so")))
config.substitutions.append((
    "%mlir-opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%plugin", config.kv_plugin))
config.substitutions.append((
    "%clang-cuda",
    " ".join([clang, "-x cuda --cuda-device-only --cuda-gpu-arch=sm_80",
              "--cuda-path=/nonexistent -nocudainc -nocudalib",
              "--cuda-feature=+ptx80 -Wno-unknown-cuda-version",
              "-include", kv_cuda_h])))
config.substitutions.append(("%opt",
                             os.path.join(config.llvm_tools_dir, "opt")))
config.substitutions.append(("%inputs", inputs))
# The build tree (cmake --install) and clang itself.
config.substitutions.append(("%kv-build", config.kv_obj_root))
config.substitutions.append(("%kv-cuda-h", kv_cuda_h))
config.substitutions.append(("%clang-path", clang))
# The installed header's source (KV_EQUIVALENT_TO).
config.substitutions.append(("%kv-include",
                             os.path.join(config.kv_src_root, "passes",
                                          "include")))
config.substitutions.append(("%expect-exit",
                             os.path.join(utils_dir, "expect-exit")))

# The shorthands of Inputs/EXPECTED.md.
config.substitutions.append((
    "%{W64}", "blockDim.x == 64 && blockDim.y == 1 && blockDim.z == 1"))
config.substitutions.append((
    "%{W32}", "blockDim.x == 32 && blockDim.y == 1 && blockDim.z == 1"))
config.substitutions.append((
    "%{SQ16}", "blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1"
    " && gridDim.z == 1"))
# Matrix sizes that keep row * width + column within int: proofs of the
# naive (global index products) against the tiled kernels need them to finish
# in seconds rather than minutes.
config.substitutions.append((
    "%{DIMS}", "width > 0 && height > 0 && width <= 32768 && height <= 32768"))
config.substitutions.append((
    "%{B256}", "blockDim.x <= 256 && blockDim.y == 1 && blockDim.z == 1"
    " && gridDim.y == 1 && gridDim.z == 1"))
# One-dimensional launches: kernels indexed by x alone race across y/z.
config.substitutions.append((
    "%{1D}", "blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1"))
# Power-of-two block sizes (1, 2, 4, ..., 1024 within CUDA's limit).
config.substitutions.append((
    "%{POW2}", "(blockDim.x & (blockDim.x - 1)) == 0"))

# The Redis verdict cache's test needs a server to start.
if shutil.which("redis-server"):
    config.available_features.add("redis")

if os.path.exists("/usr/local/cuda/include/cuda_runtime.h"):
    config.available_features.add("cuda-sdk")

# The formatting check (test/style) needs the formatter of LLVM 22.
if shutil.which("clang-format-22"):
    config.available_features.add("clang-format")
config.substitutions.append(("%kv-src", config.kv_src_root))
