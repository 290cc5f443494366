//===- Executor.cpp - concrete execution of kv kernels --------------------===//
//
// The kernel body is compiled once into a flat instruction list per barrier
// interval whose operands are slot numbers, so the per-thread loop neither
// walks MLIR use lists nor hashes Values. A thread's slots live in one
// scratch vector reused by every thread; only values defined in one interval
// and used in a later one are saved per thread between intervals. A kv.iter
// runs its range, the instructions after it up to the last one that depends
// on it, once per iteration.
//
// This file: launching the blocks and threads of a run, memory (arrays'
// cells, writes at barriers) and the result. ExecutorInternal.h has the
// instructions, ExecutorCompile.cpp compiles a kernel into them and
// ExecutorOps.cpp executes one.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Executor.h"
#include "smt-encode/ExecutorInternal.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

#include <optional>

using namespace mlir;
using llvm::APInt;

namespace kv {

unsigned modelWidth(unsigned width, unsigned bits) {
  // i1 stays i1; 64-bit values (addresses, sizes) stay exact so that cells
  // 2^32 elements apart are never merged.
  if (width <= 1 || width >= 64)
    return width;
  return std::min(width, bits);
}

ExecInputs
kernelInputs(KernelOp k, unsigned bits,
             std::function<int64_t(unsigned a)> scalar,
             std::function<APInt(unsigned a, uint64_t idx, unsigned w)> cell) {
  Block &b = k.getBlock();
  // Index-typed values are 64-bit words.
  auto width = [bits](Type t) {
    return t.isIntOrFloat() ? modelWidth(t.getIntOrFloatBitWidth(), bits) : 64u;
  };
  auto elemWidth = [&b, width](unsigned a) {
    return width(getArrayElementType(b.getArgument(a).getType()));
  };
  ExecInputs in;
  in.bits = bits;
  in.scalar = [&b, width, scalar = std::move(scalar)](unsigned a) {
    return APInt(width(b.getArgument(a).getType()), (uint64_t)scalar(a),
                 /*isSigned=*/true, /*implicitTrunc=*/true);
  };
  in.initial = [elemWidth, cell = std::move(cell)](unsigned a, uint64_t idx) {
    return cell(a, idx, elemWidth(a));
  };
  in.sharedInitial = [elemWidth](unsigned a, const uint64_t *, uint64_t) {
    return APInt(elemWidth(a), 0);
  };
  quietPrintStream(k, in);
  return in;
}

void quietPrintStream(KernelOp k, ExecInputs &in) {
  std::optional<unsigned> stream = printStreamArg(k);
  if (!stream)
    return;
  in.initial = [stream = *stream,
                initial = std::move(in.initial)](unsigned a, uint64_t idx) {
    return a == stream ? APInt(64, 0) : initial(a, idx);
  };
}

namespace executor {

//===----------------------------------------------------------------------===//
// Execution
//===----------------------------------------------------------------------===//

/// \p cell updated by an atomic \p kind with \p v.
static APInt combine(RmwKind kind, const APInt &cell, const APInt &v) {
  switch (kind) {
  case RmwKind::add:
    return cell + v;
  case RmwKind::and_:
    return cell & v;
  case RmwKind::or_:
    return cell | v;
  case RmwKind::xor_:
    return cell ^ v;
  case RmwKind::smin:
    return llvm::APIntOps::smin(cell, v);
  case RmwKind::smax:
    return llvm::APIntOps::smax(cell, v);
  case RmwKind::umin:
    return llvm::APIntOps::umin(cell, v);
  case RmwKind::umax:
    return llvm::APIntOps::umax(cell, v);
  }
  llvm_unreachable("unknown atomic kind");
}

bool Executor::run(uint64_t maxThreads) {
  bool overflow = false;
  uint64_t blockThreads = 1, blocks = 1;
  for (unsigned d = 0; d < 3; ++d) {
    if (cfg.grid[d] == 0 || cfg.block[d] == 0)
      return fail("grid and block dimensions must be positive");
    blockThreads =
        llvm::SaturatingMultiply(blockThreads, cfg.block[d], &overflow);
    blocks = llvm::SaturatingMultiply(blocks, cfg.grid[d], &overflow);
  }
  uint64_t total = llvm::SaturatingMultiply(blocks, blockThreads, &overflow);
  if (overflow || total > maxThreads)
    return fail(
        "launch of " +
        (overflow ? llvm::Twine("more than 2^64") : llvm::Twine(total)) +
        " threads exceeds the limit of " + llvm::Twine(maxThreads) +
        " threads");

  unsigned numArgs = elemWidth.size();
  global.assign(numArgs, {});
  shared.assign(numArgs, {});
  slots = initialSlots;
  // Grid barriers split the intervals into phases; every block runs a
  // phase before any block starts the next, so each block's shared memory
  // and saved values live from one phase to the next.
  std::vector<size_t> phaseStart = {0};
  for (size_t n = 1; n < intervals.size(); ++n)
    if (intervals[n].afterGridBarrier)
      phaseStart.push_back(n);
  phaseStart.push_back(intervals.size());
  bool phased = phaseStart.size() > 2;
  uint64_t keptBlocks = phased ? blocks : 1;
  // Saved values cost 16 bytes each; refuse rather than die in the allocator.
  uint64_t numSaved = llvm::SaturatingMultiply<uint64_t>(
      llvm::SaturatingMultiply<uint64_t>(blockThreads, numPersistent),
      keptBlocks);
  if (numSaved > (uint64_t(1) << 26))
    return fail(phased ? "a launch of " + llvm::Twine(total) +
                             " threads keeps " + llvm::Twine(numPersistent) +
                             " values each across grid barriers: too much "
                             "state"
                       : "blocks of " + llvm::Twine(blockThreads) +
                             " threads keep " + llvm::Twine(numPersistent) +
                             " values each across barriers: too much state");
  persistent.assign(numSaved, APInt());
  std::vector<std::vector<std::unordered_map<uint64_t, APInt>>> blockShared(
      phased ? blocks : 0);
  for (size_t phase = 0; phase + 1 < phaseStart.size(); ++phase)
    for (bid[2] = 0; bid[2] < cfg.grid[2]; ++bid[2])
      for (bid[1] = 0; bid[1] < cfg.grid[1]; ++bid[1])
        for (bid[0] = 0; bid[0] < cfg.grid[0]; ++bid[0]) {
          uint64_t linearBlock =
              (bid[2] * cfg.grid[1] + bid[1]) * cfg.grid[0] + bid[0];
          if (phased) {
            blockSaved = linearBlock * blockThreads * numPersistent;
            if (phase == 0)
              blockShared[linearBlock].assign(shared.size(), {});
            shared.swap(blockShared[linearBlock]);
          } else {
            for (auto &cells : shared)
              cells.clear();
          }
          if (!runPhase(phaseStart[phase], phaseStart[phase + 1]))
            return false;
          if (res.assumeViolated)
            return true;
          if (phased)
            shared.swap(blockShared[linearBlock]);
        }
  return true;
}

bool Executor::runPhase(size_t first, size_t last) {
  for (size_t n = first; n < last; ++n) {
    const Interval &iv = intervals[n];
    pending.clear();
    curInterval = &iv;
    shuffleMemo.clear();
    APInt *saved = persistent.data() + blockSaved;
    for (tid[2] = 0; tid[2] < cfg.block[2]; ++tid[2])
      for (tid[1] = 0; tid[1] < cfg.block[1]; ++tid[1])
        for (tid[0] = 0; tid[0] < cfg.block[0]; ++tid[0]) {
          for (auto [s, k] : iv.imports)
            slots[s] = saved[k];
          if (!runRange(iv, 0, iv.instrs.size()))
            return false;
          // Not a valid launch: the caller discards the result.
          if (res.assumeViolated)
            return true;
          for (auto [s, k] : iv.exports)
            saved[k] = slots[s];
          saved += numPersistent;
        }
    // Writes take effect at the barrier, in thread then program order.
    for (PendingWrite &w : pending) {
      // The updates of one kind commute: applied in this order, the cell
      // ends as in any other.
      if (w.atomic) {
        APInt cur;
        if (!load(*w.atomic, w.index, cur))
          return false;
        w.value = combine(*cast<WriteOp>(w.atomic->op).getRmw(), cur, w.value);
      }
      if (!w.shared)
        res.written[w.argNo].insert_or_assign(w.index, w.value);
      (w.shared ? shared : global)[w.argNo].insert_or_assign(
          w.index, std::move(w.value));
    }
  }
  return true;
}

bool Executor::atLane(const Instr &i, uint64_t src, unsigned valueOp,
                      unsigned guardOp, const std::pair<APInt, bool> *&out) {
  unsigned n = &i - curInterval->instrs.data();
  auto key = std::make_pair(src, n);
  auto it = shuffleMemo.find(key);
  if (it == shuffleMemo.end()) {
    // Run the source thread's interval up to the op, writing nothing.
    std::vector<APInt> savedSlots = slots;
    uint64_t savedTid[3] = {tid[0], tid[1], tid[2]};
    llvm::DenseSet<unsigned> savedBroke = broke;
    bool savedReplaying = replaying;
    tid[0] = src % cfg.block[0];
    tid[1] = (src / cfg.block[0]) % cfg.block[1];
    tid[2] = src / (cfg.block[0] * cfg.block[1]);
    slots = initialSlots;
    broke.clear();
    const APInt *saved = persistent.data() + blockSaved + src * numPersistent;
    for (auto [s, k] : curInterval->imports)
      slots[s] = saved[k];
    replaying = true;
    bool ok = runRange(*curInterval, 0, n);
    std::pair<APInt, bool> v{slots[i.ops[valueOp]],
                             !slots[i.ops[guardOp]].isZero()};
    slots = std::move(savedSlots);
    tid[0] = savedTid[0];
    tid[1] = savedTid[1];
    tid[2] = savedTid[2];
    broke = std::move(savedBroke);
    replaying = savedReplaying;
    if (!ok)
      return false;
    it = shuffleMemo.emplace(key, std::move(v)).first;
  }
  out = &it->second;
  return true;
}

bool Executor::shuffle(const Instr &i) {
  auto arg = [&](unsigned n) -> const APInt & { return slots[i.ops[n]]; };
  // Not executed: the value is not used.
  if (arg(3).isZero()) {
    slots[i.result] = arg(0);
    return true;
  }
  uint64_t perBlock = cfg.block[0] * cfg.block[1] * cfg.block[2];
  uint64_t self = linearTid(), lane = arg(1).getZExtValue() & 31;
  uint64_t src = (self & ~uint64_t(31)) | lane;
  // At a model width below 32 bits (--bits) the mask is not all there.
  uint64_t mask =
      arg(2).getBitWidth() < 32 ? ~uint64_t(0) : arg(2).getZExtValue();
  if (!((mask >> (self & 31)) & 1) || !((mask >> lane) & 1))
    return fail("the mask of the shuffle at " + describe(i.op) +
                " leaves out lane " +
                llvm::Twine(((mask >> (self & 31)) & 1) ? lane : self & 31));
  if (src >= perBlock)
    return fail("the shuffle at " + describe(i.op) + " reads lane " +
                llvm::Twine(lane) + ", which is not in the block");
  if (src == self) {
    slots[i.result] = arg(0);
    return true;
  }
  const std::pair<APInt, bool> *v;
  if (!atLane(i, src, 0, 3, v))
    return false;
  if (!v->second)
    return fail("the shuffle at " + describe(i.op) + " reads lane " +
                llvm::Twine(lane) + ", which does not execute it");
  slots[i.result] = v->first;
  return true;
}

bool Executor::ballot(const Instr &i) {
  auto arg = [&](unsigned n) -> const APInt & { return slots[i.ops[n]]; };
  uint64_t r = 0;
  if (!arg(2).isZero()) {
    uint64_t perBlock = cfg.block[0] * cfg.block[1] * cfg.block[2];
    uint64_t self = linearTid();
    uint64_t mask =
        arg(1).getBitWidth() < 32 ? ~uint64_t(0) : arg(1).getZExtValue();
    if (!((mask >> (self & 31)) & 1))
      return fail("the mask of the vote at " + describe(i.op) +
                  " leaves out lane " + llvm::Twine(self & 31));
    for (uint64_t lane = 0; lane < 32; ++lane) {
      uint64_t src = (self & ~uint64_t(31)) | lane;
      if (src >= perBlock || !((mask >> lane) & 1))
        continue;
      bool runs, p;
      if (src == self) {
        runs = true;
        p = !arg(0).isZero();
      } else {
        const std::pair<APInt, bool> *v;
        if (!atLane(i, src, 0, 2, v))
          return false;
        runs = v->second;
        p = !v->first.isZero();
      }
      if (runs && p)
        r |= uint64_t(1) << lane;
    }
  }
  slots[i.result] = APInt(32, r).zextOrTrunc(i.width);
  return true;
}

bool Executor::runRange(const Interval &iv, unsigned from, unsigned to) {
  for (unsigned n = from; n < to; ++n) {
    const Instr &i = iv.instrs[n];
    if (i.kind == Kind::Iter) {
      if (!runLoop(iv, n))
        return false;
      n = i.iterEnd - 1;
    } else if (!exec(i)) {
      return false;
    }
    if (res.assumeViolated)
      return true;
  }
  return true;
}

bool Executor::runLoop(const Interval &iv, unsigned n) {
  const Instr &i = iv.instrs[n];
  // Nothing depends on the iteration number: no iteration is observable.
  if (i.iterEnd == n + 1)
    return true;
  auto it = cast<IterOp>(i.op);
  for (unsigned m = n + 1; m < i.iterEnd; ++m) {
    const Instr &j = iv.instrs[m];
    if (j.kind == Kind::Sum && j.ops[1] == i.result)
      slots[j.result] = APInt(j.width, 0);
    // A fold starts from its carry's start value, kept if no iteration
    // runs (a carry comes before its fold).
    if (j.kind == Kind::Carry && j.ops[1] == i.result)
      slots[j.result] = slots[j.ops[0]];
    if (j.kind == Kind::Fold && j.ops[2] == i.result)
      slots[j.result] = slots[j.ops[0]];
  }
  uint64_t k = 0;
  if (!slots[i.ops[3]].isZero()) {
    // Exact arithmetic: |lb + k * step| < 2^129 for any k <= 2^20.
    const unsigned w = 130;
    bool sgn = it.isSigned();
    auto ext = [&](unsigned o) {
      const APInt &v = slots[i.ops[o]];
      return sgn ? v.sext(w) : v.zext(w);
    };
    APInt x = ext(0), step = ext(1), bound = ext(2);
    // Extended unsigned operands are non-negative: signed order fits both.
    // An uncounted loop runs as the program does: its variable has the
    // loop's width and wraps around.
    unsigned vw = it.getWidth() ? unsigned(*it.getWidth()) : 64;
    auto live = [&](const APInt &v) {
      if (it.getUncounted() && vw <= 64) {
        APInt x = v.trunc(vw);
        APInt y = sgn ? x.sext(w) : x.zext(w);
        return it.isStrict() ? y.slt(bound) : y.sle(bound);
      }
      return it.isStrict() ? v.slt(bound) : v.sle(bound);
    };
    // Live iterations are a prefix only for a positive step (the checker
    // proves it wherever the loop is entered and counts it).
    if (!it.getUncounted() && !step.isStrictlyPositive() &&
        (live(x) || (it.getDoWhile() && live(x + step))))
      return fail("the loop of " + describe(i.op) +
                  " does not terminate (step <= 0)");
    const uint64_t maxIterations = 1u << 20;
    for (; live(x) || (k == 0 && it.getDoWhile()); ++k, x += step) {
      if (k == maxIterations)
        return fail("the loop of " + describe(i.op) + " runs more than " +
                    llvm::Twine(maxIterations) + " iterations");
      slots[i.result] = APInt(64, k);
      broke.erase(i.result);
      if (!runRange(iv, n + 1, i.iterEnd))
        return false;
      if (res.assumeViolated)
        return true;
      // A kv.break held: this was the last iteration.
      if (broke.erase(i.result)) {
        ++k;
        break;
      }
    }
  }
  // No iteration: later instructions may still use the independent values.
  if (k == 0)
    for (unsigned m : i.independent)
      if (!exec(iv.instrs[m]))
        return false;
  return true;
}

bool Executor::arrayIndex(const APInt &v, uint64_t &index) {
  std::optional<uint64_t> x = v.zextOrTrunc(64).tryZExtValue();
  if (!x)
    return fail("array index does not fit in 64 bits");
  index = *x;
  return true;
}

bool Executor::load(const Instr &i, uint64_t index, APInt &out) {
  auto &cells = (i.shared ? shared : global)[i.argNo];
  auto it = cells.find(index);
  if (it != cells.end()) {
    out = it->second;
    return true;
  }
  // Cache the initial content: the callbacks need not be cheap (the
  // checker's looks the cell up in the solver's model, and a map insertion
  // follows): the work limit counts a fetch as several instructions.
  const uint64_t fetchSteps = 64;
  if (maxSteps) {
    if (stepsLeft < fetchSteps)
      return outOfWork();
    stepsLeft -= fetchSteps;
  }
  APInt v;
  if (i.shared)
    v = in.sharedInitial ? in.sharedInitial(i.argNo, bid, index)
                         : APInt(i.width, 0);
  else
    v = in.initial ? in.initial(i.argNo, index) : APInt(i.width, 0);
  if (v.getBitWidth() != i.width)
    return fail("initial content of array argument #" + llvm::Twine(i.argNo) +
                " has " + llvm::Twine(v.getBitWidth()) + " bits, expected " +
                llvm::Twine(i.width));
  out = v;
  cells.emplace(index, std::move(v));
  return true;
}

void Executor::finishPrinted() {
  if (!printArg)
    return;
  std::vector<std::vector<uint64_t>> lines;
  for (auto &[key, line] : printed)
    lines.push_back(std::move(line));
  layOutPrinted(std::move(lines), res.written[*printArg]);
}

void layOutPrinted(std::vector<std::vector<uint64_t>> lines,
                   std::map<uint64_t, llvm::APInt> &cells) {
  for (auto &l : lines)
    l.resize(kPrintRecordCells, 0);
  llvm::sort(lines);
  for (auto [r, l] : llvm::enumerate(lines))
    for (auto [j, v] : llvm::enumerate(l))
      cells.insert_or_assign(r * kPrintRecordCells + j, llvm::APInt(64, v));
}

} // namespace executor

ExecResult execute(KernelOp kernel, const LaunchConfig &cfg,
                   const ExecInputs &in, uint64_t maxThreads,
                   uint64_t maxSteps) {
  ExecResult res;
  executor::Executor ex(kernel, cfg, in, res);
  ex.maxSteps = ex.stepsLeft = maxSteps;
  if (ex.compile() && ex.run(maxThreads))
    res.ok = true;
  ex.finishPrinted();
  return res;
}

} // namespace kv