//===- LowerControlFlow.cpp - Blocks, branches and joins ------------------===//
//
// Control flow of the symbolic execution: running basic blocks, following
// branches whose condition folds, forking at a symbolic branch and merging
// the two states at its immediate post-dominator, phis on edges, and the
// loop exits that --unroll bounds or a case split stops at.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"

#include <functional>
#include <numeric>

namespace kv {
namespace lowering {

SymVal Lowerer::mergeVal(const SymVal &t, const SymVal &e, Value c) {
  if (t == e)
    return t;
  if (t.kind == SymVal::Scalar && e.kind == SymVal::Scalar) {
    if (t.scalar.getType() != e.scalar.getType()) {
      fail("values of different types merged");
      return t;
    }
    return scalar(select(c, t.scalar, e.scalar));
  }
  if (t.kind == SymVal::FnPtr && e.kind == SymVal::FnPtr) {
    // Each target under its own condition, on the side of c it came from.
    SymVal r;
    r.kind = SymVal::FnPtr;
    for (auto [side, cond] : {std::pair{&t, c}, std::pair{&e, notI1(c)}})
      for (auto &[fn, when] : side->fns) {
        Value w = andI1(cond, when);
        auto same =
            llvm::find_if(r.fns, [&](auto &x) { return x.first == fn; });
        if (same == r.fns.end())
          r.fns.push_back({fn, w});
        else
          same->second = b.createOrFold<arith::OrIOp>(loc, same->second, w);
      }
    return r;
  }
  if (t.kind == e.kind && t.obj == e.obj && t.array == e.array && t.isPtr()) {
    // The offsets' common factor stays outside the select: an element
    // index into an array of 4-byte elements stays a multiple of 4.
    int64_t g = 0;
    for (const Linear *l : {&t.off, &e.off}) {
      g = std::gcd(g, l->constant);
      for (auto &[v, k] : l->terms)
        g = std::gcd(g, k);
    }
    g = g ? std::abs(g) : 1;
    auto scaled = [&](const Linear &l) {
      Linear d;
      d.constant = l.constant / g;
      for (auto &[v, k] : l.terms)
        d.addTerm(v, k / g);
      return materialize(d);
    };
    Linear sel = linearOf(select(c, scaled(t.off), scaled(e.off)));
    SymVal r = t;
    r.off = Linear();
    r.off.constant = sel.constant * g;
    for (auto &[v, k] : sel.terms)
      r.off.addTerm(v, k * g);
    return r;
  }
  if (t.kind == SymVal::Aggregate && e.kind == SymVal::Aggregate &&
      t.parts.size() == e.parts.size()) {
    SymVal r = t;
    for (size_t i = 0; i < r.parts.size(); ++i)
      r.parts[i] = mergeVal(t.parts[i], e.parts[i], c);
    return r;
  }
  if (t.kind == SymVal::Opaque || e.kind == SymVal::Opaque)
    return t.kind == SymVal::Opaque ? t : e;
  if (t.kind == SymVal::LoopResult || e.kind == SymVal::LoopResult) {
    SymVal r;
    r.kind = SymVal::LoopResult;
    return r;
  }
  if (t.kind == SymVal::None)
    return e;
  if (e.kind == SymVal::None)
    return t;
  // A pointer that may point into two different objects: give up.
  SymVal bad;
  bad.kind = SymVal::None;
  return bad;
}

State Lowerer::merge(State &t, State &e, Value c, Value guard,
                     size_t forkStores) {
  if (t.dead)
    return std::move(e);
  if (e.dead)
    return std::move(t);
  // Both arms are consumed: the merge takes t's values and stores over.
  State m;
  m.guard = guard;
  m.vals = std::move(t.vals);
  for (auto &[k, ev] : e.vals) {
    auto it = m.vals.find(k);
    if (it == m.vals.end())
      m.vals[k] = ev;
    else
      it->second = mergeVal(it->second, ev, c);
  }
  m.stores = std::move(t.stores);
  m.stores.insert(m.stores.end(), e.stores.begin() + forkStores,
                  e.stores.end());
  m.ret = mergeVal(t.ret, e.ret, c);
  return m;
}

void Lowerer::takeEdge(const llvm::BasicBlock *from, const llvm::BasicBlock *to,
                       State &s) {
  llvm::SmallVector<std::pair<const llvm::PHINode *, SymVal>> phis;
  for (const llvm::PHINode &phi : to->phis())
    phis.push_back({&phi, eval(phi.getIncomingValueForBlock(from), s)});
  for (auto &[phi, v] : phis)
    s.vals[phi] = v;
}

const llvm::BasicBlock *Lowerer::boundedExit(const llvm::BasicBlock *bb,
                                             const llvm::BasicBlock *succ0,
                                             const llvm::BasicBlock *succ1) {
  if (!opts.unrollBound)
    return nullptr;
  llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
  if (!l)
    return nullptr;
  bool in0 = l->contains(succ0), in1 = l->contains(succ1);
  if (in0 == in1)
    return nullptr;
  unsigned ran = visits[l->getHeader()];
  if (opts.exactUnroll) {
    // Iterations of this entry; a latch's test decides on the next one. So
    // a rotated loop (test at the end) and one tested at the top are both
    // cut after unrollBound bodies: their barriers stay aligned.
    ran -= entryVisits.lookup(l->getHeader());
    if ((in0 ? succ0 : succ1) == l->getHeader())
      ++ran;
  }
  if (ran <= opts.unrollBound)
    return nullptr;
  return in0 ? succ1 : succ0;
}

bool Lowerer::splitLoopExit(const llvm::BasicBlock *bb,
                            const llvm::BasicBlock *succ0,
                            const llvm::BasicBlock *succ1, Value c) {
  if (!opts.reportSplit)
    return false;
  llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
  if (!l || l->contains(succ0) == l->contains(succ1))
    return false;
  std::set<std::string> names;
  if (!splitNames(c, names))
    return false;
  why.splitOn.assign(names.begin(), names.end());
  fail("loop whose trip count depends on " + llvm::join(why.splitOn, ", "));
  return true;
}

void Lowerer::restartAsModel(const llvm::Loop *l) {
  // Its inner loops too: unrolled inside the model, they would repeat its
  // body once per iteration.
  for (const llvm::Loop *inner : l->getLoopsInPreorder())
    modelConstant.insert(inner);
  restartLoop = l;
  failed = true;
}

void Lowerer::runBlocks(const llvm::BasicBlock *bb, State &s,
                        const llvm::BasicBlock *stopAt,
                        const llvm::BasicBlock *from, bool entered) {
  while (bb && !failed) {
    if (!entered) {
      llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
      // An inlined grid.sync()'s wait is not a loop of the model.
      if (l && l->getHeader() == bb && (!from || !l->contains(from)) &&
          !gridSyncOf.count(bb))
        return enterLoop(l, bb, s, stopAt, from);
    }
    entered = false;
    // The kernel's budget: unrolling stops at its deadline or when the
    // model outgrows its memory bound; the verdict is then `unknown`.
    if (maxLowered && lowered > maxLowered)
      budget::stop(budget::Kind::Memory, "the unrolled model passed " +
                                             std::to_string(maxLowered) +
                                             " lowered instructions");
    if (budget::exceeded()) {
      curInst = bb->getTerminator();
      return fail(budget::shortReason());
    }
    // A host function's kernel (passes/lower/HostKernels.cpp) runs every
    // iteration of its loops in one thread: a loop of more than a few
    // dozen iterations is modelled rather than unrolled.
    if (hostKernel && !opts.unrollBound && !loopEntries.empty() &&
        loopEntries.back().loop->getHeader() == bb &&
        !noModel.contains(loopEntries.back().loop) &&
        visits[bb] + 1 - loopEntries.back().headerVisits >
            opts.maxBlockVisits / 16) {
      return restartAsModel(loopEntries.back().loop);
    }
    if (++visits[bb] > opts.maxBlockVisits) {
      // Loops whose exit tests were constants ran out of unrolling: model
      // one (enterLoop), as a loop with a symbolic test is. The innermost
      // that runs long itself, else the outermost (many short entries).
      if (!opts.unrollBound) {
        const llvm::Loop *redo = nullptr;
        for (auto e = loopEntries.rbegin(); e != loopEntries.rend(); ++e)
          if (!noModel.contains(e->loop) &&
              visits[e->loop->getHeader()] - e->headerVisits >
                  opts.maxBlockVisits / 16) {
            redo = e->loop;
            break;
          }
        for (auto e = loopEntries.begin(); !redo && e != loopEntries.end(); ++e)
          if (!noModel.contains(e->loop))
            redo = e->loop;
        if (redo)
          return restartAsModel(redo);
      }
      curInst = bb->getTerminator();
      fail("loop whose trip count is not a constant (unrolled " +
           llvm::Twine(opts.maxBlockVisits) +
           " times; --unroll=N gives a bounded check)");
      return;
    }
    for (const llvm::Instruction &inst : *bb) {
      if (isa<llvm::PHINode>(inst))
        continue;
      if (inst.isTerminator())
        break;
      ++lowered;
      exec(inst, s);
      if (failed || s.dead)
        return;
    }
    const llvm::Instruction *term = bb->getTerminator();
    curInst = term;
    if (term->getDebugLoc())
      loc = FileLineColLoc::get(ctx, term->getDebugLoc()->getFilename(),
                                term->getDebugLoc().getLine(),
                                term->getDebugLoc().getCol());
    if (auto *ret = dyn_cast<llvm::ReturnInst>(term)) {
      if (ret->getReturnValue())
        s.ret = eval(ret->getReturnValue(), s);
      return;
    }
    if (isa<llvm::UnreachableInst>(term)) {
      // Reaching `unreachable` is undefined behaviour: the path is not
      // taken (`if (blockDim.x != 16) __builtin_unreachable();`, which -O2
      // turns into an llvm.assume). After a call that does not return (a
      // failed assert's trap) the thread has stopped instead.
      const llvm::Instruction *prev = term->getPrevNode();
      auto *call = dyn_cast_or_null<llvm::CallBase>(prev);
      if (!(call && call->doesNotReturn()) && !isFalse(s.guard))
        AssumeOp::create(b, loc, notI1(s.guard), /*bound=*/nullptr,
                         /*ub=*/true);
      s.dead = true;
      return;
    }
    // A two-way branch: a br, or a switch with two distinct targets (as in
    // clang's cleanup code for an early return).
    const llvm::BasicBlock *succ0 = nullptr, *succ1 = nullptr;
    Value c;
    bool uncond = false;
    if (auto *br = dyn_cast<llvm::BranchInst>(term)) {
      uncond = br->isUnconditional();
      succ0 = br->getSuccessor(0);
      // Inlined grid.sync(): its workspace check passes on a cooperative
      // launch, and its arrival is the grid barrier already modelled.
      if (!uncond) {
        const llvm::BasicBlock *to = nullptr;
        if (const InlinedGridSync *g = gridSyncOf.lookup(bb);
            g && eval(br->getCondition(), s).kind == SymVal::Opaque)
          to = g->exitTo(*br);
        else if (eval(br->getCondition(), s).kind == SymVal::Opaque)
          to = gridWorkspaceCheck(*br);
        if (to) {
          uncond = true;
          succ0 = to;
        }
      }
      if (!uncond) {
        succ1 = br->getSuccessor(1);
        c = evalScalar(br->getCondition(), s);
      }
    } else if (auto *sw = dyn_cast<llvm::SwitchInst>(term)) {
      Value v = evalScalar(sw->getCondition(), s);
      llvm::SmallPtrSet<const llvm::BasicBlock *, 4> targets;
      // A target that is only `unreachable` (clang's cleanup switch at
      // -O0) is never taken: undefined behaviour.
      auto dead = [](const llvm::BasicBlock *t) {
        return isa<llvm::UnreachableInst>(t->getFirstNonPHIOrDbg());
      };
      for (unsigned i = 0; i < sw->getNumSuccessors(); ++i)
        if (!dead(sw->getSuccessor(i)))
          targets.insert(sw->getSuccessor(i));
      if (targets.size() > 2) {
        // Several targets: one arm per distinct target, each under its
        // cases (the default's: none of the other targets' cases), run to
        // the switch's join and merged back one arm at a time.
        llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
        for (const llvm::BasicBlock *t : targets)
          if (l && !l->contains(t)) {
            fail("switch with more than two targets that leaves a loop");
            return;
          }
        auto caseValue = [&](const llvm::ConstantInt *cv) {
          return arith::ConstantOp::create(
              b, loc, v.getType(),
              IntegerAttr::get(v.getType(), cv->getValue()));
        };
        llvm::SmallVector<std::pair<const llvm::BasicBlock *, Value>> arms;
        for (unsigned i = 0; i < sw->getNumSuccessors(); ++i) {
          const llvm::BasicBlock *t = sw->getSuccessor(i);
          if (llvm::any_of(arms, [&](auto &a) { return a.first == t; }))
            continue;
          Value c = i1(false);
          if (t == sw->getDefaultDest()) {
            c = i1(true);
            for (auto &cs : sw->cases())
              if (cs.getCaseSuccessor() != t)
                c = andI1(c, notI1(eq(v, caseValue(cs.getCaseValue()))));
          } else {
            for (auto &cs : sw->cases())
              if (cs.getCaseSuccessor() == t)
                c = b.createOrFold<arith::OrIOp>(
                    loc, c, eq(v, caseValue(cs.getCaseValue())));
          }
          arms.push_back({t, c});
        }
        const llvm::DomTreeNodeBase<llvm::BasicBlock> *pd =
            pdt(*bb->getParent()).getNode(bb)->getIDom();
        const llvm::BasicBlock *join = pd ? pd->getBlock() : nullptr;
        size_t forkStores = s.stores.size();
        std::function<State(size_t, State &)> fork = [&](size_t i, State &st) {
          auto run = [&](const llvm::BasicBlock *t, State &x) {
            takeEdge(bb, t, x);
            if (t != join)
              runBlocks(t, x, join, bb);
          };
          if (i + 1 == arms.size()) {
            run(arms[i].first, st);
            return std::move(st);
          }
          State t = st, e = st;
          t.guard = andI1(st.guard, arms[i].second);
          e.guard = andI1(st.guard, notI1(arms[i].second));
          run(arms[i].first, t);
          if (failed)
            return std::move(st);
          State rest = fork(i + 1, e);
          if (failed)
            return std::move(st);
          return merge(t, rest, arms[i].second, st.guard, forkStores);
        };
        s = fork(0, s);
        if (failed || !join || join == stopAt || s.dead)
          return;
        from = bb;
        bb = join;
        continue;
      }
      // c: the value selects one of the case blocks of succ0.
      succ0 = sw->case_begin() != sw->case_end()
                  ? sw->case_begin()->getCaseSuccessor()
                  : sw->getDefaultDest();
      c = i1(sw->getDefaultDest() == succ0);
      for (auto &cs : sw->cases()) {
        Value hit = eq(v, arith::ConstantOp::create(
                              b, loc, v.getType(),
                              IntegerAttr::get(v.getType(),
                                               cs.getCaseValue()->getValue())));
        if (cs.getCaseSuccessor() == succ0)
          c = b.createOrFold<arith::OrIOp>(loc, c, hit);
        else if (sw->getDefaultDest() == succ0)
          c = andI1(c, notI1(hit));
      }
      for (const llvm::BasicBlock *t : targets)
        if (t != succ0)
          succ1 = t;
      if (!succ1)
        uncond = true;
    } else {
      fail(llvm::Twine("terminator '") + term->getOpcodeName() + "'");
      return;
    }
    const llvm::BasicBlock *next = nullptr;
    llvm::Loop *exitsLoop = nullptr;
    if (!uncond && succ0 != succ1) {
      llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
      if (l && l->contains(succ0) != l->contains(succ1))
        exitsLoop = l;
    }
    bool k;
    if (exitsLoop && !symLoops.empty() && symLoops.back().loop == exitsLoop) {
      // The exit test of the loop being modelled: the iteration goes on;
      // the test becomes the kv.iter's condition.
      SymLoop &m = symLoops.back();
      if (m.breaks) {
        // A loop with breaks: record the exit, go on where it stays. An
        // exit inside a branch of the body would leave the ops after the
        // branch's join unguarded by it.
        bool stayOn0 = exitsLoop->contains(succ0);
        Value leave = stayOn0 ? notI1(c) : c;
        if (s.guard != m.top) {
          fail("loop exit inside a branch of a loop with several exits");
          return;
        }
        bool first = s.stores.size() == m.storeBase;
        for (Operation &op :
             llvm::make_range(std::next(m.startMark->getIterator()),
                              kernel.getBlock().end()))
          first = first && !isa<WriteOp>(op);
        // A test `a && b && ...` (a select of b or false, as a phi makes
        // of `&&`) is one exit per conjunct that fails, in order: -O2
        // splits it so, and may rotate its first part alone.
        llvm::SmallVector<Value, 4> conj;
        std::function<void(Value)> split = [&](Value v) {
          if (auto sel = v.getDefiningOp<arith::SelectOp>())
            if (isFalse(sel.getFalseValue()) && conj.size() < 8) {
              split(sel.getCondition());
              split(sel.getTrueValue());
              return;
            }
          if (auto a = v.getDefiningOp<arith::AndIOp>(); a && conj.size() < 8) {
            split(a.getLhs());
            split(a.getRhs());
            return;
          }
          conj.push_back(v);
        };
        Value stay = stayOn0 ? c : notI1(c);
        split(stay);
        Value before = s.guard;
        for (Value part : conj) {
          m.exits.push_back({bb, stayOn0 ? succ1 : succ0,
                             andI1(before, notI1(part)), s,
                             bb == exitsLoop->getHeader(), first});
          before = andI1(before, part);
        }
        s.guard = andI1(s.guard, notI1(leave));
        m.top = s.guard;
        m.tops.push_back(m.top);
        next = stayOn0 ? succ0 : succ1;
        takeEdge(bb, next, s);
        if (next == stopAt)
          return;
        from = bb;
        bb = next;
        continue;
      }
      if (bb != m.exiting || m.cond) {
        fail("loop with several exit tests");
        return;
      }
      m.cond = c;
      m.stayOnTrue = exitsLoop->contains(succ0);
      if (bb == exitsLoop->getHeader() && bb != exitsLoop->getLoopLatch())
        for (Operation &op :
             llvm::make_range(std::next(m.startMark->getIterator()),
                              kernel.getBlock().end()))
          if (isa<WriteOp>(op)) {
            fail("loop whose exit test follows a write in the loop header");
            return;
          }
      next = m.stayOnTrue ? succ0 : succ1;
    } else if (exitsLoop &&
               (!constBool(c, k) || modelConstant.contains(exitsLoop)) &&
               !noModel.contains(exitsLoop) && !loopEntries.empty() &&
               loopEntries.back().loop == exitsLoop &&
               visits[exitsLoop->getHeader()] ==
                   loopEntries.back().headerVisits + 1) {
      // A symbolic exit test in the first iteration: go back to the loop's
      // entry and model it (enterLoop).
      restartLoop = exitsLoop;
      failed = true;
      return;
    } else if (uncond) {
      next = succ0;
    } else {
      if (constBool(c, k)) {
        next = k ? succ0 : succ1;
      } else if (succ0 == succ1) {
        next = succ0;
      } else if (const llvm::BasicBlock *exit = boundedExit(bb, succ0, succ1)) {
        // --unroll: the loop has run its bound; executions that stay in it
        // longer are assumed away (a bounded verdict), this one leaves.
        // Unrolled exactly, the checker proves that none stays.
        Value stay = exit == succ0 ? notI1(c) : c;
        Value leaves = notI1(andI1(s.guard, stay));
        if (opts.exactUnroll)
          ProveOp::create(b, loc, leaves,
                          b.getStringAttr("a loop that runs at most " +
                                          std::to_string(opts.unrollBound) +
                                          " iterations (unrolled that far)"));
        else
          AssumeOp::create(b, loc, leaves,
                           b.getI64IntegerAttr(opts.unrollBound),
                           /*ub=*/false);
        next = exit;
      } else if (splitLoopExit(bb, succ0, succ1, c)) {
        return;
      } else {
        const llvm::BasicBlock *join =
            pdt(*bb->getParent()).getNode(bb)->getIDom()->getBlock();
        size_t forkStores = s.stores.size();
        // One copy for the two arms (a failed lowering restores or drops
        // s anyway): states grow with every store an unrolled loop makes.
        Value guard = s.guard;
        State t = s, e = std::move(s);
        t.guard = andI1(guard, c);
        e.guard = andI1(guard, notI1(c));
        for (auto [st, succ] :
             {std::pair<State *, const llvm::BasicBlock *>{&t, succ0},
              {&e, succ1}}) {
          takeEdge(bb, succ, *st);
          if (succ != join)
            runBlocks(succ, *st, join, bb);
        }
        if (failed)
          return;
        s = merge(t, e, c, guard, forkStores);
        if (!join || join == stopAt || s.dead)
          return;
        from = bb;
        bb = join;
        continue;
      }
    }
    takeEdge(bb, next, s);
    if (next == stopAt)
      return;
    from = bb;
    bb = next;
  }
}

} // namespace lowering
} // namespace kv
