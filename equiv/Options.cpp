//===- Options.cpp - validating the option table's values -----------------===//

#include "equiv/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

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
