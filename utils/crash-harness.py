#!/usr/bin/env python3
"""Crash harness: kvalidate must never crash, whatever the kernel.

Runs every kernel of each FILE against itself through the command line, and
each .cu FILE through clang -O2 with the pass plugin, with a short budget.
Any verdict (equivalent, not-equivalent, unknown, unsupported, a defect, a
clear error) is fine; a crash is not: a signal, an exit status kvalidate
does not document, an LLVM stack dump, or the plugin's "kvalidate crashed"
warning. Each .cu FILE also goes through the bad inputs below (options a
user or a build file could get wrong), which must end in a clear error or
warning, not a crash. Prints one line per crash and a summary line; exits 1
on a crash.

  utils/crash-harness.py [--timeout S] [--kvalidate BIN] [--plugin SO]
                         [--clang BIN] [--cuda-path DIR] FILE...
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CRASH_TEXT = re.compile(r"Stack dump:|PLEASE submit a bug report|"
                        r"kvalidate crashed|Segmentation fault|Aborted")


def split_top(text):
    """Split 'a, f<1, 2>, b (sym)' at the commas outside <...> and (...)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def kernels_of(kvalidate, path, extra):
    """The file's kernels, from kvalidate's own listing (mangled names where
    a source name is ambiguous)."""
    probe = f"{path}:__kvalidate_crash_harness__"
    r = subprocess.run([kvalidate] + extra + [probe, probe],
                       capture_output=True, text=True)
    m = re.search(r"kernels in this file: (.*)$", r.stderr, re.M)
    if not m:
        return [], r.stderr.strip()
    names = []
    for entry in split_top(m.group(1)):
        sym = re.match(r".* \((\S+)\)$", entry)
        names.append(sym.group(1) if sym else entry)
    return names, ""


# Bad inputs, each with the front door it goes through: an assumption nested
# 20,000 levels deep (parentheses, unary operators), a kernel filter that
# names no kernel, a cache location of another scheme, a cache key file that
# does not exist.
DEEP = 20000
BAD_CLI = [["--assume=" + "(" * DEEP + "n>0" + ")" * DEEP],
           ["--assume=" + "!" * DEEP + "n"]]
BAD_PLUGIN = [["-kvalidate-assume=" + "(" * DEEP + "n>0" + ")" * DEEP],
              ["-kvalidate-assume=" + "-" * DEEP + "n"],
              ["-kvalidate-kernel=__kvalidate_crash_harness__"],
              ["-kvalidate-cache=http://x/y"],
              ["-kvalidate-cache=redis://:0"],
              ["-kvalidate-cache-key=/nonexistent/kvalidate.key"]]


def crashed(proc, documented):
    if proc.returncode < 0 or proc.returncode not in documented:
        return f"exit status {proc.returncode}"
    m = CRASH_TEXT.search(proc.stdout + proc.stderr)
    return m.group(0) if m else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--timeout", type=int, default=10,
                    help="budget per kernel in seconds (default 10)")
    ap.add_argument("--kvalidate",
                    default=os.path.join(ROOT, "build/bin/kvalidate"))
    ap.add_argument("--plugin",
                    default=os.path.join(ROOT, "build/lib/libkvalidate.so"))
    ap.add_argument("--clang", default="clang++-22")
    ap.add_argument("--cuda-path", default=None,
                    help="CUDA SDK (empty: none, as kvalidate --cuda-path=)")
    args = ap.parse_args()

    extra = []
    if args.cuda_path is not None:
        extra.append(f"--cuda-path={args.cuda_path}")
    crashes, skipped, kernels, start = [], [], 0, time.time()
    bad_runs = 0
    for path in args.files:
        names, err = kernels_of(args.kvalidate, path, extra)
        if not names and err and CRASH_TEXT.search(err):
            crashes.append(f"{path}: listing the kernels: {err}")
        elif not names:
            skipped.append(f"{path}: no kernels listed: "
                           f"{err.splitlines()[0] if err else 'none'}")
        for bad in BAD_CLI if path.endswith(".cu") and names else []:
            bad_runs += 1
            ref = f"{path}:{names[0]}"
            p = subprocess.run([args.kvalidate] + bad + extra + [ref, ref],
                               capture_output=True, text=True,
                               timeout=args.timeout * 3 + 30)
            why = crashed(p, {0, 1, 2, 3, 4})
            if why:
                crashes.append(f"{ref}: kvalidate {bad[0][:20]}...: {why}")
        for name in names:
            kernels += 1
            ref = f"{path}:{name}"
            cmd = [args.kvalidate, f"--timeout={args.timeout}", "--hunt=0",
                   "--safety-checks=false"] + extra + [ref, ref]
            try:
                p = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=args.timeout * 3 + 30)
            except subprocess.TimeoutExpired:
                crashes.append(f"{ref}: kvalidate hung past its --timeout")
                continue
            why = crashed(p, {0, 1, 2, 3, 4})
            if why:
                crashes.append(f"{ref}: kvalidate: {why}")
        if not path.endswith(".cu"):
            continue
        cmd = [args.clang, "-x", "cuda", "--cuda-device-only",
               "--cuda-gpu-arch=sm_80", "-O2", "-S", "-o", os.devnull,
               "-Wno-unknown-cuda-version", f"-fpass-plugin={args.plugin}",
               "-mllvm", f"-kvalidate-timeout={args.timeout}", path]
        if args.cuda_path == "" or (args.cuda_path is None and not
                                    os.path.exists("/usr/local/cuda/include/"
                                                   "cuda_runtime.h")):
            cmd[1:1] = ["--cuda-path=/nonexistent", "-nocudainc",
                        "-nocudalib", "--cuda-feature=+ptx80", "-include",
                        os.path.join(ROOT, "utils/kv_cuda.h")]
        elif args.cuda_path:
            cmd.insert(1, f"--cuda-path={args.cuda_path}")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=args.timeout * (len(names) + 1) + 60)
        except subprocess.TimeoutExpired:
            crashes.append(f"{path}: clang with the plugin hung")
            continue
        # clang's own errors (a construct clang rejects) are not ours.
        why = crashed(p, {0, 1})
        if why:
            crashes.append(f"{path}: clang -O2 with the plugin: {why}")
        for bad in BAD_PLUGIN:
            bad_runs += 1
            bad_cmd = cmd[:-1] + [a for b in bad for a in ("-mllvm", b)] + \
                [path]
            try:
                p = subprocess.run(bad_cmd, capture_output=True, text=True,
                                   timeout=args.timeout * (len(names) + 1)
                                   + 60)
            except subprocess.TimeoutExpired:
                crashes.append(f"{path}: clang with {bad[0][:30]}...: hung")
                continue
            why = crashed(p, {0, 1})
            if why:
                crashes.append(f"{path}: clang with {bad[0][:30]}...: {why}")
    for c in crashes:
        print("crash:", c)
    for s in skipped:
        print("skipped:", s)
    print(f"crash harness: {len(args.files)} files, {kernels} kernels, "
          f"{bad_runs} bad inputs, {len(crashes)} crashes, "
          f"{len(skipped)} files skipped ({time.time() - start:.0f} s)")
    return 1 if crashes or skipped else 0


if __name__ == "__main__":
    sys.exit(main())
