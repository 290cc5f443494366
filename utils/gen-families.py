#!/usr/bin/env python3
"""Generate kernel-pair rewrite families and their ground truth.

Usage: utils/gen-families.py --out DIR [--families a,b] [--count N]
                             [--seed S] [--runs R] [--no-truth]

Each family template (utils/families/: layout.py has tiling, coalesce,
coarsen and relaunch; loops.py unroll, shuffle, privatize, double-buffer
and register-block) is
instantiated N times with random parameters, reproducibly from the seed.
An instance is written to DIR/FAMILY/NAME/: before.cu, after.cu (the
rewrite, meant to be equivalent), mut-LABEL.cu (the rewrite broken by one
labelled edit), driver.cpp (the host run) and pair.json.

The ground truth comes from host runs only (utils/families/groundtruth.py,
cuda_host_shim.h): both kernels of a pair, compiled with clang++ for the
host, run on R random launches that satisfy the pair's `assume` and on the
same random inputs; every output array is compared bit for bit. A pair is
`equal` or `different`; a mutant no run tells apart is `undistinguished`
(not counted as broken), and a pair whose host run failed is `error`.

DIR/pairs.json lists every pair: family, instance, before and after file,
the kernel, the assumption, the mutation label and the ground truth. The
last line printed is the summary.
"""
import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "families"))
import families as fam_mod   # noqa: E402
import groundtruth           # noqa: E402


def expected_label(designed, truth):
    """How a pair counts: the ground truth decides, the design only names
    the failure when they disagree."""
    if truth in ("error", "untested"):
        return truth
    if designed == "broken":
        return "broken" if truth == "different" else "undistinguished"
    # A rewrite meant to be equivalent that the runs show different (a float
    # sum reassociated) is a broken pair for the benchmark.
    return "equivalent" if truth == "equal" else "broken"


def write_instance(inst, out_dir):
    d = os.path.join(out_dir, inst.family, inst.name)
    os.makedirs(d, exist_ok=True)
    for v, src in inst.sources.items():
        with open(os.path.join(d, v + ".cu"), "w") as f:
            f.write(src)
    return d


def generate(args, log=print):
    fams = args.families.split(",") if args.families else list(
        fam_mod.FAMILIES)
    for f in fams:
        if f not in fam_mod.FAMILIES:
            sys.exit("gen-families: unknown family %r (have: %s)" %
                     (f, ", ".join(fam_mod.FAMILIES)))
    insts = fam_mod.generate(fams, args.count, args.seed)
    pairs = []
    for inst in insts:
        d = write_instance(inst, args.out)
        t0 = time.time()
        if args.no_truth:
            truths = {v: ("untested", "no host runs (--no-truth)") for v in inst.sources
                      if v != "before"}
        else:
            try:
                truths, _ = groundtruth.truth_for_instance(
                    inst, d, args.runs, args.seed)
            except RuntimeError as e:
                log(str(e))
                truths = {v: ("error", "host compile failed")
                          for v in inst.sources if v != "before"}
        for v, (truth, detail) in truths.items():
            designed = "equivalent" if v == "after" else "broken"
            pairs.append({
                "family": inst.family, "instance": inst.name,
                "desc": inst.desc, "dir": os.path.relpath(d, args.out),
                "before": "before.cu", "after": v + ".cu",
                "kernel": fam_mod.KERNEL, "assume": inst.assume,
                "launch_before": inst.launch_of("before"),
                "launch_after": inst.launch_of(v),
                "variant": v, "designed": designed,
                "mutation": inst.mutations.get(v),
                "notes": inst.notes, "truth": truth, "truth_detail": detail,
                "label": expected_label(designed, truth),
            })
        with open(os.path.join(d, "pair.json"), "w") as f:
            json.dump({"family": inst.family, "instance": inst.name,
                       "desc": inst.desc, "assume": inst.assume,
                       "notes": inst.notes,
                       "params": [p.decl() for p in inst.params],
                       "pairs": [p for p in pairs
                                 if p["instance"] == inst.name]}, f, indent=1)
        log("%-20s %-40s %s  (%.1f s)" % (
            inst.name, inst.desc, " ".join(
                "%s=%s" % (v, t) for v, (t, _) in truths.items()),
            time.time() - t0))
    with open(os.path.join(args.out, "pairs.json"), "w") as f:
        json.dump(pairs, f, indent=1)
    return insts, pairs


def summary(pairs):
    c = {}
    for p in pairs:
        c[p["label"]] = c.get(p["label"], 0) + 1
    return ("gen-families: %d pairs: %d equivalent, %d broken, "
            "%d undistinguished, %d error" % (
                len(pairs), c.get("equivalent", 0), c.get("broken", 0),
                c.get("undistinguished", 0), c.get("error", 0)))


def add_args(ap):
    ap.add_argument("--families", default="",
                    help="comma-separated families (default: all: %s)" %
                    ", ".join(fam_mod.FAMILIES))
    ap.add_argument("--count", type=int, default=3,
                    help="instances per family (default 3)")
    ap.add_argument("--seed", default="1", help="random seed (default 1)")
    ap.add_argument("--runs", type=int, default=6,
                    help="random launches per pair in the host runs "
                         "(default 6)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="directory for the pairs")
    ap.add_argument("--no-truth", action="store_true",
                    help="write the pairs only, no host runs")
    add_args(ap)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    _, pairs = generate(args)
    for p in pairs:
        if p["label"] == "untested":
            continue
        if p["label"] in ("undistinguished", "error") or (
                p["designed"] == "equivalent" and p["label"] != "equivalent"):
            print("note: %s/%s: %s (%s) %s" % (
                p["instance"], p["variant"], p["label"],
                p["mutation"] or p["notes"] or "the rewrite",
                p["truth_detail"]))
    print(summary(pairs))
    return 1 if any(p["label"] == "error" for p in pairs) else 0


if __name__ == "__main__":
    sys.exit(main())
