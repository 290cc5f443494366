"""Families that change which thread does which cell: coalescing,
coarsening, tiling through shared memory, and relaunching."""
from common import (KERNEL, ONE_D, Instance, Param, axis, f_of,  # noqa
                    header, size_or_param)


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


def coarsened_1d(hdr, sig, ct, nn, form):
    """One cell per thread, and C cells per thread (cyclic: blockDim.x
    apart; else contiguous): the before and after kernels of the coarsen
    and relaunch families, and the after kernel's stride mutant."""
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
    return before, after, stride_mut


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
    before, after, stride_mut = coarsened_1d(hdr, sig, ct, nn, form)
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
    before, after, stride_mut = coarsened_1d(hdr, sig, ct, nn, form)
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
