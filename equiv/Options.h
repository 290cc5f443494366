//===- Options.h - what a front door can set --------------------*- C++ -*-===//
//
// kv::Options holds every knob of the option table (Options.def). A front
// door defines its command-line options from the table (OptionTable.inc) and
// reads them into Options through OptionReader, the one place where values
// are validated.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_OPTIONS_H
#define KV_EQUIV_OPTIONS_H

#include "llvm/ADT/StringRef.h"
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kv {

struct Options {
#define KV_UINT(FIELD, NAME, CLI_DEFAULT, PLUGIN_DEFAULT, MIN, MAX, VALUE,     \
                RANGE, HIDDEN, DESC)                                           \
  unsigned FIELD = 0;
#define KV_BOOL(FIELD, NAME, CLI_DEFAULT, PLUGIN_DEFAULT, HIDDEN, DESC)        \
  bool FIELD = false;
#define KV_LIST(FIELD, NAME, VALUE, DESC) std::vector<std::string> FIELD;
#define KV_CHOICE(FIELD, NAME, CHOICES, HIDDEN, DESC) std::string FIELD;
#include "equiv/Options.def"
  /// Where assumptions that no option stated come from: the kernels'
  /// declared launch (their __launch_bounds__), by assumption text.
  std::map<std::string, std::string> assumptionSources;
  /// Each kernel's own launch (the command line's --launch-before and
  /// --launch-after): "grid=(E, E, E) block=(E, E, E)" over the kernel's
  /// scalar parameters; empty: the two kernels share every launch.
  std::string launchBefore, launchAfter;
};

/// How deeply an assumption may nest parentheses and unary operators: the
/// parser recurses once per level, and 20,000 levels overflow the stack of
/// the process (clang's, in the plugin).
constexpr unsigned MaxAssumptionDepth = 256;
/// The message for an assumption nested more deeply than that.
std::string assumptionTooDeepMessage();
/// How deeply \p text nests parentheses and unary operators, as the
/// assumption parser counts its levels (without parsing the rest).
unsigned assumptionDepth(llvm::StringRef text);

/// Reads option values given as text, checks them, and keeps the first
/// error. \p dash is how this front door spells an option ("--" for the
/// command line, "-kvalidate-" for the plugin), for the messages.
/// The options' defaults in the pass plugins (the table's plugin column).
Options pluginDefaults();

class OptionReader {
public:
  explicit OptionReader(llvm::StringRef dash) : dash(dash.str()) {}

  void readUInt(unsigned &out, llvm::StringRef name, llvm::StringRef text,
                unsigned min, unsigned max, llvm::StringRef range);
  void readChoice(std::string &out, llvm::StringRef name, llvm::StringRef text,
                  llvm::StringRef choices);
  /// Assumptions (--assume) that would be too deep to parse are an error of
  /// the options, before any kernel is read.
  void checkAssumptions(llvm::StringRef name,
                        const std::vector<std::string> &texts);

  /// The first invalid value, as "--bits must be an integer between 4 and
  /// 64, got '3'".
  const std::optional<std::string> &error() const { return firstError; }

private:
  std::string dash;
  std::optional<std::string> firstError;
};

} // namespace kv

#endif
