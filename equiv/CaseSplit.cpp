//===- CaseSplit.cpp - proofs by cases on launch dimensions ---------------===//

#include "equiv/CaseSplit.h"
#include "equiv/Safety.h"
#include "smt-encode/Encoder.h"

#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <deque>
#include <set>

namespace kv {

std::string describeCase(const Case &c) {
  std::string s;
  for (auto &[name, value] : c) {
    if (!s.empty())
      s += " && ";
    s += name + " == " + std::to_string(value);
  }
  return s;
}

/// The launch dimension or scalar parameter called \p name, at the width the
/// encoder gives it (a 64-bit scalar keeps its 64 bits: every value counts),
/// and whether its C type is unsigned.
static std::optional<z3::expr> termFor(Encoder &enc, const std::string &name,
                                       bool &isUnsigned) {
  for (int i = 0; i < 3; ++i) {
    std::string ax = std::string(".") + "xyz"[i];
    isUnsigned = true;
    if (name == "blockDim" + ax)
      return enc.bdim[i];
    if (name == "gridDim" + ax)
      return enc.gdim[i];
    if (name == "after.blockDim" + ax)
      return enc.bdimOf(1)[i];
    if (name == "after.gridDim" + ax)
      return enc.gdimOf(1)[i];
  }
  for (unsigned i = 0; i < enc.paramNames.size(); ++i)
    if (enc.paramNames[i] == name && enc.params[i] && enc.params[i]->is_bv()) {
      isUnsigned = enc.paramUnsigned[i];
      return enc.params[i];
    }
  return std::nullopt;
}

std::optional<std::vector<Case>>
enumerateCases(KernelOp signature, const std::vector<std::string> &names,
               const Case &fixed, const CheckOptions &opts, unsigned limit,
               std::string &why) {
  ContextLease lease;
  z3::context &ctx = lease;
  Encoder enc(ctx, opts.bits, signature);
  enc.hugeGrids = opts.hugeGrids;
  std::optional<z3::expr> assumed = parseAssumptions(enc, opts, why);
  if (!assumed)
    return std::nullopt;
  z3::solver s(ctx);
  s.add(enc.launchConstraints() && *assumed);
  for (auto &[name, value] : fixed) {
    bool isUnsigned;
    std::optional<z3::expr> t = termFor(enc, name, isUnsigned);
    if (!t) {
      why = "no launch dimension or scalar parameter '" + name + "'";
      return std::nullopt;
    }
    s.add(*t == ctx.bv_val(value, t->get_sort().bv_size()));
  }
  std::vector<z3::expr> terms;
  std::vector<bool> unsignedTerms;
  for (const std::string &name : names) {
    bool isUnsigned;
    std::optional<z3::expr> t = termFor(enc, name, isUnsigned);
    if (!t) {
      why = "no launch dimension or scalar parameter '" + name + "'";
      return std::nullopt;
    }
    terms.push_back(*t);
    unsignedTerms.push_back(isUnsigned);
  }
  std::vector<Case> cases;
  while (true) {
    z3::check_result r = s.check();
    if (r == z3::unsat) {
      llvm::sort(cases);
      return cases;
    }
    if (r != z3::sat) {
      why = "the solver could not enumerate the values of " +
            llvm::join(names, ", ");
      return std::nullopt;
    }
    if (cases.size() >= limit) {
      why = "the assumptions allow more than " + std::to_string(limit) +
            " values of " + llvm::join(names, ", ");
      return std::nullopt;
    }
    z3::model m = s.get_model();
    Case c = fixed;
    z3::expr other = ctx.bool_val(false);
    for (size_t i = 0; i < terms.size(); ++i) {
      z3::expr v = m.eval(terms[i], true);
      unsigned w = v.get_sort().bv_size();
      uint64_t u = v.get_numeral_uint64();
      // As C reads them: dimensions and unsigned scalars unsigned.
      int64_t value = unsignedTerms[i] || w >= 64 ? (int64_t)u
                      : (u >> (w - 1)) & 1 ? (int64_t)(u - (uint64_t(1) << w))
                                           : (int64_t)u;
      c.push_back({names[i], value});
      other = other || terms[i] != v;
    }
    cases.push_back(std::move(c));
    s.add(other);
  }
}

/// How a case's own assumption is listed with its verdict.
static std::string caseLine(const Case &pins) {
  return describeCase(pins) + " (one case of the split)";
}

/// Marks the case's own assumption line as a case of the split.
static void labelCase(CheckResult &r, const Case &pins) {
  if (pins.empty())
    return;
  // Proved for this case's values only.
  r.beforeSafetyProved = false;
  std::string line = describeCase(pins) + " (--assume)";
  for (std::string &a : r.assumptions)
    if (a == line)
      a = caseLine(pins);
}

void requestSplit(const std::vector<std::string> &names, KernelOp kept,
                  LoweredPair &lowered, std::vector<std::string> &splitOn,
                  KernelOp &signature) {
  splitOn = names;
  signature = kept;
  if (lowered.before) {
    kept.erase();
    signature = lowered.before;
  }
}

CheckResult checkByCases(
    const LowerPairFn &lower, const CheckOptions &opts, unsigned maxCases,
    const std::function<CheckResult(KernelOp, KernelOp, const CheckOptions &)>
        &check,
    const Case &initial) {
  auto start = std::chrono::steady_clock::now();
  auto elapsedMs = [&] {
    return std::chrono::duration<double, std::milli>(
               std::chrono::steady_clock::now() - start)
        .count();
  };
  std::deque<Case> work{initial};
  std::vector<Case> proved;
  std::set<std::string> splitNames;
  std::optional<CheckResult> first, undecided;
  bool bounded = false;
  auto finish = [&](CheckResult r) {
    r.timeMs = elapsedMs();
    return r;
  };

  while (!work.empty()) {
    Case pins = std::move(work.front());
    work.pop_front();
    CheckOptions o = opts;
    if (!pins.empty())
      o.assumptions.push_back(describeCase(pins));
    if (opts.timeoutSecs) {
      double left = opts.timeoutSecs * 1000.0 - elapsedMs();
      if (left <= 0) {
        CheckResult r = undecided ? *undecided : CheckResult();
        r.verdict = Verdict::Unknown;
        r.reason = "timeout after " + std::to_string(proved.size()) +
                   " proved cases of the split on " +
                   llvm::join(splitNames, ", ") + "; " +
                   std::to_string(work.size() + 1) + " not checked";
        return finish(r);
      }
      // Rounded down: what is left of the kernel's budget after the case's
      // deadline goes to the runs after an open proof.
      o.timeoutSecs = std::max(1u, (unsigned)(left / 1000));
    }

    std::vector<std::string> splitOn;
    KernelOp signature;
    CheckResult failure;
    std::optional<LoweredPair> pair =
        lower(pins, /*reportSplit=*/true, splitOn, signature, failure);
    if (!pair && !splitOn.empty() && signature) {
      std::string why;
      unsigned room = maxCases > proved.size() + work.size()
                          ? maxCases - proved.size() - work.size()
                          : 0;
      std::optional<std::vector<Case>> cases =
          enumerateCases(signature, splitOn, pins, opts, room, why);
      signature.erase();
      if (cases) {
        splitNames.insert(splitOn.begin(), splitOn.end());
        for (Case &c : *cases)
          work.push_back(std::move(c));
        continue;
      }
      // No finite split: lower as before (a loop that still unrolls, or
      // --unroll's bounded check).
      splitOn.clear();
      signature = KernelOp();
      failure = CheckResult();
      pair = lower(pins, /*reportSplit=*/false, splitOn, signature, failure);
      if (!pair)
        failure.reason += " (no case split: " + why + ")";
    }
    if (!pair) {
      if (!pins.empty())
        failure.reason =
            "in the case " + describeCase(pins) + ": " + failure.reason;
      return finish(failure);
    }
    CheckResult r = check(pair->before, pair->after, o);
    pair->before.erase();
    pair->after.erase();
    labelCase(r, pins);
    switch (r.verdict) {
    case Verdict::Equivalent:
    case Verdict::EquivalentUpToBound:
    case Verdict::EquivalentOverReals:
    case Verdict::EquivalentForLaunch:
      bounded |= r.verdict == Verdict::EquivalentUpToBound;
      proved.push_back(pins);
      if (!first) {
        first = r;
        continue;
      }
      // What any case rests on, the verdict rests on.
      for (const std::string &a : r.assumptions)
        if (a != caseLine(pins) &&
            llvm::find(first->assumptions, a) == first->assumptions.end())
          first->assumptions.push_back(a);
      continue;
    case Verdict::Unknown:
    case Verdict::Unsupported:
      // Keep looking: a later case may give a counterexample.
      if (!pins.empty())
        r.reason = "in the case " + describeCase(pins) + ": " + r.reason;
      if (!undecided)
        undecided = r;
      continue;
    default:
      if (!pins.empty())
        r.reason = "in the case " + describeCase(pins) + ": " + r.reason;
      return finish(r);
    }
  }
  if (undecided)
    return finish(*undecided);
  if (!first) {
    // No case at all: the assumptions leave the split values no value.
    CheckResult r;
    r.verdict = Verdict::Error;
    r.reason = "the assumptions admit no value of " +
               llvm::join(splitNames, ", ") +
               " within the CUDA limits (nothing to prove)";
    return finish(r);
  }
  CheckResult r = *first;
  if (proved.size() == 1 && proved[0] == initial)
    return finish(r);

  // Every case proved: the verdict holds for the whole domain.
  std::string line = caseLine(proved[0]);
  llvm::erase_if(r.assumptions,
                 [&](const std::string &a) { return a == line; });
  std::string values;
  for (size_t i = 0; i < proved.size(); ++i) {
    if (i == 6 && proved.size() > 8) {
      values += ", ...";
      i = proved.size() - 1;
    }
    if (!values.empty())
      values += ", ";
    std::string c = describeCase(proved[i]);
    values += proved[i].size() == initial.size() + 1
                  ? std::to_string(proved[i].back().second)
                  : "(" + c + ")";
  }
  std::string names = llvm::join(splitNames, ", ");
  if (proved.size() == 1) {
    // The assumptions fix the values: nothing was split.
    r.assumptions.push_back(describeCase(proved[0]) +
                            " (the only values the assumptions allow; the "
                            "loops were unrolled for them)");
    return finish(r);
  }
  r.assumptions.push_back("proof by cases: each of the " +
                          std::to_string(proved.size()) + " values of " +
                          names + " that the assumptions allow (" + values +
                          ") was proved separately, with its loops unrolled");
  if (bounded) {
    r.verdict = Verdict::EquivalentUpToBound;
    r.reason = "proved in each of the " + std::to_string(proved.size()) +
               " cases of " + names +
               ", for executions within the --unroll "
               "bound (bounded)";
  } else if (r.verdict == Verdict::Equivalent) {
    r.reason = "proved for every launch configuration and input, by cases "
               "on " +
               names + " (" + std::to_string(proved.size()) + " values)";
  }
  return finish(r);
}

} // namespace kv
