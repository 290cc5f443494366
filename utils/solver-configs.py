#!/usr/bin/env python3
"""Tabulate how four solver strategies do on kvalidate's main queries.

Usage: KV_DEBUG=strategies lit -a build/test/loops | utils/solver-configs.py
       utils/solver-configs.py LOG [LOG ...]

With KV_DEBUG=strategies (or --kv-debug=strategies, -mllvm -kv-debug=...),
every main query is solved once more by each strategy alone, one after the
other, at most 60 s each, and kvalidate prints a line

  strategies: default=909u eqs=60036? default-r0=822u eqs-r0=6279u

(milliseconds; u unsat, s sat, ? unknown). This reads such lines from the
files given or from stdin and prints, per strategy, the total time (an
unknown counts as 120 s), the unknowns and the slowest query; then the total
of each pair run as a race (the faster of the two per query), which is what
smt-encode/Solver.cpp's Portfolio does with its two. The strategies:
default is Z3's default solver, eqs simplify + solve-eqs + the SMT core,
-r0 the same with smt.relevancy=0. A query that one strategy finds sat and
another unsat is listed: that is a solver bug.
"""
import itertools
import re
import sys

UNKNOWN_MS = 120000
LINE = re.compile(r"strategies:((?: [\w-]+=\d+[su?])+)")


def parse(stream):
    rows = []
    for line in stream:
        m = LINE.search(line)
        if not m:
            continue
        row = {}
        for item in m.group(1).split():
            name, val = item.split("=")
            row[name] = (int(val[:-1]), val[-1])
        rows.append(row)
    return rows


def cost(entry):
    ms, res = entry
    return UNKNOWN_MS if res == "?" else ms


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    rows = []
    if len(sys.argv) > 1:
        for path in sys.argv[1:]:
            with open(path, errors="replace") as f:
                rows += parse(f)
    else:
        rows = parse(sys.stdin)
    if not rows:
        print("solver-configs: no 'strategies:' lines (run with "
              "KV_DEBUG=strategies)", file=sys.stderr)
        return 1
    names = list(rows[0])
    print("%d queries" % len(rows))
    print("%-12s %10s %8s %10s" % ("strategy", "total ms", "unknown",
                                   "slowest"))
    for n in names:
        costs = [cost(r[n]) for r in rows if n in r]
        print("%-12s %10d %8d %10d" % (
            n, sum(costs), sum(1 for r in rows if r.get(n, (0, ""))[1] == "?"),
            max(costs)))
    print()
    print("%-24s %10s" % ("race of two", "total ms"))
    for a, b in itertools.combinations(names, 2):
        total = sum(min(cost(r[a]), cost(r[b])) for r in rows
                    if a in r and b in r)
        print("%-24s %10d" % (a + " + " + b, total))
    bad = [r for r in rows
           if len({res for _, res in r.values() if res != "?"}) > 1]
    for r in bad:
        print("sat and unsat for one query:", r)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
