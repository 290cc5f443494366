#!/usr/bin/env python3
"""Parameterized proof against the non-parameterized baseline, as in the
PUG_para paper's Tables II and III.

Usage: utils/benchmark-baseline.py [--kvalidate build/bin/kvalidate]
           [--timeout SECS] [--threads 4,8,16,32] [--bits 8,16,32]

For each pair (transpose and reduction, correct and buggy), each word width
and each N, the table gives the verdict and time of the parameterized check
(for every launch the assumptions allow, with the block fixed to N threads
where the kernel needs it) and of the baseline (--block/--grid: one launch of
N threads, every thread modelled), and the speed-up. Timeouts print as
">T". The machines are noisy: compare the rows of one run.
"""
import argparse
import json
import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INPUTS = os.path.join(ROOT, "test", "Inputs")

SQUARE = ("blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1 "
          "&& gridDim.z == 1")


def dims(bits):
    # Matrix sides and grids whose indices fit the word: 2^(bits/2 - 1)
    # (32768 at 32 bits); narrower words would otherwise wrap indices and
    # make two threads write one cell (a real race at that width). Both
    # checks get them, so they answer the same question.
    m = 1 << (bits // 2 - 1)
    b = min(16, m // 2)
    return ["width > 0 && height > 0 && width <= %d && height <= %d" % (m, m),
            "blockDim.x <= %d && gridDim.x <= %d && gridDim.y <= %d"
            % (b, m // b, m // b)]


def transpose_launch(n):
    # N threads as square blocks: 4 = 2x2, 8 = 2x2 on 2 blocks, 16 = 4x4,
    # 32 = 4x4 on 2 blocks.
    side = {4: 2, 8: 2, 16: 4, 32: 4}.get(n, 2)
    grid = max(1, n // (side * side))
    return ["--block=%d,%d" % (side, side), "--grid=%d" % grid]


def reduce_launch(n):
    return ["--block=%d" % n, "--grid=1"]


# (name, before, after, parameterized assumptions (fn of N and bits),
#  assumptions on scalars for both checks (fn of bits), baseline launch (fn of
#  N), extra compile flags (fn of N))
PAIRS = [
    ("transpose naive/tiled", "transpose.cu:transpose_naive",
     "transpose.cu:transpose_tiled", lambda n: [SQUARE], dims,
     transpose_launch, lambda n: []),
    ("transpose wrong index", "wrong.cu:transpose_naive",
     "wrong.cu:transpose_tiled_wrong_index", lambda n: [SQUARE],
     lambda bits: [], transpose_launch, lambda n: []),
    ("reduce interleaved/strided", "reduce.cu:reduce_interleaved",
     "reduce.cu:reduce_strided",
     lambda n: ["blockDim.x == %d && blockDim.y == 1 && blockDim.z == 1 && "
                "gridDim.y == 1 && gridDim.z == 1" % n],
     lambda bits: [], reduce_launch, lambda n: ["-DBLOCK=%d" % n]),
    ("reduce strided/short (bug)", "reduce.cu:reduce_strided",
     "reduce.cu:reduce_short",
     lambda n: ["blockDim.x == %d && blockDim.y == 1 && blockDim.z == 1 && "
                "gridDim.y == 1 && gridDim.z == 1" % n],
     lambda bits: [], reduce_launch, lambda n: ["-DBLOCK=%d" % n]),
]


def run(kvalidate, before, after, extra, timeout):
    cmd = [kvalidate, "--json", "--timeout=%d" % timeout,
           os.path.join(INPUTS, before), os.path.join(INPUTS, after)] + extra
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=timeout + 30)
        verdict = json.loads(p.stdout).get("verdict", "error")
    except subprocess.TimeoutExpired:
        verdict = "timeout"
    except (json.JSONDecodeError, ValueError):
        verdict = "bad-json"
    return verdict, time.monotonic() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kvalidate",
                    default=os.path.join(ROOT, "build", "bin", "kvalidate"))
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--threads", default="4,8,16,32")
    ap.add_argument("--bits", default="8,16,32")
    args = ap.parse_args()
    ns = [int(x) for x in args.threads.split(",")]
    widths = [int(x) for x in args.bits.split(",")]

    def show(verdict, secs):
        return (">%d" % args.timeout) if verdict in ("timeout", "unknown") \
            and secs >= args.timeout else "%.1f" % secs

    print("%-28s %4s %4s  %-22s %8s  %-22s %8s %8s" %
          ("pair", "bits", "N", "parameterized", "time(s)", "baseline",
           "time(s)", "speed-up"))
    for name, before, after, assume, scalars, launch, flags in PAIRS:
        for bits in widths:
            for n in ns:
                common = ["--bits=%d" % bits] + flags(n) + \
                    ["--assume=" + a for a in scalars(bits)]
                pv, pt = run(args.kvalidate, before, after,
                             common + ["--assume=" + a for a in assume(n)],
                             args.timeout)
                bv, bt = run(args.kvalidate, before, after,
                             common + launch(n), args.timeout)
                print("%-28s %4d %4d  %-22s %8s  %-22s %8s %8s" %
                      (name, bits, n, pv, show(pv, pt), bv, show(bv, bt),
                       "%.1fx" % (bt / pt) if pt > 0 else "-"),
                      flush=True)


if __name__ == "__main__":
    main()
