#!/usr/bin/env python3
"""Check that no source folder includes a header of a higher layer.

The layers, lowest first (a folder may include its own headers and those
of the layers below it, never those of a layer above or beside it):

  dialect/          the kv dialect (headers under dialect/include/kv/)
  smt-encode/       the solver layer and the kv-to-SMT encoder
  passes/lower/     LLVM IR (and gpu-dialect MLIR) lowered into kv
  equiv/            the driver, checks, runs and replay
  passes/plugins/   the clang/opt and mlir-opt plugins
  utils/            the command-line tools

The build's layer check (kv_add_layer, -z defs) catches a missing link
dependency; this catches the include that would make one. Prints each
offending include and a last line "layers: N files, N violations".

Usage: check-layers.py [ROOT]  (default: this source tree)
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Folder -> the include prefixes it may use.
ALLOWED = {
    "dialect": {"kv"},
    "smt-encode": {"kv", "smt-encode"},
    "passes/lower": {"kv", "passes/lower"},
    "equiv": {"kv", "smt-encode", "passes/lower", "equiv"},
    "passes/plugins": {"kv", "smt-encode", "passes/lower", "equiv",
                       "passes/plugins"},
    "utils": {"kv", "smt-encode", "passes/lower", "equiv", "passes/plugins",
              "utils"},
}
# The project's include prefixes (anything else is a system or LLVM header).
PROJECT = {"kv", "smt-encode", "passes", "equiv", "utils"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def prefix(path):
    """The layer prefix of an include path: passes/lower, equiv, ..."""
    parts = path.split("/")
    if parts[0] == "passes" and len(parts) > 2:
        return "passes/" + parts[1]
    return parts[0]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else ROOT
    files = violations = 0
    for folder, allowed in sorted(ALLOWED.items()):
        base = os.path.join(root, folder)
        for dirpath, _, names in os.walk(base):
            for name in sorted(names):
                if not name.endswith((".cpp", ".h", ".inc")):
                    continue
                path = os.path.join(dirpath, name)
                files += 1
                with open(path, errors="replace") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1).split("/")[0] not in PROJECT:
                            continue
                        if "/" not in m.group(1):
                            continue  # a header beside the file
                        p = prefix(m.group(1))
                        if p not in allowed:
                            violations += 1
                            print("%s:%d: %s (layer %s) includes %s" % (
                                os.path.relpath(path, root), n, m.group(1),
                                folder, p))
    print("layers: %d files, %d violations" % (files, violations))
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
