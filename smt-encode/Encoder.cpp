//===- Encoder.cpp - kv kernels to Z3, one parameterized thread -----------===//
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <chrono>
#include <map>
#include <mutex>
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
    : op(k), label(std::move(label)) {
  unsigned interval = 0;
  for (Operation &o : k.getBlock()) {
    intervalOf[&o] = interval;
    if (isa<BarrierOp>(o))
      ++interval;
    else if (auto w = dyn_cast<WriteOp>(o))
      writes[cast<BlockArgument>(w.getArray()).getArgNumber()][interval]
          .push_back(w);
    else if (auto a = dyn_cast<AssumeOp>(o))
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
    llvm::sort(deps);
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    if (!deps.empty())
      iterDeps[&o] = std::move(deps);
  }
  numIntervals = interval + 1;
}

Encoder::Encoder(z3::context &ctx, unsigned bits, KernelOp paramSource)
    : ctx(ctx), bits(bits), side(ctx), loopFacts(ctx),
      facts(ctx.bool_val(true)) {
  unsigned w = modelWidth(32, bits);
  for (int i = 0; i < 3; ++i) {
    bdim.push_back(ctx.bv_const((std::string("blockDim.") + axes[i]).c_str(), w));
    gdim.push_back(ctx.bv_const((std::string("gridDim.") + axes[i]).c_str(), w));
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
}

unsigned Encoder::widthOf(Type t) {
  return modelWidth(t.getIntOrFloatBitWidth(), bits);
}

Thread &Encoder::makeThread(std::vector<z3::expr> tid,
                            std::vector<z3::expr> bid, unsigned depth) {
  // Ids key the memo tables: a shadow thread's never collide.
  if (shadow) {
    shadowThreads.push_back(Thread{(1u << 24) + (unsigned)shadowThreads.size(),
                                   std::move(tid), std::move(bid), depth});
    return shadowThreads.back();
  }
  threads.push_back(Thread{(unsigned)threads.size(), std::move(tid),
                           std::move(bid), depth});
  return threads.back();
}

Thread &Encoder::freshThread(const Thread *blockOf, unsigned depth) {
  unsigned w = modelWidth(32, bits);
  unsigned n = fresh++;
  std::vector<z3::expr> tid, bid;
  for (int i = 0; i < 3; ++i) {
    tid.push_back(ctx.bv_const(
        ("t" + std::to_string(n) + ".tid." + axes[i]).c_str(), w));
    bid.push_back(blockOf ? blockOf->bid[i]
                          : ctx.bv_const(("t" + std::to_string(n) + ".bid." +
                                          axes[i])
                                             .c_str(),
                                         w));
  }
  Thread &t = makeThread(tid, bid, depth);
  side.push_back(inRange(t));
  return t;
}

z3::expr Encoder::inRange(const Thread &t) {
  z3::expr c = ctx.bool_val(true);
  for (int i = 0; i < 3; ++i)
    c = c && z3::ult(t.tid[i], bdim[i]) && z3::ult(t.bid[i], gdim[i]);
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
  auto bv = [&](const z3::expr &e) { return e.is_bool() ? boolToBv(e) : e; };
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
    llvm::StringRef n = s.getName();
    unsigned axis = n.back() - 'x';
    if (n.starts_with("tid"))
      return t.tid[axis];
    if (n.starts_with("bid"))
      return t.bid[axis];
    if (n.starts_with("bdim"))
      return bdim[axis];
    return gdim[axis];
  }
  if (auto sum = dyn_cast<SumOp>(op)) {
    // An inner sum's value depends on the outer iteration, which a fresh
    // value per sum cannot express.
    if (!sumVars.empty())
      return fail("a sum (kv.sum) inside the loop of another sum");
    return sumValue(k, sum, t);
  }
  if (auto r = dyn_cast<ReadOp>(op))
    return encodeRead(k, r, t);
  if (auto a = dyn_cast<ApplyOp>(op)) {
    z3::sort_vector dom(ctx);
    z3::expr_vector args(ctx);
    for (Value o : a.getOperands()) {
      z3::expr e = bv(value(k, o, t));
      dom.push_back(e.get_sort());
      args.push_back(e);
    }
    unsigned w = std::max(1u, widthOf(rt));
    z3::expr r = uf("uf." + a.getFn().str(), dom, w)(args);
    return isBool ? bvToBool(r) : r;
  }
  if (auto nw = dyn_cast<NoWrapOp>(op))
    return encodeNoWrap(k, nw, t);
  if (auto sel = dyn_cast<arith::SelectOp>(op))
    return z3::ite(val(0), val(1), val(2));
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    return encodeCmp(k, cmp, t);
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

z3::expr Encoder::encodeNoWrap(KernelModel &k, NoWrapOp nw,
                               const Thread &t) {
  auto val = [&](unsigned i) { return value(k, nw->getOperand(i), t); };
  z3::expr l = val(0), r = val(1);
  // Only exact at the operation's own width.
  if (widthOf(nw.getLhs().getType()) !=
      nw.getLhs().getType().getIntOrFloatBitWidth())
    return ctx.bool_val(true);
  Z3_context c = ctx;
  auto mk = [&](Z3_ast a) { return z3::expr(ctx, a); };
  if (nw.getKind() == "add")
    return mk(Z3_mk_bvadd_no_overflow(c, l, r, true)) &&
           mk(Z3_mk_bvadd_no_underflow(c, l, r));
  if (nw.getKind() == "sub")
    return mk(Z3_mk_bvsub_no_overflow(c, l, r)) &&
           mk(Z3_mk_bvsub_no_underflow(c, l, r, true));
  // A precise overflow check of a product costs a double-width
  // multiplier per thread: with abstracted products it starts as an
  // uninterpreted predicate and is made precise where a model needs it.
  if (abstractNonlinear && !mentionsSumVar(l) && !mentionsSumVar(r))
    return nowrapMulApp(l, r);
  return mk(Z3_mk_bvmul_no_overflow(c, l, r, true)) &&
         mk(Z3_mk_bvmul_no_underflow(c, l, r));
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
  switch (cmp.getPredicate()) {
  case P::eq: return l == r;
  case P::ne: return l != r;
  case P::slt: return l < r;
  case P::sle: return l <= r;
  case P::sgt: return l > r;
  case P::sge: return l >= r;
  case P::ult: return z3::ult(l, r);
  case P::ule: return z3::ule(l, r);
  case P::ugt: return z3::ugt(l, r);
  case P::uge: return z3::uge(l, r);
  }
  // Not reached for a valid predicate (as before, an unknown one is an
  // unsupported operation).
  return unsupportedOp(cmp, "operation '" +
                                cmp->getName().getStringRef().str() + "'");
}

z3::expr Encoder::encodeBinary(KernelModel &k, Operation *op,
                               const Thread &t) {
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

z3::expr Encoder::hitAny(KernelModel &k, unsigned arg, unsigned interval,
                         const z3::expr &index, const Thread &t) {
  z3::expr hit = ctx.bool_val(false);
  for (WriteOp w : k.writes[arg][interval])
    hit = hit || (accessGuard(k, w, t) &&
                  toIndex(value(k, w.getIndex(), t)) == index);
  return hit;
}

z3::expr Encoder::arrayValue(KernelModel &k, unsigned arg, int interval,
                             const z3::expr &index, const Thread &reader,
                             unsigned depth, const Thread *writer,
                             std::optional<z3::expr> guardOpt) {
  checkDeadline();
  z3::expr readGuard = guardOpt ? *guardOpt : ctx.bool_val(true);
  if (interval < 0) {
    if (!isShared(k, arg)) {
      initialReads.push_back({arg, index, inRange(reader) && readGuard});
      return z3::select(*params[arg], index);
    }
    // Uninitialized shared memory: indeterminate, per block. The two
    // kernels see the same content in a shared array of the same name, so
    // that an unchanged read of garbage (as -O2 keeps it) is no mismatch.
    Type et = getArrayElementType(k.op.getBlock().getArgument(arg).getType());
    std::string key = "shared." + k.op.getArgName(arg).str() + "@init";
    z3::sort s = ctx.bv_sort(modelWidth(32, bits));
    z3::sort_vector dom(ctx);
    z3::expr_vector args(ctx);
    for (int i = 0; i < 3; ++i) {
      dom.push_back(s);
      args.push_back(reader.bid[i]);
    }
    dom.push_back(ctx.bv_sort(indexBits));
    args.push_back(index);
    return uf(key, dom, widthOf(et))(args);
  }
  auto &ws = k.writes[arg][interval];
  if (ws.empty())
    return arrayValue(k, arg, interval - 1, index, reader, depth, writer,
                      readGuard);
  bool shared = isShared(k, arg);
  if (shared && !writer)
    if (const std::vector<Tid> *tids =
            blockWriters(k, arg, (unsigned)interval, index, reader)) {
      // Exact: the only threads that can write the cell, last one first.
      std::vector<Thread *> hits;
      bool always = false;
      for (const Tid &c : *tids) {
        Thread &t = blockThread(reader, c, depth + 1);
        z3::expr h = hitAny(k, arg, interval, index, t).simplify();
        if (h.is_false())
          continue;
        hits.push_back(&t);
        if ((always = h.is_true()))
          break;
      }
      if (getenv("KV_DEBUG"))
        llvm::errs() << k.label << " read of arg " << arg << " interval "
                     << interval << " by t" << reader.id << ": "
                     << hits.size() << " writers of the block"
                     << (always ? ", one always" : "") << "\n";
      z3::expr chain =
          always ? value(k, ws.back().getValue(), *hits.back())
                 : arrayValue(k, arg, interval - 1, index, reader, depth,
                              nullptr, readGuard);
      for (auto it = hits.rbegin(); it != hits.rend(); ++it)
        chain = writeChain(k, arg, interval, index, **it, chain);
      return chain;
    }
  // Candidates that can write the cell, and whether one always does.
  std::vector<std::pair<Thread *, z3::expr>> live;
  bool covered = false;
  if (depth < maxCandidateDepth) {
    z3::expr when = facts && inRange(reader) && threadFacts(reader) &&
                    globalIndexFacts(reader) && readGuard;
    for (const Thread *a : anchors)
      when = when && inRange(*a) && threadFacts(*a) && globalIndexFacts(*a);
    for (Thread *t :
         candidates(k, arg, (unsigned)interval, index, reader, writer, depth)) {
      z3::expr valid = inRange(*t) && hitAny(k, arg, interval, index, *t);
      if (!proveUnsat(when && valid && threadFacts(*t), "candidate"))
        live.push_back({t, valid});
    }
    if (!writer && !live.empty()) {
      z3::expr none = ctx.bool_val(true);
      for (auto &[t, valid] : live)
        none = none && !valid;
      z3::expr tf = ctx.bool_val(true);
      for (auto &[t, valid] : live)
        tf = tf && threadFacts(*t);
      covered = proveUnsat(when && none && tf, "covered");
    }
  }
  if (getenv("KV_DEBUG"))
    llvm::errs() << k.label << " read of arg " << arg << " interval "
                 << interval << " by t" << reader.id << " depth " << depth
                 << ": " << live.size() << " live candidates (index " << index.simplify().to_string().substr(0, 60) << "), "
                 << (covered ? "covered" : "not covered") << "\n";
  if (covered) {
    // Under race freedom the candidate that writes is the writer; one of
    // them always does when the read happens, so the cell's older content
    // is never seen: its chain back through earlier intervals (a tree
    // reduction's, one per level) is not built. Where the read does not
    // happen its value is unused (uses are guarded like the read).
    Thread &last = *live.back().first;
    z3::expr unseen = value(k, ws.back().getValue(), last);
    z3::expr chain = writeChain(k, arg, interval, index, last, unseen);
    for (auto it = live.rbegin() + 1; it != live.rend(); ++it)
      chain = z3::ite(it->second,
                      writeChain(k, arg, interval, index, *it->first, unseen),
                      chain);
    return chain;
  }
  z3::expr prev = arrayValue(k, arg, interval - 1, index, reader, depth,
                             nullptr, readGuard);
  const Thread &w =
      writer ? *writer : freshThread(shared ? &reader : nullptr, depth);
  z3::expr anyHit = hitAny(k, arg, interval, index, w);
  z3::expr chain = writeChain(k, arg, interval, index, w, prev);
  obligations.push_back(Obligation{&k, arg, (unsigned)interval, index, &reader,
                                   &w, anyHit, depth});
  for (auto it = live.rbegin(); it != live.rend(); ++it) {
    Thread &t = *it->first;
    z3::expr valid = it->second;
    // An instance of "if w wrote nothing here, nobody did", and of race
    // freedom: a cell has one writer per interval.
    side.push_back(anyHit || !valid);
    side.push_back(!anyHit || !valid ||
                   sameInstance(t, w, writeLoops(k, arg, (unsigned)interval)));
    chain = z3::ite(valid, writeChain(k, arg, interval, index, t, prev), chain);
  }
  return chain;
}

const std::vector<Encoder::Tid> *
Encoder::blockWriters(KernelModel &k, unsigned arg, unsigned interval,
                      const z3::expr &index, const Thread &reader) {
  uint64_t dims[3];
  for (int i = 0; i < 3; ++i) {
    if (!bdim[i].is_numeral())
      return nullptr;
    dims[i] = bdim[i].get_numeral_uint64();
  }
  if (dims[0] * dims[1] * dims[2] > 1024)
    return nullptr;
  z3::expr idx = index.simplify();
  if (!idx.is_numeral())
    return nullptr;
  auto key = std::make_tuple(&k, arg, interval);
  auto it = writerTables.find(key);
  if (it == writerTables.end()) {
    // Index -> writers, from each thread's writes with its ids as
    // numerals. A guard false for a symbolic block is false for every
    // block, so one table serves all blocks.
    std::optional<std::map<uint64_t, std::vector<Tid>>> table;
    bool ok = true;
    for (WriteOp w : k.writes[arg][interval])
      ok &= !dependsOn(w.getGuard(), "") && !dependsOn(w.getIndex(), "") &&
            k.itersOf(w).empty();
    if (ok) {
      table.emplace();
      for (uint64_t z = 0; z < dims[2] && table; ++z)
        for (uint64_t y = 0; y < dims[1] && table; ++y)
          for (uint64_t x = 0; x < dims[0] && table; ++x) {
            Tid c{x, y, z};
            Thread &t = blockThread(reader, c, maxCandidateDepth + 1);
            for (WriteOp w : k.writes[arg][interval]) {
              if (value(k, w.getGuard(), t).simplify().is_false())
                continue;
              z3::expr i = toIndex(value(k, w.getIndex(), t)).simplify();
              if (!i.is_numeral()) {
                table.reset();
                break;
              }
              std::vector<Tid> &v = (*table)[i.get_numeral_uint64()];
              if (v.empty() || v.back() != c)
                v.push_back(c);
            }
          }
    }
    it = writerTables.emplace(key, std::move(table)).first;
  }
  if (!it->second)
    return nullptr;
  static const std::vector<Tid> none;
  auto e = it->second->find(idx.get_numeral_uint64());
  return e == it->second->end() ? &none : &e->second;
}

std::optional<z3::expr> Encoder::perThreadValue(KernelModel &k, ReadOp r,
                                                const Thread &t) {
  uint64_t dims[3];
  for (int i = 0; i < 3; ++i) {
    if (!bdim[i].is_numeral())
      return std::nullopt;
    dims[i] = bdim[i].get_numeral_uint64();
  }
  if (dims[0] * dims[1] * dims[2] > 1024 || !k.itersOf(r).empty())
    return std::nullopt;
  std::optional<z3::expr> v;
  for (uint64_t z = dims[2]; z-- > 0;)
    for (uint64_t y = dims[1]; y-- > 0;)
      for (uint64_t x = dims[0]; x-- > 0;) {
        Thread &c = blockThread(t, {x, y, z}, t.depth);
        z3::expr cv = value(k, r.getResult(), c);
        if (!v) {
          v = cv; // the last thread; out-of-range ids do not matter
          continue;
        }
        z3::expr is = ctx.bool_val(true);
        for (int i = 0; i < 3; ++i)
          is = is && t.tid[i] == c.tid[i];
        v = z3::ite(is, cv, *v);
      }
  perThreadCases = true;
  return v;
}

Thread &Encoder::blockThread(const Thread &blockOf, const Tid &tid,
                             unsigned depth) {
  std::array<unsigned, 6> key = {blockOf.bid[0].id(), blockOf.bid[1].id(),
                                 blockOf.bid[2].id(), (unsigned)tid[0],
                                 (unsigned)tid[1], (unsigned)tid[2]};
  Thread *&t = blockThreads[key];
  if (!t) {
    unsigned w = modelWidth(32, bits);
    t = &makeThread({ctx.bv_val(tid[0], w), ctx.bv_val(tid[1], w),
                     ctx.bv_val(tid[2], w)},
                    blockOf.bid, depth);
  }
  return *t;
}

z3::expr Encoder::writeChain(KernelModel &k, unsigned arg, unsigned interval,
                             const z3::expr &index, const Thread &t,
                             z3::expr otherwise) {
  // Later writes of the same thread win.
  for (WriteOp op : k.writes[arg][interval]) {
    z3::expr hit = accessGuard(k, op, t) &&
                   toIndex(value(k, op.getIndex(), t)) == index;
    otherwise = z3::ite(hit, value(k, op.getValue(), t), otherwise);
  }
  return otherwise;
}

std::vector<Thread *> Encoder::candidates(KernelModel &k, unsigned arg,
                                          unsigned interval,
                                          const z3::expr &index,
                                          const Thread &reader,
                                          const Thread *writer,
                                          unsigned depth) {
  bool shared = isShared(k, arg);
  std::vector<Thread *> out;
  std::set<std::string> seen;
  // The fresh writer itself is no candidate.
  auto keyOf = [](const std::vector<z3::expr> &tid,
                  const std::vector<z3::expr> &bid) {
    std::string key;
    for (auto &e : tid)
      key += e.simplify().to_string() + ",";
    for (auto &e : bid)
      key += e.simplify().to_string() + ",";
    return key;
  };
  if (writer)
    seen.insert(keyOf(writer->tid, writer->bid));
  // Writes inside loops: try iteration 0 of each loop, and the base
  // thread's own iterations (a thread that writes what it read).
  std::vector<Operation *> loops = writeLoops(k, arg, interval);
  llvm::sort(loops,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  auto add = [&](std::vector<z3::expr> tid, std::vector<z3::expr> bid,
                 const Thread *iterBase = nullptr) {
    if (shared)
      bid = reader.bid; // a shared array is written by the reader's block
    std::string key = keyOf(tid, bid);
    if (loops.empty()) {
      if (seen.insert(key).second)
        out.push_back(&makeThread(std::move(tid), std::move(bid), depth + 1));
      return;
    }
    if (seen.insert(key + "k0").second) {
      Thread &t = makeThread(tid, bid, depth + 1);
      for (Operation *it : loops)
        t.iters.emplace(it, ctx.bv_val(0, 64));
      out.push_back(&t);
    }
    if (!iterBase)
      return;
    // The base's iterations in its own loops, which may be the other
    // kernel's: loops the rewrite kept run the same iterations, matched in
    // program order (outer to inner).
    std::map<Block *, std::vector<Operation *>> byKernel;
    for (Operation *it : loops)
      iterVar(cast<IterOp>(it), *iterBase);
    for (auto &[op, kv] : iterBase->iters)
      byKernel[op->getBlock()].push_back(op);
    for (auto &[blk, ops] : byKernel) {
      if (ops.size() != loops.size())
        continue;
      llvm::sort(ops, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      std::string variant = key + "k";
      for (Operation *op : ops)
        variant += std::to_string(iterBase->iters.at(op).id()) + ",";
      if (!seen.insert(variant).second)
        continue;
      Thread &t = makeThread(tid, bid, depth + 1);
      for (size_t i = 0; i < loops.size(); ++i)
        t.iters.emplace(loops[i], iterBase->iters.at(ops[i]));
      out.push_back(&t);
    }
  };
  // A global cell read by the host (the final output) is written by one of
  // the anchors; anything else is usually written by a thread close to the
  // reader.
  std::vector<const Thread *> bases;
  if (&reader == host)
    bases = anchors;
  else
    bases = {&reader};
  for (const Thread *a : bases) {
    add(a->tid, a->bid, a);
    add({a->tid[1], a->tid[0], a->tid[2]}, a->bid);
  }
  // Solve each write's index for one coordinate of a base thread (for the
  // host: of each anchor, whose block is likely the writer's).
  for (const Thread *b : bases)
    for (WriteOp wr : k.writes[arg][interval])
      for (int c = 0; c < 3; ++c) {
        std::string coord = std::string("tid.") + axes[c];
        if (auto sol = solveFor(k, wr.getIndex(), coord, index, *b)) {
          std::vector<z3::expr> tid = b->tid;
          tid[c] = *sol;
          add(tid, b->bid);
        }
      }
  return out;
}

z3::expr Encoder::intervalState(const std::string &name, KernelModel &k,
                                unsigned arg, int interval,
                                const z3::expr &index, const Thread &t) {
  if (interval < 0)
    return arrayValue(k, arg, -1, index, t, 0);
  z3::sort_vector dom(ctx);
  z3::expr_vector args(ctx);
  if (isShared(k, arg))
    for (int i = 0; i < 3; ++i) {
      dom.push_back(t.bid[i].get_sort());
      args.push_back(t.bid[i]);
    }
  dom.push_back(ctx.bv_sort(indexBits));
  args.push_back(index);
  Type et = getArrayElementType(k.op.getBlock().getArgument(arg).getType());
  return uf(name + "." + std::to_string(arg) + "@" + std::to_string(interval),
            dom, widthOf(et))(args);
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
  side.push_back(z3::ult(k, ctx.bv_val(uint64_t(1) << 31, 64)));
  loopFacts.push_back(side.back());
  t.iters.emplace(it, k);
  return k;
}

z3::expr Encoder::live(KernelModel &k, IterOp it, const Thread &t) {
  z3::expr kv = iterVar(it, t);
  z3::expr x = value(k, it.getLb(), t) + mulTerm(kv, value(k, it.getStep(), t));
  z3::expr bound = value(k, it.getBound(), t);
  llvm::StringRef p = it.getPred();
  z3::expr c = p == "slt"   ? x < bound
               : p == "sle" ? x <= bound
               : p == "ult" ? z3::ult(x, bound)
                            : z3::ule(x, bound);
  if (it.getDoWhile())
    c = c || kv == ctx.bv_val(0, 64);
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

bool Encoder::dependsOn(Value v, llvm::StringRef sreg) {
  llvm::SmallVector<Value> work{v};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    Operation *d = x.getDefiningOp();
    if (!d)
      continue;
    if (auto s = dyn_cast<SRegOp>(d)) {
      if (!sreg.empty() && s.getName() == sreg)
        return true;
      continue;
    }
    if (isa<ReadOp>(d))
      return true; // conservatively: the value may depend on anything
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return false;
}

std::optional<z3::expr> Encoder::solveFor(KernelModel &k, Value v,
                                          llvm::StringRef coord, z3::expr rhs,
                                          const Thread &base) {
  Operation *d = v.getDefiningOp();
  if (!d)
    return std::nullopt;
  if (auto s = dyn_cast<SRegOp>(d))
    return s.getName() == coord
               ? std::optional<z3::expr>(resize(rhs, modelWidth(32, bits), false))
               : std::nullopt;
  auto other = [&](unsigned i) { return value(k, d->getOperand(i), base); };
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(d)) {
    unsigned w = widthOf(d->getOperand(0).getType());
    return solveFor(k, d->getOperand(0), coord, resize(rhs, w, false), base);
  }
  if (d->getNumOperands() != 2)
    return std::nullopt;
  bool dep0 = dependsOn(d->getOperand(0), coord);
  bool dep1 = dependsOn(d->getOperand(1), coord);
  if (dep0 == dep1)
    return std::nullopt;
  unsigned i = dep0 ? 0 : 1;
  if (isa<arith::AddIOp>(d))
    return solveFor(k, d->getOperand(i), coord, rhs - other(1 - i), base);
  if (isa<arith::SubIOp>(d))
    return solveFor(k, d->getOperand(i), coord,
                    i == 0 ? rhs + other(1) : other(0) - rhs, base);
  if (isa<arith::XOrIOp>(d))
    return solveFor(k, d->getOperand(i), coord, rhs ^ other(1 - i), base);
  if (isa<arith::MulIOp>(d)) {
    llvm::APInt c;
    if (!matchPattern(d->getOperand(1 - i), m_ConstantInt(&c)) || c.isZero())
      return std::nullopt;
    return solveFor(k, d->getOperand(i), coord, z3::udiv(rhs, other(1 - i)),
                    base);
  }
  return std::nullopt;
}

} // namespace kv
