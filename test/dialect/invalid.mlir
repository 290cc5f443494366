// The kv verifiers (and the parsers of kv's enum attributes) reject
// malformed kernels with a precise message.
// RUN: %kv-opt %s -split-input-file -verify-diagnostics

kv.kernel @read_type attributes {arg_names = ["in"]} {
^bb0(%in: !kv.global<i32>):
  %true = arith.constant true
  %z = arith.constant 0 : i64
  // expected-error @+1 {{'kv.read' op result type 'i64' differs from the element type 'i32'}}
  %v = kv.read %in[%z] if %true : !kv.global<i32>, i64 -> i64
}

// -----

kv.kernel @write_type attributes {arg_names = ["out"]} {
^bb0(%out: !kv.shared<i32, 16>):
  %true = arith.constant true
  %z = arith.constant 0 : i64
  %v = arith.constant 7 : i16
  // expected-error @+1 {{'kv.write' op value type 'i16' differs from the element type 'i32'}}
  kv.write %out[%z] = %v if %true : !kv.shared<i32, 16>, i64, i16
}

// -----

kv.kernel @bad_sreg attributes {arg_names = []} {
  // expected-error @+1 {{custom op 'kv.sreg' expected one of [tid.x, tid.y, tid.z, bid.x, bid.y, bid.z, bdim.x, bdim.y, bdim.z, gdim.x, gdim.y, gdim.z] for a kv.sreg special register, got: threadIdx.x}}
  %0 = kv.sreg "threadIdx.x" : i32
}

// -----

kv.kernel @bad_sreg_axis attributes {arg_names = []} {
  // expected-error @+1 {{custom op 'kv.sreg' expected one of [tid.x, tid.y, tid.z, bid.x, bid.y, bid.z, bdim.x, bdim.y, bdim.z, gdim.x, gdim.y, gdim.z] for a kv.sreg special register, got: tid.w}}
  %0 = kv.sreg tid.w : i32
}

// -----

kv.kernel @bad_sreg_generic attributes {arg_names = []} {
  // expected-error @+2 {{expected one of [tid.x, tid.y, tid.z, bid.x, bid.y, bid.z, bdim.x, bdim.y, bdim.z, gdim.x, gdim.y, gdim.z] for a kv.sreg special register, got: ntid.x}}
  // expected-error @+1 {{failed to parse KV_SRegAttr parameter 'value' which is to be a `::kv::SReg`}}
  %0 = "kv.sreg"() <{name = #kv<sreg ntid.x>}> : () -> i32
}

// -----

kv.kernel @sreg_string attributes {arg_names = []} {
  // expected-error @+1 {{invalid properties {name = "tid.x"} for op kv.sreg: Invalid attribute `name` in property conversion: "tid.x"}}
  %0 = "kv.sreg"() <{name = "tid.x"}> : () -> i32
}

// -----

kv.kernel @sreg_width attributes {arg_names = []} {
  // expected-error @+1 {{'kv.sreg' op result #0 must be 32-bit signless integer}}
  %0 = "kv.sreg"() <{name = #kv<sreg tid.x>}> : () -> i64
}

// -----

// expected-error @+1 {{'kv.kernel' op has 2 block arguments but 1 arg_names}}
kv.kernel @arg_names attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>, %n: i32):
}

// -----

// expected-error @+1 {{'kv.kernel' op parameter #1 follows a shared array}}
kv.kernel @order attributes {arg_names = ["s", "n"]} {
^bb0(%s: !kv.shared<i32, 4>, %n: i32):
}

// -----

// expected-error @+1 {{'kv.kernel' op parameter #0 must be an integer or !kv.global, got 'f32'}}
kv.kernel @float_param attributes {arg_names = ["x"]} {
^bb0(%x: f32):
}

// -----

// expected-error @+1 {{'kv.kernel' op array element type must be a signless integer (floats are kept as bit patterns), got 'f32'}}
kv.kernel @float_array attributes {arg_names = ["a"]} {
^bb0(%a: !kv.global<f32>):
}

// -----

kv.kernel @iter_pred attributes {arg_names = ["n"]} {
^bb0(%n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  // expected-error @+1 {{custom op 'kv.iter' expected one of [slt, sle, ult, ule] for a kv.iter predicate, got: sgt}}
  %k = kv.iter from %c0 step %c1 while sgt %n if %true
}

// -----

kv.kernel @nowrap_kind attributes {arg_names = ["n"]} {
^bb0(%n: i32):
  // expected-error @+1 {{custom op 'kv.nowrap' expected one of [add, sub, mul] for a kv.nowrap operation, got: div}}
  %ok = kv.nowrap div %n, %n : i32
}

// -----

kv.kernel @assume_bound attributes {arg_names = []} {
  %true = arith.constant true
  // expected-error @+1 {{'kv.assume' op attribute 'bound' failed to satisfy constraint: 64-bit signless integer attribute}}
  kv.assume %true {bound = "16"}
}

// -----

kv.kernel @select_array attributes {arg_names = ["a", "b"]} {
^bb0(%a: !kv.global<i32>, %b: !kv.global<i32>):
  %true = arith.constant true
  %z = arith.constant 0 : i64
  %p = arith.select %true, %a, %b : !kv.global<i32>
  // expected-error @+1 {{'kv.read' op array operand must be a kv.kernel argument}}
  %v = kv.read %p[%z] if %true : !kv.global<i32>, i64 -> i32
}

// -----

kv.kernel @outer attributes {arg_names = []} {
  // expected-error @+1 {{'kv.kernel' op is not allowed in a kv.kernel body}}
  kv.kernel @inner attributes {arg_names = []} {
  }
}

// -----

kv.kernel @sum_not_over_iter attributes {arg_names = ["n"]} {
^bb0(%n: i64):
  %x = arith.constant 1 : i32
  // expected-error @+1 {{'kv.sum' op iterates over a value that is not a kv.iter}}
  %s = kv.sum %x over %n : i32
}

// -----

// expected-error @+1 {{'kv.kernel' op unsigned_params names 'in', which is not an integer parameter}}
kv.kernel @unsigned_array attributes {arg_names = ["in", "n"], unsigned_params = ["in"]} {
^bb0(%in: !kv.global<i32>, %n: i32):
}

// -----

kv.kernel @carry_not_over_iter attributes {arg_names = ["n"]} {
^bb0(%n: i64):
  %x = arith.constant 1 : i32
  // expected-error @+1 {{'kv.carry' op iterates over a value that is not a kv.iter}}
  %h = kv.carry %x over %n : i32
}

// -----

kv.kernel @fold_not_of_carry attributes {arg_names = ["n"]} {
^bb0(%n: i32):
  %x = arith.constant 1 : i32
  // expected-error @+1 {{'kv.fold' op accumulator is not a kv.carry}}
  %r = kv.fold %n = %x : i32
}

// -----

kv.kernel @two_folds attributes {arg_names = ["n"]} {
^bb0(%n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %x = arith.constant 1 : i32
  %k = kv.iter from %c0 step %c1 while slt %n if %true
  %h = kv.carry %x over %k : i32
  // expected-error @+1 {{'kv.fold' op two kv.fold ops name one kv.carry}}
  %r = kv.fold %h = %x : i32
  %s = kv.fold %h = %x : i32
}

// -----

kv.kernel @break_not_over_iter attributes {arg_names = ["n"]} {
^bb0(%n: i64):
  %true = arith.constant true
  // expected-error @+1 {{'kv.break' op iterates over a value that is not a kv.iter}}
  kv.break %n if %true
}

// -----

kv.kernel @last_not_over_iter attributes {arg_names = ["n"]} {
^bb0(%n: i64):
  %x = arith.constant 1 : i32
  // expected-error @+1 {{'kv.last' op iterates over a value that is not a kv.iter}}
  %r = kv.last %x over %n : i32
}

// -----

kv.kernel @block_barrier_with_mask attributes {arg_names = []} {
  %m = arith.constant -1 : i32
  // expected-error @+1 {{'kv.barrier' op a warp barrier has a mask, a block barrier none}}
  "kv.barrier"(%m) <{operandSegmentSizes = array<i32: 0, 1>}> : (i32) -> ()
}

// -----

kv.kernel @atomic_value_type attributes {arg_names = ["a"]} {
^bb0(%a: !kv.global<i32>):
  %true = arith.constant true
  %i = arith.constant 0 : i64
  %v = arith.constant 1 : i32
  // expected-error @+1 {{'kv.write' op value type 'i64' differs from the element type 'i32'}}
  kv.write atomic add %a[%i] = %i if %true : !kv.global<i32>, i64, i64
}
