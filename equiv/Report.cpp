//===- Report.cpp - one report layer for every front door -----------------===//

#include "equiv/Report.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace llvm;

namespace kv {

static int64_t roundMs(double ms) { return (int64_t)std::llround(ms); }

/// Verdicts whose line alone does not say why.
static bool hasReason(Verdict v) {
  return v != Verdict::Equivalent && v != Verdict::NotEquivalent;
}

/// The cell of a mismatch: `out[5]`; in the printf stream, which a replay
/// lays out as the launch's lines sorted, the line and its value (0 is
/// the format).
static std::string mismatchCell(const Counterexample &cex) {
  if (cex.mismatchArray != kPrintStream)
    return cex.mismatchArray + "[" + std::to_string(cex.mismatchIndex) + "]";
  int64_t field = cex.mismatchIndex % kPrintRecordCells;
  return cex.mismatchArray + " (sorted lines)[line " +
         std::to_string(cex.mismatchIndex / kPrintRecordCells) + ", " +
         (field ? "value " + std::to_string(field) : std::string("format")) +
         "]";
}

static void printCounterexample(raw_ostream &os, const Counterexample &cex) {
  os << "  counterexample (" << (cex.replayed ? "replayed" : "not replayed")
     << "):\n";
  auto dims = [&](const uint64_t d[3]) {
    os << "(" << d[0] << ", " << d[1] << ", " << d[2] << ")\n";
  };
  // Each kernel's launch where each has its own.
  const char *who = cex.ownAfterLaunch ? "before " : "";
  os << "    " << who << "gridDim  = ";
  dims(cex.gridDim);
  os << "    " << who << "blockDim = ";
  dims(cex.blockDim);
  if (cex.ownAfterLaunch) {
    os << "    after gridDim   = ";
    dims(cex.afterGridDim);
    os << "    after blockDim  = ";
    dims(cex.afterBlockDim);
  }
  if (!cex.scalars.empty()) {
    os << "    scalars: ";
    ListSeparator sep;
    for (const auto &[name, v] : cex.scalars)
      os << sep << name << " = "
         << scalarText(v, cex.unsignedScalars.count(name));
    os << "\n";
  }
  // Every input cell is in --json. The cells the difference depends on
  // are shown first, then a few more of each array.
  auto isSource = [&](const std::string &array, int64_t index) {
    auto it = cex.sources.find(array);
    return it != cex.sources.end() && it->second.count(index);
  };
  size_t quota =
      std::max<size_t>(4, 16 / std::max<size_t>(1, cex.arrays.size()));
  unsigned shown = 0, hidden = 0;
  for (bool sources : {true, false})
    for (const auto &[array, cells] : cex.arrays) {
      size_t ofArray = 0;
      for (const auto &[index, v] : cells) {
        if (isSource(array, index) != sources)
          continue;
        if (sources ? shown < 32 : ++ofArray <= quota && shown < 32) {
          os << "    input " << array << "[" << index << "] = " << v << "\n";
          ++shown;
        } else {
          ++hidden;
        }
      }
    }
  if (hidden)
    os << "    (" << hidden << " more input cells; --json lists all)\n";
  if (!cex.arrays.empty())
    os << "    (every input cell not listed is 0)\n";
  os << "    mismatch: " << mismatchCell(cex) << ": before = " << cex.before
     << ", after = " << cex.after << "\n";
  if (!cex.approximate.empty())
    os << "    approximate: " << cex.approximate
       << " (every value the approximate operations' documented error "
          "bounds allow; the two cannot be equal)\n";
  if (cex.afterFails)
    os << "    the after kernel reaches a trap, a failed assertion or "
          "undefined behaviour on this input; the before kernel does not\n";
  if (!cex.replayedOn.empty())
    os << "    replayed on: " << cex.replayedOn << "\n";
}

void printText(raw_ostream &os, const Validation &v, const PairNames &names) {
  const CheckResult &r = v.result;
  os << "verdict: " << verdictName(r.verdict) << "\n";
  if (hasReason(r.verdict))
    os << "  reason: " << r.reason << "\n";
  if (!v.foundBy.empty())
    os << "  found by: " << v.foundBy << "\n";
  if (r.defect && !r.defect->confirmed.empty())
    os << "  confirmed: " << r.defect->confirmed << "\n";
  if (!r.method.empty())
    os << "  proof: " << r.method << "\n";
  os << "  before: " << names.before << "\n";
  os << "  after:  " << names.after << "\n";
  if (r.assumptions.empty()) {
    // An early unsupported verdict (a construct found while lowering)
    // rests on nothing: the given --assume was not ignored, just not used.
    os << (r.verdict == Verdict::Unsupported || r.verdict == Verdict::Error
               ? "  assumptions: none (nothing was checked)\n"
               : "  assumptions: none\n");
  } else {
    os << "  assumptions:\n";
    for (const std::string &a : r.assumptions)
      os << "    - " << a << "\n";
  }
  if (r.counterexample)
    printCounterexample(os, *r.counterexample);
  os << "  time: " << roundMs(r.timeMs) << " ms\n";
}

std::string scalarText(int64_t v, bool isUnsigned) {
  return isUnsigned ? std::to_string(uint64_t(v)) : std::to_string(v);
}

void Counterexample::addScalar(const std::string &name, const APInt &v,
                               bool isUnsigned) {
  scalars.push_back(
      {name, isUnsigned ? (int64_t)v.getZExtValue() : v.getSExtValue()});
  if (isUnsigned)
    unsignedScalars.insert(name);
}

static json::Value scalarJSON(int64_t v, bool isUnsigned) {
  return isUnsigned ? json::Value(uint64_t(v)) : json::Value(v);
}

static json::Array dimsJSON(const uint64_t d[3]) {
  return json::Array{(int64_t)d[0], (int64_t)d[1], (int64_t)d[2]};
}

static json::Value counterexampleJSON(const Counterexample &cex) {
  json::Object scalars, arrays;
  for (const auto &[name, v] : cex.scalars)
    scalars[name] = scalarJSON(v, cex.unsignedScalars.count(name));
  for (const auto &[array, cells] : cex.arrays) {
    json::Object cellObj;
    for (const auto &[index, v] : cells)
      cellObj[std::to_string(index)] = v;
    arrays[array] = std::move(cellObj);
  }
  json::Object obj{{"gridDim", dimsJSON(cex.gridDim)},
                   {"blockDim", dimsJSON(cex.blockDim)},
                   {"scalars", std::move(scalars)},
                   {"arrays", std::move(arrays)},
                   {"mismatch", json::Object{{"array", cex.mismatchArray},
                                             {"index", cex.mismatchIndex},
                                             {"before", cex.before},
                                             {"after", cex.after}}},
                   {"replayed", cex.replayed},
                   {"replayed_on", cex.replayedOn}};
  if (cex.ownAfterLaunch) {
    obj["after_gridDim"] = dimsJSON(cex.afterGridDim);
    obj["after_blockDim"] = dimsJSON(cex.afterBlockDim);
  }
  if (!cex.approximate.empty())
    obj["approximate"] = cex.approximate;
  if (!cex.sources.empty()) {
    json::Object sources;
    for (const auto &[array, cells] : cex.sources) {
      json::Array indices;
      for (int64_t i : cells)
        indices.push_back(i);
      sources[array] = std::move(indices);
    }
    obj["sources"] = std::move(sources);
  }
  if (cex.afterFails)
    obj["after_fails"] = true;
  return obj;
}

static json::Value defectJSON(const Defect &d) {
  json::Object scalars;
  for (const auto &[name, v] : d.scalars)
    scalars[name] = scalarJSON(v, d.unsignedScalars.count(name));
  json::Array sites;
  for (const Defect::Site &s : d.sites)
    sites.push_back(json::Object{{"block", dimsJSON(s.block)},
                                 {"thread", dimsJSON(s.thread)},
                                 {"access", s.access},
                                 {"location", s.location}});
  json::Object defect{{"kernel", d.kernel},
                      {"kind", d.kind},
                      {"gridDim", dimsJSON(d.gridDim)},
                      {"blockDim", dimsJSON(d.blockDim)},
                      {"scalars", std::move(scalars)},
                      {"threads", std::move(sites)}};
  if (!d.array.empty()) {
    defect["array"] = d.array;
    defect["index"] = d.index;
  }
  if (!d.confirmed.empty())
    defect["confirmed"] = d.confirmed;
  return defect;
}

json::Value toJSON(const Validation &v, const PairNames &names) {
  const CheckResult &r = v.result;
  json::Array assumptions;
  for (const std::string &a : r.assumptions)
    assumptions.push_back(a);
  json::Object obj{{"verdict", verdictName(r.verdict)},
                   {"before", names.before},
                   {"after", names.after},
                   {"assumptions", std::move(assumptions)},
                   {"time_ms", roundMs(r.timeMs)}};
  if (hasReason(r.verdict))
    obj["reason"] = r.reason;
  if (!v.foundBy.empty())
    obj["found_by"] = v.foundBy;
  if (!r.method.empty())
    obj["proof"] = r.method;
  if (r.counterexample) {
    if (v.loweredUnroll)
      obj["unroll"] = (int64_t)v.loweredUnroll;
    obj["counterexample"] = counterexampleJSON(*r.counterexample);
  }
  if (r.defect)
    obj["defect"] = defectJSON(*r.defect);
  return obj;
}

/// The counterexample on one line, for a build log.
static std::string describeCounterexample(const Counterexample &cex) {
  std::string s;
  raw_string_ostream os(s);
  auto dim = [&](const uint64_t d[3]) {
    os << "(" << d[0] << "," << d[1] << "," << d[2] << ")";
  };
  os << "gridDim=";
  dim(cex.gridDim);
  os << " blockDim=";
  dim(cex.blockDim);
  for (const auto &[name, v] : cex.scalars)
    os << " " << name << "=" << scalarText(v, cex.unsignedScalars.count(name));
  // The cells that matter are few for the counterexamples the solver finds;
  // the cap keeps a pathological one from flooding the build log.
  constexpr unsigned maxCells = 8;
  for (const auto &[array, cells] : cex.arrays) {
    unsigned n = 0;
    for (const auto &[index, v] : cells) {
      if (n++ == maxCells) {
        os << " " << array << "[...]";
        break;
      }
      os << " " << array << "[" << index << "]=" << v;
    }
  }
  os << ": " << mismatchCell(cex) << " is " << cex.before
     << " before optimization, " << cex.after << " after";
  if (!cex.replayed)
    os << " (not confirmed by replay)";
  else if (!cex.replayedOn.empty())
    os << " (replayed on " << cex.replayedOn << ")";
  return s;
}

std::string diagnosticPrefix(StringRef kernel) {
  return "kvalidate: kernel '" + kernel.str() + "': ";
}

DiagnosticReport toDiagnostic(const Validation &v, StringRef kernel,
                              FailOn policy) {
  const CheckResult &r = v.result;
  std::string prefix = diagnosticPrefix(kernel);
  DiagnosticReport d{DiagnosticReport::Warning, ""};
  switch (r.verdict) {
  case Verdict::Equivalent:
  case Verdict::EquivalentForLaunch:
  case Verdict::EquivalentUpToBound:
  case Verdict::EquivalentOverReals: {
    raw_string_ostream os(d.message);
    // A bounded or real-number result says so in the verdict itself.
    os << prefix << verdictName(r.verdict) << " (" << roundMs(r.timeMs)
       << " ms)";
    if (!r.assumptions.empty()) {
      os << " [assumptions: ";
      ListSeparator sep("; ");
      for (const std::string &a : r.assumptions)
        os << sep << a;
      os << "]";
    }
    if (!r.method.empty())
      os << " [proof: " << r.method << "]";
    d.kind = DiagnosticReport::Remark;
    return d;
  }
  case Verdict::NotEquivalent:
    d.message = prefix + "not-equivalent: " +
                (r.counterexample ? describeCounterexample(*r.counterexample)
                                  : r.reason);
    if (!v.foundBy.empty())
      d.message += " [found by: " + v.foundBy + "]";
    break;
  case Verdict::Race:
  case Verdict::Divergence:
  case Verdict::OutOfBounds:
    // (A defect: the kernel itself is wrong for some launch; the source
    // kernel's defect is as much news as the optimizer's.)
  case Verdict::Unknown:
  case Verdict::Unsupported:
  case Verdict::Error:
    d.message = prefix + verdictName(r.verdict) + ": " + r.reason;
    break;
  }
  if (levelOf(r.verdict, policy) == Level::Error)
    d.kind = DiagnosticReport::Error;
  return d;
}

json::Object toCacheEntry(const CachedVerdict &c) {
  return json::Object{{"verdict", verdictName(c.verdict)},
                      {"message", c.message},
                      {"fields", json::Object(c.fields)}};
}

bool cacheable(Verdict v) {
  return levelOf(v, FailOn::Never) == Level::Note || v == Verdict::Unknown ||
         v == Verdict::Unsupported;
}

std::optional<CachedVerdict> fromCacheEntry(const json::Object &entry,
                                            FailOn policy) {
  std::optional<StringRef> name = entry.getString("verdict");
  std::optional<StringRef> message = entry.getString("message");
  const json::Object *fields = entry.getObject("fields");
  std::optional<Verdict> v = name ? verdictFromName(*name) : std::nullopt;
  if (!v || !cacheable(*v) || levelOf(*v, policy) == Level::Error || !message ||
      !fields)
    return std::nullopt;
  return CachedVerdict{*v, message->str(), *fields};
}

} // namespace kv
