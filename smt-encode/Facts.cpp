//===- Facts.cpp - what the encoding may assume ---------------------------===//
//
// Facts every launch satisfies (launchConstraints), the trusted kernel's
// assumptions for a thread (threadFacts about indices, ids and parameters;
// dataFacts about array contents), and the obligations of fresh writers in
// their quantified form (quantifiedObligations).
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/Matchers.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace kv {

z3::expr Encoder::launchConstraints(bool products) {
  unsigned w = modelWidth(32, bits);
  auto lim = [&](uint64_t v) {
    uint64_t max = w >= 64 ? UINT64_MAX : ((uint64_t(1) << w) - 1);
    return ctx.bv_val(std::min(v, max), w);
  };
  z3::expr c = ctx.bool_val(true);
  uint64_t bmax[3] = {1024, 1024, 64}, gmax[3] = {2147483647, 65535, 65535};
  for (unsigned l = 0; l < (separateLaunches() ? 2u : 1u); ++l)
    for (int i = 0; i < 3; ++i) {
      const z3::expr &b = bdimOf(l)[i], &g = gdimOf(l)[i];
      c = c && z3::uge(b, ctx.bv_val(1, w)) && z3::ule(b, lim(bmax[i]));
      c = c && z3::uge(g, ctx.bv_val(1, w)) && z3::ule(g, lim(gmax[i]));
    }
  return products ? c && launchProducts() : c;
}

z3::expr Encoder::launchProducts() {
  unsigned w = modelWidth(32, bits);
  z3::expr c = ctx.bool_val(true);
  // At most 1024 threads per block. Each factor is below 2^11, so 32 bits
  // hold the product; a 64-bit multiplier would cost the solver dearly.
  auto wide = [&](const z3::expr &e) {
    return w < 32 ? z3::zext(e, 32 - w) : e;
  };
  for (unsigned l = 0; l < (separateLaunches() ? 2u : 1u); ++l) {
    const std::vector<z3::expr> &bd = bdimOf(l), &gd = gdimOf(l);
    c = c && z3::ule(wide(bd[0]) * wide(bd[1]) * wide(bd[2]),
                     ctx.bv_val(1024, std::max(w, 32u)));
    // blockIdx.x * blockDim.x + threadIdx.x fits in an int: what every
    // kernel that computes a global index in 32 bits relies on.
    // blockDim.d <= 1024 fits in 11 bits, so the product fits in 43: a
    // narrower multiplier than 64 x 64 bits, which each query would
    // bit-blast.
    if (!hugeGrids)
      for (int i = 0; i < 3; ++i) {
        z3::expr prod =
            w == 32 ? z3::zext(gd[i], 11) * z3::zext(bd[i].extract(10, 0), 32)
                    : z3::zext(gd[i], 64 - w) * z3::zext(bd[i], 64 - w);
        c = c && z3::ule(prod, ctx.bv_val((uint64_t)INT32_MAX,
                                          prod.get_sort().bv_size()));
      }
  }
  return c;
}

z3::expr Encoder::threadFacts(const Thread &t) {
  if (!trusted)
    return ctx.bool_val(true);
  auto it = factMemo.find(t.id);
  if (it != factMemo.end())
    return it->second;
  factMemo.emplace(t.id, ctx.bool_val(true)); // cut recursion
  z3::expr f = ctx.bool_val(true);
  // Facts about data (say, no overflow in a sum of array elements) would
  // pull in reads, and with them new threads: only facts about indices,
  // ids and parameters are kept (fewer assumptions, still sound).
  // A kernel's facts hold for the threads of its launch.
  if (trusted->launch == t.launch)
    for (AssumeOp a : trusted->assumes)
      if (!dependsOn(a.getCond()))
        f = f && z3::implies(liveAll(*trusted, a, t),
                             value(*trusted, a.getCond(), t));
  if (bounded && bounded != trusted && bounded->launch == t.launch)
    for (AssumeOp a : bounded->assumes)
      if (a.getBound() && !dependsOn(a.getCond()))
        f = f && z3::implies(liveAll(*bounded, a, t),
                             value(*bounded, a.getCond(), t));
  for (Operation &op : trusted->op.getBlock()) {
    if (trusted->launch != t.launch)
      break;
    Value arr, idx, guard;
    if (auto r = dyn_cast<ReadOp>(op)) {
      arr = r.getArray();
      idx = r.getIndex();
      guard = r.getGuard();
    } else if (auto w = dyn_cast<WriteOp>(op)) {
      arr = w.getArray();
      idx = w.getIndex();
      guard = w.getGuard();
    } else {
      continue;
    }
    auto sh = dyn_cast<SharedArrayType>(arr.getType());
    if (!assumeInBounds || !sh || sh.getSize() <= 0)
      continue;
    // Likewise an access whose guard or index reads data (a write under
    // `if (m[t + s] > m[t])`) gives no fact: its reads would chain through
    // every earlier barrier interval.
    if ((guard && dependsOn(guard)) || dependsOn(idx))
      continue;
    // Compare at the index's own width so that a wrapped index is caught.
    z3::expr i = value(*trusted, idx, t);
    unsigned w = i.get_sort().bv_size();
    if (w < 64 && (uint64_t)sh.getSize() >= (uint64_t(1) << w))
      continue;
    f = f && z3::implies(accessGuard(*trusted, &op, t),
                         z3::ult(i, ctx.bv_val((uint64_t)sh.getSize(), w)));
  }
  f = z3::implies(inRange(t), f);
  factMemo.erase(t.id);
  factMemo.emplace(t.id, f);
  return f;
}

z3::expr_vector Encoder::quantifiedObligations() {
  z3::expr_vector out(ctx);
  // Products stay exact inside the quantifier (an abstraction there would
  // be refined at free copies of the bound variables only).
  bool abstractSaved = abstractNonlinear;
  abstractNonlinear = false;
  size_t n = obligations.size();
  for (size_t o = 0; o < n; ++o) {
    Obligation ob = obligations[o];
    KernelModel &k = *ob.kernel;
    bool dataFree = true;
    for (WriteOp w : k.writes[ob.array][ob.interval])
      if (!ob.onlyWrite || w == ob.onlyWrite)
        dataFree &= !dependsOn(w.getGuard()) && !dependsOn(w.getIndex());
    if (!dataFree)
      continue;
    bool shared = isShared(k, ob.array) || ob.onlyWrite;
    unsigned w = modelWidth(32, bits);
    std::string base = "q" + std::to_string(fresh++);
    z3::expr_vector vars(ctx);
    std::vector<z3::expr> tid, bid;
    for (int i = 0; i < 3; ++i) {
      tid.push_back(ctx.bv_const((base + ".tid." + axes[i]).c_str(), w));
      vars.push_back(tid.back());
      if (shared) {
        bid.push_back(ob.reader->bid[i]);
      } else {
        bid.push_back(ctx.bv_const((base + ".bid." + axes[i]).c_str(), w));
        vars.push_back(bid.back());
      }
    }
    Thread &q = makeThread(tid, bid, maxCandidateDepth + 1, k.launch);
    z3::expr range = inRange(q);
    int n = 0;
    for (IterOp it : k.iterOps) {
      z3::expr kv =
          ctx.bv_const((base + ".k" + std::to_string(n++)).c_str(), 64);
      q.iters.emplace(it, kv);
      vars.push_back(kv);
      if (!it.getUncounted())
        range = range && z3::ult(kv, ctx.bv_val(uint64_t(1) << 31, 64));
    }
    z3::expr hit = ob.onlyWrite
                       ? hits(k, cast<WriteOp>(ob.onlyWrite), ob.index, q)
                       : hitAny(k, ob.array, ob.interval, ob.index, q);
    out.push_back(
        z3::implies(!ob.writerHit, z3::forall(vars, z3::implies(range, !hit))));
  }
  abstractNonlinear = abstractSaved;
  return out;
}

z3::expr Encoder::dataFacts(const Thread &t, bool onlyEncoded) {
  z3::expr f = ctx.bool_val(true);
  if (!trusted || trusted->launch != t.launch)
    return f;
  // Whether every read \p v depends on is encoded for t already.
  auto encoded = [&](Value v) {
    llvm::SmallPtrSet<Operation *, 16> seen;
    llvm::SmallVector<Value> work{v};
    while (!work.empty()) {
      Operation *op = work.pop_back_val().getDefiningOp();
      if (!op || !seen.insert(op).second)
        continue;
      if (isa<ReadOp>(op)) {
        if (!memo.count({op->getResult(0).getAsOpaquePointer(), t.id}))
          return false;
        continue;
      }
      for (Value o : op->getOperands())
        work.push_back(o);
    }
    return true;
  };
  for (AssumeOp a : trusted->assumes)
    if (dependsOn(a.getCond()) && (!onlyEncoded || encoded(a.getCond())))
      f = f &&
          z3::implies(liveAll(*trusted, a, t), value(*trusted, a.getCond(), t));
  return z3::implies(inRange(t), f);
}

z3::expr Encoder::straightAssumes(const Thread &t) {
  z3::expr f = ctx.bool_val(true);
  if (!trusted || trusted->launch != t.launch)
    return f;
  for (AssumeOp a : trusted->assumes)
    if (trusted->itersOf(a).empty() && !dependsOn(a.getCond()))
      f = f &&
          z3::implies(liveAll(*trusted, a, t), value(*trusted, a.getCond(), t));
  return z3::implies(inRange(t), f);
}

std::optional<uint64_t> Encoder::maxUnsigned(Value v, unsigned depth) {
  if (depth > 8)
    return std::nullopt;
  Operation *d = v.getDefiningOp();
  if (!d)
    return std::nullopt;
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c)))
    return c.getActiveBits() <= 63 ? std::optional(c.getZExtValue())
                                   : std::nullopt;
  // Valid launches: blockDim <= (1024, 1024, 64), threadIdx below it.
  if (auto s = dyn_cast<SRegOp>(d)) {
    unsigned axis = s.getAxis();
    uint64_t dim = axis == 2 ? 64 : 1024;
    if (s.getGroup() == SRegGroup::Tid)
      return dim - 1;
    if (s.getGroup() == SRegGroup::BDim)
      return dim;
    return std::nullopt;
  }
  if (isa<LaneOp>(d))
    return 31;
  auto both = [&](auto f) -> std::optional<uint64_t> {
    std::optional<uint64_t> l = maxUnsigned(d->getOperand(0), depth + 1);
    std::optional<uint64_t> r = maxUnsigned(d->getOperand(1), depth + 1);
    if (!l || !r)
      return std::nullopt;
    return f(*l, *r);
  };
  unsigned w = v.getType().getIntOrFloatBitWidth();
  auto fits = [&](uint64_t x) -> std::optional<uint64_t> {
    if (w < 64 && x >= (uint64_t(1) << w))
      return std::nullopt;
    return x;
  };
  if (isa<arith::ExtUIOp>(d))
    return maxUnsigned(d->getOperand(0), depth + 1);
  if (isa<arith::AddIOp>(d))
    return both([&](uint64_t l, uint64_t r) {
      return l + r < l ? std::nullopt : fits(l + r);
    });
  if (isa<arith::AndIOp>(d)) {
    std::optional<uint64_t> l = maxUnsigned(d->getOperand(0), depth + 1);
    std::optional<uint64_t> r = maxUnsigned(d->getOperand(1), depth + 1);
    if (l && r)
      return std::min(*l, *r);
    return l ? l : r;
  }
  if (isa<arith::SelectOp>(d)) {
    std::optional<uint64_t> l = maxUnsigned(d->getOperand(1), depth + 1);
    std::optional<uint64_t> r = maxUnsigned(d->getOperand(2), depth + 1);
    if (!l || !r)
      return std::nullopt;
    return std::max(*l, *r);
  }
  return std::nullopt;
}

} // namespace kv
