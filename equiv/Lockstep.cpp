//===- Lockstep.cpp - interval-by-interval proofs ---------------*- C++ -*-===//

#include "smt-encode/Debug.h"
#include "equiv/Lockstep.h"
#include "equiv/Safety.h"
#include "smt-encode/Encoder.h"
#include <cstdlib>
#include <set>

using namespace mlir;

namespace kv {

namespace {

/// Whether the two kernels have the same parameters and shared arrays in
/// the same positions (names of shared arrays included: the model names
/// uninitialized shared memory by them).
bool sameSignature(KernelOp a, KernelOp b) {
  Block &ba = a.getBlock(), &bb = b.getBlock();
  if (ba.getNumArguments() != bb.getNumArguments())
    return false;
  for (unsigned i = 0; i < ba.getNumArguments(); ++i) {
    Type t = ba.getArgument(i).getType();
    if (t != bb.getArgument(i).getType())
      return false;
    if (isa<SharedArrayType>(t) && a.getArgName(i) != b.getArgName(i))
      return false;
  }
  return true;
}

/// Loop models (kv.iter, kv.sum) have iterations the per-thread argument
/// does not cover.
bool hasLoopModel(KernelOp k) {
  bool found = false;
  k.walk([&](Operation *op) {
    if (isa<IterOp, SumOp>(op))
      found = true;
  });
  return found;
}

} // namespace

bool proveLockstep(
    KernelOp before, KernelOp after, const CheckOptions &opts,
    std::optional<std::chrono::steady_clock::time_point> deadline) {
  if (!opts.lockstep)
    return false;
  if (!sameSignature(before, after) || hasLoopModel(before) ||
      hasLoopModel(after))
    return false;
  KernelModel ks(before, "before"), kt(after, "after");
  if (ks.numIntervals != kt.numIntervals)
    return false;
  std::set<unsigned> arrays;
  for (KernelModel *k : {&ks, &kt})
    for (auto &[arg, byInterval] : k->writes)
      arrays.insert(arg);
  for (unsigned arg : arrays)
    for (unsigned i = 0; i < ks.numIntervals; ++i)
      if (ks.writes[arg][i].size() != kt.writes[arg][i].size())
        return false;

  try {
    z3::context ctx;
    Encoder enc(ctx, opts.bits, before);
    enc.deadline = deadline;
    enc.hugeGrids = opts.hugeGrids;
    enc.abstractNonlinear = true;
    enc.trusted = &ks;
    enc.bounded = &kt;
    std::string err;
    std::optional<z3::expr> a = parseAssumptions(enc, opts, err);
    if (!a)
      return false;
    enc.facts = enc.launchConstraints() && *a;
    enc.pinDetermined();
    // The state after interval i, as the thread's block sees it: the same
    // function in both kernels (the induction hypothesis).
    enc.readHook = [&](KernelModel &k, unsigned arg, int interval,
                       const z3::expr &index, const Thread &t) {
      return enc.intervalState("lockstep", k, arg, interval, index, t);
    };
    Thread &t = enc.freshThread(nullptr, 0);
    // Per write of either kernel: both kernels make it alike.
    std::vector<std::pair<std::string, z3::expr>> pairs;
    for (unsigned arg : arrays)
      for (unsigned i = 0; i < ks.numIntervals; ++i) {
        auto &ws = ks.writes[arg][i], &wt = kt.writes[arg][i];
        for (size_t j = 0; j < ws.size(); ++j) {
          z3::expr gs = enc.accessGuard(ks, ws[j], t);
          z3::expr gt = enc.accessGuard(kt, wt[j], t);
          z3::expr is = enc.toIndex(enc.value(ks, ws[j].getIndex(), t));
          z3::expr it = enc.toIndex(enc.value(kt, wt[j].getIndex(), t));
          z3::expr vs = enc.value(ks, ws[j].getValue(), t);
          z3::expr vt = enc.value(kt, wt[j].getValue(), t);
          z3::expr pair = gs == gt && z3::implies(gs, is == it && vs == vt);
          pairs.push_back({"array " + enc.paramNames[arg] + " interval " +
                               std::to_string(i) + " write " +
                               std::to_string(j),
                           pair});
        }
      }
    if (!enc.unsupported.empty())
      return false;
    // One solver per query, without push/pop: Z3 then picks its
    // non-incremental bit-vector strategy (ackermannized uninterpreted
    // functions, bit-blasting), which settles these at once where the
    // incremental core does not.
    z3::expr_vector context(ctx);
    context.push_back(enc.facts);
    context.push_back(enc.inRange(t));
    context.push_back(enc.threadFacts(t));
    context.push_back(enc.dataFacts(t));
    context.push_back(enc.globalIndexFacts(t));
    for (const z3::expr &e : enc.side)
      context.push_back(e);
    // Sums whose operands the optimizer reordered become the same term once
    // the operands of + and * are sorted.
    z3::params norm(ctx);
    norm.set("bv_sort_ac", true);
    norm.set("som", true);
    auto refuted = [&](const z3::expr &claim, const char *what) {
      z3::expr c = claim.simplify(norm);
      if (c.is_true())
        return true;
      z3::solver s(ctx);
      s.add(context);
      s.add(!c);
      return checkSmall(s, what, 2 * enc.subqueryRlimit,
                        enc.withinDeadline(enc.subqueryMs)) == z3::unsat;
    };
    // Each pair on its own: the conjunction is much harder to refute than
    // its parts.
    bool proved = true;
    for (auto &[what, pair] : pairs) {
      bool same = refuted(pair, "lockstep");
      if (debugEnabled("lockstep"))
        llvm::errs() << "lockstep: " << what << ": "
                     << (same ? "same" : "may differ") << "\n";
      if (!(proved = same))
        break;
    }
    return proved;
  } catch (z3::exception &) {
    return false;
  } catch (EncodeTimeout &) {
    return false;
  }
}

} // namespace kv
