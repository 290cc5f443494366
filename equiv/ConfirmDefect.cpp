//===- ConfirmDefect.cpp - a defect verdict seen on the kernel's own run --===//
//
// The safety checks find races, divergent barriers and out-of-bounds shared
// accesses in the kv model, with uninterpreted operations and
// over-approximated reads. A defect verdict fails a build, so it must be the
// kernel's: the kernel's LLVM IR runs at the defect's launch and scalars,
// and the IR executor's own race, barrier and bounds bookkeeping must show a
// defect of the same kind. What no run shows is a possible defect, `unknown`.
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutor.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Stats.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <chrono>

using namespace mlir;

namespace kv {

namespace safety {
std::string describe(const Defect &d);
} // namespace safety

namespace {

/// The launch's threads, saturated.
uint64_t threadsOf(const Defect &d) {
  uint64_t n = 1;
  for (const uint64_t *v : {d.gridDim, d.blockDim})
    for (int i = 0; i < 3; ++i)
      if (__builtin_mul_overflow(n, v[i], &n))
        return ~0ull;
  return n;
}

std::string coordsOf(const uint64_t v[3]) {
  return "(" + std::to_string(v[0]) + "," + std::to_string(v[1]) + "," +
         std::to_string(v[2]) + ")";
}

/// Whether \p f, or what it calls, can find its input outside its own
/// assumptions (an llvm.assume, a trap, a failed assert, unreachable code),
/// or calls through a pointer (not followed: taken as one that can).
bool checksAssumptions(const llvm::Function &f,
                       llvm::SmallPtrSetImpl<const llvm::Function *> &seen) {
  if (!seen.insert(&f).second)
    return false;
  for (const llvm::BasicBlock &bb : f)
    for (const llvm::Instruction &i : bb) {
      if (llvm::isa<llvm::UnreachableInst>(i))
        return true;
      const auto *c = llvm::dyn_cast<llvm::CallBase>(&i);
      const llvm::Function *g = c ? c->getCalledFunction() : nullptr;
      if (c && !g && !c->isInlineAsm())
        return true; // through a pointer: not followed here
      if (!g)
        continue;
      if (g->getIntrinsicID() == llvm::Intrinsic::assume ||
          g->getIntrinsicID() == llvm::Intrinsic::trap ||
          g->getName() == "__assertfail" ||
          (!g->isDeclaration() && checksAssumptions(*g, seen)))
        return true;
    }
  return false;
}

bool checksAssumptions(const llvm::Function &f) {
  llvm::SmallPtrSet<const llvm::Function *, 8> seen;
  return checksAssumptions(f, seen);
}

/// Whether run defect \p r shows static defect \p d (verdict \p v) of
/// kernel \p k.
bool shows(KernelOp k, Verdict v, const Defect &d, const RunDefect &r) {
  auto sameArray = [&] {
    return r.arg >= 0 && (unsigned)r.arg < k.getBlock().getNumArguments() &&
           k.getArgName(r.arg) == d.array;
  };
  switch (v) {
  case Verdict::Race:
    // Equal values written twice are no race to the static check either.
    return r.kind == RunDefect::Race && !r.sameValue && sameArray();
  case Verdict::OutOfBounds:
    return r.kind == RunDefect::OutOfBounds && sameArray();
  case Verdict::Divergence:
    return r.kind == RunDefect::Divergence;
  default:
    return false;
  }
}

/// \p d rewritten to the cell and threads of the race run defect \p r
/// shows (the model's threads may collide only through an uninterpreted
/// operation).
void adopt(Defect &d, const RunDefect &r) {
  if (r.kind != RunDefect::Race)
    return;
  d.index = r.cell;
  if (r.first.atomic || r.second.atomic)
    d.kind = r.first.atomic && r.second.atomic
                 ? "race between atomic updates of different kinds"
                 : "race between an atomic update and a plain access";
  else if (r.first.write && r.second.write)
    d.kind = "write-write race (different values)";
  else
    d.kind = "read-write race";
  auto word = [](const RunDefect::Site &s) {
    return s.atomic ? "updates atomically" : s.write ? "writes" : "reads";
  };
  // In the order the static check named their kinds.
  const RunDefect::Site *a = &r.first, *b = &r.second;
  if (!d.sites.empty() && d.sites[0].access != word(*a) &&
      d.sites[0].access == word(*b))
    std::swap(a, b);
  d.sites.clear();
  for (const RunDefect::Site *s : {a, b}) {
    Defect::Site x;
    std::copy(s->block, s->block + 3, x.block);
    std::copy(s->thread, s->thread + 3, x.thread);
    x.location = s->location.empty() ? "an unknown location" : s->location;
    x.access = word(*s);
    d.sites.push_back(std::move(x));
  }
}

} // namespace

std::optional<CheckResult>
defectOfRun(KernelOp k, const std::string &kernel, const LaunchConfig &cfg,
            const std::vector<std::pair<std::string, int64_t>> &scalars,
            const RunDefect &r, const std::string &inputs) {
  Defect d;
  d.kernel = kernel;
  std::copy(cfg.grid, cfg.grid + 3, d.gridDim);
  std::copy(cfg.block, cfg.block + 3, d.blockDim);
  d.scalars = scalars;
  if (r.arg >= 0 && (unsigned)r.arg < k.getBlock().getNumArguments())
    d.array = k.getArgName(r.arg).str();
  d.index = r.cell;
  auto site = [](const RunDefect::Site &s, const std::string &access) {
    Defect::Site x;
    std::copy(s.block, s.block + 3, x.block);
    std::copy(s.thread, s.thread + 3, x.thread);
    x.location = s.location.empty() ? "an unknown location" : s.location;
    x.access = access;
    return x;
  };
  CheckResult result;
  switch (r.kind) {
  case RunDefect::Race:
    // Equal values written twice are no race to the static check either.
    if (r.sameValue || d.array.empty())
      return std::nullopt;
    result.verdict = Verdict::Race;
    adopt(d, r);
    // In the static check's order: an atomic update, then a read, then a
    // write.
    if (d.sites.size() == 2) {
      auto rank = [](const Defect::Site &x) {
        return x.access == "updates atomically" ? 0
               : x.access == "reads"            ? 1
                                                : 2;
      };
      if (rank(d.sites[1]) < rank(d.sites[0]))
        std::swap(d.sites[0], d.sites[1]);
    }
    break;
  case RunDefect::Divergence:
    // The run knows where a thread waits, not which barrier another one
    // missed: the static check names it, and confirms it on a run.
    return std::nullopt;
  case RunDefect::OutOfBounds:
    if (d.array.empty())
      return std::nullopt;
    result.verdict = Verdict::OutOfBounds;
    d.kind = "out-of-bounds " + std::string(r.first.write ? "write" : "read");
    if (auto sh = dyn_cast<SharedArrayType>(
            k.getBlock().getArgument(r.arg).getType()))
      d.kind +=
          " (the array has " + std::to_string(sh.getSize()) + " elements)";
    d.sites.push_back(site(r.first, r.first.write ? "writes" : "reads"));
    break;
  }
  d.confirmed = "the " + kernel + " kernel's LLVM IR ran at this launch " +
                "(gridDim " + coordsOf(d.gridDim) + ", blockDim " +
                coordsOf(d.blockDim) + ", " + inputs + " inputs) and showed " +
                "it: " + r.what;
  result.reason = safety::describe(d);
  result.defect = std::move(d);
  return result;
}

void confirmDefect(KernelOp k, const llvm::Function *ir, unsigned bits,
                   CheckResult &result, unsigned remainingMs) {
  if (!result.defect || (result.verdict != Verdict::Race &&
                         result.verdict != Verdict::Divergence &&
                         result.verdict != Verdict::OutOfBounds))
    return;
  stats::Scoped timer("replay");
  Defect &d = *result.defect;
  auto notConfirmed = [&](const std::string &why) {
    result.verdict = Verdict::Unknown;
    result.possibleDefect = true;
    result.reason =
        "possible " + safety::describe(d) + "; not confirmed: " + why;
    result.defect.reset();
  };
  if (!ir)
    return notConfirmed("there is no LLVM IR of the " + d.kernel +
                        " kernel to run it on");
  // Runs of up to a few million threads take seconds; past that the
  // defect stays possible rather than stall the build.
  constexpr uint64_t maxThreads = 1u << 22;
  constexpr uint64_t maxSteps = 400u << 20;
  if (threadsOf(d) > maxThreads)
    return notConfirmed("its launch has more than " +
                        std::to_string(maxThreads) +
                        " threads, too many to run");

  Block &blk = k.getBlock();
  std::map<unsigned, llvm::APInt> scalars;
  for (unsigned i = 0; i < blk.getNumArguments(); ++i) {
    auto it = llvm::find_if(
        d.scalars, [&](auto &s) { return s.first == k.getArgName(i); });
    if (it == d.scalars.end())
      continue;
    if (auto t = dyn_cast<IntegerType>(blk.getArgument(i).getType()))
      scalars.emplace(i, llvm::APInt(t.getWidth(), (uint64_t)it->second,
                                     /*isSigned=*/true));
  }
  auto widthOf = [&](unsigned a) {
    return getArrayElementType(blk.getArgument(a).getType())
        .getIntOrFloatBitWidth();
  };
  LaunchConfig cfg;
  std::copy(d.gridDim, d.gridDim + 3, cfg.grid);
  std::copy(d.blockDim, d.blockDim + 3, cfg.block);

  auto start = std::chrono::steady_clock::now();
  std::string why;
  // Zero inputs first (a race on indices alone shows there), then
  // pseudo-random ones (a guard that reads the arrays).
  for (unsigned seed : {0u, 1u}) {
    if (seed && remainingMs &&
        std::chrono::steady_clock::now() - start >
            std::chrono::milliseconds(remainingMs))
      break;
    ExecInputs in;
    in.bits = bits;
    in.scalar = [&](unsigned a) {
      auto it = scalars.find(a);
      if (it != scalars.end())
        return it->second;
      Type t = blk.getArgument(a).getType();
      return llvm::APInt(t.isIntOrFloat() ? t.getIntOrFloatBitWidth() : 32, 0);
    };
    in.initial = [&](unsigned a, uint64_t idx) {
      return seed ? executor::pseudoRandomCell(widthOf(a), a, idx, seed,
                                               /*floats=*/false)
                  : llvm::APInt(widthOf(a), 0);
    };
    in.sharedInitial = [&](unsigned a, const uint64_t *, uint64_t) {
      return llvm::APInt(widthOf(a), 0);
    };
    IRInputs irIn = irInputsFor(k, *ir, in);
    // The run may stop at the defect unless the rest of it could still
    // show the input outside the kernel's own assumptions.
    if (!checksAssumptions(*ir))
      irIn.stopAt = [&](const RunDefect &x) {
        return shows(k, result.verdict, d, x);
      };
    ExecResult r = executeIR(*ir, cfg, irIn, maxThreads, maxSteps);
    // An input the kernel's own assumptions exclude shows nothing.
    if (r.ok && r.assumeViolated) {
      why = "the inputs tried violate the kernel's own assumptions";
      continue;
    }
    for (const RunDefect &x : r.defects)
      if (shows(k, result.verdict, d, x)) {
        adopt(d, x);
        d.confirmed = "the " + d.kernel + " kernel's LLVM IR ran at this " +
                      "launch (gridDim " + coordsOf(d.gridDim) + ", blockDim " +
                      coordsOf(d.blockDim) + ", " +
                      (seed ? "pseudo-random" : "zero") +
                      " inputs) and showed it: " + x.what;
        result.reason = safety::describe(d);
        return;
      }
    if (!r.ok && why.empty())
      why = "the " + d.kernel + " kernel's LLVM IR did not run at this " +
            "launch: " + r.error;
  }
  if (why.empty())
    why = "the " + d.kernel + " kernel's LLVM IR ran at this launch with " +
          "zero and pseudo-random inputs and showed no such defect";
  notConfirmed(why);
}

} // namespace kv
