//===- ReadChains.cpp - the value an array read sees ----------------------===//
//
// Reads of arrays: the chain of writes back through the barrier intervals
// (arrayValue, writeChain), the candidate writer threads tried before a
// fresh writer (candidates, solveFor), the exact writers of a block of fixed
// shape (blockWriters, perThreadValue), and the read hook for proofs that
// hold for any memory (intervalState).
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

#include <array>
#include <map>
#include <optional>
#include <set>

using namespace mlir;

namespace kv {

z3::expr Encoder::blockCell(const std::string &name, const Thread &blockOf,
                            const z3::expr &index, unsigned width) {
  z3::sort s = ctx.bv_sort(modelWidth(32, bits));
  z3::sort_vector dom(ctx);
  z3::expr_vector args(ctx);
  for (int i = 0; i < 3; ++i) {
    dom.push_back(s);
    args.push_back(blockOf.bid[i]);
  }
  dom.push_back(ctx.bv_sort(indexBits));
  args.push_back(index);
  return uf(name, dom, width)(args);
}

z3::expr Encoder::hits(KernelModel &k, WriteOp w, const z3::expr &index,
                       const Thread &t) {
  return accessGuard(k, w, t) && toIndex(value(k, w.getIndex(), t)) == index;
}

z3::expr Encoder::hitAny(KernelModel &k, unsigned arg, unsigned interval,
                         const z3::expr &index, const Thread &t) {
  z3::expr hit = ctx.bool_val(false);
  for (WriteOp w : k.writes[arg][interval])
    hit = hit || hits(k, w, index, t);
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
    return blockCell(key, reader, index, widthOf(et));
  }
  auto &ws = k.writes[arg][interval];
  if (ws.empty())
    return arrayValue(k, arg, interval - 1, index, reader, depth, writer,
                      readGuard);
  // A cell's value after atomic updates is a fold over all threads that
  // update it, which no single writer gives: for a shared array, the value
  // before the interval folded with the block's total (AtomicTotals.cpp).
  // Race freedom keeps plain writes off the cells updated atomically in
  // one interval; a global cell's total is the whole grid's.
  bool shared = isShared(k, arg);
  if (llvm::any_of(ws, [](WriteOp w) { return w.isAtomic(); })) {
    if (!shared || !llvm::all_of(ws, [](WriteOp w) { return w.isAtomic(); })) {
      if (unsupported.empty())
        unsupported = "the value of '" + k.op.getArgName(arg).str() +
                      "' read after atomic updates of it" +
                      (shared ? " and plain writes in one barrier interval"
                              : " (a global array's cell is updated by the "
                                "whole grid)");
      return ctx.bv_val(0, widthOf(getArrayElementType(
                               k.op.getBlock().getArgument(arg).getType())));
    }
    z3::expr prev = arrayValue(k, arg, interval - 1, index, reader, depth,
                               nullptr, readGuard);
    return blockTotal(k, arg, (unsigned)interval, index, reader, depth, prev);
  }
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
      if (debugEnabled("encoder"))
        llvm::errs() << k.label << " read of arg " << arg << " interval "
                     << interval << " by t" << reader.id << ": " << hits.size()
                     << " writers of the block"
                     << (always ? ", one always" : "") << "\n";
      z3::expr chain = always ? value(k, ws.back().getValue(), *hits.back())
                              : arrayValue(k, arg, interval - 1, index, reader,
                                           depth, nullptr, readGuard);
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
    auto tryCandidates = [&](const std::vector<Thread *> &cands) {
      for (Thread *t : cands) {
        z3::expr valid = inRange(*t) && hitAny(k, arg, interval, index, *t);
        z3::expr q = when && valid && threadFacts(*t);
        // Most candidates can write the cell: shown at a sample launch in
        // milliseconds, where the general query bit-blasts multipliers.
        if (satisfiableAtSample(q, "candidate") || !proveUnsat(q, "candidate"))
          live.push_back({t, valid});
      }
      if (writer || live.empty())
        return;
      z3::expr none = ctx.bool_val(true);
      for (auto &[t, valid] : live)
        none = none && !valid;
      z3::expr tf = ctx.bool_val(true);
      for (auto &[t, valid] : live)
        tf = tf && threadFacts(*t);
      covered = proveUnsat(when && none && tf, "covered");
      // One candidate that always writes the cell is the writer: the value
      // is its write alone, not an if-then-else over threads that each
      // carry their own copy of the computation (a dot product per
      // candidate, which the solver bit-blasts for every one of them).
      if (!covered || live.size() < 2)
        return;
      for (size_t i = 0; i < live.size(); ++i) {
        auto &[t, valid] = live[i];
        z3::expr misses = when && !valid && threadFacts(*t);
        if (satisfiableAtSample(misses, "one writer") ||
            !proveUnsat(misses, "one writer"))
          continue;
        auto one = live[i];
        live.assign(1, one);
        return;
      }
    };
    tryCandidates(
        candidates(k, arg, (unsigned)interval, index, reader, writer, depth));
    // The final output's writer where a write's index is a mixed-radix
    // number of ids and iterations: the digits of the cell (only where the
    // threads derived from the anchors do not always write it: a further
    // candidate costs every query a thread).
    if (!covered && !writer && &reader == host && radixPair[0]) {
      std::vector<Thread *> radix;
      for (WriteOp wr : k.writes[arg][interval])
        if (Thread *t = radixWriter(k, wr, index, depth))
          radix.push_back(t);
      if (!radix.empty()) {
        radixLemmas(index);
        when = when && z3::mk_and(radixFacts);
        tryCandidates(radix);
      }
    }
  }
  if (debugEnabled("encoder"))
    llvm::errs() << k.label << " read of arg " << arg << " interval "
                 << interval << " by t" << reader.id << " depth " << depth
                 << ": " << live.size() << " live candidates (index "
                 << index.simplify().to_string().substr(0, 60) << "), "
                 << (covered ? "covered" : "not covered") << "\n";
  if (covered) {
    // Under race freedom the candidate that writes is the writer; one of
    // them always does when the read happens, so the cell's older content
    // is never seen: its chain back through earlier intervals (a tree
    // reduction's, one per level) is not built. Where the read does not
    // happen its value is unused (uses are guarded like the read).
    Thread &last = *live.back().first;
    // The last write's value where it hits: where a thread writes the cell
    // in several ways that compute the same value there, the chain folds
    // to that value.
    z3::expr unseen = hitValue(k, ws.back(), index, last);
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
      writer ? *writer
             : freshThread(shared ? &reader : nullptr, depth, (int)k.launch);
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
  const std::vector<z3::expr> &bd = bdimOf(k.launch);
  for (int i = 0; i < 3; ++i) {
    if (!bd[i].is_numeral())
      return nullptr;
    dims[i] = bd[i].get_numeral_uint64();
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
      ok &= !dependsOn(w.getGuard()) && !dependsOn(w.getIndex()) &&
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
  const std::vector<z3::expr> &bd = bdimOf(k.launch);
  for (int i = 0; i < 3; ++i) {
    if (!bd[i].is_numeral())
      return std::nullopt;
    dims[i] = bd[i].get_numeral_uint64();
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
                                 (unsigned)tid[1],    (unsigned)tid[2]};
  Thread *&t = blockThreads[key];
  if (!t) {
    unsigned w = modelWidth(32, bits);
    t = &makeThread(
        {ctx.bv_val(tid[0], w), ctx.bv_val(tid[1], w), ctx.bv_val(tid[2], w)},
        blockOf.bid, depth, blockOf.launch);
  }
  return *t;
}

z3::expr Encoder::writeChain(KernelModel &k, unsigned arg, unsigned interval,
                             const z3::expr &index, const Thread &t,
                             z3::expr otherwise, bool atIndex) {
  // Later writes of the same thread win.
  for (WriteOp op : k.writes[arg][interval]) {
    otherwise = z3::ite(
        hits(k, op, index, t),
        atIndex ? hitValue(k, op, index, t)
                : underGuard(value(k, op.getValue(), t), accessGuard(k, op, t)),
        otherwise);
  }
  return otherwise;
}

/// Whether some path from \p v to an op \p isTarget accepts multiplies by
/// a constant other than 1 or shifts left: the index scales the target.
static bool scales(Value v, llvm::function_ref<bool(Operation *)> isTarget,
                   bool scaled = false, unsigned depth = 0) {
  Operation *d = v.getDefiningOp();
  if (!d || depth > 12)
    return false;
  if (isTarget(d))
    return scaled;
  bool here = false;
  if (isa<arith::MulIOp, arith::ShLIOp>(d)) {
    llvm::APInt c;
    here = llvm::any_of(d->getOperands(), [&](Value o) {
      return matchPattern(o, m_ConstantInt(&c)) && !c.isOne();
    });
  }
  return llvm::any_of(d->getOperands(), [&](Value o) {
    return scales(o, isTarget, scaled || here, depth + 1);
  });
}

/// The parts of \p v computed from axis \p c's thread or block id and
/// nothing else but loop iterations, launch dimensions and constants,
/// through sums, products and shifts, largest first: that axis's coordinate
/// in an index, and the parts of it.
static void axisCoordinates(Value v, int c, std::vector<Value> &out,
                            unsigned depth = 0) {
  // 1: an id of axis c; 2: something else than the neutral values.
  std::function<unsigned(Value, unsigned)> kinds =
      [&](Value x, unsigned dp) -> unsigned {
    Operation *d = x.getDefiningOp();
    if (!d || dp > 12)
      return 2;
    if (auto s = dyn_cast<SRegOp>(d)) {
      bool id =
          s.getGroup() == SRegGroup::Tid || s.getGroup() == SRegGroup::Bid;
      return id ? (s.getAxis() == unsigned(c) ? 1 : 2) : 0;
    }
    if (isa<IterOp, arith::ConstantOp>(d))
      return 0;
    if (!isa<arith::AddIOp, arith::MulIOp, arith::ShLIOp, arith::TruncIOp>(d))
      return 2;
    unsigned r = 0;
    for (Value o : d->getOperands())
      r |= kinds(o, dp + 1);
    return r;
  };
  Operation *d = v.getDefiningOp();
  if (!d || depth > 8)
    return;
  if (kinds(v, depth) == 1)
    out.push_back(v);
  for (Value o : d->getOperands())
    axisCoordinates(o, c, out, depth + 1);
}

std::vector<Thread *>
Encoder::candidates(KernelModel &k, unsigned arg, unsigned interval,
                    const z3::expr &index, const Thread &reader,
                    const Thread *writer, unsigned depth) {
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
        out.push_back(
            &makeThread(std::move(tid), std::move(bid), depth + 1, k.launch));
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
      Thread &t = makeThread(tid, bid, depth + 1, k.launch);
      for (size_t i = 0; i < loops.size(); ++i)
        t.iters.emplace(loops[i], iterBase->iters.at(ops[i]));
      out.push_back(&t);
    }
  };
  // A candidate made of ids and iterations solved for (`how` keys it), the
  // write's other loops at iteration 0; null where it is one already made.
  auto addMade = [&](std::vector<z3::expr> tid, std::vector<z3::expr> bid,
                     std::map<Operation *, z3::expr> iters,
                     const char *how) -> Thread * {
    std::string key = keyOf(tid, bid) + how;
    for (auto &[l, v] : iters)
      key += v.simplify().to_string() + ",";
    if (!seen.insert(key).second)
      return nullptr;
    Thread &t = makeThread(std::move(tid), std::move(bid), depth + 1, k.launch);
    t.iters = std::move(iters);
    for (Operation *it : loops)
      t.iters.emplace(it, ctx.bv_val(0, 64));
    out.push_back(&t);
    return &t;
  };
  // A global cell read by the host (the final output) is written by one of
  // the anchors; anything else is usually written by a thread close to the
  // reader.
  std::vector<const Thread *> bases;
  bool forHost = &reader == host;
  if (forHost)
    bases = anchors;
  else
    bases = {&reader};
  std::vector<const Thread *> ownBases = bases;
  // A base of the other kernel's launch: k's thread of the same
  // coordinates, whose values propose candidates (each then checked in
  // k's launch).
  for (const Thread *&b : bases)
    if (b->launch != k.launch) {
      Thread *&c = relaunched[{b->id, k.launch}];
      if (!c) {
        c = &makeThread(b->tid, b->bid, b->depth, k.launch);
        c->iters = b->iters;
      }
      b = c;
    }
  for (const Thread *a : bases) {
    add(a->tid, a->bid, a);
    add({a->tid[1], a->tid[0], a->tid[2]}, a->bid);
  }
  // Solve each write's index for one coordinate of a base thread (for the
  // host: of each anchor, whose block is likely the writer's).
  for (const Thread *b : bases)
    for (WriteOp wr : k.writes[arg][interval])
      for (int c = 0; c < 6; ++c) {
        // A thread coordinate, or a block coordinate that the index
        // scales: a coarsened kernel's final output
        // (`blockIdx.x * blockDim.x * C + threadIdx.x + c * blockDim.x`)
        // is written by another block than the other kernel's. (Inside read
        // chains, or for unscaled blocks, more candidates only multiply
        // the threads.)
        bool isBid = c >= 3;
        if (isBid && !forHost)
          break;
        SReg coord = makeSReg(isBid ? SRegGroup::Bid : SRegGroup::Tid, c % 3);
        auto isCoord = [&](Operation *op) {
          auto s = dyn_cast<SRegOp>(op);
          return s && s.getName() == coord;
        };
        if (isBid && !scales(wr.getIndex(), isCoord))
          continue;
        if (auto sol = solveFor(k, wr.getIndex(), isCoord, modelWidth(32, bits),
                                index, *b)) {
          std::vector<z3::expr> tid = b->tid, bid = b->bid;
          (isBid ? bid : tid)[c % 3] = *sol;
          add(tid, bid);
        }
      }
  // Solve each final output's write index for one axis's coordinate, the
  // part of it computed from that axis's ids and loop iterations alone (the
  // `x` of `y * w + x`; a coarsened kernel's `blockIdx.x * blockDim.x * C +
  // threadIdx.x + c * blockDim.x`), and take the coordinate apart into the
  // ids and iterations that make it: the writer may be in another block and
  // iteration than the other kernel's. Where the base's own ids give the
  // same coordinate, its candidate above is this one.
  if (forHost)
    for (const Thread *b : bases)
      for (WriteOp wr : k.writes[arg][interval])
        for (int c = 0; c < 3; ++c) {
          // The largest part whose digits are found exactly (`gid` in
          // `gid * 2 + 1`: its factor and offset are solved for).
          std::vector<Value> coords;
          axisCoordinates(wr.getIndex(), c, coords);
          Value coord;
          std::optional<z3::expr> x;
          std::optional<std::vector<std::pair<IndexMap::Digit, z3::expr>>>
              digits;
          for (Value v : coords) {
            Operation *op = v.getDefiningOp();
            auto isCoord = [&](Operation *o) { return o == op; };
            x = solveFor(k, wr.getIndex(), isCoord, widthOf(v.getType()), index,
                         *b, /*bySymbols=*/true);
            if (!x)
              continue;
            if (k.itersOf(wr).empty() &&
                z3::eq(x->simplify(), value(k, v, *b).simplify()))
              break;
            if ((digits = coordinateDigits(k, v, *x))) {
              coord = v;
              break;
            }
          }
          if (!coord)
            continue;
          std::vector<z3::expr> tid = b->tid, bid = b->bid;
          std::map<Operation *, z3::expr> iters;
          bool exact = putDigits(*digits, tid, bid, iters);
          if (shared)
            bid = reader.bid;
          Thread *t = addMade(std::move(tid), std::move(bid), std::move(iters),
                              "coord");
          // The digits make x exactly: stated so, the encoding does not
          // multiply them out again.
          if (t && exact)
            memo.emplace(std::make_pair(coord.getAsOpaquePointer(), t->id), *x);
        }
  // Across launches the other kernel's writer numbers the cell with other
  // ids (a 2-D block against one of 256 threads): k's write index matched
  // with the other kernel's operation by operation, each part of k's that
  // ids compute equated with the other's part at its writer, and each such
  // coordinate taken apart into k's ids.
  KernelModel *other = radixPair[0] == &k ? radixPair[1] : radixPair[0];
  if (forHost && other && other->launch != k.launch)
    for (size_t i = 0; i < ownBases.size(); ++i) {
      const Thread *ob = ownBases[i];
      if (ob->launch != other->launch)
        continue;
      for (auto &[oiv, ows] : other->writes[arg])
        for (WriteOp wo : ows)
          for (WriteOp wr : k.writes[arg][interval]) {
            std::vector<std::pair<Value, z3::expr>> eqs;
            if (!matchIndices(k, wr.getIndex(), *bases[i], *other,
                              wo.getIndex(), *ob, eqs, 0))
              continue;
            if (debugEnabled("candidates"))
              for (auto &[coord, x] : eqs)
                llvm::errs()
                    << "candidates: " << k.label << " coordinate " << coord
                    << " = " << x.simplify().to_string()
                    << (coordinateDigits(k, coord, x) ? "" : " (no digits)")
                    << "\n";
            std::vector<z3::expr> tid = ob->tid, bid = ob->bid;
            std::map<Operation *, z3::expr> iters;
            // All coordinates' digits put together: one id may be made of
            // two (a block of 256 numbering a 16 x 16 tile: tid.x / 16 is
            // the row, tid.x % 16 the column).
            std::vector<std::pair<IndexMap::Digit, z3::expr>> all;
            bool made = true;
            for (auto &[coord, x] : eqs) {
              auto digits = coordinateDigits(k, coord, x);
              if (!digits) {
                made = false;
                break;
              }
              all.insert(all.end(), digits->begin(), digits->end());
            }
            if (!made)
              continue;
            putDigits(all, tid, bid, iters);
            // The ids no digit gives do not number the cell: their value in
            // the other launch may be none of k's (tid.y of a 16 x 16 block
            // against a block of 256 threads). Id 0 is in every launch.
            std::array<bool, 6> given{};
            for (auto &[d, v] : all)
              if (!d.loop)
                given[(d.block ? 3 : 0) + d.axis] = true;
            std::vector<z3::expr> tid0 = tid, bid0 = bid;
            bool zeroed = false;
            for (int a = 0; a < 6; ++a)
              if (!given[a]) {
                (a < 3 ? tid0 : bid0)[a % 3] = ctx.bv_val(0, 32);
                zeroed = true;
              }
            if (zeroed)
              addMade(std::move(tid0), std::move(bid0), iters, "match0");
            addMade(std::move(tid), std::move(bid), std::move(iters), "match");
          }
    }
  // Solve each write's index for the iteration of its loop, the base's ids
  // kept: a row loop's column (`out[r * w + c]`) against the other kernel's,
  // unrolled at run time (`out[r * w + 4 * k + 1]`) or rotated.
  for (const Thread *b : bases)
    for (WriteOp wr : k.writes[arg][interval]) {
      const std::vector<Operation *> &its = k.itersOf(wr);
      if (its.size() != 1)
        continue;
      Operation *loop = its[0];
      auto isLoop = [&](Operation *op) { return op == loop; };
      std::optional<z3::expr> sol =
          solveFor(k, wr.getIndex(), isLoop, 64, index, *b);
      if (!sol)
        continue;
      std::vector<z3::expr> bid = shared ? reader.bid : b->bid;
      std::string key = keyOf(b->tid, bid) + "iter" +
                        std::to_string((uintptr_t)loop) + ":" +
                        sol->simplify().to_string();
      if (!seen.insert(key).second)
        continue;
      Thread &t = makeThread(b->tid, bid, depth + 1, k.launch);
      t.iters.emplace(loop, *sol);
      for (Operation *it : loops)
        t.iters.emplace(it, ctx.bv_val(0, 64));
      out.push_back(&t);
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

std::optional<z3::expr> Encoder::solveFor(
    KernelModel &k, Value v, llvm::function_ref<bool(Operation *)> isTarget,
    unsigned width, const z3::expr &rhs, const Thread &base, bool bySymbols) {
  Operation *d = v.getDefiningOp();
  if (!d)
    return std::nullopt;
  if (isTarget(d))
    return resize(rhs, width, false);
  auto other = [&](unsigned i) { return value(k, d->getOperand(i), base); };
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(d)) {
    unsigned w = widthOf(d->getOperand(0).getType());
    return solveFor(k, d->getOperand(0), isTarget, width, resize(rhs, w, false),
                    base, bySymbols);
  }
  if (d->getNumOperands() != 2)
    return std::nullopt;
  bool dep0 = reaches(d->getOperand(0), isTarget);
  bool dep1 = reaches(d->getOperand(1), isTarget);
  if (dep0 == dep1)
    return std::nullopt;
  unsigned i = dep0 ? 0 : 1;
  auto solve = [&](const z3::expr &r) {
    return solveFor(k, d->getOperand(i), isTarget, width, r, base, bySymbols);
  };
  if (isa<arith::AddIOp>(d))
    return solve(rhs - other(1 - i));
  if (isa<arith::SubIOp>(d))
    return solve(i == 0 ? rhs + other(1) : other(0) - rhs);
  if (isa<arith::XOrIOp>(d))
    return solve(rhs ^ other(1 - i));
  if (isa<arith::OrIOp>(d)) {
    // `k | c` where k's low bits are clear (the -O2 unrolled loop's
    // `or disjoint`): the candidate is checked by the caller anyway.
    return solve(rhs & ~other(1 - i));
  }
  if (isa<arith::MulIOp>(d)) {
    // By a constant, or a value the assumptions fix (blockDim.x == 64).
    z3::expr m = other(1 - i).simplify();
    if (!m.is_numeral())
      return bySymbols ? solve(dividedBy(rhs, m)) : std::nullopt;
    if (m.get_numeral_uint64() == 0)
      return std::nullopt;
    // A power of two divides by a shift; other constants through a
    // quotient symbol, cheaper than a divider.
    if (llvm::isPowerOf2_64(m.get_numeral_uint64()))
      return solve(z3::udiv(rhs, m));
    return solve(quotient(rhs, m).first);
  }
  return std::nullopt;
}

} // namespace kv
