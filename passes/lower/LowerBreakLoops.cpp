//===- LowerBreakLoops.cpp - Loops with several or data-dependent exits ---===//
//
// A loop the counted model (LowerLoops.cpp) cannot take because of its
// exits: several exit tests (`for (k = 0; k < n; ++k) if (a[k] == key)
// break;`) or a test on a value that is not an induction variable (`while
// (x < n) x = next[x]`). Its iterations are counted from 0 with no bound
// but 2^31; each exit edge is a kv.break under the condition that the
// iteration takes it, and what leaves the loop is a kv.last of the values
// on the exit edges, selected by their conditions. The carried values are
// induction variables or folds (kv.carry/kv.fold). No trip count is
// computed: the checker aligns two such loops when they start alike, break
// alike and update alike at every iteration (smt-encode/Breaks.cpp).
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Support/SaveAndRestore.h"

namespace kv {
namespace lowering {

namespace {

/// A block on an exit path that only branches on, storing to private
/// variables at most (clang's cleanup slots at -O0).
bool passThrough(const llvm::BasicBlock *bb) {
  auto *br = dyn_cast<llvm::BranchInst>(bb->getTerminator());
  if (!br || !br->isUnconditional())
    return false;
  return llvm::all_of(*bb, [](const llvm::Instruction &i) {
    auto *ii = dyn_cast<llvm::IntrinsicInst>(&i);
    if (auto *st = dyn_cast<llvm::StoreInst>(&i))
      return isa<llvm::AllocaInst>(
          llvm::getUnderlyingObject(st->getPointerOperand()));
    return isa<llvm::PHINode>(i) || i.isTerminator() ||
           (ii && (ii->isLifetimeStartOrEnd() || ii->isAssumeLikeIntrinsic()));
  });
}

/// The blocks an exit edge into \p to passes, then the first that does
/// more than pass through.
std::vector<const llvm::BasicBlock *> exitPath(const llvm::BasicBlock *to) {
  std::vector<const llvm::BasicBlock *> path{to};
  while (path.size() < 8 && passThrough(path.back()))
    path.push_back(path.back()->getSingleSuccessor());
  return path;
}

} // namespace

bool Lowerer::modelBreakLoop(const llvm::Loop *l, State &s,
                             const llvm::BasicBlock *&cont,
                             const llvm::BasicBlock *&contFrom) {
  const llvm::BasicBlock *header = l->getHeader();
  const llvm::BasicBlock *latch = l->getLoopLatch();
  curInst = header->getTerminator();
  if (!latch) {
    fail("loop with several back edges");
    return false;
  }
  LoopModel lm;
  lm.l = l;
  lm.header = header;
  lm.latch = latch;
  lm.exiting = header;
  lm.pre = s;
  lm.entryGuard = s.guard;
  lm.breaks = true;
  if (!carryValues(lm, s))
    return false;
  runIteration(lm, s);
  if (!checkIteration(lm, s))
    return false;
  if (lm.m.phase)
    return giveUp(lm, "__syncthreads() in a loop with several exits");
  if (lm.m.exits.empty())
    return giveUp(lm, "loop without an exit");
  if (!nextValues(lm, s))
    return false;
  dropUnchanged(lm);
  // What is not an induction variable is a fold: a left fold of the body
  // over the iterations, in order.
  for (Carried &c : lm.carried)
    if (c.next != c.holder && !stepOf(lm, c))
      lm.accHolders.insert(c.holder.getDefiningOp());
  if (!lm.accHolders.empty() && opts.unrollBound)
    return giveUp(lm, "value carried around a loop with several exits that "
                      "is not an induction variable, with --unroll");
  for (Carried &c : lm.carried)
    if (lm.accHolders.contains(c.holder.getDefiningOp())) {
      Acc a{&c, {}, {}};
      a.fold = true;
      lm.accs.push_back(std::move(a));
    }

  // kv.iter from 0, step 1, while k < 2^31: the breaks end it.
  Type i64 = b.getI64Type();
  lm.pred = arith::CmpIPredicate::slt;
  lm.isSigned = true;
  lm.iterLb = lm.init64 = cst(i64, 0);
  lm.iterStep = lm.step64 = lm.step = cst(i64, 1);
  lm.iterBound = cst(i64, int64_t(1) << 31);
  auto iter = IterOp::create(b, loc, i64, lm.iterLb, lm.iterStep, lm.iterBound,
                             lm.entryGuard, IterPred::slt,
                             /*do_while=*/false, IntegerAttr(),
                             /*from_ne=*/false, /*uncounted=*/false);
  lm.k = iter.getResult();
  std::vector<SymLoop::Exit> &exits = lm.m.exits;
  for (SymLoop::Exit &e : exits)
    BreakOp::create(b, loc, lm.k, e.cond, e.header, e.first);

  // Every exit leads to one block, through blocks that only branch on
  // (and store to private variables: those stores run in the exit's
  // state). The first block on every exit's path is where the loop ends.
  std::vector<std::vector<const llvm::BasicBlock *>> paths;
  paths.reserve(exits.size());
  for (SymLoop::Exit &e : exits)
    paths.push_back(exitPath(e.to));
  cont = nullptr;
  for (const llvm::BasicBlock *c : paths.front())
    if (llvm::all_of(paths,
                     [&](auto &p) { return llvm::is_contained(p, c); })) {
      cont = c;
      break;
    }
  if (!cont)
    return giveUp(lm, "loop whose exits lead to different places");
  std::vector<State> outs;
  for (size_t n = 0; n < exits.size(); ++n) {
    SymLoop::Exit &e = exits[n];
    State x = e.state;
    x.guard = e.cond;
    const llvm::BasicBlock *at = e.from;
    for (const llvm::BasicBlock *nx : paths[n]) {
      takeEdge(at, nx, x);
      if (failed)
        return false;
      contFrom = at;
      if (nx == cont)
        break;
      for (const llvm::Instruction &i : *nx)
        if (!isa<llvm::PHINode>(i) && !i.isTerminator())
          exec(i, x);
      if (failed)
        return false;
      at = nx;
    }
    outs.push_back(std::move(x));
  }
  // A value on the exit edges: the one of the exit taken, at the last
  // iteration.
  auto leaving = [&](llvm::function_ref<SymVal(State &)> get,
                     SymVal &out) -> bool {
    std::vector<SymVal> vs;
    vs.reserve(outs.size());
    for (State &x : outs)
      vs.push_back(get(x));
    const SymVal *any = nullptr;
    for (const SymVal &v : vs)
      if (v.kind == SymVal::Scalar)
        any = &v;
    if (!any) {
      // Not a scalar anywhere: the same pointer on every exit, or nothing.
      out = vs.front();
      for (const SymVal &v : vs)
        if (v.kind != out.kind || v.obj != out.obj || v.array != out.array ||
            !(v.off == out.off) || v.kind == SymVal::Aggregate)
          return v.kind == SymVal::None || out.kind == SymVal::None
                     ? (out = SymVal(), true)
                     : giveUp(lm, "pointer or struct that leaves a loop with "
                                  "several exits");
      return true;
    }
    Value m = any->scalar;
    for (size_t i = vs.size(); i-- > 0;) {
      if (vs[i].kind != SymVal::Scalar) {
        if (vs[i].kind != SymVal::None)
          return giveUp(lm, "pointer that leaves a loop with several exits");
        continue;
      }
      if (vs[i].scalar.getType() != m.getType())
        return giveUp(lm, "value of two types leaving a loop");
      m = i + 1 == vs.size() ? vs[i].scalar
                             : select(exits[i].cond, vs[i].scalar, m);
    }
    out = scalar(LastOp::create(b, loc, m.getType(), m, lm.k).getResult());
    return true;
  };
  std::vector<std::pair<const llvm::Value *, SymVal>> after;
  for (const llvm::PHINode &phi : cont->phis()) {
    SymVal v;
    if (!leaving([&](State &x) { return x.vals.lookup(&phi); }, v))
      return false;
    after.push_back({&phi, v});
  }
  for (const llvm::BasicBlock *bb : l->blocks())
    for (const llvm::Instruction &i : *bb) {
      if (i.getType()->isVoidTy() ||
          llvm::all_of(i.users(), [&](const llvm::User *u) {
            auto *ui = dyn_cast<llvm::Instruction>(u);
            return !ui || l->contains(ui->getParent()) ||
                   (isa<llvm::PHINode>(ui) && ui->getParent() != cont);
          }))
        continue;
      SymVal v;
      if (!leaving([&](State &x) { return x.vals.lookup(&i); }, v))
        return false;
      after.push_back({&i, v});
    }
  // Private variables first assigned in the loop: their value on each exit
  // if the iteration stored them before it, at its top level; else unknown.
  std::vector<std::pair<PrivStore, SymVal>> assigned;
  for (size_t i = lm.storeBase; i < s.stores.size(); ++i) {
    PrivStore st = s.stores[i];
    bool carried = llvm::any_of(lm.carried, [&](const Carried &c) {
      return !c.phi && st.obj == c.obj && st.off.terms.empty() &&
             st.off.constant == c.off && st.size == c.size;
    });
    if (carried || llvm::any_of(assigned, [&](auto &a) {
          return a.first.obj == st.obj && a.first.off == st.off &&
                 a.first.size == st.size;
        }))
      continue;
    auto storedOn = [&](const State &x) {
      return llvm::any_of(
          llvm::make_range(x.stores.begin() + lm.storeBase, x.stores.end()),
          [&](const PrivStore &y) {
            return y.obj == st.obj && y.off == st.off && y.size == st.size &&
                   (y.guard == lm.guard ||
                    llvm::is_contained(lm.m.tops, y.guard));
          });
    };
    SymVal v;
    v.kind = SymVal::LoopResult;
    if (st.off.terms.empty() &&
        llvm::all_of(exits, [&](const SymLoop::Exit &e) {
          return e.state.stores.size() > lm.storeBase && storedOn(e.state);
        })) {
      SymVal p;
      p.kind = SymVal::PrivPtr;
      p.obj = st.obj;
      p.off = st.off;
      llvm::Type *ty = llvm::IntegerType::get(f.getContext(), st.size * 8);
      if (!leaving(
              [&](State &x) {
                llvm::SaveAndRestore internal(internalRead, true);
                return loadPrivate(p, ty, x);
              },
              v))
        return false;
    }
    st.guard = i1(true);
    assigned.push_back({st, v});
  }
  std::vector<std::pair<const Carried *, SymVal>> privs;
  for (const Carried &c : lm.carried) {
    if (c.phi || c.next == c.holder)
      continue;
    SymVal p;
    p.kind = SymVal::PrivPtr;
    p.obj = c.obj;
    p.off.constant = c.off;
    llvm::Type *ty = llvm::IntegerType::get(f.getContext(), c.size * 8);
    SymVal v;
    if (!leaving(
            [&](State &x) {
              llvm::SaveAndRestore internal(internalRead, true);
              return loadPrivate(p, ty, x);
            },
            v))
      return false;
    if (failed)
      return false;
    privs.push_back({&c, v});
  }

  replacePlaceholders(lm);
  emitSums(lm);
  for (Operation *h : lm.holders) {
    if (!h->use_empty())
      return giveUp(lm, "placeholder of a loop with several exits left in "
                        "use");
    h->erase();
  }

  // After the loop: the state before it, with what left it.
  s = std::move(lm.pre);
  SymVal gone;
  gone.kind = SymVal::LoopResult;
  for (const llvm::BasicBlock *bb : l->blocks())
    for (const llvm::Instruction &i : *bb)
      if (!i.getType()->isVoidTy())
        s.vals[&i] = gone;
  for (auto &[v, val] : after)
    s.vals[v] = val;
  for (auto &[c, val] : privs) {
    Linear off;
    off.constant = c->off;
    s.stores.push_back({c->obj, off, c->size, val, i1(true)});
  }
  // (A store at an offset of the iteration has an unknown value: val.)
  for (auto &[st, val] : assigned) {
    PrivStore after{st.obj, st.off, st.size, val, i1(true)};
    after.leaveLoop();
    s.stores.push_back(after);
  }
  return !failed;
}

} // namespace lowering
} // namespace kv
