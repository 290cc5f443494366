//===- Safety.h - race, divergence and bounds checks ------------*- C++ -*-===//
//
// The single-parameterized-thread encoding is only valid for kernels without
// data races and barrier divergence. These checks run on each kernel before
// the equivalence query, GPUVerify style: two distinct symbolic threads.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_SAFETY_H
#define KV_EQUIV_SAFETY_H

#include "equiv/Checker.h"
#include "smt-encode/Solver.h"
#include <functional>

namespace kv {

class Encoder;

/// Launch facts (CUDA limits, --assume) for an encoder, or an error.
using FactsFn =
    std::function<std::optional<z3::expr>(Encoder &, std::string &error)>;

/// The --assume expressions as one Z3 boolean, or an error message.
std::optional<z3::expr> parseAssumptions(Encoder &enc, const CheckOptions &opts,
                                         std::string &err);

/// Budget of each safety query: Z3 resource units (deterministic, about
/// 8 s of one core), and a wall-clock backstop. An undecided property is
/// printed as an assumption of the verdict.
extern unsigned safetyRlimit;
extern unsigned safetyBudgetMs;

/// Checks kernel \p k for out-of-bounds accesses to fixed-size shared
/// arrays, barrier divergence and data races (shared memory within a block
/// and barrier interval; global memory within a block's interval and across
/// blocks in any interval). Returns true when all three are proved absent.
/// Otherwise \p result holds the verdict: race, divergence or
/// out-of-bounds with the launch and threads that show it, or unknown /
/// unsupported when the check is undecided.
/// With \p loopsOnly, only the conditions under which the kernel's kv.iter
/// loops model its loops (checked even where safety is assumed: they are
/// the model's, not the kernel's).
bool checkSafety(KernelOp k, KernelOp paramSource, const char *label,
                 unsigned bits, const FactsFn &facts,
                 const std::function<unsigned()> &remainingMs,
                 CheckResult &result, bool loopsOnly = false,
                 const SolverSettings &solver = {}, bool quiet = false,
                 bool boundsAssumed = false);

} // namespace kv

#endif
