//===- Debug.cpp - kvalidate's debugging aids -----------------------------===//

#include "smt-encode/Debug.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"
#include <cstdlib>
#include <mutex>

using namespace llvm;

static cl::list<std::string>
    DebugKinds("kv-debug", cl::CommaSeparated, cl::ReallyHidden,
               cl::desc("Debug output of these kinds on stderr (checker, "
                        "encoder, lockstep, safety, regroup, rlimit, "
                        "substats, runs, totals, relational, relational-only, "
                        "values (the two cells compared, simplified), "
                        "import (gpu-dialect modules "
                        "as LLVM IR), compile, strategies (not in all: it "
                        "solves each query four more times), all); also "
                        "from $KV_DEBUG"),
               cl::value_desc("KIND[,KIND]"));
static cl::opt<std::string>
    DumpPrefix("kv-dump-smt", cl::ReallyHidden,
               cl::desc("Write every solver query to PREFIX-KIND-N.smt2"),
               cl::value_desc("PREFIX"));

namespace kv {

bool debugEnabled(StringRef kind) {
  auto selects = [&](StringRef k) {
    // Not in all: "strategies" solves each query four more times,
    // "relational-only" skips every other method.
    return k == kind ||
           (k == "all" && kind != "strategies" && kind != "relational-only");
  };
  for (const std::string &k : DebugKinds)
    if (selects(k))
      return true;
  // $KV_DEBUG as well: it reaches every kvalidate and clang a test suite
  // or a build runs (lit passes it on).
  static const SmallVector<std::string> fromEnv = [] {
    SmallVector<StringRef> parts;
    if (const char *v = getenv("KV_DEBUG"))
      StringRef(v).split(parts, ',', -1, /*KeepEmpty=*/false);
    return SmallVector<std::string>(parts.begin(), parts.end());
  }();
  return any_of(fromEnv, selects);
}

std::string dumpPath(StringRef kind, StringRef tag) {
  if (DumpPrefix.empty())
    return "";
  static std::mutex m;
  static StringMap<unsigned> counters;
  std::string suffix = tag.str();
  if (suffix.empty()) {
    std::lock_guard<std::mutex> lock(m);
    suffix = std::to_string(counters[kind]++);
  }
  return DumpPrefix + "-" + kind.str() + "-" + suffix + ".smt2";
}

void dumpTo(const std::string &path, StringRef smt2) {
  std::error_code ec;
  raw_fd_ostream os(path, ec);
  if (!ec)
    os << smt2;
}

} // namespace kv
