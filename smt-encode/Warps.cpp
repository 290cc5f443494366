//===- Warps.cpp - warp shuffles in the encoding --------------------------===//
//
// A kv.shuffle is the value its operand has in another thread of the same
// warp at the same point: the operand encoded for that thread, whose ids
// are a function of the reading thread's (as a read's writer is a thread
// found for it). Warps are 32 consecutive linear ids of a block.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Encoder.h"

using namespace mlir;

namespace kv {

z3::expr Encoder::linearId(const Thread &t) {
  if (t.linear)
    return *t.linear;
  const std::vector<z3::expr> &bdim = bdimOf(t.launch);
  return t.tid[0] + mulTerm(bdim[0], t.tid[1] + mulTerm(bdim[1], t.tid[2]));
}

/// \p l urem (\p rem) or udiv \p r, as an uninterpreted function with its
/// bounds where products are abstracted (bit-blasting a division by a
/// launch dimension per lane thread is what makes a chain of shuffles
/// slow): two kernels' lane threads then agree by congruence.
z3::expr Encoder::laneDivRem(bool rem, const z3::expr &l, const z3::expr &r) {
  z3::expr precise = rem ? z3::urem(l, r) : z3::udiv(l, r);
  if (!abstractNonlinear || r.simplify().is_numeral())
    return precise;
  unsigned w = l.get_sort().bv_size();
  z3::expr app = binaryApp(rem ? "abs.arith.remui" : "abs.arith.divui", l, r, w,
                           /*commutative=*/false);
  abstracted.push_back({app, precise});
  z3::expr zero = ctx.bv_val(0, w);
  z3::expr f = rem ? z3::ule(app, l) && z3::implies(r != zero, z3::ult(app, r))
                   : z3::implies(r != zero, z3::ule(app, l));
  if (proofOnly)
    proofFacts.push_back(f);
  else
    side.push_back(f);
  return app;
}

z3::expr Encoder::laneSource(const Thread &t, const z3::expr &lane) {
  unsigned w = t.tid[0].get_sort().bv_size();
  z3::expr j = lane.get_sort().bv_size() == w
                   ? lane
                   : resize(lane, w, /*isSigned=*/false);
  return (linearId(t) & ctx.bv_val(~uint64_t(31), w)) | (j & ctx.bv_val(31, w));
}

Thread &Encoder::laneThread(const Thread &t, const z3::expr &lane) {
  z3::expr src = laneSource(t, lane).simplify();
  auto key = std::make_pair(t.id, src.id());
  auto it = laneThreads.find(key);
  if (it != laneThreads.end())
    return *it->second;
  // The linear id taken apart (bdim >= 1 in a valid launch). A lane
  // beyond the block gives a thread out of range, whose values mean
  // nothing: the safety check reports a shuffle that reads one.
  const std::vector<z3::expr> &bdim = bdimOf(t.launch);
  z3::expr x = laneDivRem(true, src, bdim[0]);
  z3::expr rest = laneDivRem(false, src, bdim[0]);
  z3::expr y = laneDivRem(true, rest, bdim[1]);
  z3::expr z = laneDivRem(false, rest, bdim[1]);
  // Not a candidate writer: the same depth as the thread it serves.
  Thread &s = makeThread({x.simplify(), y.simplify(), z.simplify()}, t.bid,
                         t.depth, t.launch);
  s.linear = src;
  laneThreads.emplace(key, &s);
  return s;
}

z3::expr Encoder::shuffleValue(KernelModel &k, ShuffleOp op, const Thread &t) {
  Thread &src = laneThread(t, value(k, op.getLane(), t));
  return value(k, op.getValue(), src);
}

z3::expr Encoder::ballotValue(KernelModel &k, BallotOp op, const Thread &t) {
  unsigned w = t.tid[0].get_sort().bv_size();
  z3::expr mask = value(k, op.getMask(), t);
  bool wholeMask = mask.get_sort().bv_size() >= 32;
  const std::vector<z3::expr> &bdim = bdimOf(t.launch);
  z3::expr size = bdim[0] * bdim[1] * bdim[2];
  auto asBool = [&](const z3::expr &e) {
    return e.is_bool() ? e : bvToBool(e);
  };
  z3::expr r = ctx.bv_val(0, 32);
  for (unsigned i = 0; i < 32; ++i) {
    z3::expr lane = ctx.bv_val(i, w);
    Thread &s = laneThread(t, lane);
    z3::expr bit = z3::ult(laneSource(t, lane), size) &&
                   asBool(value(k, op.getGuard(), s)) &&
                   asBool(value(k, op.getPred(), s));
    if (wholeMask)
      bit = bit && mask.extract(i, i) == ctx.bv_val(1, 1);
    r = r | z3::ite(bit, ctx.bv_val(uint64_t(1) << i, 32), ctx.bv_val(0, 32));
  }
  return r;
}

} // namespace kv
