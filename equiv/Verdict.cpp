//===- Verdict.cpp - verdict names and exit codes -------------------------===//
//
// The names kvalidate prints for its verdicts and the documented exit status
// of each.
//
//===----------------------------------------------------------------------===//
#include "equiv/Checker.h"

namespace kv {

const char *verdictName(Verdict v) {
  switch (v) {
  case Verdict::Equivalent:
    return "equivalent";
  case Verdict::EquivalentForLaunch:
    return "equivalent-for-launch";
  case Verdict::EquivalentUpToBound:
    return "equivalent-up-to-bound";
  case Verdict::EquivalentOverReals:
    return "equivalent-over-the-reals";
  case Verdict::NotEquivalent:
    return "not-equivalent";
  case Verdict::Unknown:
    return "unknown";
  case Verdict::Unsupported:
    return "unsupported";
  case Verdict::Error:
    return "error";
  case Verdict::Race:
    return "race";
  case Verdict::Divergence:
    return "divergence";
  case Verdict::OutOfBounds:
    return "out-of-bounds";
  }
  return "error";
}

std::optional<Verdict> verdictFromName(llvm::StringRef name) {
  for (Verdict v : {Verdict::Equivalent, Verdict::EquivalentForLaunch,
                    Verdict::EquivalentUpToBound, Verdict::EquivalentOverReals,
                    Verdict::NotEquivalent, Verdict::Unknown,
                    Verdict::Unsupported, Verdict::Error, Verdict::Race,
                    Verdict::Divergence, Verdict::OutOfBounds})
    if (name == verdictName(v))
      return v;
  return std::nullopt;
}

int exitCode(Verdict v) {
  switch (v) {
  case Verdict::Equivalent:
  case Verdict::EquivalentForLaunch:
  case Verdict::EquivalentUpToBound:
  case Verdict::EquivalentOverReals:
    return 0;
  case Verdict::NotEquivalent:
    return 1;
  case Verdict::Unknown:
  case Verdict::Unsupported:
    return 2;
  case Verdict::Error:
    return 3;
  case Verdict::Race:
  case Verdict::Divergence:
  case Verdict::OutOfBounds:
    return 4;
  }
  return 3;
}

} // namespace kv
