"""Ground truth for the generated pairs, from host runs (never from
kvalidate): every variant of an instance is compiled for the host with
cuda_host_shim.h and run against `before` on the same random launches and
inputs; each output array is compared bit for bit."""
import os
import random
import re
import shutil
import subprocess

from families import parse_launch

HERE = os.path.dirname(os.path.abspath(__file__))
PAD = 64            # cells before and after each array (see driver_source)


def clang_path():
    return shutil.which("clang++-22") or "clang++"


def eval_assume(assume, grid, block, scalars):
    """Evaluate a generated --assume expression (C syntax, the subset the
    families write) on a concrete launch."""
    env = dict(scalars)
    for d, name in enumerate("xyz"):
        env["gridDim_" + name] = grid[d]
        env["blockDim_" + name] = block[d]
    e = re.sub(r"\b(gridDim|blockDim)\.([xyz])\b", r"\1_\2", assume)
    e = e.replace("&&", " and ").replace("||", " or ")
    e = re.sub(r"!(?!=)", " not ", e).replace("/", "//")
    return bool(eval(e, {"__builtins__": {}}, env))


def sample_launches(inst, runs, seed):
    rng = random.Random("%s/%s/launches" % (seed, inst.name))
    out = []
    for _ in range(runs):
        grid, block, scalars = inst.sample_launch(rng)
        assert eval_assume(inst.assume, grid, block, scalars), (
            inst.name, grid, block, scalars, inst.assume)
        out.append((grid, block, scalars))
    return out


def driver_source(inst):
    """C++ that runs `before` and one other variant (argv[1]) on the
    launches read from stdin, one per line: gx gy gz bx by bz seed and the
    scalar parameters in order. Arrays get PAD cells on each side (plus a
    quarter of their size after), filled like the array, so that a mutant
    that writes past an end differs there instead of corrupting memory.
    Prints, per launch, `equal` or `different ARRAY INDEX BEFORE AFTER`."""
    arrays = [p for p in inst.params if p.kind != "scalar"]
    scalars = [p for p in inst.params if p.kind == "scalar"]
    variants = list(inst.sources)
    L = ['#include "cuda_host_shim.h"', "#include <cstdio>",
         "#include <cstdlib>", "#include <random>", "#include <vector>", ""]
    for i, v in enumerate(variants):
        L += ["namespace v%d {  // %s" % (i, v), inst.source(v), "}"]
    L += ["", "template <class T> void fill(std::vector<T> &v, std::mt19937 &g) {",
          "  for (auto &x : v) {",
          "    if constexpr (std::is_floating_point_v<T>)",
          "      x = std::uniform_real_distribution<T>(-100, 100)(g);",
          "    else",
          "      x = std::uniform_int_distribution<int>(-8, 23)(g);",
          "  }", "}",
          "template <class T> unsigned long long bits(T x) {",
          "  unsigned long long b = 0; std::memcpy(&b, &x, sizeof x); return b;",
          "}", "",
          "int main(int argc, char **argv) {",
          "  int kv_variant = std::atoi(argv[1]);",
          "  unsigned gx, gy, gz, bx, by, bz; unsigned long kv_seed;",
          "  for (int kv_launch = 0; std::scanf(\"%u %u %u %u %u %u %lu\", "
          "&gx, &gy, &gz, &bx, &by, &bz, &kv_seed) == 7; ++kv_launch) {"]
    for p in scalars:
        L.append("    int %s = 0; if (std::scanf(\"%%d\", &%s) != 1) return 3;"
                 % (p.name, p.name))
    L.append("    std::mt19937 kv_rng(kv_seed);")
    for p in arrays:
        L += ["    size_t sz_%s = (size_t)(%s);" % (p.name, p.size),
              "    std::vector<%s> init_%s(sz_%s + 2 * %d + sz_%s / 4);"
              % (p.ctype, p.name, p.name, PAD, p.name),
              "    fill(init_%s, kv_rng);" % p.name]
    args = ", ".join(("w_%s.data() + %d" % (p.name, PAD)) if p.kind != "scalar"
                     else p.name for p in inst.params)
    L.append("    auto kv_run = [&](int kv_v, %s) {" % ", ".join(
        "std::vector<%s> &w_%s" % (p.ctype, p.name) for p in arrays))
    L.append("      switch (kv_v) {")
    for i, v in enumerate(variants):
        # A variant's own launch, computed from the scalars as kvalidate's
        # --launch-before/--launch-after are.
        if inst.launches:
            d = ["(unsigned)(%s)" % e for e in parse_launch(inst.launch_of(v))]
            launch = "{%s}, {%s}" % (", ".join(d[:3]), ", ".join(d[3:]))
        else:
            launch = "{gx, gy, gz}, {bx, by, bz}"
        L.append("      case %d: kvh::launch(%s, "
                 "[&] { v%d::%s(%s); }); break;" % (i, launch, i, "kern", args))
    L += ["      }", "    };"]
    for tag in ("ref", "got"):
        for p in arrays:
            L.append("    std::vector<%s> %s_%s = init_%s;" % (p.ctype, tag,
                                                             p.name, p.name))
    L.append("    kv_run(0, %s);" % ", ".join("ref_" + p.name for p in arrays))
    L.append("    kv_run(kv_variant, %s);" % ", ".join("got_" + p.name
                                                     for p in arrays))
    L.append("    bool kv_same = true;")
    for p in [p for p in arrays if p.kind == "out"]:
        L += ["    for (size_t j = 0; kv_same && j < ref_%s.size(); ++j)" % p.name,
              "      if (bits(ref_%s[j]) != bits(got_%s[j])) {" % (p.name, p.name),
              "        kv_same = false;",
              "        std::printf(\"different %s %%lld %%.9g %%.9g\\n\", "
              "(long long)j - %d, (double)ref_%s[j], (double)got_%s[j]);"
              % (p.name, PAD, p.name, p.name),
              "      }"]
    L += ["    if (kv_same) std::printf(\"equal\\n\");",
          "    std::fflush(stdout);", "  }", "  return 0;", "}"]
    return "\n".join(L) + "\n"


def compile_driver(inst, workdir, clang=None):
    src = os.path.join(workdir, "driver.cpp")
    exe = os.path.join(workdir, "driver")
    with open(src, "w") as f:
        f.write(driver_source(inst))
    cmd = [clang or clang_path(), "-std=c++20", "-O1", "-pthread",
           "-ffp-contract=off", "-w", "-I", HERE, src, "-o", exe]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("host compile of %s failed:\n%s" % (src,
                                                               r.stderr[-3000:]))
    return exe


def launch_line(grid, block, scalars, seed, inst):
    vals = [scalars[p.name] for p in inst.params if p.kind == "scalar"]
    return " ".join(str(v) for v in list(grid) + list(block) + [seed] + vals)


def run_variant(exe, inst, variant, launches, seed, timeout=60):
    """Run before against `variant` on each launch. Returns (truth, detail):
    truth is `equal` (no launch differs), `different` or `error`."""
    idx = list(inst.sources).index(variant)
    lines = [launch_line(g, b, s, "%d" % (hash_seed(seed, inst.name, i)), inst)
             for i, (g, b, s) in enumerate(launches)]
    try:
        r = subprocess.run([exe, str(idx)], input="\n".join(lines) + "\n",
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "error", "host run timed out after %d s (deadlock?)" % timeout
    out = r.stdout.splitlines()
    if r.returncode != 0 or len(out) != len(lines):
        return "error", "host run exit %d after %d of %d launches: %s" % (
            r.returncode, len(out), len(lines), r.stderr[-300:])
    for (g, b, s), o in zip(launches, out):
        if o != "equal":
            return "different", "grid %s block %s scalars %s: %s" % (g, b, s, o)
    return "equal", "%d launches equal" % len(lines)


def hash_seed(seed, name, i):
    return random.Random("%s/%s/input/%d" % (seed, name, i)).getrandbits(31)


def truth_for_instance(inst, workdir, runs, seed, clang=None):
    """{variant: (truth, detail)} for every variant but before."""
    exe = compile_driver(inst, workdir, clang)
    launches = sample_launches(inst, runs, seed)
    return {v: run_variant(exe, inst, v, launches, seed)
            for v in inst.sources if v != "before"}, exe


def truth_at(exe, inst, variant, grid, block, scalars, seed, tries=3):
    """Host runs at one given launch (a kvalidate counterexample's), with
    random inputs: does the host see the kernels differ there?"""
    return run_variant(exe, inst, variant, [(grid, block, scalars)] * tries,
                       seed)
