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

TEST_F(SamplePointTest, ReplayedModelsKeepTheFacts) {
  auto enc = encoder();
  z3::expr by = enc->bdim[1], gy = enc->gdim[1];
  // A grid that covers n rows, blockDim.x pinned to 16.
  enc->facts = enc->facts && enc->bdim[0] == 16 && z3::uge(by * gy, n());
  enc->pinDetermined();
  auto modelOf = [&](unsigned b, unsigned g, unsigned rows) {
    // The launch limits hold, as in every query.
    z3::solver s(z3);
    s.add(enc->launchConstraints());
    s.add(by == z3.bv_val(b, 32) && gy == z3.bv_val(g, 32) &&
          n() == z3.bv_val(rows, 32));
    EXPECT_EQ(s.check(), z3::sat);
    return s.get_model();
  };
  // 8 x 3 = 24 rows cover 20, not 8320 (a model of a query without the
  // facts): the replay must not call the second a counterexample.
  EXPECT_TRUE(enc->factsHoldIn(modelOf(8, 3, 20)));
  EXPECT_FALSE(enc->factsHoldIn(modelOf(8, 3, 8320)));
}

TEST_F(SamplePointTest, AbstractedProductsAreEvaluatedExactly) {
  // The product in the facts as the checker's abstracted query writes it:
  // an uninterpreted application whose model may say 24 * 1 >= 8320.
  auto enc = encoder();
  enc->abstractNonlinear = true;
  z3::expr by = enc->bdim[1], gy = enc->gdim[1];
  enc->facts = enc->facts && z3::uge(enc->exactlyAbstracted(gy, by), n());
  z3::solver s(z3);
  s.add(enc->facts);
  s.add(by == z3.bv_val(8, 32) && gy == z3.bv_val(3, 32) &&
        n() == z3.bv_val(8320, 32));
  ASSERT_EQ(s.check(), z3::sat); // the abstraction admits it
  EXPECT_FALSE(enc->factsHoldIn(s.get_model()));
  // A sample point is one the exact facts admit.
  const auto &[vars, vals] = enc->samplePoint();
  ASSERT_FALSE(vars.empty());
  EXPECT_TRUE(enc->preciseFacts().substitute(vars, vals).simplify().is_true());
}

} // namespace
