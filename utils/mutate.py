#!/usr/bin/env python3
"""Differential self-check: mutate kernels, compare kvalidate's verdict with
concrete runs.

Usage: utils/mutate.py [--kvalidate build/bin/kvalidate] [--max N]
                       [--runs R] [--timeout SECS] [--seed S] [--keep DIR]

Each base pair (a kernel and the kernel it is compared with, under
assumptions) is mutated one edit at a time: an index or guard operator, a
constant, a thread-id axis, a dropped barrier, swapped operands. For every
mutant, kvalidate compares the base kernel with the mutant, and `kvalidate
replay` runs both on R random launches and inputs that satisfy the
assumptions. A mutant that a run shows different but kvalidate calls
`equivalent` is an unsound verdict; the summary line counts them (it must be
zero) and lists them.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INPUTS = os.path.join(ROOT, "test", "Inputs")

SQUARE = ("blockDim.x == blockDim.y && blockDim.x <= 16 && blockDim.z == 1 "
          "&& gridDim.z == 1")
LINE = ("blockDim.x <= 256 && blockDim.y == 1 && blockDim.z == 1 && "
        "gridDim.y == 1 && gridDim.z == 1 && n >= 0")


def square_launch(rng):
    b = rng.choice([1, 2, 3, 4, 8])
    return ([rng.randint(1, 3), rng.randint(1, 3), 1], [b, b, 1],
            {"width": rng.randint(1, 20), "height": rng.randint(1, 20)})


def line_launch(rng):
    return ([rng.randint(1, 4), 1, 1], [rng.randint(1, 40), 1, 1],
            {"n": rng.randint(0, 100), "k": rng.randint(-5, 5)})


def pow2_launch(rng):
    return ([rng.randint(1, 3), 1, 1],
            [rng.choice([1, 2, 4, 8, 16, 32, 64]), 1, 1], {})


def stride_launch(rng):
    return ([rng.randint(1, 3), 1, 1], [rng.randint(1, 8), 1, 1],
            {"n": rng.randint(0, 60), "a": rng.randint(-5, 5)})


def block8_launch(rng):
    return ([rng.randint(1, 3), 1, 1], [8, 1, 1], {})


ONE_D = "blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && gridDim.z == 1"

# (file, base kernel, kernel to mutate, assumptions, launch sampler)
BASES = [
    ("transpose_padded.cu", "transpose_tiled", "transpose_padded", [SQUARE],
     square_launch),
    ("transpose_swizzled.cu", "transpose_tiled", "transpose_swizzled",
     [SQUARE], square_launch),
    ("stencil.cu", "stencil_naive", "stencil_shared", [LINE], line_launch),
    ("misc.cu", "copy", "copy2", [LINE], line_launch),
    ("misc.cu", "scale", "scale_skip_zero", [LINE], line_launch),
    ("float_copy.cu", "float_copy_direct", "float_copy_shared_mirror", [LINE],
     line_launch),
    ("block_reduce.cu", "sum_interleaved", "sum_strided",
     ["(blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x <= 64 && " + ONE_D],
     pow2_launch),
    ("block_scan.cu", "scan_steps", "scan_tree",
     ["blockDim.x == 8 && " + ONE_D], block8_launch),
    ("grid_stride.cu", "axpy_grid_stride", "axpy_block_steps",
     ["gridDim.x <= 65535 && n <= 1000000 && " + ONE_D], stride_launch),
    # The same pairs with the other kernel mutated, and more pairs.
    ("transpose.cu", "transpose_naive", "transpose_tiled", [SQUARE],
     square_launch),
    ("transpose_padded.cu", "transpose_padded", "transpose_naive", [SQUARE],
     square_launch),
    ("stencil.cu", "stencil_shared", "stencil_naive", [LINE], line_launch),
    ("misc.cu", "copy2", "copy_ptr", [LINE], line_launch),
    ("block_reduce.cu", "sum_strided", "sum_interleaved",
     ["(blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x <= 64 && " + ONE_D],
     pow2_launch),
    ("block_reduce.cu", "sum_strided", "sum_halving",
     ["(blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x <= 64 && " + ONE_D],
     pow2_launch),
    ("block_scan.cu", "scan_tree", "scan_steps",
     ["blockDim.x == 8 && " + ONE_D], block8_launch),
    ("grid_stride.cu", "axpy_grid_stride", "axpy_each",
     ["gridDim.x <= 65535 && n <= 1000000 && " + ONE_D +
      " && gridDim.x * blockDim.x >= n"], stride_launch),
]

# (description, pattern, replacement); each match is one mutant.
OPERATORS = [
    ("< to <=", r"(?<![<=])<(?![<=])", "<="),
    ("<= to <", r"<=", "<"),
    ("> to >=", r"(?<![>=-])>(?![>=])", ">="),
    ("+ 1 to + 2", r"\+ 1\b", "+ 2"),
    ("- 1 to - 2", r"- 1\b", "- 2"),
    ("+ to -", r"(?<=\w|\)|\]) \+ (?=\w|\()", " - "),
    ("threadIdx.x to .y", r"threadIdx\.x", "threadIdx.y"),
    ("threadIdx.y to .x", r"threadIdx\.y", "threadIdx.x"),
    ("blockIdx.x to .y", r"blockIdx\.x", "blockIdx.y"),
    ("drop barrier", r"__syncthreads\(\);", ";"),
    ("swap [a][b]", r"\[(\w+)\]\[(\w+)\]", r"[\2][\1]"),
    ("* to +", r"(?<=\w|\)|\]) \* (?=\w|\()", " + "),
    ("- to +", r"(?<=\w|\)|\]) - (?=\w|\()", " + "),
    ("== to !=", r"==", "!="),
    ("&& to ||", r"&&", "||"),
    ("constant + 1", r"(?<![\w.])(1[0-9]|[2-9])(?![\w.])",
     lambda m: str(int(m.group(0)) + 1)),
]


def kernel_span(src, name):
    """Start and end offsets of __global__ ... name(...) { ... }."""
    m = re.search(r"__global__\s+void\s+" + re.escape(name) + r"\s*\(", src)
    if not m:
        return None
    i = src.index("{", m.end())
    depth = 0
    for j in range(i, len(src)):
        if src[j] == "{":
            depth += 1
        elif src[j] == "}":
            depth -= 1
            if depth == 0:
                return i, j + 1
    return None


def mutants(src, name):
    span = kernel_span(src, name)
    if not span:
        return
    lo, hi = span
    body = src[lo:hi]
    for desc, pat, rep in OPERATORS:
        for m in re.finditer(pat, body):
            new = m.expand(rep) if isinstance(rep, str) else rep(m)
            mutated = body[:m.start()] + new + body[m.end():]
            line = src[:lo + m.start()].count("\n") + 1
            yield "%s at line %d" % (desc, line), \
                src[:lo] + mutated + src[hi:]


def kvalidate(args, cmd, timeout):
    try:
        p = subprocess.run([args.kvalidate] + cmd, capture_output=True,
                           text=True, timeout=timeout)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired:
        return None, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kvalidate",
                    default=os.path.join(ROOT, "build", "bin", "kvalidate"))
    ap.add_argument("--max", type=int, default=300)
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--timeout", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--list", action="store_true",
                    help="only count the mutants of each base")
    ap.add_argument("--keep", default=None,
                    help="directory for the mutants (default: a temp dir)")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = args.keep or tempfile.mkdtemp(prefix="kv-mutants-")
    os.makedirs(work, exist_ok=True)

    counts = {}
    unsound = []
    total = 0
    # Round robin over the bases, so that a short run covers each.
    queues = []
    for file, base, target, assume, launch in BASES:
        src = open(os.path.join(INPUTS, file)).read()
        queues.append([(file, base, target, assume, launch, desc, text)
                       for desc, text in mutants(src, target)])
    if args.list:
        for (file, base, target, _, _), q in zip(BASES, queues):
            print("%-22s %-26s %4d" % (file, target, len(q)))
        print("total %d" % sum(len(q) for q in queues))
        return
    order = []
    while any(queues):
        for q in queues:
            if q:
                order.append(q.pop(0))
    for file, base, target, assume, launch, desc, text in order:
        if total >= args.max:
            break
        total += 1
        path = os.path.join(work, "m%04d_%s" % (total, file))
        with open(path, "w") as f:
            f.write(text)
        before = "%s:%s" % (os.path.join(INPUTS, file), base)
        after = "%s:%s" % (path, target)
        rc, out = kvalidate(
            args, ["--json", "--timeout=%d" % args.timeout, before, after]
            + ["--assume=" + a for a in assume], args.timeout + 30)
        try:
            verdict = json.loads(out)["verdict"] if out else "timeout"
        except (ValueError, KeyError):
            verdict = "bad-json"
        # Ground truth on random launches and inputs.
        differs = False
        for _ in range(args.runs):
            grid, block, scalars = launch(rng)
            arrays = {name: {str(i): rng.randint(-50, 50)
                             for i in range(2048)}
                      for name in ("in", "x", "y", "m", "v")}
            cex = {"before": before, "after": after,
                   "counterexample": {
                       "gridDim": grid, "blockDim": block,
                       "scalars": scalars,
                       "arrays": arrays}}
            cpath = path + ".cex.json"
            with open(cpath, "w") as f:
                json.dump(cex, f)
            rrc, _ = kvalidate(args, ["replay", cpath], 60)
            if rrc == 1:
                differs = True
                break
        key = (verdict, "differs" if differs else "agrees on runs")
        counts[key] = counts.get(key, 0) + 1
        if verdict == "equivalent" and differs:
            unsound.append("%s (%s): %s" % (after, desc, verdict))
        print("%4d %-48s %-16s %s" % (total, "%s %s" % (target, desc),
                                      verdict, key[1]), flush=True)

    print()
    for (verdict, truth), n in sorted(counts.items()):
        print("  %-16s %-16s %4d" % (verdict, truth, n))
    for u in unsound:
        print("UNSOUND: " + u)
    print("mutation run: %d mutants, %d unsound verdicts (kvalidate said "
          "equivalent, a concrete run differs)" % (total, len(unsound)))
    sys.exit(1 if unsound else 0)


if __name__ == "__main__":
    main()
