//===- Stats.cpp - where the time goes ------------------------------------===//
#include "smt-encode/Stats.h"

#include "llvm/Support/Format.h"

#include <mutex>
#include <vector>

namespace kv::stats {
namespace {
struct Phase {
  std::string name;
  double ms = 0;
  unsigned calls = 0;
};
std::mutex lock;
std::vector<Phase> &phases() {
  static auto *v = new std::vector<Phase>;
  return *v;
}
} // namespace

void add(const char *phase, double ms) {
  std::lock_guard<std::mutex> g(lock);
  for (Phase &p : phases())
    if (p.name == phase) {
      p.ms += ms;
      ++p.calls;
      return;
    }
  phases().push_back({phase, ms, 1});
}

void reset() {
  std::lock_guard<std::mutex> g(lock);
  phases().clear();
}

void print(llvm::raw_ostream &os) {
  std::lock_guard<std::mutex> g(lock);
  os << "  phase         ms  calls\n";
  for (const Phase &p : phases())
    os << llvm::format("  %-11s %6.0f %6u\n", p.name.c_str(), p.ms, p.calls);
}

} // namespace kv::stats
