//===- SafetyRaces.cpp - data races ---------------------------------------===//
//
// The last safety check: two accesses of two threads to one cell, at least
// one a write, that no barrier orders (writes of equal values tolerated).
//
//===----------------------------------------------------------------------===//
#include "equiv/SafetyCheck.h"
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <set>

using namespace mlir;

namespace kv {
namespace safety {

std::vector<SafetyCheck::Pair> SafetyCheck::conflicts(Query &q) {
  z3::expr sameBlock = q.enc.sameBlock(*q.t1, *q.t2);
  std::vector<Pair> pairs;
  for (size_t i = 0; i < accesses.size(); ++i)
    for (size_t j = i; j < accesses.size(); ++j) {
      const Access &a = accesses[i], &b = accesses[j];
      if (a.arg != b.arg || (!a.write && !b.write))
        continue;
      // Atomic updates of one kind commute: no race among them.
      if (a.rmw() && a.rmw() == b.rmw())
        continue;
      if (toldApart(q, a, b)) {
        ++pairsToldApart;
        continue;
      }
      // One thread at one iteration of the loops both accesses are in
      // is ordered by program order; iterations of a loop are not (a
      // loop that writes a cell twice is reported like a race).
      std::vector<Operation *> common;
      for (Operation *l : q.km.itersOf(a.op))
        if (llvm::is_contained(q.km.itersOf(b.op), l))
          common.push_back(l);
      z3::expr same = q.enc.sameInstance(*q.t1, *q.t2, common);
      z3::expr order = q.ctx.bool_val(true);
      // Intervals apart within one __syncthreads() interval: only warp
      // barriers between them, which order two threads of one warp.
      bool warpApart =
          a.interval != b.interval && a.blockInterval == b.blockInterval;
      if (isShared(a.arg)) {
        if (a.interval != b.interval && !warpApart)
          continue;
        order = sameBlock && !same;
      } else if (a.gridInterval != b.gridInterval) {
        continue; // a grid barrier orders them, for any two threads
      } else {
        order = a.interval == b.interval || warpApart ? !same : !sameBlock;
      }
      if (warpApart)
        order = order && !warpOrdered(q, a, b);
      z3::expr i1 = q.index(a.index, *q.t1), i2 = q.index(b.index, *q.t2);
      z3::expr c =
          order && q.access(a.op, *q.t1) && q.access(b.op, *q.t2) && i1 == i2;
      pairs.push_back({&a, &b, c});
    }
  return pairs;
}

bool SafetyCheck::toldApart(Query &q, const Access &a, const Access &b) {
  // One plain write outside loops, of two threads: those that agree on
  // every id the kernel reads write equal values there (checkRaces), and an
  // index that tells the others apart sends them to different cells. No
  // query needed: an elementwise kernel's write (out[i] = f(in[i]) at i =
  // blockIdx.x * blockDim.x + threadIdx.x). Two writes of one thread, even
  // at one index, are not: a twin's first may land after the other's second.
  if (&a != &b || !a.write || a.rmw())
    return false;
  auto w = cast<WriteOp>(a.op);
  if (q.km.itersOf(a.op).empty())
    return q.enc.idsTellApart(q.km, w, idsUsed);
  // In loops, a mixed-radix index over the ids and the iterations (each
  // thread's C cells, contiguous or a block apart) whose cells the
  // assumptions keep below 2^31: a short query on the launch alone, where
  // the conflict query would bit-blast the index arithmetic of two
  // threads. Twins write equal values at each iteration as above, unless
  // an atomic's result reaches them: not in a kernel with any atomic.
  if (llvm::any_of(accesses,
                   [](const Access &x) { return x.rmw().has_value(); }))
    return false;
  std::optional<z3::expr> apart = q.enc.instancesApartWhen(q.km, w, idsUsed);
  if (!apart || q.solve(!*apart, budget(), /*readable=*/false) != z3::unsat)
    return false;
  KV_DEBUG("safety", llvm::errs()
                         << label << ": the write at " << locationOf(a.op)
                         << " tells its instances apart\n");
  return true;
}

/// Whether the pair is a race whatever the values: a read against a write,
/// or an atomic update against a plain access or an update of another kind
/// (the result depends on their order).
static bool valueFree(const SafetyCheck::Pair &p) {
  return !(p.a->write && p.b->write) || p.a->rmw() || p.b->rmw();
}

z3::expr SafetyCheck::warpOrdered(Query &q, const Access &a, const Access &b) {
  unsigned lo = std::min(a.interval, b.interval);
  unsigned hi = std::max(a.interval, b.interval);
  KernelModel &km = q.km;
  Encoder &enc = q.enc;
  const Thread &t1 = *q.t1, &t2 = *q.t2;
  unsigned w = t1.tid[0].get_sort().bv_size();
  z3::expr l1 = enc.linearId(t1), l2 = enc.linearId(t2);
  z3::expr five = q.ctx.bv_val(5, w);
  z3::expr r =
      enc.sameBlock(t1, t2) && z3::lshr(l1, five) == z3::lshr(l2, five);
  for (BarrierOp wb : warpBarriers) {
    unsigned at = km.intervalOf.lookup(wb);
    // The barrier ends interval `at`: between the two if lo <= at < hi.
    if (at < lo || at >= hi)
      continue;
    for (const Thread *t : {&t1, &t2}) {
      if (wb.getGuard())
        r = r && q.guard(wb.getGuard(), *t);
      z3::expr m = enc.value(km, wb.getMask(), *t);
      if (m.get_sort().bv_size() >= 32)
        for (const z3::expr *l : {&l1, &l2})
          r = r && laneInMask(m, *l);
    }
  }
  return r;
}

z3::expr SafetyCheck::harmful(Query &q, std::vector<Pair> &pairs) {
  z3::expr any = q.ctx.bool_val(false);
  for (Pair &p : pairs) {
    if (!valueFree(p))
      p.cond = p.cond &&
               q.enc.value(q.km, cast<WriteOp>(p.a->op).getValue(), *q.t1) !=
                   q.enc.value(q.km, cast<WriteOp>(p.b->op).getValue(), *q.t2);
    any = any || p.cond;
  }
  return any;
}

bool SafetyCheck::checkRaces() {
  // Threads that differ only in ids the kernel never reads (a 1-D kernel's
  // blocks along y) do the same from the same memory: by induction over the
  // intervals their writes carry equal values. Outside loops only
  // (elsewhere their iterations may differ). Such pairs are left out from
  // the start: one query instead of two.
  std::set<SReg> used;
  k.walk([&](SRegOp op) { used.insert(op.getName()); });
  idsUsed.clear();
  for (int i = 0; i < 3; ++i) {
    std::string axis(1, char('x' + i));
    if (used.count(makeSReg(SRegGroup::Tid, i)))
      idsUsed.insert("tid." + axis);
    if (used.count(makeSReg(SRegGroup::Bid, i)))
      idsUsed.insert("bid." + axis);
  }
  bool atomics = llvm::any_of(
      accesses, [](const Access &a) { return a.rmw().has_value(); });
  const char *noRace =
      atomics ? "no data race (atomic updates of one kind commute; writes of "
                "equal values tolerated)"
              : "no data race (writes of equal values tolerated)";
  auto asymmetric = [&](Query &x, std::vector<Pair> &ps) {
    z3::expr symmetric = x.ctx.bool_val(true);
    for (int i = 0; i < 3; ++i) {
      if (used.count(makeSReg(SRegGroup::Tid, i)))
        symmetric = symmetric && x.t1->tid[i] == x.t2->tid[i];
      if (used.count(makeSReg(SRegGroup::Bid, i)))
        symmetric = symmetric && x.t1->bid[i] == x.t2->bid[i];
    }
    z3::expr asym = x.ctx.bool_val(false);
    for (Pair &p : ps) {
      // One write of two threads: twins store equal values there. Two
      // writes are not (out[i] = 0; out[i] = v: a twin's first store may
      // land after the other's second).
      bool plain = !valueFree(p) && p.a == p.b && x.km.itersOf(p.a->op).empty();
      asym = asym || (plain ? p.cond && !symmetric : p.cond);
    }
    return asym;
  };
  if (dataDependentAccess()) {
    // Reads as uninterpreted interval states first: no read chains (through
    // every iteration of an unrolled barrier loop), and `unsat` is a proof,
    // every memory content being considered.
    Query a(k, paramSource, label, bits);
    if (!start(a))
      return false;
    abstractReads(a);
    std::vector<Pair> apairs = conflicts(a);
    z3::check_result r = apairs.empty()
                             ? z3::unsat
                             : a.solve(asymmetric(a, apairs), budget(),
                                       /*readable=*/false);
    if (r == z3::unsat) {
      if (!apairs.empty() || atomics || pairsToldApart)
        proved.push_back(noRace);
      return true;
    }
    // A read-write conflict needs no values: reported from this model, as
    // possible where an access's guard or index reads written memory (the
    // exact query would build the read chains this one avoids).
    if (r == z3::sat)
      for (Pair &p : apairs)
        if (valueFree(p) && a.model->eval(p.cond, true).is_true())
          return reportRace(a, p, /*viaStates=*/true);
  }
  Query q(k, paramSource, label, bits);
  if (!start(q))
    return false;
  std::vector<Pair> pairs = conflicts(q);
  if (pairs.empty() && (atomics || pairsToldApart))
    proved.push_back(noRace);
  // A read-write conflict is a race whatever the values: such pairs come
  // first, so that a model showing one reports it.
  auto readWrite = [](const Pair &p) { return valueFree(p); };
  std::stable_partition(pairs.begin(), pairs.end(), readWrite);
  if (!pairs.empty()) {
    // First without the written values: most kernels have no conflicting
    // accesses at all, and the values pull in every read behind them.
    z3::check_result r =
        q.solve(asymmetric(q, pairs), budget(), /*readable=*/false);
    // Values pull in every read behind them (a read chain per barrier
    // interval of an unrolled loop): a read-write conflict, which needs
    // none, is looked for first.
    bool readWriteRace = false;
    if (r == z3::sat) {
      z3::expr rw = q.ctx.bool_val(false);
      for (Pair &p : pairs)
        if (readWrite(p)) {
          readWriteRace |= q.model->eval(p.cond, true).is_true();
          rw = rw || p.cond;
        }
      if (!readWriteRace && !rw.is_false())
        readWriteRace = q.solve(rw, budget(), /*readable=*/false) == z3::sat;
    }
    if (r == z3::sat && !readWriteRace) {
      // The values with the memory each interval starts from one
      // uninterpreted function (the threads read the same memory): equal
      // for every content is equal for the real one, and no read chain
      // is built. Otherwise the exact values decide.
      Query u(k, paramSource, label, bits);
      if (!start(u))
        return false;
      abstractReads(u);
      std::vector<Pair> upairs = conflicts(u);
      if (u.solve(harmful(u, upairs), budget(), /*readable=*/false) ==
          z3::unsat) {
        r = z3::unsat;
      } else {
        r = q.solve(harmful(q, pairs), budget());
      }
    }
    if (r == z3::unknown && !undecided(q, "no data race"))
      return false;
    if (r == z3::unsat)
      proved.push_back(noRace);
    if (r == z3::sat)
      for (Pair &p : pairs)
        if (q.model->eval(p.cond, true).is_true())
          return reportRace(q, p);
  }
  return true;
}

bool SafetyCheck::reportRace(Query &q, const Pair &p, bool viaStates) {
  // The race queries' models are made readable only when reported: most
  // pairs that may touch one cell turn out harmless.
  if (!quiet)
    q.makeReadable(p.cond);
  Defect d;
  if (p.a->rmw() && p.b->rmw())
    d.kind = "race between atomic updates of different kinds";
  else if (p.a->rmw() || p.b->rmw())
    d.kind = "race between an atomic update and a plain access";
  else
    d.kind = p.a->write && p.b->write ? "write-write race (different values)"
                                      : "read-write race";
  d.array = k.getArgName(p.a->arg).str();
  d.index = evalS(*q.model, q.index(p.a->index, *q.t1));
  auto verb = [](const Access *x) {
    return x->rmw() ? "updates atomically" : x->write ? "writes" : "reads";
  };
  d.sites.push_back(q.site(*q.t1, p.a->op, verb(p.a)));
  d.sites.push_back(q.site(*q.t2, p.b->op, verb(p.b)));
  bool dep = false;
  for (const Access *x : {p.a, p.b}) {
    dep |= overApprox(x->index, "") || overApprox(x->guard, "");
    // Interval states stand for every read, of input arrays too.
    if (viaStates)
      dep |= q.enc.dependsOn(x->index) || q.enc.dependsOn(x->guard);
    if (!valueFree(p))
      dep |= overApprox(cast<WriteOp>(x->op).getValue(), "");
  }
  return report(q, Verdict::Race, std::move(d), dep);
}

} // namespace safety
} // namespace kv
