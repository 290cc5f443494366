//===- SavedCex.cpp - kvalidate replay CEX.json --------------------------===//
//
// A saved --json verdict's counterexample read back, and both kernels run
// on it: the kv models (checked against the LLVM IR) or the IR alone.
//
//===----------------------------------------------------------------------===//
#include "utils/SavedCex.h"
#include "equiv/IRExecutor.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace kv_cli {

bool readSavedCex(StringRef path, unsigned entry, bool entryGiven,
                  SavedCex &out, std::string &before, std::string &after,
                  unsigned &unroll, std::string &err) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf) {
    err = "cannot read '" + path.str() + "': " + buf.getError().message();
    return false;
  }
  // One verdict (kvalidate --json), or a report file of one per line: the
  // --entry=N-th of those with a counterexample.
  std::vector<json::Value> verdicts;
  StringRef text = (*buf)->getBuffer();
  if (Expected<json::Value> whole = json::parse(text)) {
    verdicts.push_back(std::move(*whole));
  } else {
    consumeError(whole.takeError());
    unsigned lineNo = 0;
    for (StringRef line : split(text, "\n")) {
      ++lineNo;
      if (line.trim().empty())
        continue;
      Expected<json::Value> v = json::parse(line);
      if (!v) {
        err = path.str() + ":" + std::to_string(lineNo) +
              ": not JSON: " + toString(v.takeError());
        return false;
      }
      verdicts.push_back(std::move(*v));
    }
  }
  std::vector<const json::Object *> withCex;
  for (const json::Value &v : verdicts)
    if (const json::Object *o = v.getAsObject();
        o && o->getObject("counterexample"))
      withCex.push_back(o);
  if (withCex.empty() || entry == 0 || entry > withCex.size()) {
    err = path.str() +
          (withCex.empty()
               ? ": expected the JSON object of a not-equivalent verdict "
                 "(kvalidate --json), with before, after and counterexample"
               : ": --entry=" + std::to_string(entry) + ", but the file has " +
                     std::to_string(withCex.size()) +
                     " verdict(s) with a counterexample");
    return false;
  }
  if (withCex.size() > 1 && !entryGiven)
    outs() << "replay: note: " << path << " has " << withCex.size()
           << " verdicts with a counterexample; this is the first "
              "(--entry=N picks another)\n";
  const json::Object *o = withCex[entry - 1];
  const json::Object *c = o->getObject("counterexample");
  if (!o->getString("before") || !o->getString("after")) {
    err = path.str() + ": the verdict names no before and after kernels "
                       "(FILE:KERNEL)";
    return false;
  }
  before = o->getString("before")->str();
  after = o->getString("after")->str();
  if (std::optional<int64_t> u = o->getInteger("unroll"); u && *u > 0)
    unroll = (unsigned)*u;
  bool own = c->get("after_gridDim") || c->get("after_blockDim");
  for (auto [key, dst] : {std::pair{"gridDim", out.cfg.grid},
                          {"blockDim", out.cfg.block},
                          {"after_gridDim", out.afterCfg.grid},
                          {"after_blockDim", out.afterCfg.block}}) {
    if (!own && StringRef(key).starts_with("after_"))
      continue;
    const json::Array *a = c->getArray(key);
    if (!a || a->size() != 3) {
      err = path.str() + ": counterexample." + key + " must be [x, y, z]";
      return false;
    }
    for (int i = 0; i < 3; ++i)
      dst[i] = (*a)[i].getAsInteger().value_or(1);
  }
  if (!own)
    out.afterCfg = out.cfg;
  if (const json::Object *sc = c->getObject("scalars"))
    for (auto &[name, val] : *sc)
      // An unsigned parameter's value may be past INT64_MAX.
      out.scalars[name.str()] =
          val.getAsInteger().value_or((int64_t)val.getAsUINT64().value_or(0));
  if (const json::Object *ar = c->getObject("arrays"))
    for (auto &[name, cells] : *ar)
      if (const json::Object *co = cells.getAsObject())
        for (auto &[idx, val] : *co) {
          int64_t i = 0;
          if (StringRef(idx).getAsInteger(10, i)) {
            err = path.str() + ": array index '" + idx.str() +
                  "' is not an integer";
            return false;
          }
          out.arrays[name.str()][(uint64_t)i] = val.getAsInteger().value_or(0);
        }
  return true;
}

int replaySaved(kv::KernelOp before, kv::KernelOp after, const SavedCex &cex,
                unsigned bits, const Function *beforeIR,
                const Function *afterIR, bool irOnly, bool orIR) {
  auto inputsFor = [&](kv::KernelOp k) {
    return kv::kernelInputs(
        k, bits,
        [&](unsigned a) -> int64_t {
          auto it = cex.scalars.find(before.getArgName(a).str());
          return it == cex.scalars.end() ? 0 : it->second;
        },
        [&](unsigned a, uint64_t idx, unsigned w) {
          int64_t v = 0;
          if (auto arr = cex.arrays.find(before.getArgName(a).str());
              arr != cex.arrays.end())
            if (auto it = arr->second.find(idx); it != arr->second.end())
              v = it->second;
          return APInt(w, (uint64_t)v, /*isSigned=*/true,
                       /*implicitTrunc=*/true);
        });
  };
  kv::ExecInputs inB = inputsFor(before), inA = inputsFor(after);
  auto run = [&](kv::KernelOp k, const Function *ir, kv::ExecInputs &in) {
    const kv::LaunchConfig &cfg = k == after ? cex.afterCfg : cex.cfg;
    if (!irOnly)
      return kv::execute(k, cfg, in);
    kv::ExecResult r =
        kv::executeIR(*ir, cfg, kv::irInputsFor(k, *ir, in), ~uint64_t(0));
    // The parameters' arrays: __shared__ ones may be laid out differently.
    for (auto it = r.written.begin(); it != r.written.end();)
      it = it->first >= kv::kvParamCount(*ir) ? r.written.erase(it)
                                              : std::next(it);
    return r;
  };
  kv::ExecResult rb = run(before, beforeIR, inB);
  kv::ExecResult ra = run(after, afterIR, inA);
  if (orIR && (!rb.ok || !ra.ok))
    return -1;
  if (!rb.ok || !ra.ok) {
    errs() << "kvalidate: error: cannot replay: "
           << (!rb.ok ? rb.error : ra.error) << "\n";
    return kv::exitCode(kv::Verdict::Error);
  }
  if (rb.assumeViolated)
    outs() << "replay: note: the input violates a __builtin_assume (or the "
              "no-overflow precondition, or reaches a "
              "__builtin_unreachable()) of the before kernel\n";
  unsigned differ = 0, cells = 0;
  std::set<std::pair<unsigned, uint64_t>> keys;
  for (kv::ExecResult *r : {&rb, &ra})
    for (auto &[arg, m] : r->written)
      for (auto &[idx, v] : m)
        keys.insert({arg, idx});
  for (auto [arg, idx] : keys) {
    ++cells;
    // A cell one kernel leaves alone keeps its input: a write of the same
    // value by the other is no difference.
    auto get = [&](kv::ExecResult &r, kv::ExecInputs &in) -> std::string {
      auto it = r.written[arg].find(idx);
      if (it == r.written[arg].end())
        return toString(in.initial(arg, idx), 10, true) + " (unchanged)";
      return toString(it->second, 10, true);
    };
    std::string b = get(rb, inB), a = get(ra, inA);
    if (StringRef(b).take_until([](char c) { return c == ' '; }) ==
        StringRef(a).take_until([](char c) { return c == ' '; }))
      continue;
    if (differ++ < 16)
      outs() << "replay: " << before.getArgName(arg) << "[" << (int64_t)idx
             << "]: before = " << b << ", after = " << a << "\n";
  }
  outs() << "replay: " << (differ ? "the kernels differ" : "the kernels agree")
         << " (" << differ << " of " << cells << " written cells differ)\n";
  if (irOnly) {
    outs() << "replay: run on the LLVM IR of both kernels\n";
    return differ ? kv::exitCode(kv::Verdict::NotEquivalent) : 0;
  }
  // The same inputs on the kernels' own LLVM IR: every cell as above.
  kv::CheckOptions co;
  co.bits = bits;
  co.beforeIR = beforeIR;
  co.afterIR = afterIR;
  kv::Counterexample ran;
  if (std::optional<std::string> d = kv::confirmOnIR(
          co, before, after, cex.cfg, inB, inA, rb, ra, ran, ~uint64_t(0),
          /*maxSteps=*/0, &cex.afterCfg)) {
    // An IR that did not run (within the models' budget): on the IR alone.
    if (orIR && ran.onlyModels)
      return -1;
    errs() << "kvalidate: error: " << *d << "\n";
    return kv::exitCode(kv::Verdict::Error);
  }
  outs() << "replay: run on " << ran.replayedOn << "\n";
  return differ ? kv::exitCode(kv::Verdict::NotEquivalent) : 0;
}

} // namespace kv_cli
