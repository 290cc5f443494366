//===- RelationalSide.cpp - one kernel's steps, symbolically ----*- C++ -*-===//

#include "equiv/RelationalStepper.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/SimplifyQuery.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Operator.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/KnownBits.h"
#include "llvm/Transforms/Scalar/SROA.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/Mem2Reg.h"

using namespace llvm;

namespace kv::rel {

//===----------------------------------------------------------------------===//
// One step
//===----------------------------------------------------------------------===//

unsigned bitsOf(Type *t, const DataLayout &dl) {
  if (t->isPointerTy())
    return 64;
  if (t->isIntegerTy())
    return t->getIntegerBitWidth();
  if (t->isFloatingPointTy())
    return t->getPrimitiveSizeInBits().getFixedValue();
  if (auto *v = dyn_cast<FixedVectorType>(t)) {
    unsigned e = bitsOf(v->getElementType(), dl);
    return e && !v->getElementType()->isIntegerTy(1) ? e * v->getNumElements()
                                                     : 0;
  }
  return 0;
}

void Stepper::set(Instruction &i, const z3::expr &e) {
  z3::expr p = flagged ? *flagged : ctx.bool_val(false);
  flagged.reset();
  if (!isa<FreezeInst>(i) && !isa<LoadInst>(i) && !isa<SelectInst>(i))
    for (Value *op : i.operands())
      if (!isa<BasicBlock>(op) && !isa<Function>(op))
        p = p || P(op);
  if (auto *s = dyn_cast<SelectInst>(&i))
    p = p || P(s->getCondition()) ||
        z3::ite(isTrue(*get(s->getCondition())), P(s->getTrueValue()),
                P(s->getFalseValue()));
  setRaw(i, e, p.simplify());
}

std::optional<z3::expr> Stepper::constant(Constant *c) {
  unsigned bits = bitsOf(c->getType(), dl);
  if (auto *ci = dyn_cast<ConstantInt>(c)) {
    const APInt &v = ci->getValue();
    if (bits <= 64)
      return ctx.bv_val(v.getZExtValue(), bits);
    return std::nullopt;
  }
  if (auto *cf = dyn_cast<ConstantFP>(c))
    return ctx.bv_val(cf->getValueAPF().bitcastToAPInt().getZExtValue(), bits);
  if (isa<ConstantPointerNull>(c))
    return ctx.bv_val(0, 64);
  if (isa<UndefValue>(c) && bits)
    // Any value: a fresh symbol, so the proof holds for every choice.
    return ctx.bv_const(("undef" + std::to_string(sh.fresh++)).c_str(), bits);
  if (bits && c->isNullValue())
    return ctx.bv_val(0, bits);
  if (auto *cdv = dyn_cast<ConstantDataVector>(c)) {
    std::optional<z3::expr> r;
    for (unsigned i = 0; i < cdv->getNumElements(); ++i) {
      std::optional<z3::expr> e = constant(cdv->getElementAsConstant(i));
      if (!e)
        return std::nullopt;
      r = r ? z3::concat(*e, *r) : *e;
    }
    return r;
  }
  if (auto *cv = dyn_cast<ConstantVector>(c)) {
    std::optional<z3::expr> r;
    for (unsigned i = 0; i < cv->getNumOperands(); ++i) {
      std::optional<z3::expr> e = constant(cv->getOperand(i));
      if (!e)
        return std::nullopt;
      r = r ? z3::concat(*e, *r) : *e;
    }
    return r;
  }
  if (auto *g = dyn_cast<GlobalVariable>(c)) {
    uint64_t size = dl.getTypeAllocSize(g->getValueType());
    // Both kernels must mean the same object: an initializer they do not
    // share would make equal addresses hold different contents.
    if (g->hasInitializer() && !isa<UndefValue>(g->getInitializer()) &&
        !g->getInitializer()->isNullValue()) {
      fail("a global variable with an initializer ('" + g->getName().str() +
           "')");
      return std::nullopt;
    }
    return sh.global(g->getName().str(), size);
  }
  if (auto *ce = dyn_cast<ConstantExpr>(c)) {
    if (auto *g = dyn_cast<GEPOperator>(ce))
      return gep(*g);
    if (ce->isCast()) {
      std::optional<z3::expr> v = get(ce->getOperand(0));
      if (!v)
        return std::nullopt;
      return cast(ce->getOpcode(), ce->getOperand(0), *v,
                  ce->getOperand(0)->getType(), ce->getType());
    }
  }
  fail("a constant the relational proof does not model");
  return std::nullopt;
}

std::optional<z3::expr> Stepper::get(Value *v) {
  auto it = vals.find(v);
  if (it != vals.end())
    return it->second;
  auto st = side.stable.find(v);
  if (st != side.stable.end())
    return st->second;
  if (auto *a = dyn_cast<Argument>(v)) {
    unsigned bits = bitsOf(a->getType(), dl);
    if (!bits) {
      fail("a parameter of a type the relational proof does not model");
      return std::nullopt;
    }
    return sh.arg(a->getArgNo(), bits);
  }
  if (auto *c = dyn_cast<Constant>(v))
    return constant(c);
  fail("a value used before the step computed it");
  return std::nullopt;
}

z3::expr Stepper::P(Value *v) {
  auto it = pois.find(v);
  if (it != pois.end())
    return it->second;
  auto st = side.stablePoison.find(v);
  if (st != side.stablePoison.end())
    return st->second;
  if (isa<PoisonValue>(v))
    return ctx.bool_val(true);
  if (auto *c = dyn_cast<Constant>(v))
    if (!isa<ConstantExpr>(c) && !isa<ConstantVector>(c))
      return ctx.bool_val(false);
  if (isa<Argument>(v) || isa<GlobalValue>(v) || isa<ConstantData>(v))
    return ctx.bool_val(false);
  if (auto *ce = dyn_cast<ConstantExpr>(v)) {
    z3::expr p = ctx.bool_val(false);
    for (Value *op : ce->operands())
      p = p || P(op);
    return p;
  }
  if (auto *cv = dyn_cast<ConstantVector>(v)) {
    z3::expr p = ctx.bool_val(false);
    for (Value *op : cv->operands())
      p = p || P(op);
    return p;
  }
  // A value defined in another step and not carried: it cannot be used
  // here (get() fails first).
  return ctx.bool_val(true);
}

std::optional<z3::expr> Stepper::gep(GEPOperator &g) {
  std::optional<z3::expr> base = get(g.getPointerOperand());
  if (!base || g.getType()->isVectorTy()) {
    fail("a vector of addresses");
    return std::nullopt;
  }
  z3::expr addr = *base;
  for (gep_type_iterator gti = gep_type_begin(g), e = gep_type_end(g); gti != e;
       ++gti) {
    Value *idx = gti.getOperand();
    if (StructType *st = gti.getStructTypeOrNull()) {
      uint64_t off = dl.getStructLayout(st)->getElementOffset(
          llvm::cast<ConstantInt>(idx)->getZExtValue());
      addr = addr + ctx.bv_val(off, 64);
      continue;
    }
    std::optional<z3::expr> i = get(idx);
    if (!i)
      return std::nullopt;
    unsigned w = i->get_sort().bv_size();
    std::optional<z3::expr> i64 = w < 64   ? widen(idx, 64, /*sext=*/true)
                                  : w > 64 ? i->extract(63, 0)
                                           : *i;
    if (!i64)
      return std::nullopt;
    uint64_t stride = gti.getSequentialElementStride(dl).getFixedValue();
    addr = addr + *i64 * ctx.bv_val(stride, 64);
  }
  return addr;
}

/// Where an add, subtract, multiply or shift of \p w bits does not wrap,
/// signed (\p sext) or unsigned: its flags say so, or what is known of its
/// operands' bits shows it.
static bool noWrap(BinaryOperator &bo, bool sext, const DataLayout &dl) {
  // An `or` of disjoint bits is an add that carries nowhere.
  if (auto *d = dyn_cast<PossiblyDisjointInst>(&bo))
    return d->isDisjoint();
  unsigned op = bo.getOpcode();
  if (op != Instruction::Add && op != Instruction::Sub &&
      op != Instruction::Mul && op != Instruction::Shl)
    return false;
  auto *ob = cast<OverflowingBinaryOperator>(&bo);
  if (sext ? ob->hasNoSignedWrap() : ob->hasNoUnsignedWrap())
    return true;
  if (op == Instruction::Sub)
    return false;
  // Both operands non-negative and small: no wrap either way.
  SimplifyQuery q(dl, &bo);
  KnownBits a = computeKnownBits(bo.getOperand(0), q);
  KnownBits b = computeKnownBits(bo.getOperand(1), q);
  unsigned w = a.getBitWidth();
  if (w < 2 || !a.isNonNegative() || !b.isNonNegative())
    return false;
  bool ov = false;
  APInt m = bo.getOpcode() == Instruction::Add
                ? a.getMaxValue().uadd_ov(b.getMaxValue(), ov)
            : bo.getOpcode() == Instruction::Mul
                ? a.getMaxValue().umul_ov(b.getMaxValue(), ov)
                : APInt(w, 0);
  if (bo.getOpcode() == Instruction::Shl) {
    if (!b.isConstant() || b.getConstant().uge(w))
      return false;
    m = a.getMaxValue().ushl_ov(b.getConstant(), ov);
  }
  return !ov && !m.isNegative();
}

std::optional<z3::expr> Stepper::widen(Value *v, unsigned bits, bool sext) {
  widenWraps.reset();
  std::optional<z3::expr> w = widenRec(v, bits, sext, 0);
  wrapsIf(P(v));
  if (!w || isa<Constant>(v))
    return w;
  std::optional<z3::expr> x = get(v);
  unsigned vb = bitsOf(v->getType(), dl);
  if (!x || vb >= bits)
    return w;
  bool both =
      isKnownNonNegative(v, SimplifyQuery(dl, dyn_cast<Instruction>(v)));
  z3::expr plain =
      sext && !both ? z3::sext(*x, bits - vb) : z3::zext(*x, bits - vb);
  if (plain.id() != w->id()) {
    lemmas.push_back(*widenWraps || plain == *w);
    forms.push_back({plain, *w});
  }
  return w;
}

std::optional<z3::expr> Stepper::widenRec(Value *v, unsigned bits, bool sext,
                                          unsigned depth) {
  unsigned w = bitsOf(v->getType(), dl);
  if (auto *c = dyn_cast<ConstantInt>(v))
    return ctx.bv_val(
        (sext ? c->getValue().sext(bits) : c->getValue().zext(bits))
            .getZExtValue(),
        bits);
  // Only through instructions this step computed (from the operands' values
  // now), or computed once before any loop: a carried value's operands
  // belong to another iteration.
  auto *i = dyn_cast<Instruction>(v);
  bool here = i && depth < 8 && (local.count(i) || side.stable.count(i));
  // A non-negative value extends the same either way: zero-extended, as
  // -O2 writes it (known bits hold wherever the value is not poison).
  bool both = isKnownNonNegative(v, SimplifyQuery(dl, i));
  if (here) {
    auto *bo = dyn_cast<BinaryOperator>(i);
    auto distributes = [&](bool sx) {
      return bo && (sx ? sext || both : !sext || both) && noWrap(*bo, sx, dl);
    };
    for (bool sx : {sext, !sext}) {
      if (!distributes(sx))
        continue;
      Value *a = bo->getOperand(0), *b = bo->getOperand(1);
      // Where this distribution is not exact: the flags' overflow (known
      // bits are trusted, as the distribution itself trusts them), or
      // the bits of a disjoint `or` overlapping.
      std::optional<z3::expr> wraps;
      if (auto it = overflows.find(bo); it != overflows.end())
        wraps = it->second;
      if (bo->getOpcode() == Instruction::Or) {
        std::optional<z3::expr> ea = get(a), eb = get(b);
        if (!ea || !eb)
          return std::nullopt;
        wraps = (*ea & *eb) != ctx.bv_val(0, w);
      }
      if (wraps)
        wrapsIf(*wraps);
      std::optional<z3::expr> x = widenRec(a, bits, sx, depth + 1);
      if (!x)
        return std::nullopt;
      if (bo->getOpcode() == Instruction::Shl) {
        auto *k = dyn_cast<ConstantInt>(b);
        if (!k || k->getValue().uge(w))
          continue;
        return *x *
               ctx.bv_val(
                   APInt::getOneBitSet(bits, k->getZExtValue()).getZExtValue(),
                   bits);
      }
      std::optional<z3::expr> y = widenRec(b, bits, sx, depth + 1);
      if (!y)
        return std::nullopt;
      switch (bo->getOpcode()) {
      case Instruction::Add:
      case Instruction::Or:
        return *x + *y;
      case Instruction::Sub:
        return *x - *y;
      case Instruction::Mul:
        // (In a fixed order, as Stepper::exec multiplies.)
        return x->id() < y->id() ? *x * *y : *y * *x;
      default:
        break;
      }
    }
    // Extensions of extensions.
    if (auto *e = dyn_cast<CastInst>(i)) {
      unsigned ib = bitsOf(e->getSrcTy(), dl);
      if (ib && ib < bits &&
          ((e->getOpcode() == Instruction::SExt && (sext || both)) ||
           (e->getOpcode() == Instruction::ZExt &&
            (!sext || both || e->hasNonNeg()))))
        return widenRec(e->getOperand(0), bits,
                        e->getOpcode() == Instruction::SExt ||
                            (e->hasNonNeg() && sext),
                        depth + 1);
    }
  }
  if (sext && bits == 64 && !here)
    if (auto it = wideIn.find(v); it != wideIn.end()) {
      z3::expr wraps =
          wideInWraps.count(v) ? wideInWraps.at(v) : ctx.bool_val(true);
      wrapsIf(wraps);
      return it->second;
    }
  std::optional<z3::expr> x = get(v);
  if (!x)
    return std::nullopt;
  if (w >= bits)
    return x;
  return sext && !both ? z3::sext(*x, bits - w) : z3::zext(*x, bits - w);
}

std::optional<z3::expr> Stepper::cast(unsigned op, Value *src, z3::expr v,
                                      Type *from, Type *to, bool nneg) {
  unsigned fb = bitsOf(from, dl), tb = bitsOf(to, dl);
  if (!fb || !tb) {
    fail("a conversion of a type the relational proof does not model");
    return std::nullopt;
  }
  switch (op) {
  case Instruction::ZExt:
  case Instruction::SExt:
    // The extension distributed over arithmetic that does not wrap: the
    // kernels then compute an address as the same sum where one extends
    // before adding and the other after (-O2 widens induction variables
    // and writes `zext nneg`). Where a flag is broken the value is
    // poison, which P() tracks, so the term chosen for it does not matter.
    if (tb <= fb)
      return v;
    return widen(src, tb, op == Instruction::SExt || nneg);
  case Instruction::Trunc:
    return tb < fb ? v.extract(tb - 1, 0) : v;
  case Instruction::BitCast:
  case Instruction::AddrSpaceCast:
  case Instruction::PtrToInt:
  case Instruction::IntToPtr:
  case Instruction::PtrToAddr:
    if (tb == fb)
      return v;
    return tb < fb ? v.extract(tb - 1, 0) : z3::zext(v, tb - fb);
  default:
    break;
  }
  // Float conversions: functions of their operand.
  if (from->isVectorTy() || to->isVectorTy()) {
    fail("a vector conversion");
    return std::nullopt;
  }
  return sh.apply(std::string(Instruction::getOpcodeName(op)), {v}, tb);
}

z3::expr Stepper::load(const z3::expr &addr, unsigned bytes) {
  if (loads.size() < 8)
    loads.push_back({addr, bytes});
  if (addrs.size() < 64)
    addrs.push_back(addr);
  std::optional<z3::expr> r;
  for (unsigned i = 0; i < bytes; ++i) {
    z3::expr a = addr + ctx.bv_val(i, 64);
    z3::expr b = z3::select(*mem, a);
    r = r ? z3::concat(b, *r) : b;
    *rd = z3::store(*rd, a, ctx.bool_val(true));
  }
  return *r;
}

void Stepper::store(const z3::expr &addr, const z3::expr &bits,
                    unsigned bytes) {
  if (addrs.size() < 64)
    addrs.push_back(addr);
  for (unsigned i = 0; i < bytes; ++i) {
    z3::expr a = addr + ctx.bv_val(i, 64);
    *mem = z3::store(*mem, a, bits.extract(8 * i + 7, 8 * i));
    *wr = z3::store(*wr, a, ctx.bool_val(true));
  }
}

std::optional<Step> Stepper::run(BasicBlock *start, const State &in) {
  // The blocks of the step: reachable from start without entering a cut.
  std::vector<BasicBlock *> order;
  {
    DenseSet<BasicBlock *> seen, onStack;
    bool cyclic = false;
    std::function<void(BasicBlock *)> dfs = [&](BasicBlock *bb) {
      seen.insert(bb);
      onStack.insert(bb);
      for (BasicBlock *s : successors(bb)) {
        if (side.isCut.count(s))
          continue;
        if (onStack.count(s))
          cyclic = true;
        else if (!seen.count(s))
          dfs(s);
      }
      onStack.erase(bb);
      order.push_back(bb);
    };
    dfs(start);
    if (cyclic) {
      why = "a loop with more than one entry";
      return std::nullopt;
    }
    std::reverse(order.begin(), order.end());
  }
  Step out{{}, ctx.bool_val(false), {}};
  std::map<BasicBlock *, std::vector<Incoming>> incoming;
  for (BasicBlock *bb : order) {
    auto inst = bb->begin();
    if (bb == start) {
      cond = ctx.bool_val(true);
      mem = *in.mem;
      wr = *in.wr;
      rd = *in.rd;
      inst = bb->getFirstNonPHIIt();
      if (side.isBarrier.count(bb))
        ++inst;
      if (side.isExchange.count(bb)) {
        // The exchange: its operands for the obligation, its result what
        // the product gives both kernels.
        auto *x = llvm::cast<CallBase>(&*inst);
        if (!in.exchange) {
          why = "a warp exchange the other kernel does not reach with it at " +
                Side::where(*x);
          return std::nullopt;
        }
        out.exchangeOp = x->getCalledFunction()->getIntrinsicID();
        for (Value *a : x->args()) {
          std::optional<z3::expr> v = get(a);
          if (!v)
            return std::nullopt;
          out.exchangeArgs.push_back({*v, P(a)});
        }
        setRaw(*x, in.exchange->first, in.exchange->second);
        ++inst;
      }
    } else {
      std::vector<Incoming> &ins = incoming[bb];
      if (ins.empty())
        continue; // not reached from start (only from other cuts)
      cond = ins[0].cond;
      mem = ins[0].mem;
      wr = ins[0].wr;
      rd = ins[0].rd;
      for (size_t k = 1; k < ins.size(); ++k) {
        cond = *cond || ins[k].cond;
        mem = z3::ite(ins[k].cond, ins[k].mem, *mem);
        wr = z3::ite(ins[k].cond, ins[k].wr, *wr);
        rd = z3::ite(ins[k].cond, ins[k].rd, *rd);
      }
      for (PHINode &phi : bb->phis()) {
        std::optional<z3::expr> v, p;
        for (Incoming &e : ins) {
          Value *in = phi.getIncomingValueForBlock(e.from);
          std::optional<z3::expr> x = get(in);
          if (!x)
            return std::nullopt;
          v = v ? z3::ite(e.cond, *x, *v) : *x;
          p = p ? z3::ite(e.cond, P(in), *p) : P(in);
        }
        setRaw(phi, *v, *p);
      }
      inst = bb->getFirstNonPHIIt();
    }
    for (auto e = bb->end(); inst != e; ++inst) {
      if (inst->isTerminator())
        break;
      if (!exec(*inst)) {
        if (why.empty())
          why = "a value it cannot compute";
        return std::nullopt;
      }
    }
    Instruction *term = bb->getTerminator();
    std::vector<std::pair<BasicBlock *, z3::expr>> edges;
    if (auto *br = dyn_cast<BranchInst>(term)) {
      if (br->isUnconditional()) {
        edges.push_back({br->getSuccessor(0), *cond});
      } else {
        std::optional<z3::expr> c = get(br->getCondition());
        if (!c)
          return std::nullopt;
        strict(br->getCondition());
        edges.push_back({br->getSuccessor(0), *cond && isTrue(*c)});
        edges.push_back({br->getSuccessor(1), *cond && !isTrue(*c)});
      }
    } else if (auto *sw = dyn_cast<SwitchInst>(term)) {
      std::optional<z3::expr> c = get(sw->getCondition());
      if (!c)
        return std::nullopt;
      strict(sw->getCondition());
      z3::expr none = ctx.bool_val(true);
      for (auto &cs : sw->cases()) {
        std::optional<z3::expr> v = get(cs.getCaseValue());
        if (!v)
          return std::nullopt;
        edges.push_back({cs.getCaseSuccessor(), *cond && *c == *v});
        none = none && *c != *v;
      }
      edges.push_back({sw->getDefaultDest(), *cond && none});
    } else if (isa<ReturnInst>(term)) {
      State s;
      s.mem = *mem;
      s.wr = *wr;
      s.rd = *rd;
      out.exits.push_back({nullptr, *cond, std::move(s)});
    } else if (isa<UnreachableInst>(term)) {
      undefined(ctx.bool_val(true));
    } else {
      why = std::string("'") + term->getOpcodeName() + "' at " +
            Side::where(*term);
      return std::nullopt;
    }
    for (auto &[succ, c] : edges) {
      if (!side.isCut.count(succ)) {
        incoming[succ].push_back({bb, c, *mem, *wr, *rd});
        continue;
      }
      State s;
      s.mem = *mem;
      s.wr = *wr;
      s.rd = *rd;
      for (Value *v : side.live[succ]) {
        Value *src = v;
        if (auto *phi = dyn_cast<PHINode>(v); phi && phi->getParent() == succ)
          src = phi->getIncomingValueForBlock(bb);
        std::optional<z3::expr> x = get(src);
        if (!x)
          return std::nullopt;
        s.vals.insert_or_assign(v, *x);
        s.poison.insert_or_assign(v, P(src));
        if (v->getType()->isIntegerTy() && bitsOf(v->getType(), dl) < 64)
          if (std::optional<z3::expr> w = widen(src, 64, /*sext=*/true)) {
            s.wide.insert_or_assign(v, *w);
            s.wideWraps.insert_or_assign(v, *widenWraps);
          }
      }
      out.exits.push_back({succ, c, std::move(s)});
    }
  }
  out.ub = ub;
  out.ubSites = std::move(ubSites);
  out.lemmas = std::move(lemmas);
  out.forms = std::move(forms);
  out.addrs = std::move(addrs);
  out.terms = std::move(terms);
  out.loads = std::move(loads);
  out.compared = std::move(compared);
  // The values computed once, before any loop or barrier, are the same
  // terms wherever they are used later.
  if (start == side.entry)
    for (auto &[v, e] : vals)
      if (auto *i = dyn_cast<Instruction>(v))
        if (side.once.count(i->getParent())) {
          side.stable.insert_or_assign(v, e);
          side.stablePoison.insert_or_assign(v, pois.at(v));
        }
  return out;
}

std::optional<Step> Side::step(BasicBlock *cut, const State &in) {
  Stepper s(*this, in);
  std::optional<Step> r = s.run(cut, in);
  if (!r)
    fail(s.why.empty() ? "a construct it does not model" : s.why);
  return r;
}

std::optional<Step> Side::steps(BasicBlock *cut, const State &in, unsigned u) {
  Step total{{}, sh.ctx.bool_val(false), {}, {}};
  // The paths still in the loop: their condition and state.
  std::vector<std::pair<z3::expr, State>> inLoop{{sh.ctx.bool_val(true), in}};
  for (unsigned i = 0; i < u && !inLoop.empty(); ++i) {
    std::vector<std::pair<z3::expr, State>> next;
    for (auto &[pc, st] : inLoop) {
      std::optional<Step> s = step(cut, st);
      if (!s)
        return std::nullopt;
      total.ub = total.ub || (pc && s->ub);
      for (auto &[inst, c] : s->ubSites)
        total.ubSites.push_back({inst, pc && c});
      total.lemmas.insert(total.lemmas.end(), s->lemmas.begin(),
                          s->lemmas.end());
      total.forms.insert(total.forms.end(), s->forms.begin(), s->forms.end());
      total.addrs.insert(total.addrs.end(), s->addrs.begin(), s->addrs.end());
      total.terms.insert(total.terms.end(), s->terms.begin(), s->terms.end());
      total.loads.insert(total.loads.end(), s->loads.begin(), s->loads.end());
      total.compared.insert(total.compared.end(), s->compared.begin(),
                            s->compared.end());
      for (Exit &x : s->exits) {
        if (x.cut == cut && i + 1 < u)
          next.push_back({pc && x.cond, std::move(x.state)});
        else
          total.exits.push_back({x.cut, pc && x.cond, std::move(x.state)});
      }
    }
    // (Paths that branch in every iteration: too many to follow.)
    if (next.size() > 4)
      return std::nullopt;
    inLoop = std::move(next);
  }
  return total;
}

} // namespace kv::rel
