// kv.iter in hand-written kernels: the solver's counterexamples replay on the
// executor, which runs the ops that depend on an iteration number once per
// live iteration.
//
// A grid-stride copy against one element per thread: equal when the grid
// covers n.
// RUN: %expect-exit 0 %kvalidate --assume='gridDim.x <= 65535 && %{1D} && gridDim.x * blockDim.x >= n' \
// RUN:   %s:copy_each %s:copy_grid_stride | FileCheck %s --check-prefix=EQ
// EQ:      verdict: equivalent
// EQ:        - checked: the after kernel has a countable loop at {{.*}}iter.mlir:{{[0-9]+}}:{{[0-9]+}} (positive step, fewer than 2^31 iterations)
// EQ-NOT:    counterexample
//
// Writing in[i] + 1 instead: not-equivalent, the counterexample replayed.
// RUN: %expect-exit 1 %kvalidate --assume='gridDim.x <= 65535 && %{1D}' \
// RUN:   %s:copy_grid_stride %s:inc_grid_stride | FileCheck %s --check-prefix=NE
// NE:      verdict: not-equivalent
// NE:        counterexample (replayed):
// NE:          mismatch: out[{{-?[0-9]+}}]: before = {{-?[0-9]+}}, after = {{-?[0-9]+}}
//
// Nested loops (rows by block, columns by thread; the inner loop's guard
// depends on the outer iteration) against the same with the column loop off
// by one (<=): the counterexample replays.
// RUN: %expect-exit 1 %kvalidate --assume='%{1D} && gridDim.x <= 65535 && w > 0 && h > 0 && w <= 1024 && h <= 1024' \
// RUN:   %s:fill_rows %s:fill_rows_past_end | FileCheck %s --check-prefix=NESTED
// NESTED:  verdict: not-equivalent
// NESTED:    counterexample (replayed):
//
// Saved counterexamples (kvalidate replay) exercise the executor alone.
// One thread and n = 5: one element per thread writes out[0], the
// grid-stride loop out[0..4] and stops there.
// RUN: printf '{"before":"%s:copy_each","after":"%s:copy_grid_stride","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"n":5},"arrays":{"in":{"0":10,"1":11,"2":12,"3":13,"4":14,"5":15}}}}' > %t.five.json
// RUN: %expect-exit 1 %kvalidate replay %t.five.json | FileCheck %s --check-prefix=FIVE
// FIVE:     replay: out[1]: before = 0 (unchanged), after = 11
// FIVE:     replay: out[4]: before = 0 (unchanged), after = 14
// FIVE-NOT: out[5]
// FIVE:     replay: the kernels differ (4 of 5 written cells differ)
//
// A do_while loop runs iteration 0 even when lb < bound fails.
// RUN: printf '{"before":"%s:do_while","after":"%s:do_while_expected","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"n":0,"a":41},"arrays":{}}}' > %t.dw0.json
// RUN: %expect-exit 0 %kvalidate replay %t.dw0.json | FileCheck %s --check-prefix=AGREE
// RUN: printf '{"before":"%s:do_while","after":"%s:do_while_expected","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"n":3,"a":41},"arrays":{}}}' > %t.dw3.json
// RUN: %expect-exit 1 %kvalidate replay %t.dw3.json | FileCheck %s --check-prefix=DW3
// DW3:      replay: out[1]: before = 1, after = 0 (unchanged)
// DW3-NEXT: replay: out[2]: before = 1, after = 0 (unchanged)
// DW3-NEXT: replay: the kernels differ (2 of 4 written cells differ)
// AGREE:    replay: the kernels agree
//
// A value computed in a loop's range without depending on it is there after
// the loop even when it has no iteration.
// RUN: printf '{"before":"%s:value_in_range","after":"%s:value_expected","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"n":0,"a":41},"arrays":{}}}' > %t.v0.json
// RUN: %expect-exit 0 %kvalidate replay %t.v0.json | FileCheck %s --check-prefix=AGREE
//
// Liveness is exact: lb + k * step does not wrap at 2^63 (sle, signed), nor
// at 2^64 (ule, unsigned).
// RUN: printf '{"before":"%s:near_max","after":"%s:near_max_expected","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"lb":9223372036854775806,"bound":9223372036854775807},"arrays":{}}}' > %t.max.json
// RUN: %expect-exit 0 %kvalidate replay %t.max.json | FileCheck %s --check-prefix=AGREE
// RUN: printf '{"before":"%s:near_umax","after":"%s:near_max_expected","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"lb":-2,"bound":-1},"arrays":{}}}' > %t.umax.json
// RUN: %expect-exit 0 %kvalidate replay %t.umax.json | FileCheck %s --check-prefix=AGREE
//
// A loop that would not stop is an error, not a hang.
// RUN: printf '{"before":"%s:by_step","after":"%s:by_step","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"step":0,"n":1},"arrays":{}}}' > %t.zero.json
// RUN: %expect-exit 3 %kvalidate replay %t.zero.json 2>&1 | FileCheck %s --check-prefix=NOSTOP
// RUN: printf '{"before":"%s:by_step","after":"%s:by_step","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"step":-1,"n":1},"arrays":{}}}' > %t.neg.json
// RUN: %expect-exit 3 %kvalidate replay %t.neg.json 2>&1 | FileCheck %s --check-prefix=NOSTOP
// NOSTOP: kvalidate: error: cannot replay: the loop of kv.iter at {{.*}}iter.mlir:{{[0-9]+}}:8 does not terminate (step <= 0)
// A step <= 0 is fine when not even iteration 0 is live.
// RUN: printf '{"before":"%s:by_step","after":"%s:by_step","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"step":-1,"n":0},"arrays":{}}}' > %t.none.json
// RUN: %expect-exit 0 %kvalidate replay %t.none.json | FileCheck %s --check-prefix=AGREE
// A loop nothing depends on does not run at all.
// RUN: printf '{"before":"%s:unused_loop","after":"%s:unused_loop","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"step":0,"n":1},"arrays":{}}}' > %t.unused.json
// RUN: %expect-exit 0 %kvalidate replay %t.unused.json | FileCheck %s --check-prefix=AGREE
// An uncounted loop runs as the program does, its 8-bit variable wrapping
// around: from 120 by 5 while < 127, it first reaches 127 at iteration 155
// (the counted model would stop after 2 iterations). The round trip keeps
// the attribute.
// RUN: printf '{"before":"%s:wraps","after":"%s:wraps_expected","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"lb":120,"bound":127},"arrays":{}}}' > %t.wrap.json
// RUN: %expect-exit 0 %kvalidate replay %t.wrap.json | FileCheck %s --check-prefix=AGREE
// RUN: printf '{"before":"%s:wraps_counted","after":"%s:wraps_expected","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"lb":120,"bound":127},"arrays":{}}}' > %t.count.json
// RUN: %expect-exit 1 %kvalidate replay %t.count.json | FileCheck %s --check-prefix=COUNTED
// COUNTED: replay: out[0]: before = 1, after = 154
// RUN: %kv-opt %s | FileCheck %s --check-prefix=ROUND
// ROUND: kv.iter from %{{.*}} step %{{.*}} while slt %{{.*}} if %{{.*}} uncounted {width = 8 : i64}
// More than 2^20 iterations: the replay gives up.
// RUN: printf '{"before":"%s:by_step","after":"%s:by_step","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{"step":1,"n":1048577},"arrays":{}}}' > %t.many.json
// RUN: %expect-exit 3 %kvalidate replay %t.many.json 2>&1 | FileCheck %s --check-prefix=MANY
// MANY: kvalidate: error: cannot replay: the loop of kv.iter at {{.*}}iter.mlir:{{[0-9]+}}:8 runs more than 1048576 iterations
//
// Kernels the executor refuses: a write in a loop's range that does not
// depend on its iteration number (it would run once per iteration), a loop
// in another's range that does not depend on it, a loop's value used after a
// barrier.
// RUN: printf '{"before":"%s:write_in_range","after":"%s:write_in_range","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{},"arrays":{}}}' > %t.w.json
// RUN: %expect-exit 3 %kvalidate replay %t.w.json 2>&1 | FileCheck %s --check-prefix=WRITE
// WRITE: kvalidate: error: cannot replay: kv.write at {{.*}}iter.mlir:{{[0-9]+}}:3 inside the range of the kv.iter at {{.*}}iter.mlir:{{[0-9]+}}:8 does not depend on it
// RUN: printf '{"before":"%s:iter_in_range","after":"%s:iter_in_range","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{},"arrays":{}}}' > %t.i.json
// RUN: %expect-exit 3 %kvalidate replay %t.i.json 2>&1 | FileCheck %s --check-prefix=ITER
// ITER: kvalidate: error: cannot replay: kv.iter at {{.*}}iter.mlir:{{[0-9]+}}:8 inside the range of the kv.iter at {{.*}}iter.mlir:{{[0-9]+}}:8 does not depend on it
// RUN: printf '{"before":"%s:across_barrier","after":"%s:across_barrier","counterexample":{"gridDim":[1,1,1],"blockDim":[1,1,1],"scalars":{},"arrays":{}}}' > %t.b.json
// RUN: %expect-exit 3 %kvalidate replay %t.b.json 2>&1 | FileCheck %s --check-prefix=BARRIER
// BARRIER: kvalidate: error: cannot replay: kv.write at {{.*}}iter.mlir:{{[0-9]+}}:3 uses a value that depends on a kv.iter before a barrier

// out[i] = in[i] if i < n, i = blockIdx.x * blockDim.x + threadIdx.x.
kv.kernel @copy_each attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %base = arith.muli %bid, %bdim : i32
  %i = arith.addi %base, %tid : i32
  %g = arith.cmpi slt, %i, %n : i32
  %i64 = arith.extsi %i : i32 to i64
  %v = kv.read %in[%i64] if %g : !kv.global<i32>, i64 -> i32
  kv.write %out[%i64] = %v if %g : !kv.global<i32>, i64, i32
}

// for (i = gid; i < n; i += gridDim.x * blockDim.x) out[i] = in[i].
kv.kernel @copy_grid_stride attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %gdim = kv.sreg gdim.x : i32
  %true = arith.constant true
  %base = arith.muli %bid, %bdim : i32
  %gid = arith.addi %base, %tid : i32
  %lb = arith.extsi %gid : i32 to i64
  %stride = arith.muli %bdim, %gdim : i32
  %step = arith.extsi %stride : i32 to i64
  %bound = arith.extsi %n : i32 to i64
  %k = kv.iter from %lb step %step while slt %bound if %true
  %ks = arith.muli %k, %step : i64
  %i = arith.addi %lb, %ks : i64
  %live = arith.cmpi slt, %i, %bound : i64
  %v = kv.read %in[%i] if %live : !kv.global<i32>, i64 -> i32
  kv.write %out[%i] = %v if %live : !kv.global<i32>, i64, i32
}

// The same loop writing in[i] + 1.
kv.kernel @inc_grid_stride attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %gdim = kv.sreg gdim.x : i32
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %base = arith.muli %bid, %bdim : i32
  %gid = arith.addi %base, %tid : i32
  %lb = arith.extsi %gid : i32 to i64
  %stride = arith.muli %bdim, %gdim : i32
  %step = arith.extsi %stride : i32 to i64
  %bound = arith.extsi %n : i32 to i64
  %k = kv.iter from %lb step %step while slt %bound if %true
  %ks = arith.muli %k, %step : i64
  %i = arith.addi %lb, %ks : i64
  %live = arith.cmpi slt, %i, %bound : i64
  %v = kv.read %in[%i] if %live : !kv.global<i32>, i64 -> i32
  %v1 = arith.addi %v, %c1 : i32
  kv.write %out[%i] = %v1 if %live : !kv.global<i32>, i64, i32
}

// Block b fills rows b, b + gridDim.x, ... of an h x w matrix with 1, its
// threads striding over the columns: for (r) for (c) out[r * w + c] = 1.
kv.kernel @fill_rows attributes {arg_names = ["out", "w", "h"]} {
^bb0(%out: !kv.global<i32>, %w: i32, %h: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %gdim = kv.sreg gdim.x : i32
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %rlb = arith.extsi %bid : i32 to i64
  %rstep = arith.extsi %gdim : i32 to i64
  %h64 = arith.extsi %h : i32 to i64
  %r = kv.iter from %rlb step %rstep while slt %h64 if %true
  %rk = arith.muli %r, %rstep : i64
  %row = arith.addi %rlb, %rk : i64
  %rlive = arith.cmpi slt, %row, %h64 : i64
  %clb = arith.extsi %tid : i32 to i64
  %cstep = arith.extsi %bdim : i32 to i64
  %w64 = arith.extsi %w : i32 to i64
  %c = kv.iter from %clb step %cstep while slt %w64 if %rlive
  %ck = arith.muli %c, %cstep : i64
  %col = arith.addi %clb, %ck : i64
  %clive = arith.cmpi slt, %col, %w64 : i64
  %live = arith.andi %rlive, %clive : i1
  %rw = arith.muli %row, %w64 : i64
  %idx = arith.addi %rw, %col : i64
  kv.write %out[%idx] = %c1 if %live : !kv.global<i32>, i64, i32
}

// The column loop runs while c <= w: it also writes the next row's first
// cell (or one past the matrix).
kv.kernel @fill_rows_past_end attributes {arg_names = ["out", "w", "h"]} {
^bb0(%out: !kv.global<i32>, %w: i32, %h: i32):
  %tid = kv.sreg tid.x : i32
  %bdim = kv.sreg bdim.x : i32
  %bid = kv.sreg bid.x : i32
  %gdim = kv.sreg gdim.x : i32
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %rlb = arith.extsi %bid : i32 to i64
  %rstep = arith.extsi %gdim : i32 to i64
  %h64 = arith.extsi %h : i32 to i64
  %r = kv.iter from %rlb step %rstep while slt %h64 if %true
  %rk = arith.muli %r, %rstep : i64
  %row = arith.addi %rlb, %rk : i64
  %rlive = arith.cmpi slt, %row, %h64 : i64
  %clb = arith.extsi %tid : i32 to i64
  %cstep = arith.extsi %bdim : i32 to i64
  %w64 = arith.extsi %w : i32 to i64
  %c = kv.iter from %clb step %cstep while sle %w64 if %rlive
  %ck = arith.muli %c, %cstep : i64
  %col = arith.addi %clb, %ck : i64
  %clive = arith.cmpi sle, %col, %w64 : i64
  %live = arith.andi %rlive, %clive : i1
  %rw = arith.muli %row, %w64 : i64
  %idx = arith.addi %rw, %col : i64
  kv.write %out[%idx] = %c1 if %live : !kv.global<i32>, i64, i32
}

// do { out[k] = 1 } while (++k < n); out[n + 1] = a + 1.
kv.kernel @do_while attributes {arg_names = ["out", "n", "a"]} {
^bb0(%out: !kv.global<i32>, %n: i32, %a: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : i32
  %n64 = arith.extsi %n : i32 to i64
  %k = kv.iter from %c0 step %c1 while slt %n64 if %true do_while
  kv.write %out[%k] = %one if %true : !kv.global<i32>, i64, i32
  %a1 = arith.addi %a, %one : i32
  %after = arith.addi %n64, %c1 : i64
  kv.write %out[%after] = %a1 if %true : !kv.global<i32>, i64, i32
}

// for (k = 0; k < n; ++k) out[k] = 1; out[n + 1] = a + 1, with a + 1
// computed in the loop's range.
kv.kernel @value_in_range attributes {arg_names = ["out", "n", "a"]} {
^bb0(%out: !kv.global<i32>, %n: i32, %a: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : i32
  %n64 = arith.extsi %n : i32 to i64
  %k = kv.iter from %c0 step %c1 while slt %n64 if %true
  %a1 = arith.addi %a, %one : i32
  kv.write %out[%k] = %one if %true : !kv.global<i32>, i64, i32
  %after = arith.addi %n64, %c1 : i64
  kv.write %out[%after] = %a1 if %true : !kv.global<i32>, i64, i32
}

// out[n + 1] = a + 1.
kv.kernel @value_expected attributes {arg_names = ["out", "n", "a"]} {
^bb0(%out: !kv.global<i32>, %n: i32, %a: i32):
  %true = arith.constant true
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : i32
  %n64 = arith.extsi %n : i32 to i64
  %a1 = arith.addi %a, %one : i32
  %after = arith.addi %n64, %c1 : i64
  kv.write %out[%after] = %a1 if %true : !kv.global<i32>, i64, i32
}

// out[0] = 1; out[n + 1] = a + 1.
kv.kernel @do_while_expected attributes {arg_names = ["out", "n", "a"]} {
^bb0(%out: !kv.global<i32>, %n: i32, %a: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : i32
  %n64 = arith.extsi %n : i32 to i64
  %a1 = arith.addi %a, %one : i32
  kv.write %out[%c0] = %one if %true : !kv.global<i32>, i64, i32
  %after = arith.addi %n64, %c1 : i64
  kv.write %out[%after] = %a1 if %true : !kv.global<i32>, i64, i32
}

// out[k] = 1 while lb + k <= bound (signed): k = 0, 1 for lb = 2^63 - 2,
// bound = 2^63 - 1.
kv.kernel @near_max attributes {arg_names = ["out", "lb", "bound"]} {
^bb0(%out: !kv.global<i32>, %lb: i64, %bound: i64):
  %true = arith.constant true
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : i32
  %k = kv.iter from %lb step %c1 while sle %bound if %true
  kv.write %out[%k] = %one if %true : !kv.global<i32>, i64, i32
}

// The same unsigned: k = 0, 1 for lb = 2^64 - 2, bound = 2^64 - 1.
kv.kernel @near_umax attributes {arg_names = ["out", "lb", "bound"]} {
^bb0(%out: !kv.global<i32>, %lb: i64, %bound: i64):
  %true = arith.constant true
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : i32
  %k = kv.iter from %lb step %c1 while ule %bound if %true
  kv.write %out[%k] = %one if %true : !kv.global<i32>, i64, i32
}

// out[0] = out[1] = 1.
kv.kernel @near_max_expected attributes {arg_names = ["out", "lb", "bound"]} {
^bb0(%out: !kv.global<i32>, %lb: i64, %bound: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %one = arith.constant 1 : i32
  kv.write %out[%c0] = %one if %true : !kv.global<i32>, i64, i32
  kv.write %out[%c1] = %one if %true : !kv.global<i32>, i64, i32
}

// for (int8_t x = lb; x < bound; x += 5) out[0] = k, uncounted.
kv.kernel @wraps attributes {arg_names = ["out", "lb", "bound"]} {
^bb0(%out: !kv.global<i64>, %lb: i64, %bound: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c5 = arith.constant 5 : i64
  %k = kv.iter from %lb step %c5 while slt %bound if %true uncounted {width = 8 : i64}
  kv.write %out[%c0] = %k if %true : !kv.global<i64>, i64, i64
}

kv.kernel @wraps_counted attributes {arg_names = ["out", "lb", "bound"]} {
^bb0(%out: !kv.global<i64>, %lb: i64, %bound: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c5 = arith.constant 5 : i64
  %k = kv.iter from %lb step %c5 while slt %bound if %true {width = 8 : i64}
  kv.write %out[%c0] = %k if %true : !kv.global<i64>, i64, i64
}

kv.kernel @wraps_expected attributes {arg_names = ["out", "lb", "bound"]} {
^bb0(%out: !kv.global<i64>, %lb: i64, %bound: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %last = arith.constant 154 : i64
  kv.write %out[%c0] = %last if %true : !kv.global<i64>, i64, i64
}

// for (k = 0; k * step < n; ++k) out[0] = k, with a step of the input's.
kv.kernel @by_step attributes {arg_names = ["out", "step", "n"]} {
^bb0(%out: !kv.global<i64>, %step: i64, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %k = kv.iter from %c0 step %step while slt %n if %true
  kv.write %out[%c0] = %k if %true : !kv.global<i64>, i64, i64
}

// A loop whose iteration number nobody uses; out[0] = 1.
kv.kernel @unused_loop attributes {arg_names = ["out", "step", "n"]} {
^bb0(%out: !kv.global<i32>, %step: i64, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %one = arith.constant 1 : i32
  %k = kv.iter from %c0 step %step while slt %n if %true
  kv.write %out[%c0] = %one if %true : !kv.global<i32>, i64, i32
}

// out[0] = 1 in the range of a loop, not depending on it.
kv.kernel @write_in_range attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %one = arith.constant 1 : i32
  %k = kv.iter from %c0 step %c1 while slt %c4 if %true
  kv.write %out[%c0] = %one if %true : !kv.global<i32>, i64, i32
  kv.write %out[%k] = %one if %true : !kv.global<i32>, i64, i32
}

// A loop in the range of another that it does not depend on.
kv.kernel @iter_in_range attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %one = arith.constant 1 : i32
  %k = kv.iter from %c0 step %c1 while slt %c4 if %true
  %j = kv.iter from %c0 step %c1 while slt %c4 if %true
  kv.write %out[%k] = %one if %true : !kv.global<i32>, i64, i32
  kv.write %out[%j] = %one if %true : !kv.global<i32>, i64, i32
}

// The iteration number after a barrier.
kv.kernel @across_barrier attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i64>):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %k = kv.iter from %c0 step %c1 while slt %c4 if %true
  kv.barrier
  kv.write %out[%k] = %k if %true : !kv.global<i64>, i64, i64
}

// The solver-heavy lane (test/lit.cfg.py).
// REQUIRES: long
