//===- SafetyBounds.cpp - out-of-bounds shared accesses -------------------===//
//
// The first safety check: an access to a fixed-size shared array outside
// its bounds, by one thread.
//
//===----------------------------------------------------------------------===//
#include "equiv/SafetyCheck.h"
#include "smt-encode/Encoder.h"

using namespace mlir;

namespace kv {
namespace safety {

bool SafetyCheck::checkBounds() {
  // Each condition belongs to its query's context: \p conds is declared
  // after the query, so that it goes before the query's context does.
  using Conds = std::vector<std::pair<const Access *, z3::expr>>;
  // The accesses checked: those to a shared array of a fixed size.
  auto fixedShared = [&](const Access &a) {
    auto sh =
        dyn_cast<SharedArrayType>(k.getBlock().getArgument(a.arg).getType());
    return sh && sh.getSize() > 0 ? sh : SharedArrayType();
  };
  auto outOfBounds = [&](Query &x, Conds &conds) {
    z3::expr any = x.ctx.bool_val(false);
    for (const Access &a : accesses) {
      SharedArrayType sh = fixedShared(a);
      if (!sh)
        continue;
      z3::expr c =
          x.access(a.op, *x.t1) &&
          z3::uge(x.index(a.index, *x.t1),
                  x.ctx.bv_val((uint64_t)sh.getSize(), Encoder::indexBits));
      conds.push_back({&a, c});
      any = any || c;
    }
    return any;
  };
  // Nothing to check without an access to a fixed-size shared array: no
  // query, and no solver context (15 ms to make).
  if (llvm::none_of(accesses,
                    [&](const Access &a) { return bool(fixedShared(a)); }))
    return true;
  if (dataDependentAccess()) {
    // Reads as interval states first (no read chains): `unsat` is a proof.
    Query a(k, paramSource, label, bits);
    a.enc.assumeInBounds = false;
    if (!start(a))
      return false;
    abstractReads(a);
    Conds conds;
    z3::expr any = outOfBounds(a, conds);
    if (!conds.empty() &&
        a.solve(any, budget(), /*readable=*/false) == z3::unsat) {
      proved.push_back("in-bounds shared-array accesses");
      return true;
    }
  }
  Query q(k, paramSource, label, bits);
  q.enc.assumeInBounds = false;
  if (!start(q))
    return false;
  Conds conds;
  z3::expr any = outOfBounds(q, conds);
  if (!conds.empty()) {
    z3::check_result r = q.solve(any, budget());
    if (r == z3::unknown && !undecided(q, "in-bounds shared-array accesses"))
      return false;
    if (r == z3::unsat)
      proved.push_back("in-bounds shared-array accesses");
    if (r == z3::sat)
      for (auto &[a, c] : conds) {
        if (!q.model->eval(c, true).is_true())
          continue;
        auto sh =
            cast<SharedArrayType>(k.getBlock().getArgument(a->arg).getType());
        Defect d;
        d.kind = "out-of-bounds " + std::string(a->write ? "write" : "read") +
                 " (the array has " + std::to_string(sh.getSize()) +
                 " elements)";
        d.array = k.getArgName(a->arg).str();
        d.index = evalS(*q.model, q.index(a->index, *q.t1));
        d.sites.push_back(q.site(*q.t1, a->op, a->write ? "writes" : "reads"));
        bool dep = overApprox(a->index, "") || overApprox(a->guard, "");
        return report(q, Verdict::OutOfBounds, std::move(d), dep);
      }
  }
  return true;
}

} // namespace safety
} // namespace kv
