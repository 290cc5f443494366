//===- OptionsTest.cpp - kv::OptionReader ---------------------------------===//
//
// The option reader is the one place where the values of the option table
// (equiv/Options.def) are validated, for the command line and the plugin
// alike: what it accepts, what it rejects and the exact messages.
//
//===----------------------------------------------------------------------===//

#include "equiv/Options.h"

#include "gtest/gtest.h"

#include <climits>
#include <string>

using kv::OptionReader;

namespace {

const char *BitsRange = "an integer between 4 and 64";

/// Reads \p text as --bits (4..64) with a fresh reader; \p out keeps \p init
/// when the value is rejected.
std::optional<std::string> readBits(llvm::StringRef text, unsigned &out,
                                    unsigned init = 99) {
  OptionReader r("--");
  out = init;
  r.readUInt(out, "bits", text, 4, 64, BitsRange);
  return r.error();
}

// Plain decimal numbers are accepted, surrounding spaces trimmed; both ends
// of the range are inclusive.
TEST(OptionReaderTest, ReadUIntAcceptsDecimal) {
  OptionReader r("--");
  unsigned zero = 7, bits = 0, trimmed = 0, low = 0;
  r.readUInt(zero, "unroll", "0", 0, 1u << 20, "a non-negative integer");
  r.readUInt(bits, "bits", "64", 4, 64, BitsRange);
  r.readUInt(trimmed, "bits", " 12 ", 4, 64, BitsRange);
  r.readUInt(low, "bits", "4", 4, 64, BitsRange);
  EXPECT_FALSE(r.error());
  EXPECT_EQ(zero, 0u);
  EXPECT_EQ(bits, 64u);
  EXPECT_EQ(trimmed, 12u);
  EXPECT_EQ(low, 4u);
}

// Anything but an unsigned decimal number is rejected and leaves the field
// alone: letters, trailing units, signs, spaces inside, the empty string.
TEST(OptionReaderTest, ReadUIntRejectsNonNumbers) {
  for (const char *text : {"abc", "10s", "-5", "+5", "1 2", "", "0x10"}) {
    unsigned out;
    std::optional<std::string> err = readBits(text, out);
    ASSERT_TRUE(err.has_value()) << "accepted '" << text << "'";
    EXPECT_EQ(*err, std::string("--bits must be an integer between 4 and 64, "
                                "got '") +
                        text + "'");
    EXPECT_EQ(out, 99u) << "changed by '" << text << "'";
  }
}

// Numbers outside MIN..MAX are rejected with the documented message,
// including values that only fit in 64 bits (no truncation to unsigned).
TEST(OptionReaderTest, ReadUIntRejectsOutOfRange) {
  unsigned out;
  std::optional<std::string> err = readBits("3", out);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(*err, "--bits must be an integer between 4 and 64, got '3'");
  EXPECT_EQ(out, 99u);

  EXPECT_TRUE(readBits("65", out).has_value());
  // 2^32 + 8 would be 8 if truncated to 32 bits.
  EXPECT_TRUE(readBits("4294967304", out).has_value());
  // Beyond 64 bits.
  EXPECT_TRUE(readBits("18446744073709551616", out).has_value());
  EXPECT_EQ(out, 99u);

  // The whole unsigned range (--seed) is usable, one more is not.
  OptionReader r("--");
  unsigned seed = 0;
  r.readUInt(seed, "seed", "4294967295", 0, UINT_MAX, "a non-negative integer");
  EXPECT_FALSE(r.error());
  EXPECT_EQ(seed, UINT_MAX);
  r.readUInt(seed, "seed", "4294967296", 0, UINT_MAX, "a non-negative integer");
  ASSERT_TRUE(r.error().has_value());
  EXPECT_EQ(*r.error(),
            "--seed must be a non-negative integer, got '4294967296'");
  EXPECT_EQ(seed, UINT_MAX);
}

// The first invalid value is the one reported; later values, good or bad,
// are still read (good ones stored) but do not replace the message.
TEST(OptionReaderTest, FirstErrorIsKept) {
  OptionReader r("--");
  unsigned bits = 32, timeout = 0, unroll = 0;
  r.readUInt(bits, "bits", "3", 4, 64, BitsRange);
  r.readUInt(timeout, "timeout", "soon", 0, 1000000,
             "a non-negative integer (seconds)");
  r.readUInt(unroll, "unroll", "8", 0, 1u << 20, "a non-negative integer");
  std::string solver;
  r.readChoice(solver, "solver", "z4", "default|eqs");
  ASSERT_TRUE(r.error().has_value());
  EXPECT_EQ(*r.error(), "--bits must be an integer between 4 and 64, got '3'");
  EXPECT_EQ(bits, 32u);
  EXPECT_EQ(unroll, 8u);
}

// A choice may be empty (the default) or exactly one of the listed values.
TEST(OptionReaderTest, ReadChoiceAcceptsListedAndEmpty) {
  OptionReader r("--");
  std::string empty = "x", def, eqs;
  r.readChoice(empty, "solver", "", "default|eqs");
  r.readChoice(def, "solver", "default", "default|eqs");
  r.readChoice(eqs, "solver", "eqs", "default|eqs");
  EXPECT_FALSE(r.error());
  EXPECT_EQ(empty, "");
  EXPECT_EQ(def, "default");
  EXPECT_EQ(eqs, "eqs");
}

// Anything else is rejected: another word, a prefix of a choice, the list
// itself, a different case.
TEST(OptionReaderTest, ReadChoiceRejectsOthers) {
  for (const char *text : {"z4", "eq", "default|eqs", "EQS", " eqs"}) {
    OptionReader r("--");
    std::string out = "kept";
    r.readChoice(out, "solver", text, "default|eqs");
    ASSERT_TRUE(r.error().has_value()) << "accepted '" << text << "'";
    EXPECT_EQ(*r.error(), std::string("--solver must be one of default|eqs, "
                                      "got '") +
                              text + "'");
    EXPECT_EQ(out, "kept");
  }
}

// Messages spell the option as the front door does: "-kvalidate-" for the
// pass plugin (-mllvm -kvalidate-bits=3).
TEST(OptionReaderTest, DashPrefixInMessages) {
  OptionReader r("-kvalidate-");
  unsigned bits = 32;
  r.readUInt(bits, "bits", "3", 4, 64, BitsRange);
  ASSERT_TRUE(r.error().has_value());
  EXPECT_EQ(*r.error(),
            "-kvalidate-bits must be an integer between 4 and 64, got '3'");

  OptionReader c("-kvalidate-");
  std::string solver;
  c.readChoice(solver, "solver", "z4", "default|eqs");
  ASSERT_TRUE(c.error().has_value());
  EXPECT_EQ(*c.error(),
            "-kvalidate-solver must be one of default|eqs, got 'z4'");
}

// Every default of the option table, in both columns (command line and
// plugin), passes its own validation: a bad default would make every run of
// that front door fail.
TEST(OptionReaderTest, TableDefaultsAreValid) {
  OptionReader cli("--"), plugin("-kvalidate-");
  kv::Options fromCli, fromPlugin;
  unsigned rows = 0;
#define KV_UINT(FIELD, NAME, CLI_DEFAULT, PLUGIN_DEFAULT, MIN, MAX, VALUE,     \
                RANGE, HIDDEN, DESC)                                           \
  cli.readUInt(fromCli.FIELD, NAME, CLI_DEFAULT, MIN, MAX, RANGE);             \
  plugin.readUInt(fromPlugin.FIELD, NAME, PLUGIN_DEFAULT, MIN, MAX, RANGE);    \
  ++rows;
#define KV_CHOICE(FIELD, NAME, CHOICES, HIDDEN, DESC)                          \
  cli.readChoice(fromCli.FIELD, NAME, "", CHOICES);                            \
  ++rows;
#include "equiv/Options.def"
  EXPECT_FALSE(cli.error()) << *cli.error();
  EXPECT_FALSE(plugin.error()) << *plugin.error();
  EXPECT_GT(rows, 0u);
  EXPECT_EQ(fromCli.bits, 32u);
  EXPECT_EQ(fromPlugin.timeoutSecs, 60u);
  EXPECT_EQ(fromCli.maxMemoryMB, 0u);
  EXPECT_EQ(fromPlugin.maxMemoryMB, 1024u);
}

// The depth of an assumption's nesting, counted before it is parsed: open
// parentheses and unary operators waiting for their operand.
TEST(OptionReaderTest, AssumptionDepth) {
  EXPECT_EQ(kv::assumptionDepth("n > 0"), 0u);
  EXPECT_EQ(kv::assumptionDepth("((n)) > (0)"), 2u);
  EXPECT_EQ(kv::assumptionDepth("!!n"), 2u);
  EXPECT_EQ(kv::assumptionDepth("-a - -b"), 1u);
  EXPECT_EQ(kv::assumptionDepth("!(!(n))"), 4u);
  EXPECT_EQ(kv::assumptionDepth("(a) && (b) && (c)"), 1u);
  std::string deep = std::string(kv::MaxAssumptionDepth, '(') + "n" +
                     std::string(kv::MaxAssumptionDepth, ')');
  OptionReader ok("--");
  ok.checkAssumptions("assume", {deep});
  EXPECT_FALSE(ok.error());
  OptionReader tooDeep("--");
  tooDeep.checkAssumptions("assume", {"n > 0", "(" + deep + ")"});
  ASSERT_TRUE(tooDeep.error());
  EXPECT_EQ(*tooDeep.error(),
            "--assume: assumption nested too deeply (more than 256 levels)");
}

} // namespace
