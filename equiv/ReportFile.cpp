//===- ReportFile.cpp - verdicts for build systems and code review --------===//
//
// The --fail-on policy and the report files (JSON lines, SARIF 2.1.0).
//
//===----------------------------------------------------------------------===//
#include "equiv/ReportFile.h"
#include "passes/lower/LowerToKV.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kv {

const char *versionString() { return "0.1.0"; }

std::optional<FailOn> parseFailOn(StringRef text) {
  if (text.empty() || text == "mismatch")
    return FailOn::Mismatch;
  if (text == "unknown")
    return FailOn::Unknown;
  if (text == "never")
    return FailOn::Never;
  return std::nullopt;
}

Level levelOf(Verdict v, FailOn policy) {
  switch (v) {
  case Verdict::Equivalent:
  case Verdict::EquivalentForLaunch:
  case Verdict::EquivalentUpToBound:
  case Verdict::EquivalentOverReals:
    return Level::Note;
  case Verdict::NotEquivalent:
  case Verdict::Race:
  case Verdict::Divergence:
  case Verdict::OutOfBounds:
    return policy == FailOn::Never ? Level::Warning : Level::Error;
  case Verdict::Unknown:
  case Verdict::Unsupported:
  case Verdict::Error:
    return policy == FailOn::Unknown ? Level::Error : Level::Warning;
  }
  return Level::Warning;
}

const char *levelName(Level l) {
  switch (l) {
  case Level::Note:
    return "note";
  case Level::Warning:
    return "warning";
  case Level::Error:
    return "error";
  }
  return "warning";
}

namespace {

/// A lock on PATH.lock for the duration of one append: compiles of one
/// build run in parallel and may name the same report.
class FileLock {
public:
  explicit FileLock(StringRef path) {
    SmallString<256> lock(path);
    lock += ".lock";
    if (sys::fs::openFileForWrite(lock, fd, sys::fs::CD_OpenAlways))
      fd = -1;
    else if (sys::fs::lockFile(fd))
      close();
  }
  ~FileLock() {
    if (fd >= 0)
      (void)sys::fs::unlockFile(fd);
    close();
  }
  bool held() const { return fd >= 0; }

private:
  void close() {
    if (fd >= 0)
      (void)sys::fs::closeFile(fd);
    fd = -1;
  }
  int fd = -1;
};

/// The entry's JSON object: the validation's fields, and what the report
/// adds (kernel, location, pass, level, cached).
json::Object lineOf(const ReportEntry &e) {
  json::Object o = e.fields;
  o["kernel"] = e.kernel;
  if (!e.file.empty())
    o["file"] = e.file;
  if (e.line)
    o["line"] = (int64_t)e.line;
  if (!e.pass.empty())
    o["pass"] = e.pass;
  o["level"] = levelName(e.level);
  o["message"] = e.message;
  if (e.cached)
    o["cached"] = true;
  return o;
}

std::string fileURI(StringRef path) {
  std::string out = sys::path::is_absolute(path) ? "file://" : "";
  for (char c : path) {
    if (c == '%' || c == ' ' || c == '#' || c == '?')
      out += formatv("%{0:X2}", (unsigned char)c).str();
    else
      out += c;
  }
  return out;
}

json::Object sarifResult(const ReportEntry &e) {
  json::Object r{{"ruleId", verdictName(e.verdict)},
                 {"level", levelName(e.level)},
                 {"message", json::Object{{"text", e.message}}}};
  if (!e.file.empty()) {
    json::Object physical{
        {"artifactLocation", json::Object{{"uri", fileURI(e.file)}}}};
    if (e.line)
      physical["region"] = json::Object{{"startLine", (int64_t)e.line}};
    json::Object loc{{"physicalLocation", std::move(physical)}};
    json::Array logical{json::Object{{"name", e.kernel}, {"kind", "function"}}};
    loc["logicalLocations"] = std::move(logical);
    r["locations"] = json::Array{std::move(loc)};
  }
  r["properties"] = lineOf(e);
  return r;
}

json::Array sarifRules() {
  json::Array rules;
  for (Verdict v : {Verdict::Equivalent, Verdict::EquivalentForLaunch,
                    Verdict::EquivalentUpToBound, Verdict::EquivalentOverReals,
                    Verdict::NotEquivalent, Verdict::Unknown,
                    Verdict::Unsupported, Verdict::Error, Verdict::Race,
                    Verdict::Divergence, Verdict::OutOfBounds})
    rules.push_back(
        json::Object{{"id", verdictName(v)},
                     {"shortDescription",
                      json::Object{{"text", std::string("kvalidate verdict: ") +
                                                verdictName(v)}}}});
  return rules;
}

json::Object sarifLog() {
  json::Object driver{{"name", "kvalidate"},
                      {"version", versionString()},
                      {"rules", sarifRules()}};
  json::Object run{{"tool", json::Object{{"driver", std::move(driver)}}},
                   {"results", json::Array()}};
  return json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", json::Array{std::move(run)}}};
}

/// The line of \p File that declares kernel \p Name, for a module without
/// debug info (clang's own diagnostics know it, the IR does not): the first
/// line naming it as a function (`Name(` or `Name<`) at most three lines
/// below a line with `__global__`. 0 if there is none.
unsigned findKernelLine(StringRef File, StringRef Name) {
  // ns::scale<16> -> scale
  Name = Name.take_until([](char C) { return C == '<' || C == '('; });
  if (size_t Colons = Name.rfind("::"); Colons != StringRef::npos)
    Name = Name.drop_front(Colons + 2);
  if (Name.empty())
    return 0;
  ErrorOr<std::unique_ptr<MemoryBuffer>> Buf = MemoryBuffer::getFile(File);
  if (!Buf)
    return 0;
  SmallVector<StringRef> Lines;
  (*Buf)->getBuffer().split(Lines, '\n');
  unsigned LastGlobal = 0; // 1-based line of the last __global__
  for (unsigned I = 0; I < Lines.size(); ++I) {
    StringRef L = Lines[I];
    if (L.contains("__global__"))
      LastGlobal = I + 1;
    if (!LastGlobal || I + 1 - LastGlobal > 3)
      continue;
    for (size_t Pos = L.find(Name); Pos != StringRef::npos;
         Pos = L.find(Name, Pos + 1)) {
      bool Start = Pos == 0 || !(isAlnum(L[Pos - 1]) || L[Pos - 1] == '_');
      StringRef After = L.drop_front(Pos + Name.size()).ltrim();
      if (Start && (After.starts_with("(") || After.starts_with("<")))
        return I + 1;
    }
  }
  return 0;
}

} // namespace

void sourceLocation(const Function &F, std::string &File, unsigned &Line) {
  if (const DISubprogram *SP = F.getSubprogram()) {
    SmallString<256> Path(SP->getFilename());
    if (!sys::path::is_absolute(Path) && !SP->getDirectory().empty())
      Path = (SP->getDirectory() + "/" + SP->getFilename()).str();
    File = Path.str().str();
    Line = SP->getLine();
    return;
  }
  File = F.getParent()->getSourceFileName();
  Line = findKernelLine(File, kv::sourceName(F.getName()));
}

// Write \p text to \p path through a temporary file and a rename, so that
// a compile killed half-way leaves the old file, not half of a new one.
bool writeFileAtomically(StringRef path, StringRef text, std::string &err) {
  SmallString<256> tmp;
  int fd;
  SmallString<256> model(path);
  model += ".tmp%%%%%%";
  if (std::error_code ec = sys::fs::createUniqueFile(model, fd, tmp)) {
    err = "cannot write " + path.str() + ": " + ec.message();
    return false;
  }
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << text;
    os.close();
    if (os.has_error()) {
      err = "cannot write " + path.str() + ": " + os.error().message();
      os.clear_error();
      (void)sys::fs::remove(tmp);
      return false;
    }
  }
  if (std::error_code ec = sys::fs::rename(tmp, path)) {
    err = "cannot write " + path.str() + ": " + ec.message();
    (void)sys::fs::remove(tmp);
    return false;
  }
  return true;
}

bool appendReport(StringRef path, ArrayRef<ReportEntry> entries,
                  std::string &err) {
  FileLock lock(path);
  if (!lock.held()) {
    err = "cannot lock " + path.str() + ".lock";
    return false;
  }
  if (!path.ends_with(".sarif")) {
    std::error_code ec;
    raw_fd_ostream os(path, ec, sys::fs::OF_Append | sys::fs::OF_Text);
    if (ec) {
      err = "cannot write " + path.str() + ": " + ec.message();
      return false;
    }
    for (const ReportEntry &e : entries)
      os << json::Value(lineOf(e)) << "\n";
    os.close();
    if (os.has_error()) {
      err = "cannot write " + path.str() + ": " + os.error().message();
      os.clear_error();
      return false;
    }
    return true;
  }
  // SARIF: one log per file; results of earlier compiles are kept.
  json::Object log = sarifLog();
  if (sys::fs::exists(path)) {
    ErrorOr<std::unique_ptr<MemoryBuffer>> buf = MemoryBuffer::getFile(path);
    if (!buf) {
      err = "cannot read " + path.str() + ": " + buf.getError().message();
      return false;
    }
    if (!(*buf)->getBuffer().trim().empty()) {
      Expected<json::Value> old = json::parse((*buf)->getBuffer());
      json::Object *o = old ? old->getAsObject() : nullptr;
      json::Array *runs = o ? o->getArray("runs") : nullptr;
      json::Object *run =
          runs && !runs->empty() ? (*runs)[0].getAsObject() : nullptr;
      if (!run || !run->getArray("results")) {
        if (!old)
          consumeError(old.takeError());
        err = path.str() + " exists and is not a SARIF log; not overwritten";
        return false;
      }
      log = std::move(*o);
    }
  }
  json::Array &results =
      *(*log.getArray("runs"))[0].getAsObject()->getArray("results");
  for (const ReportEntry &e : entries)
    results.push_back(sarifResult(e));
  std::string text;
  raw_string_ostream os(text);
  os << formatv("{0:2}", json::Value(std::move(log))) << "\n";
  return writeFileAtomically(path, text, err);
}

} // namespace kv
