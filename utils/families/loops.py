"""Families that change a loop: unrolling, warp shuffles, privatisation,
double buffering and register blocking."""
from common import (KERNEL, ONE_D, Instance, Param, axis, f_of,  # noqa
                    header, size_or_param)


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
