//===- IndexLemmasTest.cpp - the mixed-radix index lemmas -----------------===//
//
// Encoder::indexLemmas states that a*h + b with 0 <= b < h, computed
// without wrapping, determines a and b. The lemmas are added to proofs and
// race checks as facts, so they must hold for every value: these tests put
// concrete values into the terms and ask the solver whether the lemmas still
// allow them.
//
//===----------------------------------------------------------------------===//

#include "kv/KVDialect.h"
#include "smt-encode/Encoder.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <z3++.h>

#include <cstdint>
#include <memory>

namespace {

const char *Kernel = R"(
kv.kernel @k attributes {arg_names = ["out"]} {
^bb0(%out: !kv.global<i32>):
}
)";

class IndexLemmasTest : public ::testing::Test {
protected:
  IndexLemmasTest() {
    mlir::DialectRegistry registry;
    kv::registerKVDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(Kernel, &ctx);
  }

  /// An encoder at \p bits bits over the empty kernel, products abstracted
  /// (as in proofs and race checks).
  std::unique_ptr<kv::Encoder> encoder(unsigned bits) {
    kv::KernelOp k = module->lookupSymbol<kv::KernelOp>("k");
    EXPECT_TRUE(k);
    auto enc = std::make_unique<kv::Encoder>(z3, bits, k);
    enc->abstractNonlinear = true;
    return enc;
  }

  /// Whether the lemmas for the terms a1*h + b1 and a2*h + b2 (32 bits) allow
  /// these values, with every abstracted product and overflow check made
  /// exact.
  z3::check_result allows(uint64_t h, uint64_t a1, uint64_t b1, uint64_t a2,
                          uint64_t b2, bool exactFits) {
    std::unique_ptr<kv::Encoder> holder = encoder(32);
    kv::Encoder &enc = *holder;
    z3::expr hv = z3.bv_const("h", 32), a1v = z3.bv_const("a1", 32),
             b1v = z3.bv_const("b1", 32), a2v = z3.bv_const("a2", 32),
             b2v = z3.bv_const("b2", 32);
    z3::expr e1 = a1v * hv + b1v, e2 = a2v * hv + b2v;
    z3::expr_vector terms(z3);
    terms.push_back(e1 == e2);
    z3::expr_vector lemmas = enc.indexLemmas(terms, exactFits);
    EXPECT_GT(lemmas.size(), 0u);
    z3::solver s(z3);
    s.add(lemmas);
    for (auto &[app, exact] : enc.abstracted)
      s.add(app == exact);
    s.add(hv == z3.bv_val(h, 32) && a1v == z3.bv_val(a1, 32) &&
          b1v == z3.bv_val(b1, 32) && a2v == z3.bv_val(a2, 32) &&
          b2v == z3.bv_val(b2, 32));
    return s.check();
  }

  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  z3::context z3;
};

// 0x80000003 is 0x2AAAAAAB * 3 + 2 as an unsigned number and
// -715827882 * 3 + 1 as a signed one: both decompositions are exact, their
// quotients differ. The lemmas must not relate an unsigned fit to a signed
// one where the value is negative.
TEST_F(IndexLemmasTest, UnsignedAndSignedQuotientsOfANegativeValue) {
  uint64_t a2 = uint32_t(int32_t(-715827882));
  EXPECT_EQ(allows(3, 0x2AAAAAAB, 2, a2, 1, /*exactFits=*/true), z3::sat);
}

// Where the value is not negative the two readings agree, and two exact
// decompositions of one value by one h have equal quotients and remainders.
TEST_F(IndexLemmasTest, EqualValuesHaveEqualDigits) {
  // 7 * 5 + 1 == 6 * 5 + 6 would need a remainder of 6 >= 5: allowed (no
  // fit), and 7 * 5 + 1 against 7 * 5 + 1 is allowed.
  EXPECT_EQ(allows(5, 7, 1, 6, 6, /*exactFits=*/false), z3::sat);
  EXPECT_EQ(allows(5, 7, 1, 7, 1, /*exactFits=*/false), z3::sat);
  EXPECT_EQ(allows(5, 7, 1, 7, 1, /*exactFits=*/true), z3::sat);
}

// Two fitting decompositions of one value by one h have equal digits, and
// the lemmas say so with the products left as functions (no multiplier to
// fall back on).
TEST_F(IndexLemmasTest, DigitsAreDeterminedWithoutMultiplying) {
  std::unique_ptr<kv::Encoder> holder = encoder(32);
  kv::Encoder &enc = *holder;
  z3::expr h = z3.bv_const("h", 32), a1 = z3.bv_const("a1", 32),
           b1 = z3.bv_const("b1", 32), a2 = z3.bv_const("a2", 32),
           b2 = z3.bv_const("b2", 32);
  z3::expr p1 = enc.productApp(a1, h), p2 = enc.productApp(a2, h);
  z3::expr e1 = p1 + b1, e2 = p2 + b2;
  z3::expr_vector terms(z3);
  terms.push_back(e1 == e2);
  z3::solver s(z3);
  s.add(enc.indexLemmas(terms));
  s.add(e1 == e2 && a1 != a2);
  // Both fit by their bounds: a, h below 2^15, b < h.
  z3::expr lim = z3.bv_val(1 << 15, 32);
  s.add(z3::ult(a1, lim) && z3::ult(a2, lim) && z3::ult(h, lim) &&
        z3::ult(b1, h) && z3::ult(b2, h));
  EXPECT_EQ(s.check(), z3::unsat);
}

// A sum with several multiples of h is one row: out[col + 2 * h] with col
// = (4 * x) * h + y is (4 * x + 2) * h + y, so it cannot meet another
// column's out[(4 * x') * h + y'] (x below 2^29, h below 2^31: a fit by
// bounds).
TEST_F(IndexLemmasTest, MultiplesOfOneFactorAreOneRow) {
  std::unique_ptr<kv::Encoder> holder = encoder(32);
  kv::Encoder &enc = *holder;
  auto bv = [&](const char *name) { return z3.bv_const(name, 64); };
  z3::expr h = bv("h"), x1 = bv("x1"), y1 = bv("y1"), x2 = bv("x2"),
           y2 = bv("y2");
  z3::expr four = z3.bv_val(4, 64), two = z3.bv_val(2, 64);
  z3::expr e1 = enc.productApp(four * x1, h) + y1 + h * two;
  z3::expr e2 = enc.productApp(four * x2, h) + y2;
  z3::expr_vector terms(z3);
  terms.push_back(e1 == e2);
  z3::expr_vector lemmas = enc.indexLemmas(terms);
  z3::expr lim = z3.bv_val(uint64_t(1) << 31, 64),
           xlim = z3.bv_val(uint64_t(1) << 29, 64);
  z3::expr bounds = z3::ult(h, lim) && z3::ult(x1, xlim) && z3::ult(x2, xlim) &&
                    z3::ult(y1, h) && z3::ult(y2, h);
  z3::solver s(z3);
  s.add(lemmas);
  s.add(e1 == e2 && bounds);
  EXPECT_EQ(s.check(), z3::unsat);
  // The lemmas hold of exact products: values where the two meet, with y1
  // not below h (h = 3, y1 = 4: 0 + 4 + 6 == 0 + 10), stay allowed.
  z3::solver exact(z3);
  exact.add(lemmas);
  for (auto &[app, precise] : enc.abstracted)
    exact.add(app == precise);
  exact.add(e1 == e2 && h == z3.bv_val(3, 64) && x1 == z3.bv_val(0, 64) &&
            y1 == z3.bv_val(4, 64) && x2 == z3.bv_val(0, 64) &&
            y2 == z3.bv_val(10, 64));
  EXPECT_EQ(exact.check(), z3::sat);
}

// signedMulFits is exact on constants, where Z3 4.8.12's own bvsmul_noovfl
// folds -1 * 2 to "overflows", and the solver agrees once it has
// substituted the operands' values.
TEST_F(IndexLemmasTest, SignedProductFitsOnConstants) {
  struct Case {
    int64_t l, r;
  } cases[] = {{-1, 2},          {2, -1},         {-715827882, 3},
               {-1, -1},         {0, INT32_MIN},  {INT32_MIN, 1},
               {-65536, 32767},  {INT32_MIN, -1}, {65536, 32768},
               {-65536, -32768}, {46341, 46341},  {-46341, 46340}};
  for (const Case &c : cases) {
    int64_t p = c.l * c.r;
    bool fits = p >= INT32_MIN && p <= INT32_MAX;
    z3::expr l = z3.bv_val(uint64_t(uint32_t(int32_t(c.l))), 32),
             r = z3.bv_val(uint64_t(uint32_t(int32_t(c.r))), 32);
    z3::expr folded = kv::signedMulFits(l, r).simplify();
    EXPECT_TRUE(folded.is_true() || folded.is_false()) << c.l << " * " << c.r;
    EXPECT_EQ(folded.is_true(), fits) << c.l << " * " << c.r;
    // Through a solver whose preprocessing substitutes the values.
    z3::expr x = z3.bv_const("x", 32), y = z3.bv_const("y", 32);
    z3::solver s(z3);
    s.add(x == l && y == r);
    s.add(fits ? !kv::signedMulFits(x, y) : kv::signedMulFits(x, y));
    EXPECT_EQ(s.check(), z3::unsat) << c.l << " * " << c.r;
  }
}

// With one constant factor the check is a range of the other operand: every
// 8-bit pair, against the product computed here.
TEST_F(IndexLemmasTest, SignedProductFitsWithAConstantFactor) {
  z3::expr x = z3.bv_const("x", 8);
  z3::expr_vector from(z3);
  from.push_back(x);
  unsigned wrong = 0;
  for (int c = -128; c < 128; ++c) {
    z3::expr cv = z3.bv_val(uint64_t(uint8_t(c)), 8);
    z3::expr f = kv::signedMulFits(x, cv), g = kv::signedMulFits(cv, x);
    for (int a = -128; a < 128; ++a) {
      z3::expr_vector to(z3);
      to.push_back(z3.bv_val(uint64_t(uint8_t(a)), 8));
      bool fits = a * c >= -128 && a * c <= 127;
      for (z3::expr h : {f, g}) {
        z3::expr v = h.substitute(from, to).simplify();
        if (!(fits ? v.is_true() : v.is_false()))
          ++wrong;
      }
    }
  }
  EXPECT_EQ(wrong, 0u);
}

// Two variables keep Z3's own check, which a solver can fold once it has
// substituted constants for both: every 8-bit pair folds to the right
// answer except two negative operands of which one is beyond sqrt(127)
// (11), which may fold to "overflows" (never to "fits" when it overflows).
TEST_F(IndexLemmasTest, SignedProductFitsOfVariablesFolded) {
  z3::expr x = z3.bv_const("x", 8), y = z3.bv_const("y", 8);
  z3::expr f = kv::signedMulFits(x, y);
  z3::expr_vector from(z3);
  from.push_back(x);
  from.push_back(y);
  unsigned wronglyOverflows = 0, wronglyFits = 0;
  for (int a = -128; a < 128; ++a)
    for (int b = -128; b < 128; ++b) {
      z3::expr_vector to(z3);
      to.push_back(z3.bv_val(uint64_t(uint8_t(a)), 8));
      to.push_back(z3.bv_val(uint64_t(uint8_t(b)), 8));
      z3::expr v = f.substitute(from, to).simplify();
      bool fits = a * b >= -128 && a * b <= 127;
      if (v.is_true() && !fits)
        ++wronglyFits;
      bool exempt = (a < -11 && b < 0) || (b < -11 && a < 0);
      if (!exempt && !(fits ? v.is_true() : v.is_false()))
        ++wronglyOverflows;
    }
  EXPECT_EQ(wronglyFits, 0u);
  EXPECT_EQ(wronglyOverflows, 0u);
}

} // namespace
