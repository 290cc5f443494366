//===- AssumptionsTest.cpp - the --assume parser through the checker ------===//
//
// --assume expressions are C over blockDim, gridDim and the scalar
// parameters; they become a Z3 term inside the checker (equiv/Checker.cpp,
// AssumeParser). They are tested through kv::checkEquivalence, the public
// entry point, on two tiny kernels that differ exactly when n > 10: what the
// parser makes of an expression shows in the verdict.
//
//===----------------------------------------------------------------------===//

#include "equiv/Checker.h"
#include "kv/KVDialect.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

namespace {

// store_n writes n, store_min writes min(n, 10): they differ when n > 10
// (signed). store_n_unsigned is store_n with n an unsigned int in C. Every
// thread writes the same value to out[0] (equal writes: no race).
const char *Kernels = R"(
kv.kernel @store_n attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i32>, %n: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  kv.write %out[%c0] = %n if %true : !kv.global<i32>, i64, i32
}

kv.kernel @store_min attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i32>, %n: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c10 = arith.constant 10 : i32
  %m = arith.minsi %n, %c10 : i32
  kv.write %out[%c0] = %m if %true : !kv.global<i32>, i64, i32
}

kv.kernel @store_n_unsigned attributes {arg_names = ["out", "n"], unsigned_params = ["n"]} {
^bb0(%out: !kv.global<i32>, %n: i32):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  kv.write %out[%c0] = %n if %true : !kv.global<i32>, i64, i32
}

kv.kernel @store_long attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i64>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  kv.write %out[%c0] = %n if %true : !kv.global<i64>, i64, i64
}

kv.kernel @store_long_min attributes {arg_names = ["out", "n"]} {
^bb0(%out: !kv.global<i64>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  %c10 = arith.constant 10 : i64
  %m = arith.minsi %n, %c10 : i64
  kv.write %out[%c0] = %m if %true : !kv.global<i64>, i64, i64
}

kv.kernel @store_size attributes {arg_names = ["out", "n"], unsigned_params = ["n"]} {
^bb0(%out: !kv.global<i64>, %n: i64):
  %true = arith.constant true
  %c0 = arith.constant 0 : i64
  kv.write %out[%c0] = %n if %true : !kv.global<i64>, i64, i64
}
)";

const char *SmallLaunch = "blockDim.x <= 4 && blockDim.y == 1 && "
                          "blockDim.z == 1 && gridDim.x <= 2 && "
                          "gridDim.y == 1 && gridDim.z == 1";

class AssumptionsTest : public ::testing::Test {
protected:
  AssumptionsTest() {
    mlir::DialectRegistry registry;
    kv::registerKVDialects(registry);
    ctx.appendDialectRegistry(registry);
    ctx.loadAllAvailableDialects();
    module = mlir::parseSourceString<mlir::ModuleOp>(Kernels, &ctx);
  }

  kv::KernelOp kernel(llvm::StringRef name) {
    return module ? module->lookupSymbol<kv::KernelOp>(name) : kv::KernelOp();
  }

  /// \p before against \p after under \p assumptions. The before kernel's
  /// parameters are the names --assume can use.
  kv::CheckResult check(std::vector<std::string> assumptions,
                        llvm::StringRef before = "store_n",
                        llvm::StringRef after = "store_min",
                        unsigned bits = 32) {
    kv::KernelOp b = kernel(before), a = kernel(after);
    if (!b || !a) {
      ADD_FAILURE() << "kernels do not parse";
      return {};
    }
    kv::CheckOptions opts;
    opts.bits = bits;
    // Small launches keep each check well under a second: the solver's
    // first counterexamples otherwise have huge grids, which the replay
    // refuses, and the search goes on.
    opts.assumptions = {SmallLaunch};
    opts.assumptions.insert(opts.assumptions.end(), assumptions.begin(),
                            assumptions.end());
    // The race and divergence checks are not under test here.
    opts.assumeSafe = true;
    // A safety net.
    opts.timeoutSecs = 60;
    return kv::checkEquivalence(b, a, opts);
  }

  /// The reason of an Error verdict for \p assumption, or a test failure.
  std::string errorFor(const std::string &assumption, unsigned bits = 32) {
    kv::CheckResult r = check({assumption}, "store_n", "store_min", bits);
    EXPECT_EQ(r.verdict, kv::Verdict::Error)
        << assumption << ": " << kv::verdictName(r.verdict) << ", " << r.reason;
    return r.reason;
  }

  mlir::MLIRContext ctx;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

// The pair differs only for n > 10: not equivalent without a precondition,
// equivalent with n <= 10, which the verdict lists among what it rests on.
TEST_F(AssumptionsTest, PreconditionMakesEquivalent) {
  kv::CheckResult free = check({});
  EXPECT_EQ(free.verdict, kv::Verdict::NotEquivalent) << free.reason;

  kv::CheckResult bounded = check({"n <= 10"});
  EXPECT_EQ(bounded.verdict, kv::Verdict::Equivalent) << bounded.reason;
  EXPECT_NE(std::find(bounded.assumptions.begin(), bounded.assumptions.end(),
                      "n <= 10 (--assume)"),
            bounded.assumptions.end());
}

// Several --assume options are all assumed (a conjunction), whichever
// comes first.
TEST_F(AssumptionsTest, AssumptionsAreConjoined) {
  EXPECT_EQ(check({"n <= 20", "n <= 10"}).verdict, kv::Verdict::Equivalent);
  EXPECT_EQ(check({"n <= 10", "n <= 20"}).verdict, kv::Verdict::Equivalent);
  EXPECT_EQ(check({"n <= 20", "n >= 0"}).verdict, kv::Verdict::NotEquivalent);
}

// C precedence: * before +, parentheses first; && before ||.
TEST_F(AssumptionsTest, Precedence) {
  EXPECT_EQ(check({"n <= 4 + 2 * 3"}).verdict, kv::Verdict::Equivalent);
  EXPECT_EQ(check({"n <= (4 + 2) * 3"}).verdict, kv::Verdict::NotEquivalent);
  // n == 3 || (n > 10 && 0) holds for n == 3 only; parsed left to right
  // without precedence it would be (n == 3 || n > 10) && 0, never true (an
  // error: no launch).
  EXPECT_EQ(check({"n == 3 || n > 10 && 0"}).verdict, kv::Verdict::Equivalent);
}

// A malformed expression is an error whose message quotes the option and
// names the column (1-based) where parsing stopped.
TEST_F(AssumptionsTest, MalformedNamesColumn) {
  EXPECT_EQ(errorFor("n <= "),
            "cannot parse --assume='n <= ': column 6: expression expected");
  EXPECT_EQ(errorFor("n < 10)"),
            "cannot parse --assume='n < 10)': column 7: unexpected ')'");
  EXPECT_EQ(errorFor("(n < 10"),
            "cannot parse --assume='(n < 10': column 8: ')' expected");
  EXPECT_EQ(errorFor("n <= 10 @ 3"),
            "cannot parse --assume='n <= 10 @ 3': column 9: unexpected '@'");
  EXPECT_EQ(errorFor("n <= 12abc"),
            "cannot parse --assume='n <= 12abc': column 6: bad integer "
            "'12abc'");
}

// A literal that does not fit the word of --bits is refused (it would wrap
// and could make the assumption vacuous); at 32 bits the same is fine.
TEST_F(AssumptionsTest, LiteralWiderThanBits) {
  EXPECT_EQ(errorFor("n <= 300", /*bits=*/8),
            "cannot parse --assume='n <= 300': column 6: integer 300 does not "
            "fit in a 8-bit word (--bits)");
  EXPECT_NE(check({"n <= 300"}).verdict, kv::Verdict::Error);
}

// Unknown names are rejected with the list of names that can be used:
// thread ids and array parameters are not among them.
TEST_F(AssumptionsTest, UnknownNames) {
  const std::string known = " (known: blockDim.{x,y,z}, gridDim.{x,y,z}, n)";
  EXPECT_EQ(errorFor("m <= 10"),
            "cannot parse --assume='m <= 10': column 1: unknown name 'm'" +
                known);
  EXPECT_EQ(errorFor("n < 4 && threadIdx.x == 0"),
            "cannot parse --assume='n < 4 && threadIdx.x == 0': column 10: "
            "unknown name 'threadIdx.x'" +
                known);
  EXPECT_EQ(errorFor("out != 0"),
            "cannot parse --assume='out != 0': column 1: unknown name 'out'" +
                known);
  EXPECT_EQ(errorFor("blockDim.w == 1"),
            "cannot parse --assume='blockDim.w == 1': column 1: unknown name "
            "'blockDim.w'" +
                known);
  // The first bad one of several options is reported.
  kv::CheckResult r = check({"n <= 10", "k > 0", "j > 0"});
  EXPECT_EQ(r.verdict, kv::Verdict::Error);
  EXPECT_NE(r.reason.find("unknown name 'k'"), std::string::npos) << r.reason;
}

// blockDim and gridDim are unsigned int in C: compared with -1 (UINT_MAX)
// blockDim.x > -1 never holds, so no launch satisfies it. For the signed
// parameter n, n > -1 is an ordinary bound.
TEST_F(AssumptionsTest, BlockDimComparisonsAreUnsigned) {
  std::string noLaunch = "the assumptions admit no launch configuration";
  EXPECT_NE(errorFor("blockDim.x > -1").find(noLaunch), std::string::npos);
  // Signed, gridDim.y <= -2 would never hold; unsigned it always does.
  EXPECT_EQ(check({"gridDim.y <= -2 && n <= 10"}).verdict,
            kv::Verdict::Equivalent);
  EXPECT_EQ(check({"n > -1 && n <= 10"}).verdict, kv::Verdict::Equivalent);
}

// Arithmetic on blockDim stays unsigned: blockDim.x / -1 is 0 (unsigned
// division by UINT_MAX; signed it would be -blockDim.x, never 0), and
// blockDim.x - 2 wraps to a huge value for blockDim.x == 1.
TEST_F(AssumptionsTest, BlockDimArithmeticIsUnsigned) {
  EXPECT_EQ(check({"blockDim.x / -1 == 0 && n <= 10"}).verdict,
            kv::Verdict::Equivalent);
  EXPECT_NE(errorFor("blockDim.x == 1 && blockDim.x - 2 < 5")
                .find("admit no launch configuration"),
            std::string::npos);
  EXPECT_EQ(check({"blockDim.x == 3 && blockDim.x - 2 < 5 && n <= 10"}).verdict,
            kv::Verdict::Equivalent);
}

// A parameter declared unsigned in C (unsigned_params) compares unsigned
// too: n > -1 admits nothing.
TEST_F(AssumptionsTest, UnsignedParameter) {
  kv::CheckResult r = check({"n > -1"}, "store_n_unsigned", "store_n_unsigned");
  EXPECT_EQ(r.verdict, kv::Verdict::Error);
  EXPECT_NE(r.reason.find("admit no launch configuration"), std::string::npos)
      << r.reason;
  EXPECT_EQ(check({"n > 5"}, "store_n_unsigned", "store_n_unsigned").verdict,
            kv::Verdict::Equivalent);
}

// A long parameter keeps its 64 bits, as in C: n <= 10 bounds all of them
// (cut to 32 bits, n = 2^32 would pass it and make the pair differ).
TEST_F(AssumptionsTest, LongParameterIsNotTruncated) {
  EXPECT_EQ(check({}, "store_long", "store_long_min").verdict,
            kv::Verdict::NotEquivalent);
  EXPECT_EQ(check({"n <= 10"}, "store_long", "store_long_min").verdict,
            kv::Verdict::Equivalent);
  // An unsigned int meets a long as a long (blockDim.x <= 4 here).
  kv::CheckResult r =
      check({"n <= blockDim.x * 2"}, "store_long", "store_long_min");
  EXPECT_EQ(r.verdict, kv::Verdict::Equivalent) << r.reason;
}

// A literal past INT_MAX is a long (past LONG_MAX an unsigned long), as in
// C, where it used to be refused; the counterexample's n satisfies it.
TEST_F(AssumptionsTest, WideLiteralIsLong) {
  kv::CheckResult r = check({"n >= 4294967296 && n <= 4294967300"},
                            "store_long", "store_long_min");
  EXPECT_EQ(r.verdict, kv::Verdict::NotEquivalent) << r.reason;
  ASSERT_TRUE(r.counterexample.has_value());
  ASSERT_EQ(r.counterexample->scalars.size(), 1u);
  EXPECT_GE(r.counterexample->scalars[0].second, 4294967296);
  EXPECT_LE(r.counterexample->scalars[0].second, 4294967300);
  EXPECT_EQ(
      check({"n > 2147483648 && n < 3"}, "store_long", "store_long").verdict,
      kv::Verdict::Error);
}

// A size_t parameter compares unsigned: n > -1 (ULONG_MAX) admits nothing.
TEST_F(AssumptionsTest, UnsignedLongParameter) {
  kv::CheckResult r = check({"n > -1"}, "store_size", "store_size");
  EXPECT_EQ(r.verdict, kv::Verdict::Error);
  EXPECT_NE(r.reason.find("admit no launch configuration"), std::string::npos)
      << r.reason;
}

} // namespace
