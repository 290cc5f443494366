//===- Coordinates.cpp - candidate writers from another kernel's ids -----===//
//
// Across two launches the other kernel's writer numbers a cell with other
// ids: its write index is matched with k's operation by operation
// (matchIndices), and the coordinates found are put back into k's ids
// (putDigits), an id's quotient and remainder by a constant together.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"

#include "llvm/ADT/STLExtras.h"

#include <array>
#include <map>

using namespace mlir;

namespace kv {

/// Whether \p v depends on thread or block ids, loop iterations or data.
static bool idDependent(Value v, unsigned depth = 0) {
  Operation *d = v.getDefiningOp();
  if (!d)
    return false;
  if (depth > 16)
    return true;
  if (auto s = dyn_cast<SRegOp>(d))
    return s.getGroup() == SRegGroup::Tid || s.getGroup() == SRegGroup::Bid;
  if (isa<IterOp, ReadOp>(d))
    return true;
  return llvm::any_of(d->getOperands(),
                      [&](Value o) { return idDependent(o, depth + 1); });
}

bool Encoder::matchIndices(KernelModel &k, Value a, const Thread &ta,
                           KernelModel &o, Value b, const Thread &tb,
                           std::vector<std::pair<Value, z3::expr>> &eqs,
                           unsigned depth) {
  if (depth > 8 || a.getType() != b.getType())
    return false;
  if (!idDependent(a)) {
    z3::expr va = value(k, a, ta).simplify(), vb = value(o, b, tb).simplify();
    return z3::eq(va, vb);
  }
  Operation *da = a.getDefiningOp(), *db = b.getDefiningOp();
  if (da && db && da->getName() == db->getName() &&
      isa<arith::AddIOp, arith::MulIOp, arith::ExtSIOp, arith::ExtUIOp>(da)) {
    size_t mark = eqs.size();
    unsigned n = da->getNumOperands();
    for (bool swap : {false, true}) {
      if (swap && n != 2)
        break;
      bool all = true;
      for (unsigned i = 0; i < n && all; ++i)
        all = matchIndices(k, da->getOperand(i), ta, o,
                           db->getOperand(swap ? n - 1 - i : i), tb, eqs,
                           depth + 1);
      if (all)
        return true;
      eqs.erase(eqs.begin() + mark, eqs.end());
    }
  }
  // A part of k's index its ids compute: equal to the other's part.
  eqs.push_back({a, value(o, b, tb)});
  return true;
}

bool Encoder::putDigits(
    const std::vector<std::pair<IndexMap::Digit, z3::expr>> &digits,
    std::vector<z3::expr> &tid, std::vector<z3::expr> &bid,
    std::map<Operation *, z3::expr> &iters) {
  // An id's quotient and remainder by a constant, where given: the id is
  // q * c + r, a part not given kept from the id there.
  std::map<std::pair<bool, int>,
           std::pair<int64_t, std::array<std::optional<z3::expr>, 2>>>
      parts;
  for (auto &[d, v] : digits) {
    if (d.loop)
      iters.emplace(d.loop, resize(v, 64, false));
    else if (!d.subBy)
      (d.block ? bid : tid)[d.axis] = resize(v, 32, false);
    else {
      auto &p = parts[{d.block, d.axis}];
      p.first = d.subBy;
      p.second[d.subRem] = resize(v, 32, false);
    }
  }
  for (auto &[key, p] : parts) {
    z3::expr &id = (key.first ? bid : tid)[key.second];
    z3::expr c = ctx.bv_val(p.first, 32);
    z3::expr q = p.second[0] ? *p.second[0] : z3::udiv(id, c);
    z3::expr r = p.second[1] ? *p.second[1] : z3::urem(id, c);
    id = (q * c + r).simplify();
  }
  // Put together, a quotient past 2^32 / c wraps: not exact.
  return parts.empty();
}

} // namespace kv
