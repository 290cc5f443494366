#!/usr/bin/env python3
"""Time clang -O2 with and without the kvalidate plugin and print a table.

Usage: utils/bench-plugin.py [--plugin build/lib/libkvalidate.so]
                             [--timeout SECS] [--repeat N] [FILE.cu ...]

Each file (default: test/Inputs/*.cu) is compiled for the device, -O2, to
PTX, without the plugin and with it (no verdict cache, so that every kernel
is proved; -kvalidate-timeout=SECS, default 10). The table gives, per file,
the two wall times and the kernels' verdicts; then the figures issue 19
sets targets for, next to the targets: the median time per kernel that the
plugin adds (its own report's time_ms per kernel), the whole compile's
ratio, and a trivial pair through the command line. Each compile runs
--repeat times (default 5), with and without the plugin in turn, and its
median time counts; the trivial pair runs 21 times. The machines this runs
on are noisy: compare figures of one run.

The report (the table headed by date, machine and commit) goes to
docs/benchmarks/bench-plugin-DATE.md (--report FILE elsewhere, --no-report not
at all).
"""
import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import benchreport  # noqa: E402
ROOT = os.path.dirname(HERE)
INPUTS = os.path.join(ROOT, "test", "Inputs")
CLANG = "/usr/lib/llvm-22/bin/clang++"
FLAGS = ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80",
         "--cuda-path=/nonexistent", "-nocudainc", "-nocudalib",
         "--cuda-feature=+ptx80", "-Wno-unknown-cuda-version", "-include",
         os.path.join(HERE, "kv_cuda.h"), "-O2", "-S", "-o", os.devnull]


def timed(cmd):
    t = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    return time.monotonic() - t, p


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--plugin",
                    default=os.path.join(ROOT, "build", "lib",
                                         "libkvalidate.so"))
    ap.add_argument("--kvalidate",
                    default=os.path.join(ROOT, "build", "bin", "kvalidate"))
    ap.add_argument("--timeout", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("files", nargs="*")
    benchreport.add_args(ap, "bench-plugin")
    args = ap.parse_args()
    return benchreport.printed(
        args, "clang -O2 with and without the kvalidate plugin", table)


def table(args):
    files = args.files or sorted(glob.glob(os.path.join(INPUTS, "*.cu")))
    tmp = tempfile.mkdtemp(prefix="kv-bench-")
    plain_total = plugin_total = 0.0
    kernel_ms = []
    verdicts = {}
    print("%-26s %9s %9s %6s  %s" % ("file", "plain s", "plugin s", "ratio",
                                      "verdicts"))
    for f in files:
        report = os.path.join(tmp, os.path.basename(f) + ".jsonl")
        plains, withs = [], []
        for _ in range(max(args.repeat, 1)):
            t, p = timed([CLANG] + FLAGS + [f])
            if p.returncode != 0:
                break
            plains.append(t)
            if os.path.exists(report):
                os.remove(report)
            t, _ = timed([CLANG] + FLAGS + [
                f, "-fpass-plugin=" + args.plugin, "-mllvm",
                "-kvalidate-cache=", "-mllvm", "-kvalidate-fail-on=never",
                "-mllvm", "-kvalidate-timeout=%d" % args.timeout, "-mllvm",
                "-kvalidate-report=" + report])
            withs.append(t)
        if not plains:
            print("%-26s does not compile without the plugin; skipped"
                  % os.path.basename(f))
            continue
        plain, withp = statistics.median(plains), statistics.median(withs)
        plain_total += plain
        plugin_total += withp
        counts = {}
        if os.path.exists(report):
            for line in open(report):
                r = json.loads(line)
                kernel_ms.append(r.get("time_ms", 0))
                counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
                verdicts[r["verdict"]] = verdicts.get(r["verdict"], 0) + 1
        print("%-26s %9.2f %9.2f %6.1f  %s" % (
            os.path.basename(f)[:26], plain, withp, withp / max(plain, 1e-3),
            ", ".join("%d %s" % (n, v) for v, n in sorted(counts.items()))))
    # The trivial pair: a copy kernel against itself, from LLVM IR.
    triv = os.path.join(tmp, "copy.cu")
    with open(triv, "w") as out:
        out.write("__global__ void copy(const int *in, int *out) {\n"
                  "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "  out[i] = in[i];\n}\n")
    ll = os.path.join(tmp, "copy.ll")
    subprocess.run([CLANG] + FLAGS[:-4] + ["-O0", "-Xclang",
                   "-disable-O0-optnone", "-S", "-emit-llvm", triv, "-o", ll],
                   check=True)
    trivial = statistics.median(
        timed([args.kvalidate, ll + ":copy", ll + ":copy"])[0]
        for _ in range(21))
    print()
    print("%-52s %10s %10s" % ("figure", "measured", "target"))
    if kernel_ms:
        print("%-52s %8.0f ms %7s ms" % (
            "plugin: median validation time per kernel (%d)" % len(kernel_ms),
            statistics.median(kernel_ms), "100"))
    print("%-52s %9.1fx %9sx" % ("plugin: -O2 compile time, with / without",
                                  plugin_total / max(plain_total, 1e-3), "3"))
    print("%-52s %8.0f ms %7s ms" % ("CLI: copy kernel against itself (.ll)",
                                     trivial * 1000, "50"))
    print("verdicts: " + ", ".join("%d %s" % (n, v)
                                   for v, n in sorted(verdicts.items())))


if __name__ == "__main__":
    sys.exit(main())
