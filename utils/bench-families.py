#!/usr/bin/env python3
"""Run kvalidate on the generated rewrite families and report per family.

Usage: utils/bench-families.py [--families a,b] [--count N] [--seed S]
           [--timeout SECS] [--jobs J] [--runs R] [--out DIR]
           [--report FILE | --no-report] [--kvalidate PATH] [--plugin [--plugin-path SO]]

Generates the pairs and their host-run ground truth (utils/gen-families.py),
then runs `kvalidate BEFORE.cu:kern AFTER.cu:kern --assume=... --json
--timeout=SECS` on every pair that has one, and classifies the verdict
against the ground truth:

  equivalent pair: proved (equivalent) / unknown (unknown, unsupported,
                   error, the time limit) / wrong (not-equivalent or a
                   defect verdict)
  broken pair:     caught (not-equivalent, replayed, or a confirmed race,
                   divergence or out-of-bounds) / unknown / wrong
                   (equivalent)

Mutants no host run told apart (`undistinguished`) are not run. A `wrong`
verdict on an equivalent pair is checked again on the host at kvalidate's
counterexample launch, which says whether the sampled launches missed it.
Prints a table per family and the totals, then the reasons of the unknown
verdicts (grouped) and every wrong verdict in detail. DIR keeps the pairs
and results.json.

--plugin instead compiles each generated kernel file with clang -O2 and the
pass plugin (-kvalidate-report, no assumptions: the -O2 form of a kernel is
to be proved for every launch where the source is defined) and counts the
kernels whose -O2 IR the plugin proved equivalent to their source.
"""
import argparse
import concurrent.futures
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "families"))
import benchreport           # noqa: E402
import families as fam_mod   # noqa: E402
import groundtruth           # noqa: E402

DEFECTS = ("race", "divergence", "out-of-bounds")
# The build to measure: $KV_BUILD_DIR (as test/lit.cfg.py), else ./build.
BUILD = os.path.abspath(os.environ.get("KV_BUILD_DIR",
                                       os.path.join(ROOT, "build")))


def load_gen():
    """utils/gen-families.py (a hyphenated name: loaded by path)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "gen_families", os.path.join(HERE, "gen-families.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def run_kvalidate(kv, out_dir, pair, timeout):
    d = os.path.join(out_dir, pair["dir"])
    cmd = [kv, "--json", "--timeout=%d" % timeout, "--assume=" + pair["assume"]]
    # Each kernel at its own launch, where the family changes it.
    if pair.get("launch_before"):
        cmd += ["--launch-before=" + pair["launch_before"],
                "--launch-after=" + pair["launch_after"]]
    cmd += [os.path.join(d, pair["before"]) + ":" + pair["kernel"],
            os.path.join(d, pair["after"]) + ":" + pair["kernel"]]
    t0 = time.time()
    # kvalidate's own watchdog answers at the budget plus a grace period
    # (a quarter of it, at least 30 s); the wall limit here is beyond that.
    wall = timeout + max(30, timeout // 4) + 30
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=wall)
    except subprocess.TimeoutExpired:
        return {"verdict": "timeout", "reason": "no answer within %d s of "
                "wall time" % wall, "time": time.time() - t0, "cmd": cmd}
    except OSError as e:   # e.g. a build in progress replaced the binary
        return {"verdict": "error", "reason": "cannot run kvalidate: %s" % e,
                "time": time.time() - t0, "cmd": cmd}
    res = {"time": time.time() - t0, "cmd": cmd, "exit": r.returncode}
    try:
        j = json.loads(r.stdout[r.stdout.index("{"):])
    except ValueError:
        res.update(verdict="error", reason="no JSON (exit %d): %s" % (
            r.returncode, (r.stderr or r.stdout)[-500:]))
        return res
    res.update(verdict=j.get("verdict"), reason=j.get("reason", ""),
               json=j)
    return res


def classify(label, res):
    v = res["verdict"]
    j = res.get("json", {})
    if label == "equivalent":
        if v == "equivalent":
            return "proved"
        if v == "not-equivalent" or v in DEFECTS:
            return "wrong"
        return "unknown"
    if v == "equivalent":
        return "wrong"
    if v == "not-equivalent" and j.get("counterexample", {}).get("replayed"):
        return "caught"
    if v in DEFECTS and j.get("defect", {}).get("confirmed", True):
        return "caught"
    return "unknown"


def recheck_on_host(out_dir, insts, pair, res):
    """A `wrong` not-equivalent on an equivalent pair: run the host at
    kvalidate's counterexample launch (random inputs), so the report says
    whether the ground truth's sampled launches missed a real difference."""
    cex = res.get("json", {}).get("counterexample")
    if not cex:
        return "no counterexample launch to rerun"
    inst = insts[pair["instance"]]
    g, b = cex.get("gridDim"), cex.get("blockDim")
    scal = {p.name: cex.get("scalars", {}).get(p.name, 0)
            for p in inst.params if p.kind == "scalar"}
    if not g or not b or g[0] * g[1] * g[2] > 64 or b[0] * b[1] * b[2] > 1024:
        return "counterexample launch %s x %s too large to rerun" % (g, b)
    if any(abs(v) > 100000 for v in scal.values()):
        return "counterexample scalars %s too large to rerun" % scal
    exe = os.path.join(out_dir, pair["dir"], "driver")
    truth, detail = groundtruth.truth_at(exe, inst, pair["variant"], g, b,
                                         scal, "recheck")
    return "host at gridDim %s blockDim %s scalars %s: %s (%s)" % (
        g, b, scal, truth, detail)


def norm_reason(r):
    """A reason with paths, line numbers and figures taken out, to group."""
    r = re.sub(r"/\S+/([\w.-]+\.cu)", r"\1", r or "")
    r = re.sub(r"\d+(\.\d+)?", "N", r)
    return r[:220]


def fmt_t(ts):
    if not ts:
        return "-", "-"
    return "%.1f" % statistics.median(ts), "%.1f" % max(ts)


def table(rows, header_lines):
    fams = list(dict.fromkeys(r["family"] for r in rows))
    L = header_lines + [
        "",
        "| family | pairs (equivalent/broken) | proved | caught | unknown "
        "(eq/broken) | wrong | undistinguished | median s | max s |",
        "|---|---|---|---|---|---|---|---|---|"]
    tot = None
    for fam in fams + [None]:
        rs = [r for r in rows if fam is None or r["family"] == fam]
        ran = [r for r in rs if "class" in r]
        eq = sum(r["label"] == "equivalent" for r in rs)
        br = sum(r["label"] == "broken" for r in rs)
        c = lambda k, lab=None: sum(1 for r in ran if r["class"] == k and (
            lab is None or r["label"] == lab))
        med, mx = fmt_t([r["time"] for r in ran])
        line = "| %s | %d (%d/%d) | %d/%d | %d/%d | %d/%d | %d | %d | %s | %s |" % (
            fam or "**total**", eq + br, eq, br, c("proved"), eq, c("caught"),
            br, c("unknown", "equivalent"), c("unknown", "broken"), c("wrong"),
            sum(r["label"] == "undistinguished" for r in rs), med, mx)
        if fam is None:
            tot = line
        else:
            L.append(line)
    L.append(tot)
    return L


def details(rows):
    L = ["", "Unknown verdicts, by reason:", ""]
    groups = {}
    for r in rows:
        if r.get("class") == "unknown":
            key = (r["verdict"], norm_reason(r.get("reason")))
            groups.setdefault(key, []).append(r)
    for (v, reason), rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        L.append("- %d x %s: %s" % (len(rs), v, reason or "(no reason)"))
        L.append("  - " + ", ".join(sorted("%s/%s" % (r["instance"],
                                                     r["variant"]) for r in rs)))
    L += ["", "Verdicts per variant:", ""]
    for r in rows:
        if "class" in r:
            L.append("- %s/%s (%s; %s): %s -> %s (%.1f s)%s" % (
                r["instance"], r["variant"], r["desc"],
                r["mutation"] or r["notes"] or "the rewrite", r["verdict"],
                r["class"], r["time"],
                (": " + norm_reason(r["reason"])[:160]) if r.get("reason")
                and r["class"] != "unknown" else ""))
    wrong = [r for r in rows if r.get("class") == "wrong"]
    L += ["", "Wrong verdicts: %d" % len(wrong)]
    for r in wrong:
        L += ["", "- %s/%s (%s), ground truth %s (%s)" % (
            r["instance"], r["variant"], r["mutation"] or "the rewrite",
            r["truth"], r["truth_detail"]),
            "  verdict %s: %s" % (r["verdict"], r.get("reason", "")[:600]),
            "  command: %s" % " ".join("'%s'" % a if " " in a else a
                                       for a in r["cmd"])]
        if r.get("recheck"):
            L.append("  recheck: " + r["recheck"])
    return L


def run_plugin(args, out_dir, insts):
    """Compile every generated kernel file with -O2 and the pass plugin."""
    kv_cuda_h = os.path.join(ROOT, "utils", "kv_cuda.h")
    rows = []
    for inst in insts:
        d = os.path.join(out_dir, inst.family, inst.name)
        for v in inst.sources:
            report = os.path.join(d, v + ".plugin.jsonl")
            if os.path.exists(report):
                os.remove(report)
            cmd = [groundtruth.clang_path(), "-x", "cuda", "--cuda-device-only",
                   "--cuda-gpu-arch=sm_80", "--cuda-path=/nonexistent",
                   "-nocudainc", "-nocudalib", "--cuda-feature=+ptx80",
                   "-Wno-unknown-cuda-version", "-include", kv_cuda_h, "-O2",
                   "-fpass-plugin=" + args.plugin_path,
                   "-mllvm", "-kvalidate-report=" + report,
                   "-mllvm", "-kvalidate-timeout=%d" % args.timeout,
                   "-mllvm", "-kvalidate-fail-on=never",
                   "-mllvm", "-kvalidate-cache=",
                   "-S", "-o", os.devnull, os.path.join(d, v + ".cu")]
            t0 = time.time()
            try:
                r = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=args.timeout * 2 + 60)
                verdict, reason = "error", "clang exit %d: %s" % (
                    r.returncode, r.stderr[-300:])
            except subprocess.TimeoutExpired:
                verdict, reason = "timeout", "clang did not finish"
            if os.path.exists(report):
                with open(report) as f:
                    js = [json.loads(line) for line in f if line.strip()]
                if js:
                    verdict, reason = js[0].get("verdict"), js[0].get("reason",
                                                                      "")
            rows.append({"family": inst.family, "instance": inst.name,
                         "file": v, "verdict": verdict, "reason": reason,
                         "time": time.time() - t0})
            print("%-20s %-22s %s (%.1f s) %s" % (inst.name, v, verdict,
                                                 rows[-1]["time"],
                                                 norm_reason(reason)[:100]),
                  flush=True)
    fams = list(dict.fromkeys(r["family"] for r in rows))
    L = ["", "| family | kernel files | proved (-O2 vs source) | other verdicts "
         "| median s | max s |", "|---|---|---|---|---|---|"]
    for fam in fams + [None]:
        rs = [r for r in rows if fam is None or r["family"] == fam]
        other = {}
        for r in rs:
            if r["verdict"] != "equivalent":
                other[r["verdict"]] = other.get(r["verdict"], 0) + 1
        med, mx = fmt_t([r["time"] for r in rs])
        L.append("| %s | %d | %d | %s | %s | %s |" % (
            fam or "**total**", len(rs),
            sum(r["verdict"] == "equivalent" for r in rs),
            ", ".join("%s %d" % kv for kv in sorted(other.items())) or "-",
            med, mx))
    groups = {}
    for r in rows:
        if r["verdict"] != "equivalent":
            groups.setdefault((r["verdict"], norm_reason(r["reason"])),
                              []).append("%s/%s" % (r["instance"], r["file"]))
    L += ["", "Not proved, by reason:", ""]
    for (v, reason), names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        L.append("- %d x %s: %s (%s)" % (len(names), v, reason,
                                         ", ".join(names)))
    return rows, L


def main():
    gen = load_gen()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    gen.add_args(ap)
    ap.add_argument("--timeout", type=int, default=60,
                    help="kvalidate's budget per pair in seconds (default 60)")
    ap.add_argument("--jobs", type=int, default=1,
                    help="pairs run at once (default 1)")
    ap.add_argument("--out", help="keep the pairs and results here")
    benchreport.add_args(ap, "bench-families")
    ap.add_argument("--kvalidate", default=os.path.join(BUILD, "bin", "kvalidate"))
    ap.add_argument("--plugin", action="store_true",
                    help="compile each kernel file with clang -O2 and the "
                         "pass plugin instead")
    ap.add_argument("--plugin-path", default=os.path.join(
        BUILD, "lib", "libkvalidate.so"))
    args = ap.parse_args()
    if args.plugin:
        args.report_name = "bench-families-plugin"
    out_dir = args.out or tempfile.mkdtemp(prefix="bench-families-")
    os.makedirs(out_dir, exist_ok=True)
    args.out, args.no_truth = out_dir, args.plugin

    head = benchreport.header(
        "kvalidate on generated rewrite families (%s)" % (
            "pass plugin, -O2" if args.plugin else "command line"))
    head[-1:-1] = ["kvalidate: %s." % (
        args.plugin_path if args.plugin else args.kvalidate)]
    print("\n".join(head), flush=True)
    t0 = time.time()
    insts, pairs = gen.generate(args, log=lambda s: print(s, flush=True))
    print(gen.summary(pairs), "(%.0f s)" % (time.time() - t0), flush=True)

    if args.plugin:
        _, L = run_plugin(args, out_dir, insts)
        lines = head + L
    else:
        by_name = {i.name: i for i in insts}
        todo = [p for p in pairs if p["label"] in ("equivalent", "broken")]

        def one(p):
            res = run_kvalidate(args.kvalidate, out_dir, p, args.timeout)
            p.update(verdict=res["verdict"], reason=res.get("reason", ""),
                     time=res["time"], cmd=res["cmd"])
            p["class"] = classify(p["label"], res)
            if p["class"] == "wrong" and p["label"] == "equivalent":
                p["recheck"] = recheck_on_host(out_dir, by_name, p, res)
            p["json"] = res.get("json")
            print("%-20s %-22s %-10s %-15s -> %-7s (%.1f s) %s" % (
                p["instance"], p["variant"], p["label"], p["verdict"],
                p["class"], p["time"], norm_reason(p["reason"])[:90]),
                flush=True)
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
            list(ex.map(one, todo))
        with open(os.path.join(out_dir, "results.json"), "w") as f:
            json.dump(pairs, f, indent=1)
        lines = table(pairs, head) + details(pairs)
    print("\n".join(lines[len(head):]))
    benchreport.write(args, lines)
    print("pairs and results kept in %s" % out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
