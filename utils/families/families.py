"""Kernel-pair rewrite families for utils/gen-families.py and
utils/bench-families.py.

An *instance* is one family template instantiated with random parameters
(element type, sizes as literals or kernel parameters, tile and block
shapes, per-thread counts). It holds a `before` kernel, an equivalent
`after` kernel, and mutants of `after`, each made by one labelled textual
edit that is meant to break it. All kernels are named `kern` and share one
parameter list and one launch constraint (`assume`, in kvalidate's
`--assume` syntax), and `sample_launch` draws small launches that satisfy
it, for the host runs that give the ground truth (groundtruth.py). A family
whose rewrite changes the launch gives each variant a launch of its own
(`launches`, in kvalidate's --launch-before/--launch-after syntax, over the
scalars); its `assume` then constrains the scalars alone.
"""
import random
import re

KERNEL = "kern"
ONE_D = ("blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && "
         "gridDim.z == 1")


class Param:
    """A kernel parameter: an input or output array of `ctype` with `size`
    elements (a C++ expression over gx, gy, gz, bx, by, bz and the scalar
    parameters), or an int scalar."""

    def __init__(self, name, kind, ctype="int", size=None):
        assert kind in ("in", "out", "scalar")
        self.name, self.kind, self.ctype, self.size = name, kind, ctype, size

    def decl(self):
        if self.kind == "scalar":
            return "int %s" % self.name
        const = "const " if self.kind == "in" else ""
        return "%s%s *%s" % (const, self.ctype, self.name)


def parse_launch(spec):
    """The six C expressions (gridDim x y z, blockDim x y z) of a launch
    `grid=(X, Y, Z) block=(X, Y, Z)`; a dimension left out is 1."""
    dims = ["1"] * 6
    for key, val in re.findall(r"(grid|block)=(\([^=]*\)|\S+)", spec):
        if val.startswith("("):
            val = val[1:-1]
        parts, depth, cur = [], 0, ""
        for ch in val:
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        off = 0 if key == "grid" else 3
        for i, p in enumerate(parts):
            dims[off + i] = p.strip()
    return dims


class Instance:
    def __init__(self, family, name, params, assume, sample_launch,
                 before, after, mutants, desc, notes="", launches=None,
                 launch_mutants=()):
        self.family, self.name = family, name
        self.params, self.assume = params, assume
        self.sample_launch = sample_launch   # rng -> (grid, block, scalars)
        self.desc, self.notes = desc, notes
        self.sources = {"before": before, "after": after}
        self.mutations = {}                  # variant -> label
        # Each variant's own launch ({"before": spec, "after": spec}), or
        # None: one launch for all.
        self.launches = dict(launches) if launches else None
        for label, old, new in mutants:
            # Each edit must hit exactly one place, or the label would lie.
            assert after.count(old) == 1, (family, name, label, old)
            var = "mut-" + label.split(":")[0].replace(" ", "-")
            assert var not in self.sources, var
            self.sources[var] = after.replace(old, new)
            self.mutations[var] = label
            if self.launches:
                self.launches[var] = self.launches["after"]
        # Mutants of the after kernel's launch, its source kept.
        for label, spec in launch_mutants:
            var = "mut-" + label.split(":")[0].replace(" ", "-")
            assert var not in self.sources, var
            self.sources[var] = after
            self.mutations[var] = label
            self.launches[var] = spec

    def launch_of(self, variant):
        return self.launches[variant] if self.launches else None

    def signature(self):
        return ", ".join(p.decl() for p in self.params)

    def source(self, variant):
        return self.sources[variant]


def header(ctype, defines, comment):
    lines = ["// " + comment]
    lines += ["#define %s %s" % d for d in defines]
    return "\n".join(lines) + "\n\n"


def f_of(ctype, e):
    """The per-element function of the map-like families."""
    if ctype == "float":
        return "%s * 3.0f + 1.0f" % e
    return "%s * 3 + 1" % e


def size_or_param(rng, literal_choices, literal):
    """A size that is a #define (literal: returns its value) or a kernel int
    parameter (returns None)."""
    return rng.choice(literal_choices) if literal else None


def axis(idx, options, div=1):
    """The structural choices cycle with the instance number (a mixed-radix
    digit of idx), so that a few instances per family already cover the
    forms; the remaining parameters are drawn at random."""
    return options[idx // div % len(options)]


# --- coalesce: K contiguous cells per thread vs a grid-strided walk -------

def fam_coalesce(rng, idx):
    ct = axis(idx, ["int", "float"])
    K = size_or_param(rng, [1, 2, 3, 4, 8], axis(idx, [False, True], 2))
    fixed_b = rng.choice([None, 32, 64, 256])
    params = [Param("in", "in", ct, "K * gx * bx"),
              Param("out", "out", ct, "K * gx * bx")]
    defines = []
    assume = ONE_D
    if K is None:
        params.append(Param("K", "scalar"))
        assume += " && K > 0 && K <= 8"
    else:
        defines.append(("K", K))
    if fixed_b:
        assume = "blockDim.x == %d && " % fixed_b + assume
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "coalesce: K=%s, %s, block %s" %
                 (K or "param", ct, fixed_b or "free"))
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int k = 0; k < K; ++k)
    out[K * t + k] = {f_of(ct, "in[K * t + k]")};
}}
"""
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int nt = gridDim.x * blockDim.x;
  for (int k = 0; k < K; ++k)
    out[t + k * nt] = {f_of(ct, "in[t + k * nt]")};
}}
"""
    mutants = [
        ("bound: k < K - 1", "k < K;", "k < K - 1;"),
        ("offset: out[t + k * nt + 1]", "out[t + k * nt]",
         "out[t + k * nt + 1]"),
        ("stride: nt = gridDim.x * blockDim.x + 1",
         "int nt = gridDim.x * blockDim.x;",
         "int nt = gridDim.x * blockDim.x + 1;"),
    ]

    def launch(r):
        bx = fixed_b or r.choice([1, 3, 17, 32, 64, 100])
        s = {} if K is not None else {"K": r.randint(1, 8)}
        return [r.randint(1, 3), 1, 1], [bx, 1, 1], s
    return Instance("coalesce", "coalesce-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "K=%s %s block=%s" % (K or "param", ct, fixed_b or "free"))


# --- coarsen: one cell per thread vs C cells per thread, one launch -------

def fam_coarsen(rng, idx):
    ct = axis(idx, ["int", "float"], 2)
    C = rng.choice([2, 3, 4])
    if axis(idx, [True, False]):
        return coarsen_1d(rng, idx, ct, C)
    return coarsen_2d(rng, idx, ct, C)


def coarsen_1d(rng, idx, ct, C):
    N = size_or_param(rng, [100, 1000], rng.random() < 0.5)
    fixed_b = rng.choice([None, 64, 128])
    form = rng.choice(["cyclic", "contiguous"])
    params = [Param("in", "in", ct, "gx * bx"),
              Param("out", "out", ct, "gx * bx")]
    defines = [("C", C)]
    nn = "n"
    if N is None:
        params.append(Param("n", "scalar"))
        assume = "n > 0 && n <= 1048576 && "
    else:
        defines.append(("N", N))
        nn = "N"
        assume = ""
    lim = nn if N is None else str(N)   # --assume knows no macros
    assume += ("gridDim.x * blockDim.x >= %s && "
               "gridDim.x * blockDim.x < %s + blockDim.x && " % (lim, lim))
    assume += ONE_D
    if fixed_b:
        assume = "blockDim.x == %d && " % fixed_b + assume
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "coarsen 1-D: C=%d %s, n=%s, %s, block %s" %
                 (C, form, N or "param", ct, fixed_b or "free"))
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < {nn})
    out[i] = {f_of(ct, "in[i]")};
}}
"""
    if form == "cyclic":
        base = "int base = blockIdx.x * blockDim.x * C + threadIdx.x;"
        cell = "int i = base + c * blockDim.x;"
        stride_mut = ("stride: c * (blockDim.x + 1)", "c * blockDim.x",
                      "c * (blockDim.x + 1)")
    else:
        base = "int base = (blockIdx.x * blockDim.x + threadIdx.x) * C;"
        cell = "int i = base + c;"
        stride_mut = ("stride: base + 2 * c", "base + c", "base + 2 * c")
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  {base}
  for (int c = 0; c < C; ++c) {{
    {cell}
    if (i < {nn})
      out[i] = {f_of(ct, "in[i]")};
  }}
}}
"""
    mutants = [
        ("bound: c < C - 1", "c < C;", "c < C - 1;"),
        ("guard: i <= n", "if (i < %s)" % nn, "if (i <= %s)" % nn),
        stride_mut,
        ("offset: out[i + 1]", "out[i] =", "out[i + 1] ="),
    ]

    def launch(r):
        bx = fixed_b or r.choice([1, 5, 32, 64, 96])
        if N is not None:
            gx = -(-N // bx)
            if gx > 64:     # a 1-thread block for n = 1000: too many blocks
                bx = fixed_b or 32
                gx = -(-N // bx)
            return [gx, 1, 1], [bx, 1, 1], {}
        gx = r.randint(1, 3)
        return [gx, 1, 1], [bx, 1, 1], {"n": r.randint(gx * bx - bx + 1,
                                                       gx * bx)}
    return Instance("coarsen", "coarsen-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "1-D x%d %s n=%s %s block=%s" % (
                        C, form, N or "param", ct, fixed_b or "free"))


def coarsen_2d(rng, idx, ct, C):
    axis = rng.choice(["x", "y"])
    shape = rng.choice([None, (16, 16), (32, 8), (8, 4)])
    params = [Param("in", "in", ct, "w * h"), Param("out", "out", ct, "w * h"),
              Param("w", "scalar"), Param("h", "scalar")]
    assume = ("w > 0 && h > 0 && w <= 4096 && h <= 4096 && "
              "gridDim.x * blockDim.x >= w && gridDim.x * blockDim.x < w + blockDim.x && "
              "gridDim.y * blockDim.y >= h && gridDim.y * blockDim.y < h + blockDim.y && "
              "blockDim.z == 1 && gridDim.z == 1")
    if shape:
        assume = "blockDim.x == %d && blockDim.y == %d && " % shape + assume
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, [("C", C)], "coarsen 2-D: C=%d along %s, %s, block %s" %
                 (C, axis, ct, shape or "free"))
    body = f_of(ct, "in[y * w + x]")
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = {body};
}}
"""
    if axis == "x":
        first = ("int x0 = blockIdx.x * blockDim.x * C + threadIdx.x;\n"
                 "  int y = blockIdx.y * blockDim.y + threadIdx.y;")
        cell = "int x = x0 + c * blockDim.x;"
        stride_mut = ("stride: x0 + c * (blockDim.x + 1)", "x0 + c * blockDim.x",
                      "x0 + c * (blockDim.x + 1)")
    else:
        first = ("int x = blockIdx.x * blockDim.x + threadIdx.x;\n"
                 "  int y0 = blockIdx.y * blockDim.y * C + threadIdx.y;")
        cell = "int y = y0 + c * blockDim.y;"
        stride_mut = ("stride: y0 + c * (blockDim.y + 1)", "y0 + c * blockDim.y",
                      "y0 + c * (blockDim.y + 1)")
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  {first}
  for (int c = 0; c < C; ++c) {{
    {cell}
    if (x < w && y < h)
      out[y * w + x] = {body};
  }}
}}
"""
    mutants = [
        ("bound: c < C - 1", "c < C;", "c < C - 1;"),
        ("guard: x <= w", "x < w &&", "x <= w &&"),
        stride_mut,
    ]

    def launch(r):
        bx, by = shape or r.choice([(4, 4), (8, 2), (16, 4), (3, 5), (1, 7)])
        gx, gy = r.randint(1, 3), r.randint(1, 3)
        return [gx, gy, 1], [bx, by, 1], {
            "w": r.randint(gx * bx - bx + 1, gx * bx),
            "h": r.randint(gy * by - by + 1, gy * by)}
    return Instance("coarsen", "coarsen-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "2-D x%d along %s %s block=%s" % (C, axis, ct,
                                                      shape or "free"))


# --- unroll: a per-thread loop vs the loop unrolled by U + remainder ------

def fam_unroll(rng, idx):
    form = axis(idx, ["store", "sum", "sum-multi"])
    # Floats for the multi-accumulator form: the sum is reassociated.
    ct = "float" if form == "sum-multi" else rng.choice(["int", "float"])
    U = rng.choice([2, 4])
    M = size_or_param(rng, [5, 7, 8, 10], rng.random() < 0.5)
    mm = "M" if M is not None else "m"
    params = [Param("in", "in", ct, "n * %s" % mm),
              Param("out", "out", ct, "n * %s" % mm if form == "store"
                    else "n"),
              Param("n", "scalar")]
    defines = [("U", U)]
    assume = ONE_D + " && n >= 0 && n <= 65536"
    if M is None:
        params.append(Param("m", "scalar"))
        assume += " && m >= 0 && m <= 64"
    else:
        defines.append(("M", M))
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "unroll: %s, U=%d, m=%s, %s" %
                 (form, U, M or "param", ct))
    zero = "0.0f" if ct == "float" else "0"
    row = "in + i * %s" % mm
    if form == "store":
        out_row = "out + i * %s" % mm
        before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const {ct} *a = {row};
  {ct} *o = {out_row};
  for (int k = 0; k < {mm}; ++k)
    o[k] = {f_of(ct, "a[k]")};
}}
"""
        unrolled = "\n".join("    o[k + %d] = %s;" % (u, f_of(ct, "a[k + %d]" % u))
                             for u in range(U)).replace("k + 0", "k")
        after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const {ct} *a = {row};
  {ct} *o = {out_row};
  int k = 0;
  for (; k + U <= {mm}; k += U) {{
{unrolled}
  }}
  for (int r = ({mm} / U) * U; r < {mm}; ++r)
    o[r] = {f_of(ct, "a[r]")};
}}
"""
        last = "o[k + %d] = %s;" % (U - 1, f_of(ct, "a[k + %d]" % (U - 1)))
        offset_mut = ("offset: o[k + %d] reads a[k + %d]" % (U - 1, U), last,
                      "o[k + %d] = %s;" % (U - 1, f_of(ct, "a[k + %d]" % U)))
    else:
        before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const {ct} *a = {row};
  {ct} s = {zero};
  for (int k = 0; k < {mm}; ++k)
    s += a[k];
  out[i] = s;
}}
"""
        if form == "sum":
            unrolled = "\n".join("    s += a[k + %d];" % u
                                 for u in range(U)).replace("k + 0", "k")
            accs = "%s s = %s;" % (ct, zero)
            combine = ""
        else:
            # U accumulators: reassociates the sum (equal for ints; for
            # floats the ground truth decides).
            unrolled = "\n".join("    s%d += a[k + %d];" % (u, u)
                                 for u in range(U)).replace("k + 0", "k")
            accs = " ".join("%s s%d = %s;" % (ct, u, zero) for u in range(U))
            combine = "\n  %s s = %s;" % (ct, " + ".join(
                "s%d" % u for u in range(U)))
        after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const {ct} *a = {row};
  {accs}
  int k = 0;
  for (; k + U <= {mm}; k += U) {{
{unrolled}
  }}{combine}
  for (int r = ({mm} / U) * U; r < {mm}; ++r)
    s += a[r];
  out[i] = s;
}}
"""
        lastl = unrolled.splitlines()[-1].strip()
        offset_mut = ("offset: last unrolled term reads a[k + %d]" % U, lastl,
                      lastl.replace("a[k + %d]" % (U - 1), "a[k + %d]" % U))
    mutants = [
        ("remainder-late: remainder starts at (m / U) * U + 1",
         "r = (%s / U) * U;" % mm, "r = (%s / U) * U + 1;" % mm),
        ("remainder-early: remainder starts at (m / U) * U - 1",
         "r = (%s / U) * U;" % mm, "r = (%s / U) * U - 1;" % mm),
        ("bound: k + U < m", "k + U <= %s;" % mm, "k + U < %s;" % mm),
        offset_mut,
    ]

    def launch(r):
        bx = r.choice([1, 8, 32, 64])
        gx = r.randint(1, 3)
        s = {"n": r.randint(0, gx * bx)}
        if M is None:
            s["m"] = r.randint(0, 13)
        return [gx, 1, 1], [bx, 1, 1], s
    notes = "sum-multi reassociates" if form == "sum-multi" else ""
    return Instance("unroll", "unroll-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "%s U=%d m=%s %s" % (form, U, M or "param", ct), notes)


# --- shuffle: shared-memory tree reduction vs warp shuffles ---------------

def fam_shuffle(rng, idx):
    form = axis(idx, ["same-tree", "warp-first"])
    ct = axis(idx, ["float", "int"], 2)
    B = rng.choice([None, 32, 64, 128, 256, 512, 1024])
    params = [Param("in", "in", ct, "gx * bx"), Param("out", "out", ct, "gx")]
    defines = []
    if B is None:
        blk, cap = "blockDim.x", 1024
        assume = ("blockDim.x >= 32 && (blockDim.x & (blockDim.x - 1)) == 0 && "
                  + ONE_D)
    else:
        defines.append(("B", B))
        blk, cap = "B", "B"
        assume = "blockDim.x == %d && " % B + ONE_D
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "shuffle: %s, block %s, %s" %
                 (form, B or "free (power of two >= 32)", ct))
    zero = "0.0f" if ct == "float" else "0"
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  __shared__ {ct} s[{cap}];
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * {blk} + tid];
  __syncthreads();
  for (unsigned st = {blk} / 2; st > 0; st >>= 1) {{
    if (tid < st)
      s[tid] += s[tid + st];
    __syncthreads();
  }}
  if (tid == 0)
    out[blockIdx.x] = s[0];
}}
"""
    if form == "same-tree":
        # Shared memory down to 64 partial sums, then the last five steps of
        # the same tree in warp 0 by shuffles: the same additions.
        after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  __shared__ {ct} s[{cap}];
  unsigned tid = threadIdx.x;
  s[tid] = in[blockIdx.x * {blk} + tid];
  __syncthreads();  // staged
  for (unsigned st = {blk} / 2; st >= 32; st >>= 1) {{
    if (tid < st)
      s[tid] += s[tid + st];
    __syncthreads();  // step
  }}
  if (tid < 32) {{
    {ct} v = s[tid];
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, off);
    if (tid == 0)
      out[blockIdx.x] = v;
  }}
}}
"""
        mutants = [
            ("shuffle-start: off = 8", "off = 16;", "off = 8;"),
            ("missing-sync: no barrier in the shared steps",
             "__syncthreads();  // step", ";"),
            ("bound: st > 32", "st >= 32;", "st > 32;"),
            ("offset: s[tid + st + 1]", "s[tid + st]", "s[tid + st + 1]"),
        ]
        notes = ""
    else:
        # Each warp reduces its own 32 values first: another tree (equal for
        # ints, reassociated for floats).
        after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  __shared__ {ct} s[32];
  unsigned tid = threadIdx.x;
  {ct} v = in[blockIdx.x * {blk} + tid];
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  if (tid % 32 == 0)
    s[tid / 32] = v;
  __syncthreads();
  if (tid < 32) {{
    v = tid < {blk} / 32 ? s[tid] : {zero};
    for (int off = 16; off > 0; off >>= 1)
      v += __shfl_down_sync(0xffffffffu, v, off);
    if (tid == 0)
      out[blockIdx.x] = v;
  }}
}}
"""
        mutants = [
            ("missing-sync: no barrier before the warp sums are read",
             "__syncthreads();", ";"),
            ("bound: tid < blockDim / 32 - 1", "tid < %s / 32 ?" % blk,
             "tid < %s / 32 - 1 ?" % blk),
            ("lane: warp sum written by lane 1", "tid % 32 == 0",
             "tid % 32 == 1"),
        ]
        notes = "warp-first reassociates" if ct == "float" else ""

    def launch(r):
        bx = B or r.choice([32, 64, 128, 256, 512, 1024])
        return [r.randint(1, 3 if bx <= 256 else 2), 1, 1], [bx, 1, 1], {}
    return Instance("shuffle", "shuffle-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "%s block=%s %s" % (form, B or "free", ct), notes)


# --- privatize: global atomic histogram vs shared-memory bins -------------

def fam_privatize(rng, idx):
    layout = axis(idx, ["if", "loop", "free"])
    if layout == "if":      # a fixed block with a bin per thread or more
        B = rng.choice([64, 128, 256])
        NB = rng.choice([nb for nb in (8, 16, 64, 256) if nb <= B])
    elif layout == "loop":  # a fixed block with more bins than threads
        B = rng.choice([32, 64])
        NB = rng.choice([128, 256])
    else:
        B, NB = None, rng.choice([8, 16, 64, 256])
    params = [Param("in", "in", "int", "n"), Param("hist", "out", "int", "NB"),
              Param("n", "scalar")]
    assume = "n > 0 && n <= 1048576 && " + ONE_D
    if B:
        assume = "blockDim.x == %d && " % B + assume
    sig = ", ".join(p.decl() for p in params)
    defines = [("NB", NB)] + ([("B", B)] if B else [])
    hdr = header("int", defines, "privatize: %d bins, block %s" %
                 (NB, B or "free"))
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(&hist[(unsigned)in[i] % NB], 1);
}}
"""
    if B and NB <= B:
        clear = "if (tid < NB)\n    sh[tid] = 0;"
        flush = "if (tid < NB)\n    atomicAdd(&hist[tid], sh[tid]);"
        clear_mut = ("clear: bins below NB - 1 only", "if (tid < NB)\n    sh",
                     "if (tid < NB - 1)\n    sh")
        flush_mut = ("flush: hist[tid + 1]", "&hist[tid]", "&hist[tid + 1]")
    elif B:
        # A constant trip count: NB / B bins per thread.
        clear = "for (int j = 0; j < NB / B; ++j)\n    sh[j * B + tid] = 0;"
        flush = ("for (int j = 0; j < NB / B; ++j)\n"
                 "    atomicAdd(&hist[j * B + tid], sh[j * B + tid]);")
        clear_mut = ("clear: one round short", "j < NB / B; ++j)\n    sh",
                     "j < NB / B - 1; ++j)\n    sh")
        flush_mut = ("flush: hist[j * B + tid + 1]", "&hist[j * B + tid]",
                     "&hist[j * B + tid + 1]")
    else:
        clear = "for (unsigned j = tid; j < NB; j += blockDim.x)\n    sh[j] = 0;"
        flush = ("for (unsigned j = tid; j < NB; j += blockDim.x)\n"
                 "    atomicAdd(&hist[j], sh[j]);")
        clear_mut = ("clear: bins below NB - 1 only",
                     "j < NB; j += blockDim.x)\n    sh",
                     "j < NB - 1; j += blockDim.x)\n    sh")
        flush_mut = ("flush: hist[j + 1]", "&hist[j]", "&hist[j + 1]")
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  __shared__ int sh[NB];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  {clear}
  __syncthreads();  // cleared
  if (i < n)
    atomicAdd(&sh[(unsigned)in[i] % NB], 1);
  __syncthreads();  // counted
  {flush}
}}
"""
    mutants = [
        clear_mut, flush_mut,
        ("missing-sync: no barrier before the flush",
         "__syncthreads();  // counted", ";"),
        ("missing-sync-clear: no barrier after the clear",
         "__syncthreads();  // cleared", ";"),
        ("bin: % (NB - 1)", "sh[(unsigned)in[i] % NB]",
         "sh[(unsigned)in[i] % (NB - 1)]"),
    ]
    def launch(r):
        bx = B or r.choice([1, 16, 64, 100, 256])
        gx = r.randint(1, 4)
        return [gx, 1, 1], [bx, 1, 1], {"n": r.randint(1, gx * bx)}
    return Instance("privatize", "privatize-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "bins=%d block=%s" % (NB, B or "free"))


# --- double-buffer: staged mat-vec, one buffer vs ping-pong ---------------

def fam_double_buffer(rng, idx):
    ct = axis(idx, ["int", "float"])
    B = rng.choice([16, 32])
    N = size_or_param(rng, [2 * B, 4 * B], axis(idx, [False, True], 2))
    nn = "n" if N is None else "N"
    params = [Param("a", "in", ct, "gx * %d * %s" % (B, nn)),
              Param("x", "in", ct, nn), Param("y", "out", ct, "gx * %d" % B)]
    defines = [("B", B)]
    assume = "blockDim.x == %d && " % B + ONE_D
    if N is None:
        params.append(Param("n", "scalar"))
        assume += " && n > 0 && n %% %d == 0 && n <= 4096" % B
    else:
        defines.append(("N", N))
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "double-buffer: mat-vec, x staged in tiles of "
                 "B, n=%s, %s" % (N or "param", ct))
    zero = "0.0f" if ct == "float" else "0"
    # A block of B threads, declared as CUDA code declares it: each thread
    # stages one cell of a tile of B.
    before = hdr + f"""__global__ void __launch_bounds__(B) {KERNEL}({sig}) {{
  __shared__ {ct} xs[B];
  unsigned tx = threadIdx.x;
  int row = blockIdx.x * B + tx;
  {ct} s = {zero};
  for (int t = 0; t < {nn} / B; ++t) {{
    xs[tx] = x[t * B + tx];
    __syncthreads();
    for (int j = 0; j < B; ++j)
      s += a[row * {nn} + t * B + j] * xs[j];
    __syncthreads();
  }}
  y[row] = s;
}}
"""
    after = hdr + f"""__global__ void __launch_bounds__(B) {KERNEL}({sig}) {{
  __shared__ {ct} xs[2][B];
  unsigned tx = threadIdx.x;
  int row = blockIdx.x * B + tx;
  {ct} s = {zero};
  xs[0][tx] = x[tx];
  __syncthreads();  // first tile
  for (int t = 0; t < {nn} / B; ++t) {{
    // Fetch the next tile into the other buffer while this one is read.
    if (t + 1 < {nn} / B)
      xs[(t + 1) % 2][tx] = x[(t + 1) * B + tx];
    for (int j = 0; j < B; ++j)
      s += a[row * {nn} + t * B + j] * xs[t % 2][j];
    __syncthreads();  // tile
  }}
  y[row] = s;
}}
"""
    mutants = [
        ("missing-sync: no barrier in the loop", "__syncthreads();  // tile",
         ";"),
        ("missing-sync-first: no barrier after the first tile",
         "__syncthreads();  // first tile", ";"),
        ("prefetch-offset: x[(t + 2) * B + tx]", "x[(t + 1) * B + tx]",
         "x[(t + 2) * B + tx]"),
        ("buffer: reads xs[(t + 1) % 2]", "xs[t % 2][j]", "xs[(t + 1) % 2][j]"),
        ("prefetch-bound: t + 2 < n / B", "t + 1 < %s / B" % nn,
         "t + 2 < %s / B" % nn),
    ]

    def launch(r):
        s = {} if N is not None else {"n": B * r.randint(1, 4)}
        return [r.randint(1, 3), 1, 1], [B, 1, 1], s
    return Instance("double-buffer", "double-buffer-%d" % idx, params, assume,
                    launch, before, after, mutants,
                    "B=%d n=%s %s" % (B, N or "param", ct))


# --- register-block: one output per thread vs R in registers -------------

def fam_register_block(rng, idx):
    ct = axis(idx, ["int", "float"])
    R = rng.choice([2, 4])
    N = size_or_param(rng, [8, 33], axis(idx, [False, True], 2))
    fixed_b = rng.choice([None, 32, 64])
    nn = "n" if N is None else "N"
    params = [Param("a", "in", ct, "m * %s" % nn), Param("x", "in", ct, nn),
              Param("y", "out", ct, "m"), Param("m", "scalar")]
    defines = [("R", R)]
    assume = ("m > 0 && m <= 65536 && gridDim.x * blockDim.x >= m && "
              "gridDim.x * blockDim.x < m + blockDim.x && " + ONE_D)
    if N is None:
        params.append(Param("n", "scalar"))
        assume += " && n >= 0 && n <= 1024"
    else:
        defines.append(("N", N))
    if fixed_b:
        assume = "blockDim.x == %d && " % fixed_b + assume
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "register-block: mat-vec, R=%d rows per thread,"
                 " n=%s, %s, block %s" % (R, N or "param", ct,
                                          fixed_b or "free"))
    zero = "0.0f" if ct == "float" else "0"
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < m) {{
    {ct} s = {zero};
    for (int k = 0; k < {nn}; ++k)
      s += a[row * {nn} + k] * x[k];
    y[row] = s;
  }}
}}
"""
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  // R rows per thread, blockDim.x apart, their sums held in registers.
  int r0 = blockIdx.x * blockDim.x * R + threadIdx.x;
  {ct} acc[R];
  for (int r = 0; r < R; ++r)
    acc[r] = {zero};
  for (int k = 0; k < {nn}; ++k) {{
    {ct} xv = x[k];
    for (int r = 0; r < R; ++r) {{
      int row = r0 + r * blockDim.x;
      if (row < m)
        acc[r] += a[row * {nn} + k] * xv;
    }}
  }}
  for (int r = 0; r < R; ++r) {{
    int orow = r0 + r * blockDim.x;
    if (orow < m)
      y[orow] = acc[r];
  }}
}}
"""
    mutants = [
        ("bound: stores r < R - 1", "r < R; ++r) {\n    int orow",
         "r < R - 1; ++r) {\n    int orow"),
        ("stride: row = r0 + r * (blockDim.x + 1)",
         "int row = r0 + r * blockDim.x;", "int row = r0 + r * (blockDim.x + 1);"),
        ("offset: x[k + 1]", "x[k];", "x[k + 1];"),
        ("start: k from 1", "int k = 0;", "int k = 1;"),
    ]

    def launch(r):
        bx = fixed_b or r.choice([1, 7, 32, 64])
        gx = r.randint(1, 3)
        s = {"m": r.randint(gx * bx - bx + 1, gx * bx)}
        if N is None:
            s["n"] = r.randint(0, 20)
        return [gx, 1, 1], [bx, 1, 1], s
    return Instance("register-block", "register-block-%d" % idx, params,
                    assume, launch, before, after, mutants,
                    "R=%d n=%s %s block=%s" % (R, N or "param", ct,
                                               fixed_b or "free"))


# --- tiling: naive vs shared-memory tiled (stencil, transpose) ------------

def fam_tiling(rng, idx):
    kind = axis(idx, ["stencil", "swizzle", "pad", "plain"])
    ct = axis(idx, ["float", "int"])
    if kind == "stencil":
        return tiling_stencil(rng, idx, ct)
    return tiling_transpose(rng, idx, ct, kind)


def tiling_stencil(rng, idx, ct):
    RAD = rng.choice([1, 2])
    B = rng.choice([32, 64, 128])
    N = size_or_param(rng, [B * 2, B * 3 - 5], rng.random() < 0.5)
    nn = "n" if N is None else "N"
    params = [Param("in", "in", ct, "%s + 2 * %d" % (nn, RAD)),
              Param("out", "out", ct, nn)]
    defines = [("B", B), ("RAD", RAD)]
    if N is None:
        params.append(Param("n", "scalar"))
        assume = "n > 0 && n <= 1048576 && gridDim.x * %d >= n && " % B
    else:
        defines.append(("N", N))
        assume = "gridDim.x * %d >= %d && " % (B, N)
    assume += "blockDim.x == %d && " % B + ONE_D
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "tiling: 1-D stencil of radius RAD staged in "
                 "shared memory, n=%s, %s" % (N or "param", ct))
    zero = "0.0f" if ct == "float" else "0"
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * B + threadIdx.x;
  if (i < {nn}) {{
    {ct} s = {zero};
    for (int j = 0; j <= 2 * RAD; ++j)
      s += in[i + j];
    out[i] = s;
  }}
}}
"""
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  __shared__ {ct} tile[B + 2 * RAD];
  unsigned tx = threadIdx.x;
  int i = blockIdx.x * B + tx;
  // The block's B cells and the 2 * RAD halo cells past them.
  if (i < {nn} + 2 * RAD)
    tile[tx] = in[i];
  if (tx < 2 * RAD && i + B < {nn} + 2 * RAD)
    tile[B + tx] = in[i + B];
  __syncthreads();
  if (i < {nn}) {{
    {ct} s = {zero};
    for (int j = 0; j <= 2 * RAD; ++j)
      s += tile[tx + j];
    out[i] = s;
  }}
}}
"""
    mutants = [
        ("missing-sync: no barrier after staging", "__syncthreads();", ";"),
        ("halo: tx < 2 * RAD - 1", "tx < 2 * RAD &&", "tx < 2 * RAD - 1 &&"),
        ("halo-offset: in[i + B - 1]", "= in[i + B];", "= in[i + B - 1];"),
        ("bound: j < 2 * RAD", "j <= 2 * RAD; ++j)\n      s += tile",
         "j < 2 * RAD; ++j)\n      s += tile"),
    ]

    def launch(r):
        if N is not None:
            return [-(-N // B), 1, 1], [B, 1, 1], {}
        gx = r.randint(1, 3)
        return [gx, 1, 1], [B, 1, 1], {"n": r.randint(1, gx * B)}
    return Instance("tiling", "tiling-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "stencil r=%d B=%d n=%s %s" % (RAD, B, N or "param", ct))


def tiling_transpose(rng, idx, ct, layout):
    TS = rng.choice([8, 16])
    params = [Param("in", "in", ct, "w * h"), Param("out", "out", ct, "w * h"),
              Param("w", "scalar"), Param("h", "scalar")]
    assume = ("blockDim.x == %d && blockDim.y == %d && blockDim.z == 1 && "
              "gridDim.z == 1 && w > 0 && h > 0 && w <= 32768 && h <= 32768"
              % (TS, TS))
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, [("TS", TS)], "tiling: transpose through a TS x TS "
                 "tile, %s layout, %s" % (layout, ct))
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int x = blockIdx.x * TS + threadIdx.x;
  int y = blockIdx.y * TS + threadIdx.y;
  if (x < w && y < h)
    out[x * h + y] = in[y * w + x];
}}
"""
    cols = "TS + 1" if layout == "pad" else "TS"
    if layout == "swizzle":
        # XOR swizzle: column c of row r lives at c ^ r (TS a power of two).
        store, load = "tile[ty][tx ^ ty]", "tile[tx][ty ^ tx]"
    else:
        store, load = "tile[ty][tx]", "tile[tx][ty]"
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  __shared__ {ct} tile[TS][{cols}];
  unsigned tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * TS + tx;
  int y = blockIdx.y * TS + ty;
  if (x < w && y < h)
    {store} = in[y * w + x];
  __syncthreads();
  int ox = blockIdx.y * TS + tx;
  int oy = blockIdx.x * TS + ty;
  if (ox < h && oy < w)
    out[oy * h + ox] = {load};
}}
"""
    mutants = [
        ("missing-sync: no barrier between store and load",
         "__syncthreads();", ";"),
        ("guard: ox <= h", "ox < h", "ox <= h"),
        ("offset: out[oy * h + ox + 1]", "out[oy * h + ox]",
         "out[oy * h + ox + 1]"),
    ]
    if layout == "swizzle":
        mutants.append(("swizzle: load tile[tx][ty ^ tx ^ 1]", load,
                        "tile[tx][ty ^ tx ^ 1]"))
    else:
        mutants.append(("load: tile[ty][tx] (not transposed)", load,
                        "tile[ty][tx]"))

    def launch(r):
        gx, gy = r.randint(1, 3), r.randint(1, 3)
        return [gx, gy, 1], [TS, TS, 1], {
            "w": r.randint(1, gx * TS), "h": r.randint(1, gy * TS)}
    return Instance("tiling", "tiling-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "transpose %s TS=%d %s" % (layout, TS, ct))


# --- relaunch: a rewrite that changes the launch (coarsening with a grid C
# times smaller, another block size); each kernel at its own launch --------

def fam_relaunch(rng, idx):
    ct = axis(idx, ["int", "float"])
    C = axis(idx, [2, 1, 3, 4], 2)
    form = axis(idx, ["contiguous", "cyclic"], 8)
    # Blocks of a few warps: each host thread is a thread of the OS.
    B1 = rng.choice([32, 64, 128])
    B2 = rng.choice([B1, B1 // 2, B1 * 2]) if C > 1 else rng.choice(
        [b for b in (32, 64, 96, 128, 256) if b != B1])
    N = size_or_param(rng, [300, 1000], rng.random() < 0.25)
    if N and N < 2 * C * B2:    # the rounded-down grid must be a launch
        N = None
    params = [Param("in", "in", ct, "n_cells"),
              Param("out", "out", ct, "n_cells")]
    defines = [("C", C)]
    nn = "n"
    if N is None:
        params.append(Param("n", "scalar"))
        assume = "n > 0 && n <= 1048576"
    else:
        defines.append(("N", N))
        nn = "N"
        assume = "1 == 1"
    lim = nn if N is None else str(N)   # launches know no macros
    sig = ", ".join(p.decl() for p in params)
    hdr = header(ct, defines, "relaunch: C=%d %s, n=%s, %s, blocks %d -> %d" %
                 (C, form, N or "param", ct, B1, B2))
    before = hdr + f"""__global__ void {KERNEL}({sig}) {{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < {nn})
    out[i] = {f_of(ct, "in[i]")};
}}
"""
    if form == "cyclic":
        base = "int base = blockIdx.x * blockDim.x * C + threadIdx.x;"
        cell = "int i = base + c * blockDim.x;"
        stride_mut = ("stride: c * (blockDim.x + 1)", "c * blockDim.x",
                      "c * (blockDim.x + 1)")
    else:
        base = "int base = (blockIdx.x * blockDim.x + threadIdx.x) * C;"
        cell = "int i = base + c;"
        stride_mut = ("stride: base + 2 * c", "base + c", "base + 2 * c")
    after = hdr + f"""__global__ void {KERNEL}({sig}) {{
  {base}
  for (int c = 0; c < C; ++c) {{
    {cell}
    if (i < {nn})
      out[i] = {f_of(ct, "in[i]")};
  }}
}}
"""
    mutants = [("guard: i <= n", "if (i < %s)" % nn, "if (i <= %s)" % nn),
               ("offset: out[i + 1]", "out[i] =", "out[i + 1] =")]
    if C > 1:
        mutants += [("bound: c < C - 1", "c < C;", "c < C - 1;"), stride_mut]
    per = C * B2
    launches = {
        "before": "grid=((%s+%d)/%d) block=%d" % (lim, B1 - 1, B1, B1),
        "after": "grid=((%s+%d)/%d) block=%d" % (lim, per - 1, per, B2)}
    # The grid rounded down leaves the last cells (where C * B does not
    # divide n); a block half the size leaves every other stretch.
    launch_mutants = [
        ("grid-floor: grid n/(C*B)", "grid=(%s/%d) block=%d" % (lim, per, B2)),
        ("block-half: block B/2", "grid=((%s+%d)/%d) block=%d" % (
            lim, per - 1, per, max(B2 // 2, 1)))]

    def launch(r):
        # n at least a whole grid of the coarsened kernel, so that the
        # rounded-down grid is a launch (of 1 block or more).
        n = N or r.randint(per, 3 * per + 7)
        g = -(-n // B1)
        return [g, 1, 1], [B1, 1, 1], ({} if N else {"n": n})
    inst = Instance("relaunch", "relaunch-%d" % idx, params, assume, launch,
                    before, after, mutants,
                    "x%d %s n=%s %s blocks %d->%d" % (
                        C, form, N or "param", ct, B1, B2),
                    launches=launches, launch_mutants=launch_mutants)
    # The arrays' size: the cells any variant touches (n plus a block of
    # slack for the mutants that write past it).
    for p in inst.params:
        if p.kind != "scalar":
            p.size = "%s + %d" % (lim, 2 * per + B1)
    return inst


FAMILIES = {
    "relaunch": fam_relaunch,
    "tiling": fam_tiling,
    "coalesce": fam_coalesce,
    "coarsen": fam_coarsen,
    "unroll": fam_unroll,
    "shuffle": fam_shuffle,
    "privatize": fam_privatize,
    "double-buffer": fam_double_buffer,
    "register-block": fam_register_block,
}


def generate(families, count, seed):
    """count instances of each family; reproducible from seed (each family
    draws from its own stream, so --families does not change the others)."""
    out = []
    for fam in families:
        rng = random.Random("%s/%s" % (seed, fam))
        for i in range(count):
            out.append(FAMILIES[fam](rng, i))
    return out
