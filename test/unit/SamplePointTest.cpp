//===- SamplePointTest.cpp - side queries at a sample launch
//---------------===//
//
// Encoder::samplePoint picks launch values and scalars that the facts admit,
// by evaluation; satisfiableAtSample answers "satisfiable" only with a model
// at that point. A candidate writer that the sample shows live is kept
// without the general query, so a wrong sample (one the facts do not admit)
// would keep candidates that cannot write, and a wrong `true` would be
// unsound for any caller that drops on `false`: both are tested here.
//
//===----------------------------------------------------------------------===//

#include "kv/KVDialect.h"
#include "smt-encode/Encoder.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <z3++.h>

#include <memory>

namespace {

const char *Kernel = R"(
kv.kernel @k attributes {arg_names = ["out", "n", "m"]} {
^bb0(%out: !kv.global<i32>, %n: i32, %m: i32):
}
)";

class SamplePointTest : public ::testing::Test {
protected:
  SamplePointTest() {
    mlir::DialectRegistry registry;
    kv::registerKVDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(Kernel, &ctx);
  }

  std::unique_ptr<kv::Encoder> encoder() {
    kv::KernelOp k = module->lookupSymbol<kv::KernelOp>("k");
    EXPECT_TRUE(k);
    auto enc = std::make_unique<kv::Encoder>(z3, 32, k);
    enc->facts = enc->launchConstraints();
    return enc;
  }

  /// The facts with the sample's values substituted, simplified.
  z3::expr factsAtSample(kv::Encoder &enc) {
    const auto &[vars, vals] = enc.samplePoint();
    z3::expr f = enc.facts;
    return f.substitute(vars, vals).simplify();
  }

  z3::expr n() { return z3.bv_const("n", 32); }
  z3::expr m() { return z3.bv_const("m", 32); }

  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  z3::context z3;
};

TEST_F(SamplePointTest, AdmittedByTheFacts) {
  auto enc = encoder();
  // Square blocks of at most 16, n a multiple of the block's width, m
  // below n.
  z3::expr bx = enc->bdim[0], by = enc->bdim[1];
  enc->facts = enc->facts && bx == by && z3::ule(bx, z3.bv_val(16, 32)) &&
               z3::urem(n(), bx) == 0 && z3::slt(m(), n());
  EXPECT_FALSE(enc->samplePoint().first.empty());
  EXPECT_TRUE(factsAtSample(*enc).is_true());
}

TEST_F(SamplePointTest, KeepsPinnedValues) {
  auto enc = encoder();
  enc->facts = enc->facts && enc->bdim[0] == 256 && enc->bdim[1] == 1 &&
               enc->bdim[2] == 1 && n() == 3;
  enc->pinDetermined();
  ASSERT_TRUE(enc->bdim[0].is_numeral());
  // blockDim.x, n: the values the facts fix, though they are numerals now.
  EXPECT_TRUE(factsAtSample(*enc).is_true());
}

TEST_F(SamplePointTest, NoneWhenTheFactsAdmitNoSmallValue) {
  auto enc = encoder();
  enc->facts = enc->facts && n() == 12345 && m() == 777;
  EXPECT_TRUE(enc->samplePoint().first.empty());
  EXPECT_FALSE(enc->satisfiableAtSample(z3.bool_val(true), "test"));
}

TEST_F(SamplePointTest, SatisfiableOnlyWithAModelThere) {
  auto enc = encoder();
  z3::expr t = z3.bv_const("t", 32);
  z3::expr bx = enc->bdim[0], gx = enc->gdim[0];
  // A thread of the grid past the first block: holds at the sample.
  z3::expr past = z3::ult(t, bx * gx) && z3::uge(t, bx);
  EXPECT_TRUE(enc->satisfiableAtSample(past, "test"));
  // A launch of more than 2^20 threads in x: possible, not at the sample.
  z3::expr large = z3::uge(bx * gx, z3.bv_val(1 << 20, 32));
  EXPECT_FALSE(enc->satisfiableAtSample(large, "test"));
  // Unsatisfiable anywhere.
  EXPECT_FALSE(enc->satisfiableAtSample(past && z3::ult(t, bx), "test"));
}

} // namespace
