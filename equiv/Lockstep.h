//===- Lockstep.h - interval-by-interval proofs -----------------*- C++ -*-===//
//
// An optimizer keeps a kernel's barriers and its thread mapping: each
// thread writes the same cells with the same values in each barrier
// interval, however differently the values are computed. Then the states
// after each interval agree by induction, and the outputs do. Proved for
// one symbolic thread, with each interval's starting state an
// uninterpreted function shared by the two kernels (so no read chain is
// built), this is cheap where the full encoding follows a reduction's
// reads through every level.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_LOCKSTEP_H
#define KV_EQUIV_LOCKSTEP_H

#include "equiv/Checker.h"
#include <chrono>
#include <optional>
#include <string>

namespace kv {

/// True when \p before and \p after are proved to make the same writes,
/// interval by interval, for every thread (under opts.assumptions and the
/// before kernel's preconditions). False when their shapes differ (barrier
/// count, parameters, writes per interval, loop models) or the proof does
/// not go through within its small budget: the caller's full check then
/// decides. \p deadline bounds it. \p why, when given, gets the first
/// difference that stopped it (for verdicts the full check leaves open).
bool proveLockstep(
    KernelOp before, KernelOp after, const CheckOptions &opts,
    std::optional<std::chrono::steady_clock::time_point> deadline,
    std::string *why = nullptr);

} // namespace kv

#endif
