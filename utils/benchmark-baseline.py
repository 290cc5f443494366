#!/usr/bin/env python3
"""Parameterized proof against the non-parameterized baseline, as in the
PUG_para paper's Tables II and III.

Usage: utils/benchmark-baseline.py [--kvalidate build/bin/kvalidate]
           [--timeout SECS] [--threads 4,8,...,1024] [--bits 8,16,32]
           [--fixed 1048576] [--target-n 256]

For each pair (transpose and reduction, correct and buggy), each word width
and each N, the table gives the verdict and time of the parameterized check
(for every launch the assumptions allow, with the block fixed to N threads
where the kernel needs it) and of the baseline (--block/--grid: one launch of
N threads, every thread modelled), and the speed-up; then the
parameterized check alone with a launch of --fixed threads (2^20) fixed by
assumptions, and whether it is 10x faster than the baseline at N =
--target-n (issue 19's target). Timeouts print as ">T". The machines are
noisy: compare the rows of one run.

The report (the table headed by date, machine and commit) goes to
docs/benchmarks/benchmark-baseline-DATE.md (--report FILE elsewhere, --no-report not
at all).
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import benchreport  # noqa: E402
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


def square_side(n):
    # The largest square block of at most N threads and side 16 (the
    # kernels' tile): 4 = 2x2, 8 = 2x2 on 2 blocks, 64 = 8x8, 256 = 16x16,
    # 1024 = 16x16 on 4 blocks.
    side = 1
    while side < 16 and (2 * side) * (2 * side) <= n:
        side *= 2
    return side


def transpose_launch(n):
    side = square_side(n)
    grid = max(1, n // (side * side))
    return ["--block=%d,%d" % (side, side), "--grid=%d" % grid]


def transpose_fixed(n):
    # The parameterized check with the launch of N threads fixed by
    # assumptions (for N beyond what the baseline can take: 2^20 threads
    # as 64 x 64 blocks of 16 x 16).
    side = square_side(n)
    blocks = max(1, n // (side * side))
    gx = 1
    while gx * gx < blocks:
        gx *= 2
    gy = max(1, blocks // gx)
    return ["blockDim.x == %d && blockDim.y == %d && blockDim.z == 1 && "
            "gridDim.x == %d && gridDim.y == %d && gridDim.z == 1"
            % (side, side, gx, gy)]


def reduce_fixed(n):
    # One block of min(N, 1024) threads, the rest as more blocks.
    b = min(n, 1024)
    return ["blockDim.x == %d && blockDim.y == 1 && blockDim.z == 1 && "
            "gridDim.x == %d && gridDim.y == 1 && gridDim.z == 1"
            % (b, max(1, n // b))]


def reduce_launch(n):
    return ["--block=%d" % n, "--grid=1"]


def reduce_any_grid(n):
    return ["blockDim.x == %d && blockDim.y == 1 && blockDim.z == 1 && "
            "gridDim.y == 1 && gridDim.z == 1" % min(n, 1024)]


def reduce_flags(n):
    return ["-DBLOCK=%d" % min(n, 1024)]


# (name, before, after, parameterized assumptions (fn of N), assumptions on
#  scalars for both checks (fn of bits), baseline launch (fn of N), extra
#  compile flags (fn of N), the launch of N threads as assumptions (fn of N))
PAIRS = [
    ("transpose naive/tiled", "transpose.cu:transpose_naive",
     "transpose.cu:transpose_tiled", lambda n: [SQUARE], dims,
     transpose_launch, lambda n: [], transpose_fixed),
    ("transpose wrong index", "wrong.cu:transpose_naive",
     "wrong.cu:transpose_tiled_wrong_index", lambda n: [SQUARE],
     lambda bits: [], transpose_launch, lambda n: [], transpose_fixed),
    ("reduce interleaved/strided", "reduce.cu:reduce_interleaved",
     "reduce.cu:reduce_strided", reduce_any_grid, lambda bits: [],
     reduce_launch, reduce_flags, reduce_fixed),
    ("reduce strided/short (bug)", "reduce.cu:reduce_strided",
     "reduce.cu:reduce_short", reduce_any_grid, lambda bits: [],
     reduce_launch, reduce_flags, reduce_fixed),
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
    ap.add_argument("--threads", default="4,8,16,32,64,128,256,512,1024")
    ap.add_argument("--bits", default="8,16,32")
    ap.add_argument("--fixed", default=str(1 << 20),
                    help="thread counts (comma-separated) checked by the "
                    "parameterized side alone, the launch fixed by "
                    "assumptions ('' for none)")
    ap.add_argument("--target-n", type=int, default=256,
                    help="the N at which the parameterized check should be "
                    "10x faster than the baseline (issue 19)")
    benchreport.add_args(ap, "benchmark-baseline")
    args = ap.parse_args()
    return benchreport.printed(
        args, "the parameterized check against the thread-by-thread "
        "baseline", table)


def table(args):
    ns = [int(x) for x in args.threads.split(",")]
    widths = [int(x) for x in args.bits.split(",")]
    fixed = [int(x) for x in args.fixed.split(",") if x]

    def show(verdict, secs):
        return (">%d" % args.timeout) if verdict in ("timeout", "unknown") \
            and secs >= args.timeout else "%.1f" % secs

    print("%-28s %4s %7s  %-22s %8s  %-22s %8s %8s" %
          ("pair", "bits", "N", "parameterized", "time(s)", "baseline",
           "time(s)", "speed-up"))
    at_target = []
    for name, before, after, assume, scalars, launch, flags, pin in PAIRS:
        for bits in widths:
            for n in ns:
                common = ["--bits=%d" % bits] + flags(n) + \
                    ["--assume=" + a for a in scalars(bits)]
                pv, pt = run(args.kvalidate, before, after,
                             common + ["--assume=" + a for a in assume(n)],
                             args.timeout)
                bv, bt = run(args.kvalidate, before, after,
                             common + launch(n), args.timeout)
                speedup = bt / pt if pt > 0 else 0
                print("%-28s %4d %7d  %-22s %8s  %-22s %8s %8s" %
                      (name, bits, n, pv, show(pv, pt), bv, show(bv, bt),
                       "%.1fx" % speedup), flush=True)
                if n == args.target_n:
                    at_target.append((name, bits, speedup, bt, bv))
            # The parameterized check at launches no baseline can model
            # thread by thread: the launch fixed by assumptions.
            for n in fixed:
                common = ["--bits=%d" % bits] + flags(n) + \
                    ["--assume=" + a for a in scalars(bits) + pin(n)]
                pv, pt = run(args.kvalidate, before, after, common,
                             args.timeout)
                print("%-28s %4d %7d  %-22s %8s  %-22s %8s %8s" %
                      (name, bits, n, pv, show(pv, pt), "(not run)", "-",
                       "-"), flush=True)
    for name, bits, speedup, bt, bv in at_target:
        # A baseline that ran out of time is a lower bound on the speed-up.
        bound = ">=" if bv in ("timeout", "unknown") and \
            bt >= args.timeout else ""
        print("target: %s, %d bits, N = %d: parameterized %s%.1fx faster "
              "than the baseline (target 10x): %s" %
              (name, bits, args.target_n, bound, speedup,
               "met" if speedup >= 10 else "not met"))


if __name__ == "__main__":
    main()
