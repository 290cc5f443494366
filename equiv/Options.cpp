//===- Options.cpp - validating the option table's values -----------------===//

#include "equiv/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <cctype>

using namespace llvm;

namespace kv {

void OptionReader::readUInt(unsigned &out, StringRef name, StringRef text,
                            unsigned min, unsigned max, StringRef range) {
  unsigned long long v = 0;
  // getAsInteger rejects signs, spaces inside and trailing junk ("10s").
  if (StringRef(text).trim().getAsInteger(10, v) || v < min || v > max) {
    if (!firstError)
      firstError = dash + name.str() + " must be " + range.str() + ", got '" +
                   text.str() + "'";
    return;
  }
  out = (unsigned)v;
}

void OptionReader::readChoice(std::string &out, StringRef name, StringRef text,
                              StringRef choices) {
  SmallVector<StringRef> allowed;
  choices.split(allowed, '|');
  if (!text.empty() && !is_contained(allowed, text)) {
    if (!firstError)
      firstError = dash + name.str() + " must be one of " + choices.str() +
                   ", got '" + text.str() + "'";
    return;
  }
  out = text.str();
}

std::string assumptionTooDeepMessage() {
  return "assumption nested too deeply (more than " +
         std::to_string(MaxAssumptionDepth) + " levels)";
}

unsigned assumptionDepth(StringRef text) {
  // Unary operators waiting for their operand, per open parenthesis; a level
  // is an open parenthesis or a waiting operator.
  SmallVector<unsigned> waiting{0};
  unsigned depth = 0, deepest = 0;
  bool operand = true; // an operand is expected next
  auto isNameChar = [](char c) {
    return isalnum((unsigned char)c) || c == '_' || c == '.';
  };
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (isspace((unsigned char)c))
      continue;
    if (operand) {
      if (c == '(' || c == '!' || c == '-' || c == '~') {
        if (c == '(')
          waiting.push_back(0);
        else
          ++waiting.back();
        deepest = std::max(deepest, ++depth);
        continue;
      }
      // A name or a number (the parser reports anything else).
      while (i + 1 < text.size() && isNameChar(text[i + 1]))
        ++i;
      operand = false;
    } else if (c == ')' && waiting.size() > 1) {
      depth -= waiting.pop_back_val() + 1;
    } else {
      // A binary operator of one or two characters ("<", "<=", "&&").
      if (i + 1 < text.size() && StringRef("=&|<>").contains(text[i + 1]))
        ++i;
      operand = true;
      continue;
    }
    // An operand ended: the operators waiting at this level have theirs.
    depth -= waiting.back();
    waiting.back() = 0;
  }
  return deepest;
}

void OptionReader::checkAssumptions(StringRef name,
                                    const std::vector<std::string> &texts) {
  for (const std::string &t : texts)
    if (assumptionDepth(t) > MaxAssumptionDepth && !firstError)
      firstError = dash + name.str() + ": " + assumptionTooDeepMessage();
}

} // namespace kv

namespace kv {

Options pluginDefaults() {
  // The table's plugin column, read as the plugin reads its options.
  OptionReader reader("-kvalidate-");
  Options o;
#define KV_UINT(FIELD, NAME, CLI_DEFAULT, PLUGIN_DEFAULT, MIN, MAX, VALUE,     \
                RANGE, HIDDEN, DESC)                                           \
  reader.readUInt(o.FIELD, NAME, PLUGIN_DEFAULT, MIN, MAX, RANGE);
#define KV_BOOL(FIELD, NAME, CLI_DEFAULT, PLUGIN_DEFAULT, HIDDEN, DESC)        \
  o.FIELD = PLUGIN_DEFAULT;
#define KV_CHOICE(FIELD, NAME, CHOICES, HIDDEN, DESC)                          \
  reader.readChoice(o.FIELD, NAME, "", CHOICES);
#include "equiv/Options.def"
  return o;
}

} // namespace kv
