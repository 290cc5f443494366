#!/usr/bin/env python3
"""Run the command-line examples of README.md.

Every indented command that starts with `build/bin/kvalidate` and names
kernels as FILE:KERNEL (a usage line with `[options]` is not one) runs from
the source root, with `build/` replaced by the build directory. An example
must print a verdict and end with a verdict's exit status (0, 1, 2 or 4),
not a usage or input error (3) or a crash; where the text right after the
example names an exit status ("(exit 0)"), that one.

Usage: readme-examples.py [--build DIR] [--readme FILE]
Prints one line per example and a last line "readme: N examples, N failed".
"""
import argparse
import os
import re
import shlex
import subprocess
import sys


def examples(text):
    """The README's kvalidate commands, with the exit status the text names
    after each, if it names one."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("    build/bin/kvalidate"):
            i += 1
            continue
        cmd = line.strip()
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd[:-1].rstrip() + " " + lines[i].strip()
        i += 1
        if "[options]" in cmd or not re.search(r"\S+\.(cu|ll|bc|mlir):\S+", cmd):
            continue
        # The text after the block: the first non-blank, non-indented line.
        j = i
        while j < len(lines) and (not lines[j].strip() or lines[j].startswith("    ")):
            j += 1
        follow = lines[j] if j < len(lines) else ""
        m = re.search(r"\(exit (\d)\)", follow)
        out.append((cmd, int(m.group(1)) if m else None))
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(root, "build"))
    ap.add_argument("--readme", default=os.path.join(root, "README.md"))
    args = ap.parse_args()
    with open(args.readme) as f:
        found = examples(f.read())
    failed = 0
    for cmd, want in found:
        argv = shlex.split(cmd)
        argv[0] = os.path.join(args.build, "bin", "kvalidate")
        try:
            r = subprocess.run(argv, cwd=root, capture_output=True, text=True,
                               timeout=600)
            status, out = r.returncode, r.stdout
        except subprocess.TimeoutExpired:
            status, out = None, ""
        verdict = re.search(r"^verdict: (\S+)", out, re.M)
        ok = (status in (0, 1, 2, 4) and verdict is not None and
              (want is None or status == want))
        failed += not ok
        print("%s: exit %s, verdict %s%s: %s" % (
            "ok" if ok else "FAILED", status,
            verdict.group(1) if verdict else "none",
            "" if want is None else " (README: exit %d)" % want, cmd))
    print("readme: %d examples, %d failed" % (len(found), failed))
    return 1 if failed or not found else 0


if __name__ == "__main__":
    sys.exit(main())
