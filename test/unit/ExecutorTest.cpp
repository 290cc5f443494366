//===- ExecutorTest.cpp - kv::execute on small kernels --------------------===//
//
// The concrete executor replays the solver's counterexamples: a wrong result
// here turns a real difference into "the kernels agree" or the reverse. The
// kernels are parsed from kv text and run on small launches.
//
//===----------------------------------------------------------------------===//

#include "smt-encode/Executor.h"
#include "kv/KVDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/bit.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <string>

using llvm::APInt;

namespace {

class ExecutorTest : public ::testing::Test {
protected:
  ExecutorTest() {
    mlir::DialectRegistry registry;
    kv::registerKVDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Parses \p src (one or more kv.kernel ops) and returns the kernel
  /// \p name, or a null op (with a test failure) when it does not parse.
  kv::KernelOp parse(llvm::StringRef src, llvm::StringRef name) {
    module = mlir::parseSourceString<mlir::ModuleOp>(src, &ctx);
    if (!module) {
      ADD_FAILURE() << "kernel text does not parse";
      return {};
    }
    kv::KernelOp k = module->lookupSymbol<kv::KernelOp>(name);
    if (!k)
      ADD_FAILURE() << "no kernel " << name.str();
    return k;
  }

  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

kv::LaunchConfig launch(uint64_t gx, uint64_t bx, uint64_t gy = 1,
                        uint64_t by = 1) {
  kv::LaunchConfig cfg;
  cfg.grid[0] = gx;
  cfg.grid[1] = gy;
  cfg.block[0] = bx;
  cfg.block[1] = by;
  return cfg;
}

/// The cells of global array \p argNo written by the run, as unsigned
/// numbers.
std::map<uint64_t, uint64_t> cells(const kv::ExecResult &r, unsigned argNo) {
  std::map<uint64_t, uint64_t> m;
  auto it = r.written.find(argNo);
  if (it != r.written.end())
    for (const auto &[index, value] : it->second)
      m[index] = value.getZExtValue();
  return m;
}

/// Inputs at 32 bits whose global array #argNo holds base * (argNo + 1) +
/// index at each index.
kv::ExecInputs inputs(uint64_t base = 1000) {
  kv::ExecInputs in;
  in.initial = [base](unsigned argNo, uint64_t index) {
    return APInt(32, base * (argNo + 1) + index);
  };
  return in;
}

// Every thread of a 2-D grid of 2-D blocks copies in[i] to out[i], i its
// linear global index: each block and thread id runs exactly once.
TEST_F(ExecutorTest, CopyOverGrid) {
  kv::KernelOp k = parse(R"(
kv.kernel @copy2d attributes {arg_names = ["out", "in"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>):
  %true = arith.constant true
  %tx = kv.sreg tid.x : i32
  %ty = kv.sreg tid.y : i32
  %bx = kv.sreg bid.x : i32
  %by = kv.sreg bid.y : i32
  %bdx = kv.sreg bdim.x : i32
  %bdy = kv.sreg bdim.y : i32
  %gdx = kv.sreg gdim.x : i32
  %brow = arith.muli %by, %gdx : i32
  %blk = arith.addi %brow, %bx : i32
  %bsize = arith.muli %bdx, %bdy : i32
  %base = arith.muli %blk, %bsize : i32
  %trow = arith.muli %ty, %bdx : i32
  %t = arith.addi %trow, %tx : i32
  %i = arith.addi %base, %t : i32
  %i64 = arith.extui %i : i32 to i64
  %v = kv.read %in[%i64] if %true : !kv.global<i32>, i64 -> i32
  kv.write %out[%i64] = %v if %true : !kv.global<i32>, i64, i32
}
)",
                         "copy2d");
  ASSERT_TRUE(k);
  kv::ExecResult r = kv::execute(k, launch(2, 4, 3, 2), inputs());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(r.assumeViolated);
  std::map<uint64_t, uint64_t> expected;
  for (uint64_t i = 0; i < 2 * 3 * 4 * 2; ++i)
    expected[i] = 2000 + i;
  EXPECT_EQ(cells(r, 0), expected);
  // Every global array has an entry, written or not.
  ASSERT_EQ(r.written.count(1), 1u);
  EXPECT_TRUE(r.written.at(1).empty());
}

// Threads stage a block's slice of `in` in shared memory and, after the
// barrier, read another thread's cell: out reverses each block's slice.
// Values computed before the barrier (the global index) survive it.
TEST_F(ExecutorTest, SharedStagingAcrossBarrier) {
  kv::KernelOp k = parse(R"(
kv.kernel @reverse attributes {arg_names = ["out", "in", "buf"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %buf: !kv.shared<i32, 64>):
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %tx = kv.sreg tid.x : i32
  %bx = kv.sreg bid.x : i32
  %bdx = kv.sreg bdim.x : i32
  %base = arith.muli %bx, %bdx : i32
  %i = arith.addi %base, %tx : i32
  %i64 = arith.extui %i : i32 to i64
  %t64 = arith.extui %tx : i32 to i64
  %v = kv.read %in[%i64] if %true : !kv.global<i32>, i64 -> i32
  kv.write %buf[%t64] = %v if %true : !kv.shared<i32, 64>, i64, i32
  kv.barrier
  %last = arith.subi %bdx, %c1 : i32
  %m = arith.subi %last, %tx : i32
  %m64 = arith.extui %m : i32 to i64
  %w = kv.read %buf[%m64] if %true : !kv.shared<i32, 64>, i64 -> i32
  kv.write %out[%i64] = %w if %true : !kv.global<i32>, i64, i32
}
)",
                         "reverse");
  ASSERT_TRUE(k);
  kv::ExecInputs in = inputs();
  in.sharedInitial = [](unsigned, const uint64_t *, uint64_t) {
    return APInt(32, 77777);
  };
  kv::ExecResult r = kv::execute(k, launch(2, 4), in);
  ASSERT_TRUE(r.ok) << r.error;
  std::map<uint64_t, uint64_t> expected;
  for (uint64_t b = 0; b < 2; ++b)
    for (uint64_t t = 0; t < 4; ++t)
      expected[b * 4 + t] = 2000 + b * 4 + (3 - t);
  EXPECT_EQ(cells(r, 0), expected);
  // Shared arrays are not outputs.
  EXPECT_EQ(r.written.count(2), 0u);
}

// Within an interval every thread reads memory as it stood at the start of
// the interval (a neighbour's write is not seen before the barrier, but is
// after it), and shared memory belongs to one block: block 1 starts from
// its own initial content, not from block 0's writes.
TEST_F(ExecutorTest, WritesTakeEffectAtBarrier) {
  kv::KernelOp k = parse(R"(
kv.kernel @neighbour attributes {arg_names = ["before", "after", "buf"]} {
^bb0(%before: !kv.global<i32>, %after: !kv.global<i32>, %buf: !kv.shared<i32, 8>):
  %true = arith.constant true
  %c1 = arith.constant 1 : i32
  %c7 = arith.constant 7 : i32
  %tx = kv.sreg tid.x : i32
  %bx = kv.sreg bid.x : i32
  %bdx = kv.sreg bdim.x : i32
  %base = arith.muli %bx, %bdx : i32
  %i = arith.addi %base, %tx : i32
  %i64 = arith.extui %i : i32 to i64
  %t64 = arith.extui %tx : i32 to i64
  %next = arith.addi %tx, %c1 : i32
  %n = arith.remui %next, %bdx : i32
  %n64 = arith.extui %n : i32 to i64
  kv.write %buf[%t64] = %c7 if %true : !kv.shared<i32, 8>, i64, i32
  %v = kv.read %buf[%n64] if %true : !kv.shared<i32, 8>, i64 -> i32
  kv.write %before[%i64] = %v if %true : !kv.global<i32>, i64, i32
  kv.barrier
  %w = kv.read %buf[%n64] if %true : !kv.shared<i32, 8>, i64 -> i32
  kv.write %after[%i64] = %w if %true : !kv.global<i32>, i64, i32
}
)",
                         "neighbour");
  ASSERT_TRUE(k);
  kv::ExecInputs in = inputs();
  in.sharedInitial = [](unsigned argNo, const uint64_t *bid, uint64_t index) {
    EXPECT_EQ(argNo, 2u);
    return APInt(32, 100 * (bid[0] + 1) + index);
  };
  kv::ExecResult r = kv::execute(k, launch(2, 4), in);
  ASSERT_TRUE(r.ok) << r.error;
  std::map<uint64_t, uint64_t> before, after;
  for (uint64_t b = 0; b < 2; ++b)
    for (uint64_t t = 0; t < 4; ++t) {
      before[b * 4 + t] = 100 * (b + 1) + (t + 1) % 4;
      after[b * 4 + t] = 7;
    }
  EXPECT_EQ(cells(r, 0), before);
  EXPECT_EQ(cells(r, 1), after);
}

// A write whose guard is false does not happen: only threads with
// tid.x < n write (signed comparison, so n = -1 means none).
TEST_F(ExecutorTest, GuardedWrite) {
  kv::KernelOp k = parse(R"(
kv.kernel @guarded attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i32>, %n: i32):
  %tx = kv.sreg tid.x : i32
  %g = arith.cmpi slt, %tx, %n : i32
  %t64 = arith.extui %tx : i32 to i64
  kv.write %out[%t64] = %tx if %g : !kv.global<i32>, i64, i32
}
)",
                         "guarded");
  ASSERT_TRUE(k);
  auto runWith = [&](int64_t n) {
    kv::ExecInputs in;
    in.scalar = [n](unsigned argNo) {
      EXPECT_EQ(argNo, 1u);
      return APInt(32, n, /*isSigned=*/true);
    };
    return kv::execute(k, launch(1, 4), in);
  };
  kv::ExecResult two = runWith(2);
  ASSERT_TRUE(two.ok) << two.error;
  EXPECT_EQ(cells(two, 0), (std::map<uint64_t, uint64_t>{{0, 0}, {1, 1}}));
  for (int64_t n : {0, -1}) {
    kv::ExecResult none = runWith(n);
    ASSERT_TRUE(none.ok) << none.error;
    ASSERT_EQ(none.written.count(0), 1u);
    EXPECT_TRUE(none.written.at(0).empty()) << "n = " << n;
  }
}

// Several writes to one cell in one interval: the last in thread order (and
// in program order within a thread) wins; blocks run in order.
TEST_F(ExecutorTest, LastWriteWins) {
  kv::KernelOp k = parse(R"(
kv.kernel @last attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c42 = arith.constant 42 : i32
  %tx = kv.sreg tid.x : i32
  %bx = kv.sreg bid.x : i32
  %v = arith.addi %tx, %bx : i32
  kv.write %out[%c0] = %v if %true : !kv.global<i32>, i64, i32
  kv.write %out[%c1] = %v if %true : !kv.global<i32>, i64, i32
  kv.write %out[%c1] = %c42 if %true : !kv.global<i32>, i64, i32
}
)",
                         "last");
  ASSERT_TRUE(k);
  kv::ExecResult r = kv::execute(k, launch(2, 4), kv::ExecInputs());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(cells(r, 0), (std::map<uint64_t, uint64_t>{{0, 3 + 1}, {1, 42}}));
}

// A kv.assume that is false for some thread marks the launch invalid; one
// that holds for every thread does not.
TEST_F(ExecutorTest, AssumeViolated) {
  kv::KernelOp k = parse(R"(
kv.kernel @assume_small attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>):
  %true = arith.constant true
  %c3 = arith.constant 3 : i32
  %tx = kv.sreg tid.x : i32
  %small = arith.cmpi ult, %tx, %c3 : i32
  kv.assume %small
  %t64 = arith.extui %tx : i32 to i64
  kv.write %out[%t64] = %tx if %true : !kv.global<i32>, i64, i32
}
)",
                         "assume_small");
  ASSERT_TRUE(k);
  kv::ExecResult valid = kv::execute(k, launch(2, 3), kv::ExecInputs());
  ASSERT_TRUE(valid.ok) << valid.error;
  EXPECT_FALSE(valid.assumeViolated);
  EXPECT_EQ(cells(valid, 0).size(), 3u);

  // Thread 3 of the first block violates it.
  kv::ExecResult invalid = kv::execute(k, launch(2, 4), kv::ExecInputs());
  EXPECT_TRUE(invalid.assumeViolated);
  EXPECT_FALSE(invalid.tooMuchWork);
}

const char *PerThreadKernel = R"(
kv.kernel @per_thread attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>):
  %true = arith.constant true
  %tx = kv.sreg tid.x : i32
  %t64 = arith.extui %tx : i32 to i64
  kv.write %out[%t64] = %tx if %true : !kv.global<i32>, i64, i32
}
)";

// A launch with more threads in total than maxThreads fails with a message;
// exactly maxThreads is fine; products beyond 2^64 and empty dimensions are
// refused rather than wrapped.
TEST_F(ExecutorTest, TooManyThreads) {
  kv::KernelOp k = parse(PerThreadKernel, "per_thread");
  ASSERT_TRUE(k);
  kv::ExecResult tooMany =
      kv::execute(k, launch(3, 4), kv::ExecInputs(), /*maxThreads=*/8);
  EXPECT_FALSE(tooMany.ok);
  EXPECT_FALSE(tooMany.tooMuchWork);
  EXPECT_NE(tooMany.error.find("12 threads exceeds the limit of 8"),
            std::string::npos)
      << tooMany.error;

  kv::ExecResult atLimit =
      kv::execute(k, launch(2, 4), kv::ExecInputs(), /*maxThreads=*/8);
  EXPECT_TRUE(atLimit.ok) << atLimit.error;

  kv::LaunchConfig huge = launch(uint64_t(1) << 32, 2, uint64_t(1) << 32);
  kv::ExecResult overflow = kv::execute(k, huge, kv::ExecInputs());
  EXPECT_FALSE(overflow.ok);
  EXPECT_NE(overflow.error.find("more than 2^64"), std::string::npos)
      << overflow.error;

  kv::ExecResult empty = kv::execute(k, launch(1, 0), kv::ExecInputs());
  EXPECT_FALSE(empty.ok);
  EXPECT_NE(empty.error.find("must be positive"), std::string::npos)
      << empty.error;
}

// maxSteps bounds the instructions executed: a run that needs more fails
// with tooMuchWork set; a limit of exactly what it needs, or none (0), lets
// it finish. The kernel runs 3 instructions per thread (sreg, extui, write;
// constants cost nothing).
TEST_F(ExecutorTest, StepLimit) {
  kv::KernelOp k = parse(PerThreadKernel, "per_thread");
  ASSERT_TRUE(k);
  const uint64_t maxThreads = 1u << 20;
  kv::ExecResult exact =
      kv::execute(k, launch(1, 4), kv::ExecInputs(), maxThreads, 12);
  EXPECT_TRUE(exact.ok) << exact.error;
  EXPECT_FALSE(exact.tooMuchWork);
  EXPECT_EQ(cells(exact, 0).size(), 4u);

  kv::ExecResult over =
      kv::execute(k, launch(1, 4), kv::ExecInputs(), maxThreads, 11);
  EXPECT_FALSE(over.ok);
  EXPECT_TRUE(over.tooMuchWork);
  EXPECT_NE(over.error.find("exceeds 11 instructions"), std::string::npos)
      << over.error;

  kv::ExecResult unlimited =
      kv::execute(k, launch(1, 4), kv::ExecInputs(), maxThreads, 0);
  EXPECT_TRUE(unlimited.ok) << unlimited.error;
}

const char *LoopKernel = R"(
kv.kernel @fill attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i64>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %k = kv.iter from %c0 step %c1 while slt %n if %true
  kv.write %out[%k] = %k if %true : !kv.global<i64>, i64, i64
}
)";

// A kv.iter loop runs its dependent ops once per iteration; under a step
// limit a long loop ends with tooMuchWork instead of running on.
TEST_F(ExecutorTest, LoopUnderStepLimit) {
  kv::KernelOp k = parse(LoopKernel, "fill");
  ASSERT_TRUE(k);
  kv::ExecInputs in;
  in.scalar = [](unsigned) { return APInt(64, 1000); };
  kv::ExecResult full = kv::execute(k, launch(1, 1), in);
  ASSERT_TRUE(full.ok) << full.error;
  std::map<uint64_t, uint64_t> out = cells(full, 0);
  EXPECT_EQ(out.size(), 1000u);
  EXPECT_EQ(out[999], 999u);

  kv::ExecResult limited = kv::execute(k, launch(1, 1), in, 1u << 20, 100);
  EXPECT_FALSE(limited.ok);
  EXPECT_TRUE(limited.tooMuchWork);
}

// kv.sum adds its term over the loop's iterations, starting from zero for
// every thread; with no iteration the sum is 0 and is still written.
TEST_F(ExecutorTest, SumOverLoop) {
  kv::KernelOp k = parse(R"(
kv.kernel @total attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %tx = kv.sreg tid.x : i32
  %t64 = arith.extui %tx : i32 to i64
  %k = kv.iter from %c0 step %c1 while slt %n if %true
  %x = kv.read %in[%k] if %true : !kv.global<i32>, i64 -> i32
  %s = kv.sum %x over %k : i32
  kv.write %out[%t64] = %s if %true : !kv.global<i32>, i64, i32
}
)",
                         "total");
  ASSERT_TRUE(k);
  auto runWith = [&](uint64_t n) {
    kv::ExecInputs in;
    in.scalar = [n](unsigned) { return APInt(64, n); };
    in.initial = [](unsigned, uint64_t index) { return APInt(32, index + 1); };
    return kv::execute(k, launch(1, 2), in);
  };
  kv::ExecResult four = runWith(4);
  ASSERT_TRUE(four.ok) << four.error;
  EXPECT_EQ(cells(four, 0), (std::map<uint64_t, uint64_t>{{0, 10}, {1, 10}}));
  kv::ExecResult none = runWith(0);
  ASSERT_TRUE(none.ok) << none.error;
  EXPECT_EQ(cells(none, 0), (std::map<uint64_t, uint64_t>{{0, 0}, {1, 0}}));
}

// A kv.prove inside a loop's range that does not depend on its iteration
// (a staged tile's condition, placed between the loop's reads) is one
// check: the loop runs, and a condition that fails still fails the run.
TEST_F(ExecutorTest, ProveInLoopRange) {
  kv::KernelOp k = parse(R"(
kv.kernel @total attributes {arg_names = ["out", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i32
  %tx = kv.sreg tid.x : i32
  %t64 = arith.extui %tx : i32 to i64
  %k = kv.iter from %c0 step %c1 while slt %n if %true
  %x = kv.read %in[%k] if %true : !kv.global<i32>, i64 -> i32
  %ok = arith.cmpi ult, %tx, %c2 : i32
  kv.prove %ok, "tid.x below 2"
  %s = kv.sum %x over %k : i32
  kv.write %out[%t64] = %s if %true : !kv.global<i32>, i64, i32
}
)",
                         "total");
  ASSERT_TRUE(k);
  kv::ExecInputs in;
  in.scalar = [](unsigned) { return APInt(64, 3); };
  in.initial = [](unsigned, uint64_t index) { return APInt(32, index + 1); };
  kv::ExecResult two = kv::execute(k, launch(1, 2), in);
  ASSERT_TRUE(two.ok) << two.error;
  EXPECT_EQ(cells(two, 0), (std::map<uint64_t, uint64_t>{{0, 6}, {1, 6}}));
  kv::ExecResult three = kv::execute(k, launch(1, 3), in);
  EXPECT_FALSE(three.ok);
  EXPECT_NE(three.error.find("tid.x below 2"), std::string::npos)
      << three.error;
}

// kv.fold is a left fold in iteration order: h = h * 31 + x from 7 over
// the iterations that run; with none it is the carry's start value. A
// write of the running value (kv.carry) inside the loop sees the value at
// the iteration's start.
TEST_F(ExecutorTest, FoldInOrder) {
  kv::KernelOp k = parse(R"(
kv.kernel @hash attributes {arg_names = ["out", "run", "in", "n"]} {
^bb0(%out: !kv.global<i32>, %run: !kv.global<i32>, %in: !kv.global<i32>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c7 = arith.constant 7 : i32
  %c31 = arith.constant 31 : i32
  %k = kv.iter from %c0 step %c1 while slt %n if %true
  %h = kv.carry %c7 over %k : i32
  kv.write %run[%k] = %h if %true : !kv.global<i32>, i64, i32
  %x = kv.read %in[%k] if %true : !kv.global<i32>, i64 -> i32
  %m = arith.muli %h, %c31 : i32
  %next = arith.addi %m, %x : i32
  %r = kv.fold %h = %next : i32
  kv.write %out[%c0] = %r if %true : !kv.global<i32>, i64, i32
}
)",
                         "hash");
  ASSERT_TRUE(k);
  auto runWith = [&](uint64_t n) {
    kv::ExecInputs in;
    in.scalar = [n](unsigned) { return APInt(64, n); };
    in.initial = [](unsigned, uint64_t index) { return APInt(32, index + 1); };
    return kv::execute(k, launch(1, 1), in);
  };
  kv::ExecResult three = runWith(3);
  ASSERT_TRUE(three.ok) << three.error;
  // ((7 * 31 + 1) * 31 + 2) * 31 + 3: not a sum of terms.
  EXPECT_EQ(cells(three, 0), (std::map<uint64_t, uint64_t>{{0, 209563}}));
  EXPECT_EQ(cells(three, 1),
            (std::map<uint64_t, uint64_t>{{0, 7}, {1, 218}, {2, 6760}}));
  kv::ExecResult none = runWith(0);
  ASSERT_TRUE(none.ok) << none.error;
  EXPECT_EQ(cells(none, 0), (std::map<uint64_t, uint64_t>{{0, 7}}));
  EXPECT_TRUE(cells(none, 1).empty());
}

const char *WrapKernel = R"(
kv.kernel @wrap attributes {arg_names = ["out", "a", "b"]} {
^bb0(%out: !kv.global<i32>, %a: i32, %b: i32):
  %true = arith.constant true
  %zero = arith.constant 0 : i32
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %s = arith.addi %a, %b : i32
  kv.write %out[%c0] = %s if %true : !kv.global<i32>, i64, i32
  %p = arith.muli %a, %b : i32
  kv.write %out[%c1] = %p if %true : !kv.global<i32>, i64, i32
  %neg = arith.cmpi slt, %s, %zero : i32
  %f = arith.extui %neg : i1 to i32
  kv.write %out[%c2] = %f if %true : !kv.global<i32>, i64, i32
}
)";

// Under --bits=8 (ExecInputs::bits) i32 values are 8-bit words: 100 + 100
// wraps to 200 = -56 (negative), 100 * 100 to 16; at 32 bits they do not.
// Scalars must come at the model width.
TEST_F(ExecutorTest, NarrowBitsWrap) {
  kv::KernelOp k = parse(WrapKernel, "wrap");
  ASSERT_TRUE(k);
  for (unsigned bits : {8u, 32u}) {
    kv::ExecInputs in;
    in.bits = bits;
    in.scalar = [bits](unsigned) { return APInt(bits, 100); };
    kv::ExecResult r = kv::execute(k, launch(1, 1), in);
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(r.written.at(0).size(), 3u);
    for (const auto &[index, value] : r.written.at(0))
      EXPECT_EQ(value.getBitWidth(), bits) << "out[" << index << "]";
    if (bits == 8)
      EXPECT_EQ(cells(r, 0),
                (std::map<uint64_t, uint64_t>{{0, 200}, {1, 16}, {2, 1}}));
    else
      EXPECT_EQ(cells(r, 0),
                (std::map<uint64_t, uint64_t>{{0, 200}, {1, 10000}, {2, 0}}));
  }

  kv::ExecInputs wrongWidth;
  wrongWidth.bits = 8;
  wrongWidth.scalar = [](unsigned) { return APInt(32, 100); };
  kv::ExecResult r = kv::execute(k, launch(1, 1), wrongWidth);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("has 32 bits, expected 8"), std::string::npos)
      << r.error;
}

// Division by zero and shifts by at least the width give SMT-LIB's
// bit-vector results, as the encoding does: x /u 0 = all ones, x %u 0 = x,
// x /s 0 = 1 for negative x, x << 40 = 0, x >>s 40 = -1 for negative x.
TEST_F(ExecutorTest, SmtLibDivisionAndShifts) {
  kv::KernelOp k = parse(R"(
kv.kernel @edge attributes {arg_names = ["out", "x", "z", "sh"]} {
^bb0(%out: !kv.global<i32>, %x: i32, %z: i32, %sh: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %c4 = arith.constant 4 : i64
  %c5 = arith.constant 5 : i64
  %c6 = arith.constant 6 : i64
  %du = arith.divui %x, %z : i32
  kv.write %out[%c0] = %du if %true : !kv.global<i32>, i64, i32
  %ru = arith.remui %x, %z : i32
  kv.write %out[%c1] = %ru if %true : !kv.global<i32>, i64, i32
  %ds = arith.divsi %x, %z : i32
  kv.write %out[%c2] = %ds if %true : !kv.global<i32>, i64, i32
  %rs = arith.remsi %x, %z : i32
  kv.write %out[%c3] = %rs if %true : !kv.global<i32>, i64, i32
  %shl = arith.shli %x, %sh : i32
  kv.write %out[%c4] = %shl if %true : !kv.global<i32>, i64, i32
  %ashr = arith.shrsi %x, %sh : i32
  kv.write %out[%c5] = %ashr if %true : !kv.global<i32>, i64, i32
  %lshr = arith.shrui %x, %sh : i32
  kv.write %out[%c6] = %lshr if %true : !kv.global<i32>, i64, i32
}
)",
                         "edge");
  ASSERT_TRUE(k);
  kv::ExecInputs in;
  in.scalar = [](unsigned argNo) {
    int64_t v = argNo == 1 ? -7 : argNo == 2 ? 0 : 40;
    return APInt(32, v, /*isSigned=*/true);
  };
  kv::ExecResult r = kv::execute(k, launch(1, 1), in);
  ASSERT_TRUE(r.ok) << r.error;
  const uint64_t minus7 = 0xfffffff9, minus1 = 0xffffffff;
  EXPECT_EQ(cells(r, 0), (std::map<uint64_t, uint64_t>{{0, minus1},
                                                       {1, minus7},
                                                       {2, 1},
                                                       {3, minus7},
                                                       {4, 0},
                                                       {5, minus1},
                                                       {6, 0}}));
}

} // namespace

namespace {

/// nativeApply on 32-bit float patterns.
std::optional<uint64_t> native(llvm::StringRef fn,
                               std::initializer_list<APInt> args,
                               unsigned width, std::string *why = nullptr) {
  std::string ignored;
  std::optional<APInt> r = kv::executor::nativeApply(
      fn, llvm::ArrayRef<APInt>(args.begin(), args.size()), width,
      why ? *why : ignored);
  if (!r)
    return std::nullopt;
  return r->getZExtValue();
}

APInt f32(float x) { return APInt(32, llvm::bit_cast<uint32_t>(x)); }
uint64_t bitsOf(float x) { return llvm::bit_cast<uint32_t>(x); }

// Conversions and exact intrinsics replay as the GPU computes them; what
// the host cannot compute exactly (approximate math) has no value, so a
// replay never borrows one from the solver's model.
TEST(NativeApply, ConversionsAndExactMath) {
  // 2^24 + 1 is not a float: rounded to nearest even, once.
  EXPECT_EQ(native("sitofp.i32.float", {APInt(32, 16777217)}, 32),
            bitsOf(16777216.0f));
  EXPECT_EQ(native("uitofp.i32.float", {APInt(32, 0xffffffffu)}, 32),
            bitsOf(4294967296.0f));
  EXPECT_EQ(native("sitofp.i32.float", {APInt(32, -3, true)}, 32),
            bitsOf(-3.0f));
  EXPECT_EQ(native("fptosi.float.i32", {f32(-2.75f)}, 32),
            APInt(32, -2, true).getZExtValue());
  // Out of range: poison, with a reason, not a value.
  std::string why;
  EXPECT_EQ(native("fptosi.float.i32", {f32(3e9f)}, 32, &why), std::nullopt);
  EXPECT_NE(why.find("poison"), std::string::npos);
  EXPECT_EQ(native("fpext.float.double", {f32(0.1f)}, 64),
            llvm::bit_cast<uint64_t>((double)0.1f));
  EXPECT_EQ(native("llvm.sqrt.f32", {f32(2.0f)}, 32), bitsOf(std::sqrt(2.0f)));
  EXPECT_EQ(native("llvm.fma.f32", {f32(3.0f), f32(5.0f), f32(1.0f)}, 32),
            bitsOf(16.0f));
  // fabs clears the sign bit and nothing else, NaN payload included.
  EXPECT_EQ(native("llvm.fabs.f32", {APInt(32, 0xffc00001u)}, 32), 0x7fc00001u);
  EXPECT_EQ(native("llvm.maxnum.f32", {f32(NAN), f32(2.0f)}, 32), bitsOf(2.0f));
  EXPECT_EQ(native("frem", {f32(7.5f), f32(2.0f)}, 32), bitsOf(1.5f));
  // PTX's cvt: rounding modes, saturation, NaN to 0, halves of a double.
  EXPECT_EQ(native("llvm.nvvm.f2i.rn", {f32(2.5f)}, 32), 2u);
  EXPECT_EQ(native("llvm.nvvm.f2i.rm", {f32(-0.5f)}, 32), 0xffffffffu);
  EXPECT_EQ(native("llvm.nvvm.f2i.rz", {f32(3e9f)}, 32), 0x7fffffffu);
  EXPECT_EQ(native("llvm.nvvm.f2ui.rn", {f32(-1.0f)}, 32), 0u);
  EXPECT_EQ(native("llvm.nvvm.f2i.rn.ftz", {f32(NAN)}, 32), 0u);
  EXPECT_EQ(native("llvm.nvvm.i2f.rz", {APInt(32, 16777217)}, 32),
            bitsOf(16777216.0f));
  EXPECT_EQ(native("llvm.nvvm.i2f.rp", {APInt(32, 16777217)}, 32),
            bitsOf(16777218.0f));
  EXPECT_EQ(native("llvm.nvvm.d2i.hi", {APInt(64, 0x123456789abcdef0ull)}, 32),
            0x12345678u);
  // The GPU's approximate exp is not the host's: no value.
  EXPECT_EQ(native("llvm.exp.f32", {f32(1.0f)}, 32), std::nullopt);
  EXPECT_EQ(native("__nv_expf", {f32(1.0f)}, 32), std::nullopt);
  // Directed roundings and saturation (libdevice's expf): exact.
  EXPECT_EQ(
      native("llvm.nvvm.fma.rm.f", {f32(1.0f), f32(1.0f), f32(0x1p-30f)}, 32),
      bitsOf(1.0f));
  EXPECT_EQ(
      native("llvm.nvvm.fma.rp.f", {f32(1.0f), f32(1.0f), f32(0x1p-30f)}, 32),
      bitsOf(std::nextafter(1.0f, 2.0f)));
  EXPECT_EQ(native("llvm.nvvm.saturate.f", {f32(1.5f)}, 32), bitsOf(1.0f));
  EXPECT_EQ(native("llvm.nvvm.saturate.f", {f32(NAN)}, 32), bitsOf(0.0f));
}

// Cells known within bounds differ only where the bounds are disjoint.
TEST(NativeApply, CertainlyDiffer) {
  kv::ExecResult a, b;
  APInt one = f32(1.0f), two = f32(2.0f);
  // Exact cells: any difference of bits (two NaNs are one output).
  EXPECT_TRUE(kv::executor::certainlyDiffer(a, b, 0, 0, one, two, true));
  EXPECT_FALSE(kv::executor::certainlyDiffer(a, b, 0, 0, f32(NAN),
                                             APInt(32, 0xffc00001u), true));
  // A range that holds the other value, or overlaps the other range.
  a.ranges[0][0] = {0.5, 1.5};
  EXPECT_FALSE(kv::executor::certainlyDiffer(a, b, 0, 0, one, one, true));
  EXPECT_FALSE(
      kv::executor::certainlyDiffer(a, b, 0, 0, one, f32(1.25f), true));
  b.ranges[0][0] = {1.4, 3.0};
  EXPECT_FALSE(kv::executor::certainlyDiffer(a, b, 0, 0, one, two, true));
  // Disjoint: a difference on every GPU; so is a NaN against a range.
  b.ranges[0][0] = {1.6, 3.0};
  EXPECT_TRUE(kv::executor::certainlyDiffer(a, b, 0, 0, one, two, true));
  b.ranges.clear();
  EXPECT_TRUE(kv::executor::certainlyDiffer(a, b, 0, 0, one, f32(NAN), true));
  // Another cell is exact.
  EXPECT_TRUE(kv::executor::certainlyDiffer(a, b, 0, 1, one, f32(1.25f), true));
}

} // namespace

// A loop with breaks: the first k < n with in[k] == key (or n), run until a
// kv.break holds; kv.last keeps the value of the iteration that broke.
TEST_F(ExecutorTest, LoopWithBreaks) {
  kv::KernelOp k = parse(R"(
kv.kernel @find attributes {arg_names = ["out", "in", "n", "key"]} {
^bb0(%out: !kv.global<i32>, %in: !kv.global<i32>, %n: i32, %key: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %max = arith.constant 2147483648 : i64
  %k = kv.iter from %c0 step %c1 while slt %max if %true
  %k32 = arith.trunci %k : i64 to i32
  %done = arith.cmpi sge, %k32, %n : i32
  %go = arith.xori %done, %true : i1
  %x = kv.read %in[%k] if %go : !kv.global<i32>, i64 -> i32
  %hit = arith.cmpi eq, %x, %key : i32
  %found = arith.andi %go, %hit : i1
  kv.break %k if %done
  kv.break %k if %found
  %r = kv.last %k32 over %k : i32
  kv.write %out[%c0] = %r if %true : !kv.global<i32>, i64, i32
}
)",
                         "find");
  ASSERT_TRUE(k);
  auto run = [&](int64_t n, int64_t key) {
    kv::ExecInputs in = inputs();
    in.scalar = [n, key](unsigned argNo) {
      return APInt(32, argNo == 2 ? n : key, /*isSigned=*/true);
    };
    kv::ExecResult r = kv::execute(k, launch(1, 1), in);
    EXPECT_TRUE(r.ok) << r.error;
    return cells(r, 0)[0];
  };
  // in[i] = 2000 + i: key 2005 is at 5; beyond n, or absent, gives n.
  EXPECT_EQ(run(10, 2005), 5u);
  EXPECT_EQ(run(3, 2005), 3u);
  EXPECT_EQ(run(10, 7), 10u);
  EXPECT_EQ(run(0, 2000), 0u);
}

// A grid barrier: every block writes its cells of tmp, then reads the next
// block's first cell, which only a run that finishes every block's first
// phase before any second phase has written. A shared cell and a value
// computed before the barrier live on across it, per block.
TEST_F(ExecutorTest, GridBarrierPhases) {
  kv::KernelOp k = parse(R"(
kv.kernel @phases attributes {arg_names = ["out", "tmp", "sh"]} {
^bb0(%out: !kv.global<i32>, %tmp: !kv.global<i32>, %sh: !kv.shared<i32, 1>):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i32
  %c10 = arith.constant 10 : i32
  %tx = kv.sreg tid.x : i32
  %bx = kv.sreg bid.x : i32
  %bdx = kv.sreg bdim.x : i32
  %gdx = kv.sreg gdim.x : i32
  %base = arith.muli %bx, %bdx : i32
  %i = arith.addi %base, %tx : i32
  %i64 = arith.extui %i : i32 to i64
  %v = arith.muli %i, %c10 : i32
  kv.write %tmp[%i64] = %v if %true : !kv.global<i32>, i64, i32
  %c0_i32 = arith.constant 0 : i32
  %first = arith.cmpi eq, %tx, %c0_i32 : i32
  kv.write %sh[%c0] = %bx if %first : !kv.shared<i32, 1>, i64, i32
  kv.barrier grid
  %nb = arith.addi %bx, %c1 : i32
  %wrap = arith.remui %nb, %gdx : i32
  %next = arith.muli %wrap, %bdx : i32
  %n64 = arith.extui %next : i32 to i64
  %w = kv.read %tmp[%n64] if %true : !kv.global<i32>, i64 -> i32
  %s = kv.read %sh[%c0] if %true : !kv.shared<i32, 1>, i64 -> i32
  %sum = arith.addi %w, %s : i32
  %r = arith.addi %sum, %v : i32
  kv.write %out[%i64] = %r if %true : !kv.global<i32>, i64, i32
}
)",
                         "phases");
  ASSERT_TRUE(k);
  kv::ExecResult r = kv::execute(k, launch(3, 2), inputs());
  ASSERT_TRUE(r.ok) << r.error;
  std::map<uint64_t, uint64_t> expected;
  for (uint64_t b = 0; b < 3; ++b)
    for (uint64_t t = 0; t < 2; ++t) {
      uint64_t i = b * 2 + t;
      expected[i] = ((b + 1) % 3) * 2 * 10 + b + i * 10;
    }
  EXPECT_EQ(cells(r, 0), expected);
}
