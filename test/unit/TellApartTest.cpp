//===- TellApartTest.cpp - writes whose index tells the threads apart ----===//
//
// Encoder::idsTellApart lets the race check skip a write without a query:
// a wrong `true` would hide a real race. Each kernel below has one write;
// the index decides. The launch limits make blockIdx.x * blockDim.x +
// threadIdx.x and the ids of one block injective below 2^31; anything over
// a scalar, a second axis of blocks, or an id the index does not take is
// left to the solver.
//
//===----------------------------------------------------------------------===//

#include "kv/KVDialect.h"
#include "smt-encode/Encoder.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <z3++.h>

#include <set>
#include <string>

namespace {

class TellApartTest : public ::testing::Test {
protected:
  TellApartTest() {
    mlir::DialectRegistry registry;
    kv::registerKVDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
  }

  /// Whether the one write of a kernel whose body computes %idx (i64)
  /// from the ids tells apart threads that differ in \p ids.
  bool apart(const std::string &body, const std::set<std::string> &ids,
             bool hugeGrids = false) {
    std::string src = R"(
kv.kernel @k attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i32>, %n: i32):
  %tx = kv.sreg tid.x : i32
  %ty = kv.sreg tid.y : i32
  %bx = kv.sreg bid.x : i32
  %by = kv.sreg bid.y : i32
  %dx = kv.sreg bdim.x : i32
  %dy = kv.sreg bdim.y : i32
  %c1 = arith.constant 1 : i32
  %true = arith.constant true
)" + body + R"(
  kv.write %out[%idx] = %c1 if %true : !kv.global<i32>, i64, i32
}
)";
    module = mlir::parseSourceString<mlir::ModuleOp>(src, &ctx);
    EXPECT_TRUE(module);
    if (!module)
      return false;
    kv::KernelOp k = module->lookupSymbol<kv::KernelOp>("k");
    kv::KernelModel km(k, "k");
    kv::WriteOp w;
    k.walk([&](kv::WriteOp op) { w = op; });
    kv::Encoder enc(z3, 32, k);
    enc.hugeGrids = hugeGrids;
    return enc.idsTellApart(km, w, ids);
  }

  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  z3::context z3;
};

const char *GlobalX = R"(
  %m = arith.muli %bx, %dx : i32
  %g = arith.addi %m, %tx : i32
  %idx = arith.extsi %g : i32 to i64
)";

TEST_F(TellApartTest, GlobalIndexAlongX) {
  EXPECT_TRUE(apart(GlobalX, {"tid.x", "bid.x"}));
  EXPECT_TRUE(apart(GlobalX, {"tid.x"}));
  // Past 2^31 threads (--huge-grids) the index wraps.
  EXPECT_FALSE(apart(GlobalX, {"tid.x", "bid.x"}, /*hugeGrids=*/true));
  // A kernel that reads threadIdx.y elsewhere: its twins along y write
  // the same cell, not necessarily the same value.
  EXPECT_FALSE(apart(GlobalX, {"tid.x", "bid.x", "tid.y"}));
}

TEST_F(TellApartTest, IdsOfOneBlock) {
  // threadIdx.y * blockDim.x + threadIdx.x: below 1024.
  EXPECT_TRUE(apart(R"(
  %m = arith.muli %ty, %dx : i32
  %g = arith.addi %m, %tx : i32
  %idx = arith.extsi %g : i32 to i64
)",
                    {"tid.x", "tid.y"}));
}

TEST_F(TellApartTest, IndicesLeftToTheSolver) {
  // Two block axes: gridDim.x * blockDim.x * gridDim.y may pass 2^31.
  EXPECT_FALSE(apart(R"(
  %m = arith.muli %bx, %dx : i32
  %g = arith.addi %m, %tx : i32
  %r = arith.muli %by, %dx : i32
  %s = arith.addi %r, %g : i32
  %idx = arith.extsi %s : i32 to i64
)",
                     {"tid.x", "bid.x", "bid.y"}));
  // A row of width n: n is a scalar, the product may wrap.
  EXPECT_FALSE(apart(R"(
  %m = arith.muli %ty, %n : i32
  %g = arith.addi %m, %tx : i32
  %idx = arith.extsi %g : i32 to i64
)",
                     {"tid.x", "tid.y"}));
  // Two threads, one cell: i / 2.
  EXPECT_FALSE(apart(R"(
  %c2 = arith.constant 2 : i32
  %h = arith.divui %tx, %c2 : i32
  %idx = arith.extsi %h : i32 to i64
)",
                     {"tid.x"}));
  // Block ids with the wrong block's stride: bid.x * blockDim.y + tid.x.
  EXPECT_FALSE(apart(R"(
  %m = arith.muli %bx, %dy : i32
  %g = arith.addi %m, %tx : i32
  %idx = arith.extsi %g : i32 to i64
)",
                     {"tid.x", "bid.x"}));
  // An index narrowed to 16 bits wraps at 65536 threads.
  EXPECT_FALSE(apart(R"(
  %m = arith.muli %bx, %dx : i32
  %g = arith.addi %m, %tx : i32
  %t = arith.trunci %g : i32 to i16
  %idx = arith.extui %t : i16 to i64
)",
                     {"tid.x", "bid.x"}));
}

} // namespace
