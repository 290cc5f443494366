//===- EncodeOps.cpp - kv kernels to Z3, one parameterized thread ---------===//
//
// The encoder's core: its construction (launch dimensions, parameters), the
// kernel model (writes by array and barrier interval, loops), threads and
// their loop iterations, and the encoding of each kv op for a thread
// (constants, special registers, arithmetic, comparisons, casts;
// kv.apply in EncodeApply.cpp). Array
// reads are in ReadChains.cpp, kv.sum in Sums.cpp, the abstraction of
// non-linear arithmetic in NonLinear.cpp, facts and obligations in
// Facts.cpp, side queries in SideQueries.cpp.
//
//===----------------------------------------------------------------------===//
#include "mlir/IR/Matchers.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"

#include <optional>
#include <set>

using namespace mlir;

namespace kv {

llvm::APInt numeralOf(const z3::expr &e, unsigned width) {
  if (e.is_bool())
    return llvm::APInt(width, e.is_true() ? 1 : 0);
  std::string s = Z3_get_numeral_string(e.ctx(), e);
  return llvm::APInt(std::max(width, (unsigned)s.size() * 4 + 1), s, 10)
      .trunc(width);
}

KernelModel::KernelModel(KernelOp k, std::string label)
    : op(k), label(std::move(label)),
      launch(k->hasAttr(kAfterLaunchAttr) ? 1 : 0) {
  unsigned interval = 0;
  for (Operation &o : k.getBlock()) {
    intervalOf[&o] = interval;
    if (isa<BarrierOp>(o))
      ++interval;
    else if (auto w = dyn_cast<WriteOp>(o)) {
      writes[cast<BlockArgument>(w.getArray()).getArgNumber()][interval]
          .push_back(w);
      hasAtomics |= w.isAtomic();
    } else if (auto a = dyn_cast<AssumeOp>(o))
      assumes.push_back(a);
    else if (isa<ApplyOp>(o))
      hasApply = true;
    if (auto it = dyn_cast<IterOp>(o))
      iterOps.push_back(it);
    // Ops come in SSA order: an op's loops are its operands' and itself.
    std::vector<Operation *> deps;
    for (Value v : o.getOperands())
      if (Operation *d = v.getDefiningOp()) {
        auto f = iterDeps.find(d);
        if (f != iterDeps.end())
          deps.insert(deps.end(), f->second.begin(), f->second.end());
      }
    if (isa<IterOp>(o))
      deps.push_back(&o);
    // A sum is the same for every iteration of its own loop.
    if (auto sum = dyn_cast<SumOp>(o))
      llvm::erase(deps, sum.getIter().getDefiningOp());
    // So is a fold, and a value at the loop's last iteration.
    if (auto f = dyn_cast<FoldOp>(o))
      if (CarryOp c = f.getCarry())
        llvm::erase(deps, c.getIter().getDefiningOp());
    if (auto l = dyn_cast<LastOp>(o))
      llvm::erase(deps, l.getIter().getDefiningOp());
    llvm::sort(deps);
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    if (!deps.empty())
      iterDeps[&o] = std::move(deps);
  }
  numIntervals = interval + 1;
  // A loop's range ends at the last op that depends on it; a write inside
  // it that does not runs once per iteration all the same. (One pass each:
  // a barrier loop unrolled a thousand times has that many loops.)
  if (iterOps.empty())
    return;
  llvm::DenseMap<Operation *, Operation *> rangeEnd;
  for (Operation &o : k.getBlock())
    if (auto f = iterDeps.find(&o); f != iterDeps.end())
      for (Operation *it : f->second)
        rangeEnd[it] = &o;
  llvm::SmallVector<Operation *> open;
  for (Operation &o : k.getBlock()) {
    if (isa<WriteOp>(o)) {
      auto f = iterDeps.find(&o);
      for (Operation *it : open)
        if (f == iterDeps.end() || !llvm::is_contained(f->second, it))
          repeatedWrites.insert(&o);
    }
    llvm::erase_if(open, [&](Operation *it) { return rangeEnd[it] == &o; });
    if (isa<IterOp>(o) && rangeEnd.lookup(&o) != &o)
      open.push_back(&o);
  }
}

Encoder::Encoder(z3::context &ctx, unsigned bits, KernelOp paramSource)
    : ctx(ctx), bits(bits), side(ctx), loopFacts(ctx),
      facts(ctx.bool_val(true)) {
  unsigned w = modelWidth(32, bits);
  for (int i = 0; i < 3; ++i) {
    bdim.push_back(
        ctx.bv_const((std::string("blockDim.") + axes[i]).c_str(), w));
    gdim.push_back(
        ctx.bv_const((std::string("gridDim.") + axes[i]).c_str(), w));
  }
  Block &b = paramSource.getBlock();
  for (BlockArgument a : b.getArguments()) {
    std::string name = paramSource.getArgName(a.getArgNumber()).str();
    paramNames.push_back(name);
    paramUnsigned.push_back(paramSource.isUnsignedParam(name));
    Type t = a.getType();
    if (isa<SharedArrayType>(t)) {
      params.push_back(std::nullopt);
    } else if (auto g = dyn_cast<GlobalArrayType>(t)) {
      params.push_back(ctx.constant(
          (name + "@0").c_str(),
          ctx.array_sort(ctx.bv_sort(indexBits),
                         ctx.bv_sort(widthOf(g.getElementType())))));
    } else {
      params.push_back(ctx.bv_const(name.c_str(), widthOf(t)));
    }
  }
  bdimSymbols = bdim;
  gdimSymbols = gdim;
  paramSymbols = params;
}

std::vector<z3::expr> &Encoder::bdimOf(unsigned launch) {
  if (launch)
    makeAfterLaunch();
  return launch ? afterBdim : bdim;
}

std::vector<z3::expr> &Encoder::gdimOf(unsigned launch) {
  if (launch)
    makeAfterLaunch();
  return launch ? afterGdim : gdim;
}

void Encoder::makeAfterLaunch() {
  if (!afterBdim.empty())
    return;
  unsigned w = modelWidth(32, bits);
  for (int i = 0; i < 3; ++i) {
    afterBdim.push_back(
        ctx.bv_const((std::string("after.blockDim.") + axes[i]).c_str(), w));
    afterGdim.push_back(
        ctx.bv_const((std::string("after.gridDim.") + axes[i]).c_str(), w));
  }
  afterBdimSymbols = afterBdim;
  afterGdimSymbols = afterGdim;
}

unsigned Encoder::widthOf(Type t) {
  return modelWidth(t.getIntOrFloatBitWidth(), bits);
}

Thread &Encoder::makeThread(std::vector<z3::expr> tid,
                            std::vector<z3::expr> bid, unsigned depth,
                            int launch) {
  unsigned l = launch < 0 ? threadLaunch : (unsigned)launch;
  // Ids key the memo tables: a shadow thread's never collide.
  if (shadow) {
    shadowThreads.push_back(Thread{(1u << 24) + (unsigned)shadowThreads.size(),
                                   std::move(tid), std::move(bid), depth});
    shadowThreads.back().launch = l;
    return shadowThreads.back();
  }
  if (threads.size() >= maxThreads)
    throw EncodeTimeout{/*tooLarge=*/true};
  threads.push_back(
      Thread{(unsigned)threads.size(), std::move(tid), std::move(bid), depth});
  threads.back().launch = l;
  return threads.back();
}

void Encoder::inheritPins(const Thread &from, Thread &to) {
  for (const auto &[v, e] : from.pinned) {
    to.pinned.emplace_back(v, e);
    memo.emplace(std::make_pair(v, to.id), e);
  }
}

Thread &Encoder::freshThread(const Thread *blockOf, unsigned depth,
                             int launch) {
  unsigned w = modelWidth(32, bits);
  unsigned n = fresh++;
  std::vector<z3::expr> tid, bid;
  for (int i = 0; i < 3; ++i) {
    tid.push_back(
        ctx.bv_const(("t" + std::to_string(n) + ".tid." + axes[i]).c_str(), w));
    bid.push_back(
        blockOf
            ? blockOf->bid[i]
            : ctx.bv_const(
                  ("t" + std::to_string(n) + ".bid." + axes[i]).c_str(), w));
  }
  Thread &t =
      makeThread(tid, bid, depth, blockOf ? (int)blockOf->launch : launch);
  side.push_back(inRange(t));
  return t;
}

z3::expr Encoder::inRange(const Thread &t) {
  z3::expr c = ctx.bool_val(true);
  const std::vector<z3::expr> &bd = bdimOf(t.launch), &gd = gdimOf(t.launch);
  for (int i = 0; i < 3; ++i)
    c = c && z3::ult(t.tid[i], bd[i]) && z3::ult(t.bid[i], gd[i]);
  return c;
}

z3::expr Encoder::sameBlock(const Thread &a, const Thread &b) {
  return a.bid[0] == b.bid[0] && a.bid[1] == b.bid[1] && a.bid[2] == b.bid[2];
}

z3::expr Encoder::sameThread(const Thread &a, const Thread &b) {
  z3::expr same = sameBlock(a, b);
  for (int d = 0; d < 3; ++d)
    same = same && a.tid[d] == b.tid[d];
  return same;
}

bool Encoder::isShared(KernelModel &k, unsigned arg) {
  return isa<SharedArrayType>(k.op.getBlock().getArgument(arg).getType());
}

z3::expr Encoder::resize(const z3::expr &e, unsigned to, bool isSigned) {
  if (e.is_bool())
    return to == 1 ? boolToBv(e)
                   : z3::ite(e, ctx.bv_val(isSigned ? -1 : 1, to),
                             ctx.bv_val(0, to));
  unsigned from = e.get_sort().bv_size();
  if (from == to)
    return e;
  if (from > to)
    return e.extract(to - 1, 0);
  return isSigned ? z3::sext(e, to - from) : z3::zext(e, to - from);
}

z3::expr Encoder::toIndex(const z3::expr &e) {
  return resize(e, indexBits, false);
}

z3::expr Encoder::value(KernelModel &k, Value v, const Thread &t) {
  auto key = std::make_pair(v.getAsOpaquePointer(), t.id);
  auto it = memo.find(key);
  if (it != memo.end())
    return it->second;
  z3::expr r(ctx);
  if (auto a = dyn_cast<BlockArgument>(v)) {
    auto &p = params[a.getArgNumber()];
    if (!p || p->is_array()) {
      unsupported = "an array used as a value";
      r = ctx.bv_val(0, 1);
    } else {
      r = *p;
    }
  } else {
    r = encodeOp(k, v.getDefiningOp(), t);
  }
  memo.emplace(key, r);
  return r;
}

z3::expr Encoder::unsupportedOp(Operation *op, llvm::StringRef what) {
  if (unsupported.empty())
    unsupported = what.str();
  return ctx.bv_val(0, op->getNumResults()
                           ? std::max(1u, widthOf(op->getResult(0).getType()))
                           : 1);
}

z3::expr Encoder::encodeOp(KernelModel &k, Operation *op, const Thread &t) {
  auto val = [&](unsigned i) { return value(k, op->getOperand(i), t); };
  auto fail = [&](llvm::StringRef what) { return unsupportedOp(op, what); };
  Type rt = op->getNumResults() ? op->getResult(0).getType() : Type();
  bool isBool = rt && rt.isInteger(1);

  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto ia = dyn_cast<IntegerAttr>(c.getValue());
    if (!ia)
      return fail("non-integer constant");
    llvm::APInt ap = ia.getValue();
    if (isBool)
      return ctx.bool_val(!ap.isZero());
    unsigned w = widthOf(rt);
    ap = ap.zextOrTrunc(w);
    return ctx.bv_val(std::to_string(ap.getZExtValue()).c_str(), w);
  }
  if (auto it = dyn_cast<IterOp>(op))
    return iterVar(it, t);
  if (auto s = dyn_cast<SRegOp>(op)) {
    unsigned axis = s.getAxis();
    // A thread's ids mean something only in its own launch: a proof that
    // read a kernel's ids at a thread of the other's launch would range
    // over the wrong threads.
    if ((s.getGroup() == SRegGroup::Tid || s.getGroup() == SRegGroup::Bid) &&
        t.launch != k.launch)
      return fail("a thread of one kernel's launch in the other's code (the "
                  "kernels have launches of their own)");
    switch (s.getGroup()) {
    case SRegGroup::Tid:
      return t.tid[axis];
    case SRegGroup::Bid:
      return t.bid[axis];
    case SRegGroup::BDim:
      return bdimOf(k.launch)[axis];
    case SRegGroup::GDim:
      return gdimOf(k.launch)[axis];
    }
    llvm_unreachable("special register group");
  }
  if (auto sum = dyn_cast<SumOp>(op)) {
    // An inner sum's value depends on the outer iteration, which a fresh
    // value per sum cannot express.
    if (!sumVars.empty())
      return fail("a sum (kv.sum) inside the loop of another sum");
    return sumValue(k, sum, t);
  }
  if (auto c = dyn_cast<CarryOp>(op))
    return carryValue(k, c, t);
  if (auto f = dyn_cast<FoldOp>(op))
    return foldValue(k, f, t);
  if (auto l = dyn_cast<LastOp>(op))
    return lastValue(k, l, t);
  if (auto r = dyn_cast<ReadOp>(op))
    return encodeRead(k, r, t);
  if (auto sh = dyn_cast<ShuffleOp>(op))
    return shuffleValue(k, sh, t);
  if (auto ballot = dyn_cast<BallotOp>(op))
    return ballotValue(k, ballot, t);
  if (isa<LaneOp>(op))
    return linearId(t) & ctx.bv_val(31, t.tid[0].get_sort().bv_size());
  if (auto a = dyn_cast<ApplyOp>(op))
    return encodeApply(k, a, t);
  if (auto nw = dyn_cast<NoWrapOp>(op))
    return encodeNoWrap(k, nw, t);
  if (auto sel = dyn_cast<arith::SelectOp>(op))
    return z3::ite(val(0), val(1), val(2));
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return encodeCmp(k, cmp, t);
  // zext(a + b) is zext(a) + zext(b) when a + b cannot wrap: a thread's
  // index written as `t + 32` in 32 bits by one kernel and in 64 bits by
  // the other (-O2 widens it) becomes one term.
  if (auto ext = dyn_cast<arith::ExtUIOp>(op))
    if (auto add = ext.getIn().getDefiningOp<arith::AddIOp>()) {
      unsigned w = add.getType().getIntOrFloatBitWidth();
      std::optional<uint64_t> l = maxUnsigned(add.getLhs()),
                              r = maxUnsigned(add.getRhs());
      if (!isBool && w >= 32 && w < 64 && modelWidth(w, bits) == w && l && r &&
          *l + *r < (uint64_t(1) << w)) {
        unsigned to = widthOf(rt);
        return resize(value(k, add.getLhs(), t), to, false) +
               resize(value(k, add.getRhs(), t), to, false);
      }
    }
  if (isa<arith::ExtUIOp, arith::ExtSIOp, arith::TruncIOp>(op)) {
    z3::expr e = val(0);
    if (isBool) // trunc to i1
      return e.is_bool() ? e : e.extract(0, 0) == ctx.bv_val(1, 1);
    return resize(e, widthOf(rt), isa<arith::ExtSIOp>(op));
  }
  if (isBool && isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op)) {
    z3::expr l = val(0), r = val(1);
    if (isa<arith::AndIOp>(op))
      return l && r;
    if (isa<arith::OrIOp>(op))
      return l || r;
    return l != r;
  }
  if (op->getNumOperands() == 2 && rt && !isBool)
    return encodeBinary(k, op, t);
  return fail("operation '" + op->getName().getStringRef().str() + "'");
}

z3::expr Encoder::encodeRead(KernelModel &k, ReadOp r, const Thread &t) {
  Operation *op = r;
  unsigned arg = cast<BlockArgument>(r.getArray()).getArgNumber();
  int interval = (int)k.intervalOf.lookup(op) - 1;
  z3::expr idx = toIndex(value(k, r.getIndex(), t));
  if (!sumVars.empty()) {
    // Inside a sum's body only what every iteration sees alike can be
    // read: an array before the kernel writes it (no fresh writers,
    // whose constraints would not range over the iterations).
    for (auto &[i, ws] : k.writes[arg])
      if ((int)i <= interval && !ws.empty())
        return unsupportedOp(op, "a sum (kv.sum) of values read from an "
                                 "array the kernel has written");
    if (!isShared(k, arg))
      return z3::select(*params[arg], idx);
    return arrayValue(k, arg, -1, idx, t, t.depth);
  }
  if (readHook)
    return readHook(k, arg, interval, idx, t);
  // A symbolic thread reading a cell that many barrier intervals rewrite
  // (a scan's), in a block of fixed shape: one case per thread of the
  // block, each read exact through blockWriters.
  if (isShared(k, arg) && k.writes[arg].size() >= 3 &&
      !idx.simplify().is_numeral())
    if (std::optional<z3::expr> v = perThreadValue(k, r, t))
      return *v;
  return arrayValue(k, arg, interval, idx, t, t.depth, nullptr,
                    accessGuard(k, op, t));
}

z3::expr Encoder::encodeNoWrap(KernelModel &k, NoWrapOp nw, const Thread &t) {
  auto val = [&](unsigned i) { return value(k, nw->getOperand(i), t); };
  z3::expr l = val(0), r = val(1);
  // Only exact at the operation's own width.
  if (widthOf(nw.getLhs().getType()) !=
      nw.getLhs().getType().getIntOrFloatBitWidth())
    return ctx.bool_val(true);
  Z3_context c = ctx;
  auto mk = [&](Z3_ast a) { return z3::expr(ctx, a); };
  if (nw.getKind() == NoWrapKind::add)
    return mk(Z3_mk_bvadd_no_overflow(c, l, r, true)) &&
           mk(Z3_mk_bvadd_no_underflow(c, l, r));
  if (nw.getKind() == NoWrapKind::sub)
    return mk(Z3_mk_bvsub_no_overflow(c, l, r)) &&
           mk(Z3_mk_bvsub_no_underflow(c, l, r, true));
  // A precise overflow check of a product costs a double-width
  // multiplier per thread: with abstracted products it starts as an
  // uninterpreted predicate and is made precise where a model needs it.
  if (abstractNonlinear && !mentionsSumVar(l) && !mentionsSumVar(r))
    return nowrapMulApp(l, r);
  return signedMulFits(l, r);
}

z3::expr Encoder::encodeCmp(KernelModel &k, arith::CmpIOp cmp,
                            const Thread &t) {
  auto val = [&](unsigned i) { return value(k, cmp->getOperand(i), t); };
  z3::expr l = val(0), r = val(1);
  using P = arith::CmpIPredicate;
  if (l.is_bool()) {
    if (cmp.getPredicate() == P::eq)
      return l == r;
    if (cmp.getPredicate() == P::ne)
      return l != r;
    l = boolToBv(l);
    r = boolToBv(r);
  }
  // An id against a constant it cannot reach (a thread's own write
  // forwarded to a read of a cell outside the block's ids): decided here, as
  // the solver would from the launch, so that the read is the other
  // kernel's term. Values matter only for threads within the launch.
  auto beyond = [&](z3::expr id, const z3::expr &c) {
    // An id below its bound (at most 2^31) extends to the same number.
    while (id.is_app() && (id.decl().decl_kind() == Z3_OP_SIGN_EXT ||
                           id.decl().decl_kind() == Z3_OP_ZERO_EXT))
      id = id.arg(0);
    if (!c.is_numeral() || !id.is_const() || c.get_sort().bv_size() > 64)
      return false;
    for (int i = 0; i < 3; ++i)
      for (const auto &[x, bound] : {std::pair{t.tid[i], bdimOf(t.launch)[i]},
                                     std::pair{t.bid[i], gdimOf(t.launch)[i]}})
        if (z3::eq(id, x) && bound.is_numeral() &&
            c.get_numeral_uint64() >= bound.get_numeral_uint64())
          return true;
    return false;
  };
  if ((cmp.getPredicate() == P::eq || cmp.getPredicate() == P::ne) &&
      (beyond(l, r) || beyond(r, l)))
    return ctx.bool_val(cmp.getPredicate() == P::ne);
  switch (cmp.getPredicate()) {
  case P::eq:
    return l == r;
  case P::ne:
    return l != r;
  case P::slt:
    return l < r;
  case P::sle:
    return l <= r;
  case P::sgt:
    return l > r;
  case P::sge:
    return l >= r;
  case P::ult:
    return z3::ult(l, r);
  case P::ule:
    return z3::ule(l, r);
  case P::ugt:
    return z3::ugt(l, r);
  case P::uge:
    return z3::uge(l, r);
  }
  // Not reached for a valid predicate (as before, an unknown one is an
  // unsupported operation).
  return unsupportedOp(cmp, "operation '" +
                                cmp->getName().getStringRef().str() + "'");
}

z3::expr Encoder::encodeBinary(KernelModel &k, Operation *op, const Thread &t) {
  auto val = [&](unsigned i) { return value(k, op->getOperand(i), t); };
  z3::expr l = val(0), r = val(1);
  if (abstractNonlinear &&
      isa<arith::MulIOp, arith::DivUIOp, arith::DivSIOp, arith::RemUIOp,
          arith::RemSIOp>(op) &&
      !l.simplify().is_numeral() && !r.simplify().is_numeral() &&
      !mentionsSumVar(l) && !mentionsSumVar(r))
    return abstractArith(op, l, r);
  return llvm::TypeSwitch<Operation *, z3::expr>(op)
      .Case([&](arith::AddIOp) { return l + r; })
      .Case([&](arith::SubIOp) { return l - r; })
      .Case([&](arith::MulIOp) {
        return proofOnly ? mulTerm(l, r) : exactProduct(l, r);
      })
      .Case([&](arith::DivUIOp) { return z3::udiv(l, r); })
      .Case([&](arith::DivSIOp) { return l / r; })
      .Case([&](arith::RemUIOp) { return z3::urem(l, r); })
      .Case([&](arith::RemSIOp) { return z3::srem(l, r); })
      .Case([&](arith::AndIOp) { return l & r; })
      .Case([&](arith::OrIOp) { return l | r; })
      .Case([&](arith::XOrIOp) { return l ^ r; })
      .Case([&](arith::ShLIOp) { return z3::shl(l, r); })
      .Case([&](arith::ShRUIOp) { return z3::lshr(l, r); })
      .Case([&](arith::ShRSIOp) { return z3::ashr(l, r); })
      .Case([&](arith::MaxSIOp) { return z3::ite(l > r, l, r); })
      .Case([&](arith::MinSIOp) { return z3::ite(l < r, l, r); })
      .Case([&](arith::MaxUIOp) { return z3::ite(z3::ugt(l, r), l, r); })
      .Case([&](arith::MinUIOp) { return z3::ite(z3::ult(l, r), l, r); })
      .Default([&](Operation *o) {
        return unsupportedOp(op, "operation '" +
                                     o->getName().getStringRef().str() + "'");
      });
}

z3::func_decl Encoder::uf(const std::string &name, const z3::sort_vector &dom,
                          unsigned width) {
  // One declaration per name, domain and range: the same operation at
  // another width is another function.
  std::string key = name + "/" + std::to_string(dom.size());
  for (unsigned i = 0; i < dom.size(); ++i)
    key += "." + (dom[i].is_bv() ? std::to_string(dom[i].bv_size())
                                 : dom[i].to_string());
  auto it = ufs.find({key, width});
  if (it == ufs.end())
    it = ufs.emplace(std::make_pair(key, width),
                     ctx.function((key + "." + std::to_string(width)).c_str(),
                                  dom, ctx.bv_sort(width)))
             .first;
  return it->second;
}

z3::expr Encoder::iterVar(IterOp it, const Thread &t) {
  auto f = t.iters.find(it);
  if (f != t.iters.end())
    return f->second;
  z3::expr k = ctx.bv_const(
      ("t" + std::to_string(t.id) + ".k" + std::to_string(fresh++)).c_str(),
      64);
  // An uncounted loop may run any number of iterations where it wraps
  // around; live() bounds the others.
  if (!it.getUncounted()) {
    side.push_back(z3::ult(k, ctx.bv_val(uint64_t(1) << 31, 64)));
    loopFacts.push_back(side.back());
  }
  t.iters.emplace(it, k);
  return k;
}

bool mayLeaveUncounted(KernelModel &km, IterOp it) {
  // An unsigned variable may wrap around; the model's 64-bit one is the
  // program's only where the program's is 64 bits too (size_t).
  bool wrapsAsModelled =
      it.isSigned() || (it.getWidth() && *it.getWidth() == 64);
  if (!wrapsAsModelled || it.getFromNe() || hasBreaks(it))
    return false;
  for (Operation *u : it.getResult().getUsers())
    if (isa<SumOp, CarryOp>(u))
      return false;
  for (Operation &o : km.op.getBlock())
    if (isa<ProveOp>(o) && llvm::is_contained(km.itersOf(&o), it))
      return false;
  return true;
}

z3::expr Encoder::uncountable(KernelModel &km, IterOp it, const Thread &t,
                              bool eitherForm) {
  bool sgn = it.isSigned();
  // 128 bits: exact for operands extended from 64.
  auto v = [&](Value x) {
    z3::expr e = value(km, x, t);
    return sgn ? z3::sext(e, 64) : z3::zext(e, 64);
  };
  z3::expr lb = v(it.getLb()), step = v(it.getStep()), bound = v(it.getBound());
  auto pred = [&](const z3::expr &x) {
    return it.isStrict() ? (sgn ? x < bound : z3::ult(x, bound))
                         : (sgn ? x <= bound : z3::ule(x, bound));
  };
  z3::expr zero = ctx.bv_val(0, 128);
  z3::expr bad =
      step <= zero || pred(lb + ctx.bv_val(uint64_t(1) << 31, 128) * step);
  // The model's variable, lb + k * step in 64 bits, is exact for every
  // iteration k < 2^31: always so for a variable of at most 32 bits, a
  // condition for a wider one (MLIR's index, C's size_t).
  if (!it.getWidth() || *it.getWidth() > 32)
    bad = bad || lb + ctx.bv_val((uint64_t(1) << 31) - 1, 128) * step >
                     ctx.bv_val(sgn ? uint64_t(INT64_MAX) : UINT64_MAX, 128);
  // The first value tested: iteration 1's for a do-while.
  std::vector<z3::expr> firsts;
  if (eitherForm || !it.getDoWhile())
    firsts.push_back(lb);
  if (eitherForm || it.getDoWhile())
    firsts.push_back(lb + step);
  for (const z3::expr &first : firsts) {
    if (it.getFromNe())
      // The source tests x != bound: the first value tested is at most
      // bound, which the steps reach exactly.
      bad = bad || first > bound || z3::urem(bound - first, step) != zero;
    if (auto w = it.getWidth()) {
      // The first value past the bound still fits in the variable, and so
      // does the first value tested: the model's 64-bit test is then the
      // program's w-bit one.
      uint64_t bitsW = *w;
      llvm::APInt max = sgn ? llvm::APInt::getSignedMaxValue(bitsW)
                            : llvm::APInt::getMaxValue(bitsW);
      z3::expr min = sgn ? -ctx.bv_val(uint64_t(1) << (bitsW - 1), 128) : zero;
      z3::expr past =
          bound + step - (it.isStrict() ? ctx.bv_val(1, 128) : zero);
      z3::expr top = ctx.bv_val(max.getZExtValue(), 128);
      bad = bad || past > top || first < min || first > top;
    }
  }
  return bad;
}

z3::expr Encoder::live(KernelModel &k, IterOp it, const Thread &t) {
  z3::expr own = liveOwn(k, it, t);
  // An alignment proof is about one iteration from any state: the facts
  // about where the real runs stop do not apply to it.
  if (!hasBreaks(it) || inBreakAlignment)
    return own;
  // A loop with breaks runs iterations 0 .. T-1 (Breaks.cpp).
  z3::expr trips = breakTrips(k, it, t);
  noEarlierBreak(k, it, t, trips);
  return own && z3::ult(iterVar(it, t), trips);
}

z3::expr Encoder::liveOwn(KernelModel &k, IterOp it, const Thread &t) {
  z3::expr kv = iterVar(it, t);
  z3::expr x = value(k, it.getLb(), t) + mulTerm(kv, value(k, it.getStep(), t));
  z3::expr bound = value(k, it.getBound(), t);
  z3::expr c = x < bound;
  switch (it.getPred()) {
  case IterPred::slt:
    break;
  case IterPred::sle:
    c = x <= bound;
    break;
  case IterPred::ult:
    c = z3::ult(x, bound);
    break;
  case IterPred::ule:
    c = z3::ule(x, bound);
    break;
  }
  if (it.getDoWhile())
    c = c || kv == ctx.bv_val(0, 64);
  // Iterations are numbered from 0: a fresh iteration variable has this as
  // a side condition (so it gets no second one here), but an iteration
  // solved from a write's index (the writer of a cell, k = cell - 4) is a
  // term that may be "negative" (a huge unsigned number) and must not count
  // as an iteration that runs.
  if (!kv.is_const())
    c = c && z3::ult(kv, ctx.bv_val(uint64_t(1) << 31, 64));
  if (it.getUncounted()) {
    // Where the model does not count the loop, its iterations from 1 on
    // are a predicate of the bounds, which loops with equal bounds share;
    // iteration 0 of a loop tested at the top runs when its first value,
    // in the variable's own width, passes the test.
    z3::expr lb = value(k, it.getLb(), t), step = value(k, it.getStep(), t);
    unsigned w = it.getWidth() ? unsigned(*it.getWidth()) : 64;
    bool sgn = it.isSigned();
    z3::expr first = lb;
    if (w < 64)
      first = sgn ? z3::sext(lb.extract(w - 1, 0), 64 - w)
                  : z3::zext(lb.extract(w - 1, 0), 64 - w);
    z3::expr firstRuns = it.isStrict()
                             ? (sgn ? first < bound : z3::ult(first, bound))
                             : (sgn ? first <= bound : z3::ule(first, bound));
    z3::sort b64 = ctx.bv_sort(64);
    z3::func_decl later =
        ctx.function(("iter.runs." + std::string(sgn ? "s" : "u") +
                      (it.isStrict() ? "lt." : "le.") + std::to_string(w))
                         .c_str(),
                     b64, b64, b64, b64, ctx.bool_sort());
    // (Any count a real run reaches, not the huge numbers an iteration
    // solved from an index below the loop's first one becomes.)
    z3::expr runs = (it.getDoWhile() ? ctx.bool_val(true) : firstRuns) &&
                    z3::ult(kv, ctx.bv_val(uint64_t(1) << 62, 64)) &&
                    (kv == ctx.bv_val(0, 64) || later(lb, step, bound, kv));
    c = z3::ite(uncountable(k, it, t, /*eitherForm=*/true), runs,
                z3::ult(kv, ctx.bv_val(uint64_t(1) << 31, 64)) && c);
  }
  z3::expr g = value(k, it.getGuard(), t);
  return (g.is_bool() ? g : bvToBool(g)) && c;
}

z3::expr Encoder::liveAll(KernelModel &k, Operation *op, const Thread &t) {
  z3::expr r = ctx.bool_val(true);
  for (Operation *it : k.itersOf(op))
    r = r && live(k, cast<IterOp>(it), t);
  return r;
}

z3::expr Encoder::accessGuard(KernelModel &k, Operation *access,
                              const Thread &t) {
  Value g = isa<ReadOp>(access) ? cast<ReadOp>(access).getGuard()
                                : cast<WriteOp>(access).getGuard();
  z3::expr e = value(k, g, t);
  if (!e.is_bool())
    e = bvToBool(e);
  return e && liveAll(k, access, t);
}

z3::expr Encoder::sameInstance(const Thread &a, const Thread &b,
                               const std::vector<Operation *> &loops) {
  // The race check asks this of every pair of accesses: through many
  // barrier intervals, seconds of pairs; the kernel's budget applies.
  checkDeadline();
  z3::expr same = sameBlock(a, b);
  for (int i = 0; i < 3; ++i)
    same = same && a.tid[i] == b.tid[i];
  for (Operation *it : loops)
    same = same && iterVar(cast<IterOp>(it), a) == iterVar(cast<IterOp>(it), b);
  return same;
}

std::vector<Operation *> Encoder::writeLoops(KernelModel &k, unsigned arg,
                                             unsigned interval) {
  std::vector<Operation *> loops;
  for (WriteOp w : k.writes[arg][interval])
    for (Operation *it : k.itersOf(w))
      if (llvm::find(loops, it) == loops.end())
        loops.push_back(it);
  return loops;
}

bool reaches(Value v, llvm::function_ref<bool(Operation *)> isTarget) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    Operation *d = x.getDefiningOp();
    if (!d)
      continue;
    // A read's value may depend on anything.
    if (isTarget(d) || isa<ReadOp>(d))
      return true;
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return false;
}

Value underExtensions(Value v, llvm::SmallVectorImpl<Value> *wider) {
  while (Operation *d = v.getDefiningOp()) {
    if (!isa<arith::ExtSIOp, arith::ExtUIOp>(d))
      break;
    if (wider)
      wider->push_back(v);
    v = d->getOperand(0);
  }
  return v;
}

bool Encoder::dependsOn(Value v, std::optional<SReg> sreg) {
  return reaches(v, [&](Operation *op) {
    auto s = dyn_cast<SRegOp>(op);
    return sreg && s && s.getName() == *sreg;
  });
}

} // namespace kv
