#!/usr/bin/env python3
"""Compile a corpus of CUDA files with and without the kvalidate plugin.

    utils/bench-corpus.py [options] ROOT...

Every .cu file under each ROOT is compiled for the device at -O2, once
without the plugin (a file that does not compile so is skipped) and once
with it and its default options, each compile under a memory cap
(RLIMIT_AS) and a wall-clock limit. One line per file: kernels validated,
plain time, time with the plugin, added time, the compile's peak resident
memory, and the verdicts; then the worst files, the totals, the date and
the machine. The corpus itself (public repositories) is never committed:
fetch each repository and extract its sources with
utils/corpus-extract.sh GIT_DIR OWNER/NAME ROOT, which records the
repository and commit the report names.

Include directories: the file's own, every directory named Common, common,
inc or include under its ROOT, and CUDA's cccl headers when they exist.
The plugin's verdict cache goes to a fresh directory, so every kernel is
validated.

The report (the table headed by date, machine and commit) goes to
docs/benchmarks/bench-corpus-DATE.md (--report FILE elsewhere, --no-report not
at all).
"""

import argparse
import collections
import datetime
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(os.path.dirname(HERE), "build")
sys.path.insert(0, HERE)
import benchreport  # noqa: E402


def run_capped(cmd, mem_mb, wall_s, env=None):
    """Run cmd with an address-space cap and a wall limit. Returns
    (status, seconds, peak RSS in MB, stderr, killed_by_wall)."""

    def limit():
        cap = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        os.setsid()

    err = tempfile.TemporaryFile()
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err,
                         preexec_fn=limit, env=env)
    killed = False
    try:
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > wall_s and not killed:
                killed = True
                os.killpg(p.pid, signal.SIGKILL)
            time.sleep(0.05)
    except KeyboardInterrupt:
        # The compile leads its own process group: stop it with the run.
        os.killpg(p.pid, signal.SIGKILL)
        os.waitpid(p.pid, 0)
        p.returncode = 0
        raise
    p.returncode = 0  # reaped here; keep Popen from waiting again
    secs = time.monotonic() - t0
    err.seek(0)
    text = err.read().decode("utf-8", "replace")
    code = os.waitstatus_to_exitcode(status)
    return code, secs, ru.ru_maxrss / 1024.0, text, killed


def include_dirs(root):
    dirs = []
    for d, subdirs, _ in os.walk(root):
        for s in subdirs:
            if s in ("Common", "common", "inc", "include"):
                dirs.append(os.path.join(d, s))
    return sorted(dirs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("roots", nargs="+", help="corpus root directories")
    ap.add_argument("--clang", default=shutil.which("clang++-22") or "clang++")
    ap.add_argument("--plugin", default=os.path.join(BUILD, "lib",
                                                     "libkvalidate.so"))
    ap.add_argument("--cuda-path", default="/usr/local/cuda")
    ap.add_argument("--mem-cap-mb", type=int, default=8000,
                    help="address-space cap of each compile (default 8000)")
    ap.add_argument("--timeout", type=int, default=60,
                    help="the plugin's budget per kernel, to check against "
                         "(default 60: the plugin's default)")
    ap.add_argument("--wall", type=int, default=1800,
                    help="wall-clock limit per compile in s (default 1800)")
    ap.add_argument("--limit", type=int, default=0,
                    help="only the first N files (0: all)")
    benchreport.add_args(ap, "bench-corpus")
    ap.add_argument("--no-warm", dest="warm", action="store_false",
                    help="skip the second plugin compile of each file with "
                         "the first one's verdict cache")
    ap.add_argument("extra", nargs=argparse.REMAINDER,
                    help="after --: more options for the plugin compile")
    args = ap.parse_args()

    files = []
    for root in args.roots:
        root = os.path.abspath(root)
        incs = include_dirs(root)
        for d, _, names in os.walk(root):
            for n in sorted(names):
                if n.endswith(".cu"):
                    files.append((root, os.path.join(d, n), incs))
    # A fixed pseudo-random order: the files done when a run is limited or
    # stopped (Ctrl-C, SIGTERM) are a sample of every root, not the first
    # directories of the first one.
    files.sort(key=lambda f: f[1])
    random.Random(0).shuffle(files)
    if args.limit:
        files = files[:args.limit]

    base = [args.clang, "-x", "cuda", "--cuda-device-only",
            "--cuda-gpu-arch=sm_80", "-O2", "-S", "-w",
            "-Wno-unknown-cuda-version"]
    if os.path.isdir(args.cuda_path):
        base += ["--cuda-path=" + args.cuda_path]
        cccl = os.path.join(args.cuda_path, "include", "cccl")
        if os.path.isdir(cccl):
            base += ["-I", cccl]
    else:
        base += ["-nocudainc", "-nocudalib"]

    lines = []

    def out(s=""):
        print(s, flush=True)
        lines.append(s)

    started = datetime.datetime.now(datetime.timezone.utc)
    for line in benchreport.header("kvalidate plugin over a CUDA corpus",
                                   started):
        out(line)
    out("plugin %s (default options, per-kernel budget %d s); each compile "
        "capped at %d MB of address space and %d s; corpus: %s" % (
            args.plugin, args.timeout, args.mem_cap_mb, args.wall,
            ", ".join("%s at %s" % (os.path.basename(os.path.abspath(r)),
                                    benchreport.commit(r, 12))
                      for r in args.roots)))
    out()
    out("| file | kernels | plain s | plugin s | warm s | added s | peak MB | "
        "verdicts |")
    out("|---|---:|---:|---:|---:|---:|---:|---|")

    tmp = tempfile.mkdtemp(prefix="kv-bench-")
    rows, skipped, kernels = [], [], []
    totals = collections.Counter()
    stopped = []
    def interrupt(*_):
        raise KeyboardInterrupt()

    # SIGTERM as Ctrl-C: the summary of the files done is still printed.
    signal.signal(signal.SIGTERM, interrupt)
    try:
        for done, (root, path, incs) in enumerate(files):
            stopped = [done]
            bench_one(args, base, tmp, root, path, incs, out, rows, skipped,
                      totals, kernels)
        stopped = []
    except KeyboardInterrupt:
        pass
    shutil.rmtree(tmp, ignore_errors=True)

    out()
    if stopped:
        out("Stopped after %d of %d files (the rest not run)." %
            (stopped[0], len(files)))
    summary(args, rows, skipped, totals, kernels, out)
    ended = datetime.datetime.now(datetime.timezone.utc)
    out("Took %.0f min" % ((ended - started).total_seconds() / 60))
    benchreport.write(args, lines, started)
    return 0


def norm_reason(reason):
    """A verdict's reason without its numbers, names and paths: one group
    per kind of reason."""
    r = reason.split("; ")[0]
    r = re.sub(r"`[^`]*`", "`X`", r)
    r = re.sub(r"^((before|after) optimization: )[A-Za-z_][A-Za-z_0-9]*: ",
               r"\1", r)
    r = re.sub(r"(/[^ :]+)?[^ /:]+\.(cu|cuh|h|hpp|ll):\d+(:\d+)?", "FILE", r)
    r = re.sub(r"'[^']*'", "'X'", r)
    r = re.sub(r"\d+(\.\d+)?", "N", r)
    return r[:150]


def bench_one(args, base, tmp, root, path, incs, out, rows, skipped,
              totals, kernels_seen):
    """Compile one file without and with the plugin; one row of the
    table."""
    rel = os.path.relpath(path, os.path.dirname(root))
    flags = ["-I", os.path.dirname(path)]
    for d in incs:
        flags += ["-I", d]
    asm = os.path.join(tmp, "out.s")
    code, plain, _, err, killed = run_capped(
        base + flags + [path, "-o", asm], args.mem_cap_mb, args.wall)
    if code != 0:
        first = next((l for l in err.splitlines() if "error" in l),
                     "killed" if killed else "exit %d" % code)
        skipped.append((rel, first.strip()[:160]))
        return
    with open(asm, "rb") as f:
        plain_asm = f.read()
    report = os.path.join(tmp, "report.jsonl")
    if os.path.exists(report):
        os.remove(report)
    env = dict(os.environ)
    cache = os.path.join(tmp, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    env["XDG_CACHE_HOME"] = cache  # a cold cache
    cmd = (base + flags + [path, "-o", asm, "-fpass-plugin=" + args.plugin,
                           "-mllvm", "-kvalidate-report=" + report] +
           [a for a in args.extra if a != "--"])
    code, secs, peak, err, killed = run_capped(cmd, args.mem_cap_mb,
                                               args.wall, env)
    verdicts = collections.Counter()
    budget = collections.Counter()
    if os.path.exists(report):
        with open(report) as f:
            for line in f:
                try:
                    e = json.loads(line)
                except ValueError:
                    continue
                verdicts[e.get("verdict", "?")] += 1
                reason = e.get("reason", "") or ""
                kernels_seen.append(dict(
                    file=rel, kernel=e.get("kernel", "?"),
                    verdict=e.get("verdict", "?"),
                    ms=e.get("time_ms", 0) or 0, reason=reason))
                if reason.startswith("budget: time"):
                    budget["time"] += 1
                elif reason.startswith("budget: memory"):
                    budget["memory"] += 1
    kernels = sum(verdicts.values())
    same = os.path.exists(asm) and open(asm, "rb").read() == plain_asm
    # Again with the verdicts the first compile cached: a rebuild.
    warm = None
    if args.warm and code == 0:
        _, warm, _, _, _ = run_capped(cmd, args.mem_cap_mb, args.wall, env)
    status = ""
    if killed:
        status = "KILLED (wall)"
    elif code < 0 or code > 1:
        status = "CRASHED (exit %d)" % code
    elif code == 1:
        status = "exit 1"
    if code == 0 and not same:
        status += " PTX DIFFERS"
    added = secs - plain
    over = added > 1.1 * args.timeout * max(kernels, 1)
    v = ", ".join("%s %d" % kv for kv in sorted(verdicts.items()))
    if budget:
        v += " (budget: %s)" % ", ".join(
            "%s %d" % kv for kv in sorted(budget.items()))
    if status:
        v += " **%s**" % status.strip()
    if over:
        v += " **over budget**"
    out("| %s | %d | %.2f | %.2f | %s | %.2f | %.0f | %s |" %
        (rel, kernels, plain, secs, "%.2f" % warm if warm is not None
         else "-", added, peak, v))
    rows.append(dict(file=rel, kernels=kernels, plain=plain, secs=secs,
                     warm=warm, added=added, peak=peak,
                     status=status.strip(), over=over))
    totals.update(verdicts)
    totals["budget: time"] += budget["time"]
    totals["budget: memory"] += budget["memory"]


def percentile(xs, q):
    xs = sorted(xs)
    if not xs:
        return 0
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def summary(args, rows, skipped, totals, kernels, out):
    if skipped:
        out("Skipped (do not compile without the plugin): %d" % len(skipped))
        for rel, why in skipped:
            out("- %s: %s" % (rel, why))
        out()
    if rows:
        worst_t = max(rows, key=lambda r: r["added"])
        worst_m = max(rows, key=lambda r: r["peak"])
        out("Files compiled: %d; kernels validated: %d" %
            (len(rows), sum(r["kernels"] for r in rows)))
        out("Verdicts: " + ", ".join(
            "%s %d" % kv for kv in sorted(totals.items()) if kv[1]))
        out("Plain compiles: %.1f s; with the plugin: %.1f s; added %.1f s" %
            (sum(r["plain"] for r in rows), sum(r["secs"] for r in rows),
             sum(r["added"] for r in rows)))
        warm = [r for r in rows if r["warm"] is not None]
        if warm:
            out("Warm cache (each file compiled again with the verdicts its "
                "first compile kept): %.1f s, %.2fx plain" %
                (sum(r["warm"] for r in warm),
                 sum(r["warm"] for r in warm) /
                 max(sum(r["plain"] for r in warm), 1e-9)))
        ms = [k["ms"] for k in kernels]
        out("Validation per kernel: median %d ms, p90 %d ms, max %d ms" %
            (percentile(ms, 0.5), percentile(ms, 0.9), max(ms or [0])))
        undecided = [k for k in kernels
                     if k["verdict"] in ("unknown", "unsupported")]
        out("Time spent on kernels not decided (unknown, unsupported): "
            "%.1f s of %.1f s" % (sum(k["ms"] for k in undecided) / 1000.0,
                                  sum(ms) / 1000.0))
        out("Worst by added time: %s, %.1f s for %d kernels" %
            (worst_t["file"], worst_t["added"], worst_t["kernels"]))
        out("Worst by memory: %s, peak %.0f MB" %
            (worst_m["file"], worst_m["peak"]))
        out("Killed or crashed: %d; PTX different: %d; past kernels x budget "
            "x 1.1: %d" %
            (sum(1 for r in rows if "KILLED" in r["status"] or
                 "CRASHED" in r["status"]),
             sum(1 for r in rows if "DIFFERS" in r["status"]),
             sum(1 for r in rows if r["over"])))
        groups = collections.defaultdict(list)
        for k in kernels:
            if not k["verdict"].startswith("equivalent"):
                groups[(k["verdict"], norm_reason(k["reason"]))].append(k)
        out()
        out("Not proved, by reason (the most frequent 25):")
        out()
        for (v, r), ks in sorted(groups.items(),
                                 key=lambda kv: -len(kv[1]))[:25]:
            out("- %d x %s: %s (e.g. %s:%s)" %
                (len(ks), v, r, ks[0]["file"], ks[0]["kernel"]))


if __name__ == "__main__":
    sys.exit(main())
