//===- kvalidate.cpp - the kvalidate command line -------------------------===//
//
// kvalidate [options] BEFORE AFTER, each FILE:KERNEL. Loads both kernels
// (.cu compiled with clang, .ll/.bc LLVM IR, .mlir kv modules), lowers them
// into one kv module and asks the checker whether they are equivalent.
//
//===----------------------------------------------------------------------===//

#include "equiv/CaseSplit.h"
#include "equiv/Checker.h"
#include "smt-encode/Executor.h"
#include "kv/KVDialect.h"
#include "passes/LowerToKV.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>
#include <map>
#include <set>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;

#ifndef KV_CLANG
#define KV_CLANG "/usr/lib/llvm-22/bin/clang++"
#endif

static const char *const KVVersion = "0.1.0";

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

static cl::OptionCategory KVCategory("kvalidate options");

static cl::opt<std::string> BeforeArg(cl::Positional,
                                      cl::desc("<BEFORE FILE:KERNEL>"),
                                      cl::cat(KVCategory));
static cl::opt<std::string> AfterArg(cl::Positional,
                                     cl::desc("<AFTER FILE:KERNEL>"),
                                     cl::cat(KVCategory));

static cl::list<std::string> Assumes(
    "assume",
    cl::desc("Assume a C expression over blockDim.{x,y,z}, gridDim.{x,y,z} "
             "and the kernels' scalar parameters (repeatable)"),
    cl::value_desc("EXPR"), cl::cat(KVCategory));

// Numbers are parsed by hand so that bad values get our error format.
static cl::opt<std::string>
    Bits("bits", cl::desc("Bit-vector width, 4..64 (default 32)"),
         cl::value_desc("N"), cl::init("32"), cl::cat(KVCategory));

static cl::opt<std::string> Timeout(
    "timeout",
    cl::desc("Time budget in seconds (default and 0: none); when it runs "
             "out the verdict is unknown"),
                                    cl::value_desc("SECS"),
                                    cl::cat(KVCategory));

static cl::opt<bool> Json("json", cl::desc("Print one JSON object on stdout"),
                          cl::cat(KVCategory));

static cl::list<std::string>
    IncludeDirs("I", cl::Prefix,
                cl::desc("Add DIR to the include path of .cu inputs"),
                cl::value_desc("DIR"), cl::cat(KVCategory));

static cl::list<std::string>
    Defines("D", cl::Prefix, cl::desc("Define a macro for .cu inputs"),
            cl::value_desc("NAME[=V]"), cl::cat(KVCategory));

static cl::opt<std::string> CudaPath(
    "cuda-path",
    cl::desc("CUDA SDK for .cu inputs (default: /usr/local/cuda if it has "
             "include/cuda_runtime.h, else none; an empty DIR forces none)"),
    cl::value_desc("DIR"), cl::cat(KVCategory));

static cl::opt<bool> HugeGrids(
    "huge-grids",
    cl::desc("Also consider grids whose global thread index overflows an int "
             "(gridDim.d * blockDim.d > 2^31-1); not assumed away then"),
    cl::cat(KVCategory));

// Spelled --threads=N on the command line; LLVM's libraries already own an
// option called "threads", so main() renames the argument before parsing.
static cl::opt<std::string> Threads(
    "baseline-threads",
    cl::desc("--threads=N: non-parameterized baseline, one block of N threads "
             "(as --block=N --grid=1); the verdict holds for that launch only"),
    cl::value_desc("N"), cl::cat(KVCategory));
static cl::opt<std::string>
    BlockDims("block",
              cl::desc("Baseline launch: blockDim X[,Y[,Z]] (every thread "
                       "modelled)"),
              cl::value_desc("X,Y,Z"), cl::cat(KVCategory));
static cl::opt<std::string>
    GridDims("grid", cl::desc("Baseline launch: gridDim X[,Y[,Z]] (default 1)"),
             cl::value_desc("X,Y,Z"), cl::cat(KVCategory));

static cl::opt<unsigned>
    Unroll("unroll",
           cl::desc("Unroll loops whose trip count is symbolic N times and "
                    "consider only executions within that bound (verdict "
                    "equivalent-up-to-bound); default 0: such loops are "
                    "unsupported"),
           cl::value_desc("N"), cl::init(0), cl::cat(KVCategory));

static cl::opt<unsigned> Hunt(
    "hunt",
    cl::desc("When the proof ends unknown or unsupported and a loop has a "
             "symbolic trip count, search for a counterexample with such "
             "loops unrolled N times (default 16; 0: no search). A "
             "counterexample found is replayed and reported as not-equivalent; "
             "otherwise the verdict stays and says what the search found"),
    cl::value_desc("N"), cl::init(16), cl::cat(KVCategory));

static cl::opt<unsigned> MaxCases(
    "max-cases",
    cl::desc("Largest case split: a loop whose trip count depends on launch "
             "dimensions or scalars with at most N values under the "
             "assumptions is proved once per value (default 64)"),
    cl::init(64), cl::cat(KVCategory));

static cl::opt<bool> EmitKV("emit-kv",
                            cl::desc("Print the two kv kernels and exit"),
                            cl::cat(KVCategory));

static const char *const Overview = R"(prove two CUDA kernels equivalent

  Proves that BEFORE and AFTER write the same values to every global array
  cell for every launch configuration (gridDim, blockDim) and every input,
  under the --assume assumptions. Parameters are matched by position.

  BEFORE and AFTER are FILE:KERNEL. FILE is a CUDA source (.cu, compiled with
  clang for sm_80), nvptx LLVM IR (.ll, .bc) or a kv module (.mlir). KERNEL is
  the kernel's source name (transpose, ns::foo<16>), its name without template
  arguments if that is unique, or its mangled name.

EXIT STATUS
  0  equivalent; the verdict line says which kind: equivalent (every
     launch), equivalent-for-launch (--threads/--block/--grid: that one
     launch), equivalent-up-to-bound (--unroll: loops cut at the bound)
  1  not equivalent (with a counterexample)
  2  unknown (timeout, undecided) or unsupported construct
  3  error (usage, input)
  4  a kernel is defective: data race, barrier divergence, or an
     out-of-bounds shared-array access (with the launch and threads)

EXAMPLES
  kvalidate transpose.cu:transpose_naive transpose.cu:transpose_tiled
  kvalidate --assume='blockDim.x == 32' --assume='n % 32 == 0' \
            old.cu:scale new.cu:scale
  kvalidate --json --bits=16 -I include -DTILE=16 a.cu:k b.cu:k
  kvalidate --json a.cu:k b.cu:k > cex.json; kvalidate replay cex.json

BOUNDED SEARCH
  When the proof ends unknown or unsupported and a loop's trip count is
  symbolic, a bounded search follows (--hunt=N, default 16): loops unrolled
  N times, the integer scalars within 0..32 so that loops they fix split
  into cases. A counterexample it finds is replayed and reported as
  not-equivalent ("found by" says so); otherwise the proof's verdict stays,
  its reason extended by what the search saw. With --timeout=T the search
  gets T/4 (5 to 60 s) of the budget; without, 60 s.

REPLAY
  kvalidate replay CEX.json runs both kernels of a saved --json verdict on
  its counterexample (input cells not listed and uninitialized shared memory
  are 0) and prints every output cell that differs: exit 1 when the kernels
  differ, 0 when they agree, 3 when the file or a kernel cannot be read.
  A verdict found with --unroll=N records N ("unroll"), and the replay
  lowers the kernels with the same bound.
)";

//===----------------------------------------------------------------------===//
// Temporary files
//===----------------------------------------------------------------------===//

namespace {
/// Temporary files, removed at exit and on signals.
struct TempFiles {
  std::vector<std::string> paths;
  ~TempFiles() {
    for (const std::string &p : paths) {
      sys::fs::remove(p);
      sys::DontRemoveFileOnSignal(p);
    }
  }
  /// Create an empty temporary file; returns false and sets \p err on error.
  bool create(StringRef prefix, StringRef suffix, std::string &path,
              std::string &err) {
    SmallString<128> p;
    if (std::error_code ec = sys::fs::createTemporaryFile(prefix, suffix, p)) {
      err = "cannot create a temporary file: " + ec.message();
      return false;
    }
    path = std::string(p);
    paths.push_back(path);
    sys::RemoveFileOnSignal(path);
    return true;
  }
};
TempFiles Temps;
} // namespace

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Prepended to .cu inputs when there is no CUDA SDK.
static const char *const KVCudaHeader = R"(// kvalidate: CUDA without an SDK
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif
#include <__clang_cuda_builtin_vars.h>
)";

namespace {
struct KernelRef {
  std::string arg, file, kernel;
};

/// One loaded side: the kernel to check and what keeps it alive.
struct Input {
  KernelRef ref;
  // The module is owned here or by the other side's Input (same file).
  std::unique_ptr<Module> ownedLLVM;
  Module *llvmModule = nullptr;
  Function *function = nullptr;
  mlir::OwningOpRef<mlir::ModuleOp> ownedMLIR;
  mlir::ModuleOp mlirModule;
  kv::KernelOp kernel;
};

/// A kernel a name can refer to.
struct Candidate {
  std::string symbol, source;
};
} // namespace

/// Split FILE:KERNEL. Paths and kernel names (ns::foo) may contain ':', so
/// prefer the rightmost split whose FILE exists, else the last ':' that is
/// not part of a '::'.
static bool splitArg(StringRef arg, KernelRef &ref, std::string &err) {
  ref.arg = arg.str();
  std::optional<size_t> split, fallback;
  for (size_t i = arg.size(); i-- > 0;) {
    if (arg[i] != ':' || i + 1 == arg.size() || i == 0)
      continue;
    if (sys::fs::exists(arg.take_front(i))) {
      split = i;
      break;
    }
    bool inPair = arg[i + 1] == ':' || arg[i - 1] == ':';
    if (!fallback && !inPair)
      fallback = i;
  }
  if (!split)
    split = fallback;
  if (!split) {
    err = "expected FILE:KERNEL, got '" + arg.str() + "'";
    return false;
  }
  ref.file = arg.take_front(*split).str();
  ref.kernel = arg.drop_front(*split + 1).str();
  if (!sys::fs::exists(ref.file)) {
    err = ref.file + ": no such file";
    return false;
  }
  if (sys::fs::is_directory(ref.file)) {
    err = ref.file + ": is a directory";
    return false;
  }
  return true;
}

/// Remove every balanced <...> group: "ns::foo<16>" -> "ns::foo".
static std::string stripTemplateArgs(StringRef s) {
  std::string out;
  int depth = 0;
  for (char c : s) {
    if (c == '<')
      ++depth;
    else if (c == '>' && depth > 0)
      --depth;
    else if (depth == 0)
      out += c;
  }
  return out;
}

/// "ns::foo<16>" -> "foo<16>".
static StringRef unqualified(StringRef s) {
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '<')
      ++depth;
    else if (s[i] == '>' && depth > 0)
      --depth;
    else if (depth == 0 && s[i] == ':' && s[i + 1] == ':')
      start = i + 2;
  }
  return s.drop_front(start);
}

static std::string describeCandidates(ArrayRef<const Candidate *> cands,
                                      ArrayRef<Candidate> all) {
  std::string s;
  for (const Candidate *c : cands) {
    if (!s.empty())
      s += ", ";
    s += c->source;
    bool dup = llvm::count_if(all, [&](const Candidate &o) {
                 return o.source == c->source;
               }) > 1;
    if (dup && c->symbol != c->source)
      s += " (" + c->symbol + ")";
  }
  return s;
}

/// Pick the kernel \p want names: exact symbol or source name first, then
/// the source name without template arguments or namespaces, if unique.
static std::optional<size_t> pickKernel(ArrayRef<Candidate> cands,
                                        const KernelRef &ref,
                                        std::string &err) {
  StringRef want = ref.kernel;
  // Tier 0: exact symbol or source name; tier 1: without template
  // arguments or namespaces.
  auto matches = [&](const Candidate &c, int tier) {
    if (tier == 0)
      return c.symbol == want || c.source == want;
    std::string stripped = stripTemplateArgs(c.source);
    return stripped == want || unqualified(c.source) == want ||
           unqualified(stripped) == want;
  };
  for (int tier : {0, 1}) {
    SmallVector<size_t> hits;
    for (size_t i = 0; i < cands.size(); ++i)
      if (matches(cands[i], tier))
        hits.push_back(i);
    if (hits.size() == 1)
      return hits.front();
    if (hits.size() > 1) {
      std::string list;
      for (size_t i : hits) {
        if (!list.empty())
          list += ", ";
        list += cands[i].source;
        if (cands[i].symbol != cands[i].source)
          list += " (" + cands[i].symbol + ")";
      }
      err = ref.file + ": kernel name '" + want.str() +
            "' is ambiguous; it matches: " + list +
            "; give the full or mangled name";
      return std::nullopt;
    }
  }
  SmallVector<const Candidate *> all;
  for (const Candidate &c : cands)
    all.push_back(&c);
  err = ref.file + ": no kernel named '" + want.str() + "'; ";
  if (cands.empty())
    err += "the file has no kernels";
  else
    err += "kernels in this file: " + describeCandidates(all, cands);
  return std::nullopt;
}

static std::string readFile(StringRef path) {
  auto buf = MemoryBuffer::getFile(path);
  return buf ? (*buf)->getBuffer().str() : std::string();
}

/// Whether .cu inputs are compiled against a CUDA SDK, and which.
static std::optional<std::string> cudaSDK() {
  if (CudaPath.getNumOccurrences())
    return CudaPath.empty() ? std::nullopt
                            : std::optional<std::string>(CudaPath);
  if (sys::fs::exists("/usr/local/cuda/include/cuda_runtime.h"))
    return std::string("/usr/local/cuda");
  return std::nullopt;
}

/// Compile a .cu file to LLVM IR at the start of the pipeline.
static bool compileCuda(StringRef file, std::string &llPath,
                        std::string &err) {
  std::string errPath;
  if (!Temps.create("kvalidate", "ll", llPath, err) ||
      !Temps.create("kvalidate-clang", "txt", errPath, err))
    return false;
  std::vector<std::string> args = {KV_CLANG,
                                   "-x",
                                   "cuda",
                                   "--cuda-device-only",
                                   "--cuda-gpu-arch=sm_80",
                                   "-O2",
                                   "-Xclang",
                                   "-disable-llvm-passes",
                                   "-S",
                                   "-emit-llvm",
                                   "-gline-tables-only",
                                   "-fno-discard-value-names",
                                   "-Wno-unknown-cuda-version"};
  if (std::optional<std::string> sdk = cudaSDK()) {
    args.push_back("--cuda-path=" + *sdk);
  } else {
    static std::string hdrPath;
    if (hdrPath.empty()) {
      if (!Temps.create("kvalidate-cuda", "h", hdrPath, err))
        return false;
      std::error_code ec;
      raw_fd_ostream os(hdrPath, ec);
      if (!ec) {
        os << KVCudaHeader;
        os.close();
        ec = os.error();
      }
      if (ec) {
        err = "cannot write " + hdrPath + ": " + ec.message();
        hdrPath.clear();
        return false;
      }
    }
    args.insert(args.end(), {"--cuda-path=/nonexistent", "-nocudainc",
                             "-nocudalib", "--cuda-feature=+ptx80",
                             "-include", hdrPath});
  }
  for (const std::string &dir : IncludeDirs)
    args.push_back("-I" + dir);
  for (const std::string &def : Defines)
    args.push_back("-D" + def);
  args.insert(args.end(), {"-o", llPath, file.str()});

  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(errPath),
                                          StringRef(errPath)};
  std::string execErr;
  int rc = sys::ExecuteAndWait(KV_CLANG, argRefs, std::nullopt, redirects,
                               /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                               &execErr);
  if (rc == 0)
    return true;
  std::string diags = StringRef(readFile(errPath)).rtrim().str();
  err = "cannot compile " + file.str() + ":";
  if (rc < 0)
    err += " cannot run " KV_CLANG ": " + execErr;
  else if (diags.empty())
    err += " clang exited with status " + std::to_string(rc);
  else
    err += "\n" + diags;
  return false;
}

/// Load an LLVM input (.cu, .ll, .bc) and find its kernel.
/// Compile or parse an LLVM input into \p in.ownedLLVM.
static bool readLLVM(Input &in, LLVMContext &llvmCtx, std::string &err) {
  std::string irPath = in.ref.file;
  if (sys::path::extension(in.ref.file).lower() == ".cu" &&
      !compileCuda(in.ref.file, irPath, err))
    return false;
  SMDiagnostic diag;
  in.ownedLLVM = parseIRFile(irPath, diag, llvmCtx);
  if (!in.ownedLLVM) {
    std::string msg;
    raw_string_ostream os(msg);
    diag.print("", os, /*ShowColors=*/false);
    err = "cannot read " + in.ref.file + ": " + StringRef(msg).trim().str();
    return false;
  }
  std::string verifyMsg;
  raw_string_ostream vos(verifyMsg);
  if (verifyModule(*in.ownedLLVM, &vos)) {
    err = in.ref.file + ": invalid LLVM IR: " +
          StringRef(verifyMsg).trim().str();
    return false;
  }
  in.llvmModule = in.ownedLLVM.get();
  return true;
}

/// Load an LLVM input (.cu, .ll, .bc) and find its kernel.
static bool loadLLVM(Input &in, LLVMContext &llvmCtx, std::string &err) {
  if (!in.llvmModule && !readLLVM(in, llvmCtx, err))
    return false;
  SmallVector<Function *> fns;
  SmallVector<Candidate> cands;
  for (Function &f : *in.llvmModule) {
    if (!kv::isKernel(f) || f.isDeclaration())
      continue;
    fns.push_back(&f);
    cands.push_back({f.getName().str(), kv::sourceName(f.getName())});
  }
  std::optional<size_t> idx = pickKernel(cands, in.ref, err);
  if (!idx)
    return false;
  in.function = fns[*idx];
  return true;
}

/// Parse a kv module into \p in.ownedMLIR.
static bool readMLIR(Input &in, mlir::MLIRContext &ctx, std::string &err) {
  auto buf = MemoryBuffer::getFile(in.ref.file);
  if (!buf) {
    err = "cannot read " + in.ref.file + ": " + buf.getError().message();
    return false;
  }
  llvm::SourceMgr sm;
  sm.AddNewSourceBuffer(std::move(*buf), SMLoc());
  std::string msg;
  raw_string_ostream os(msg);
  {
    mlir::SourceMgrDiagnosticHandler handler(sm, &ctx, os);
    in.ownedMLIR =
        mlir::parseSourceFile<mlir::ModuleOp>(sm, mlir::ParserConfig(&ctx));
  }
  if (!in.ownedMLIR) {
    err = "cannot parse " + in.ref.file + ":\n" + StringRef(msg).rtrim().str();
    return false;
  }
  in.mlirModule = *in.ownedMLIR;
  return true;
}

/// Load a kv module (.mlir) and find its kernel.
static bool loadMLIR(Input &in, mlir::MLIRContext &ctx, std::string &err) {
  if (!in.mlirModule && !readMLIR(in, ctx, err))
    return false;
  SmallVector<kv::KernelOp> kernels;
  SmallVector<Candidate> cands;
  in.mlirModule.walk([&](kv::KernelOp k) {
    kernels.push_back(k);
    cands.push_back({k.getSymName().str(), k.getDisplayName().str()});
  });
  std::optional<size_t> idx = pickKernel(cands, in.ref, err);
  if (!idx)
    return false;
  in.kernel = kernels[*idx];
  return true;
}

/// Load \p in; reuse \p prev's module when both name the same file.
static bool loadInput(Input &in, const Input *prev, LLVMContext &llvmCtx,
                      mlir::MLIRContext &ctx, std::string &err) {
  if (prev && prev->ref.file == in.ref.file) {
    in.llvmModule = prev->llvmModule;
    in.mlirModule = prev->mlirModule;
  }
  std::string ext = sys::path::extension(in.ref.file).lower();
  if (ext == ".cu" || ext == ".ll" || ext == ".bc")
    return loadLLVM(in, llvmCtx, err);
  if (ext == ".mlir")
    return loadMLIR(in, ctx, err);
  err = in.ref.file + ": unknown input kind '" + ext +
        "' (expected .cu, .ll, .bc or .mlir)";
  return false;
}

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

static int64_t roundMs(double ms) { return (int64_t)std::llround(ms); }

/// How a not-equivalent verdict was found when not by the proof itself
/// (--hunt).
static std::string FoundBy;

static bool hasReason(kv::Verdict v) {
  return v != kv::Verdict::Equivalent && v != kv::Verdict::NotEquivalent;
}

static void printHuman(raw_ostream &os, const kv::CheckResult &r) {
  os << "verdict: " << kv::verdictName(r.verdict) << "\n";
  if (hasReason(r.verdict))
    os << "  reason: " << r.reason << "\n";
  if (!FoundBy.empty())
    os << "  found by: " << FoundBy << "\n";
  if (!r.method.empty())
    os << "  proof: " << r.method << "\n";
  os << "  before: " << BeforeArg << "\n";
  os << "  after:  " << AfterArg << "\n";
  if (r.assumptions.empty()) {
    os << "  assumptions: none\n";
  } else {
    os << "  assumptions:\n";
    for (const std::string &a : r.assumptions)
      os << "    - " << a << "\n";
  }
  if (const std::optional<kv::Counterexample> &cex = r.counterexample) {
    os << "  counterexample (" << (cex->replayed ? "replayed" : "not replayed")
       << "):\n";
    auto dims = [&](const uint64_t d[3]) {
      os << "(" << d[0] << ", " << d[1] << ", " << d[2] << ")\n";
    };
    os << "    gridDim  = ";
    dims(cex->gridDim);
    os << "    blockDim = ";
    dims(cex->blockDim);
    if (!cex->scalars.empty()) {
      os << "    scalars: ";
      ListSeparator sep;
      for (const auto &[name, v] : cex->scalars)
        os << sep << name << " = " << v;
      os << "\n";
    }
    // Every input cell the kernels read is in --json; a few are shown.
    unsigned total = 0;
    for (const auto &[array, cells] : cex->arrays)
      for (const auto &[index, v] : cells)
        if (++total <= 16)
          os << "    input " << array << "[" << index << "] = " << v << "\n";
    if (total > 16)
      os << "    (" << total - 16 << " more input cells; --json lists all)\n";
    os << "    mismatch: " << cex->mismatchArray << "[" << cex->mismatchIndex
       << "]: before = " << cex->before << ", after = " << cex->after << "\n";
  }
  os << "  time: " << roundMs(r.timeMs) << " ms\n";
}

/// The --unroll bound the reported verdict's kernels were lowered with
/// (--unroll, or --hunt's when the bounded search found the verdict).
static unsigned LoweredUnroll = 0;

static json::Value toJSON(const kv::CheckResult &r) {
  json::Array assumptions;
  for (const std::string &a : r.assumptions)
    assumptions.push_back(a);
  json::Object obj{{"verdict", kv::verdictName(r.verdict)},
                   {"before", BeforeArg.getValue()},
                   {"after", AfterArg.getValue()},
                   {"assumptions", std::move(assumptions)},
                   {"time_ms", roundMs(r.timeMs)}};
  if (hasReason(r.verdict))
    obj["reason"] = r.reason;
  if (!FoundBy.empty())
    obj["found_by"] = FoundBy;
  if (!r.method.empty())
    obj["proof"] = r.method;
  if (const std::optional<kv::Counterexample> &cex = r.counterexample) {
    // The bound the kernels were lowered with: `kvalidate replay` lowers
    // them the same way.
    if (LoweredUnroll)
      obj["unroll"] = (int64_t)LoweredUnroll;
    auto dims = [](const uint64_t d[3]) {
      return json::Array{(int64_t)d[0], (int64_t)d[1], (int64_t)d[2]};
    };
    json::Object scalars, arrays;
    for (const auto &[name, v] : cex->scalars)
      scalars[name] = v;
    for (const auto &[array, cells] : cex->arrays) {
      json::Object cellObj;
      for (const auto &[index, v] : cells)
        cellObj[std::to_string(index)] = v;
      arrays[array] = std::move(cellObj);
    }
    obj["counterexample"] = json::Object{
        {"gridDim", dims(cex->gridDim)},
        {"blockDim", dims(cex->blockDim)},
        {"scalars", std::move(scalars)},
        {"arrays", std::move(arrays)},
        {"mismatch", json::Object{{"array", cex->mismatchArray},
                                  {"index", cex->mismatchIndex},
                                  {"before", cex->before},
                                  {"after", cex->after}}},
        {"replayed", cex->replayed}};
  }
  if (const std::optional<kv::Defect> &d = r.defect) {
    auto dims = [](const uint64_t v[3]) {
      return json::Array{(int64_t)v[0], (int64_t)v[1], (int64_t)v[2]};
    };
    json::Object scalars;
    for (const auto &[name, v] : d->scalars)
      scalars[name] = v;
    json::Array sites;
    for (const kv::Defect::Site &s : d->sites)
      sites.push_back(json::Object{{"block", dims(s.block)},
                                   {"thread", dims(s.thread)},
                                   {"access", s.access},
                                   {"location", s.location}});
    json::Object defect{{"kernel", d->kernel},
                        {"kind", d->kind},
                        {"gridDim", dims(d->gridDim)},
                        {"blockDim", dims(d->blockDim)},
                        {"scalars", std::move(scalars)},
                        {"threads", std::move(sites)}};
    if (!d->array.empty()) {
      defect["array"] = d->array;
      defect["index"] = d->index;
    }
    obj["defect"] = std::move(defect);
  }
  return obj;
}

/// Set by whoever prints the verdict first: the main thread or the
/// watchdog (see startWatchdog).
static std::atomic<bool> Reported{false};

static void report(const kv::CheckResult &r) {
  if (Reported.exchange(true))
    return; // the watchdog has answered and is exiting
  if (Json)
    outs() << toJSON(r) << "\n";
  else
    printHuman(outs(), r);
  outs().flush();
}

using Clock = std::chrono::steady_clock;
static Clock::time_point StartTime;

static double elapsedMs() {
  return std::chrono::duration<double, std::milli>(Clock::now() - StartTime)
      .count();
}

/// The solver is asked to stop at the time budget, but Z3 does not check
/// its interrupt everywhere (quantifier instantiation, some tactics): past
/// the budget and a grace period, answer `unknown` and exit, so that a CI
/// job gated on kvalidate always ends.
static void startWatchdog(unsigned timeoutSecs) {
  unsigned limit = timeoutSecs + std::max(30u, timeoutSecs / 4);
  std::thread([limit, timeoutSecs] {
    std::this_thread::sleep_for(std::chrono::seconds(limit));
    kv::CheckResult r;
    r.verdict = kv::Verdict::Unknown;
    r.reason = "no verdict within " + std::to_string(limit) +
               " s: the solver did not stop at the time budget (--timeout=" +
               std::to_string(timeoutSecs) + ")";
    r.timeMs = elapsedMs();
    if (Reported.load())
      return;
    report(r);
    std::_Exit(kv::exitCode(kv::Verdict::Unknown));
  }).detach();
}

/// The bounded search's plan: whether lowering the pair with loops unrolled
/// \p bound times cuts a loop (a `kv.assume {bound}`; only then can the
/// search see more than the proof did), and the small domains it gives the
/// before kernel's integer scalars (0..32), so that loops whose trip count
/// they fix split into cases, each unrolled exactly: a barrier loop cut at
/// the bound would leave a barrier a whole block may skip.
static std::optional<std::vector<std::string>>
planHunt(const kv::LowerPairFn &lowerPair, unsigned bound) {
  unsigned saved = LoweredUnroll;
  LoweredUnroll = bound;
  std::vector<std::string> splitOn;
  kv::KernelOp signature;
  kv::CheckResult failure;
  std::optional<kv::LoweredPair> pair =
      lowerPair({}, /*reportSplit=*/false, splitOn, signature, failure);
  LoweredUnroll = saved;
  if (!pair)
    return std::nullopt;
  bool cut = false;
  for (kv::KernelOp k : {pair->before, pair->after})
    k.walk([&](kv::AssumeOp a) {
      if (a->hasAttr("bound"))
        cut = true;
    });
  std::vector<std::string> domains;
  kv::KernelOp b = pair->before;
  for (mlir::BlockArgument a : b.getBlock().getArguments()) {
    if (!isa<mlir::IntegerType>(a.getType()))
      continue;
    std::string name = b.getArgName(a.getArgNumber()).str();
    domains.push_back(b.isUnsignedParam(name)
                          ? name + " <= 32"
                          : name + " >= 0 && " + name + " <= 32");
  }
  pair->before.erase();
  pair->after.erase();
  if (!cut)
    return std::nullopt;
  return domains;
}

/// The verdict after the bounded search \p hunt (with the scalar domains
/// \p domains) that followed the undecided \p proof: a replayed
/// counterexample of the search settles it; anything else leaves the
/// proof's verdict, with what the search saw.
static kv::CheckResult mergeHunt(kv::CheckResult proof, kv::CheckResult hunt,
                                 unsigned bound,
                                 const std::vector<std::string> &domains) {
  std::string search = "the bounded search (--hunt) with loops unrolled " +
                       std::to_string(bound) + " times";
  if (!domains.empty())
    search += " and " + join(domains, ", ");
  if (hunt.verdict == kv::Verdict::NotEquivalent && hunt.counterexample &&
      hunt.counterexample->replayed) {
    // The counterexample satisfies the search's domains and bound: they are
    // not assumptions of the verdict.
    llvm::erase_if(hunt.assumptions, [&](const std::string &a) {
      return StringRef(a).starts_with("bounded: loops with a symbolic") ||
             llvm::any_of(domains, [&](const std::string &d) {
               return a == d + " (--assume)";
             });
    });
    FoundBy = search + ", after the proof ended " +
              std::string(kv::verdictName(proof.verdict)) + ": " + proof.reason;
    hunt.timeMs += proof.timeMs;
    return hunt;
  }
  if (hunt.verdict == kv::Verdict::EquivalentUpToBound ||
      hunt.verdict == kv::Verdict::Equivalent)
    proof.reason += "; " + search + " found no counterexample";
  else
    proof.reason += "; " + search + " ended " +
                    std::string(kv::verdictName(hunt.verdict)) + ": " +
                    hunt.reason;
  proof.timeMs += hunt.timeMs;
  return proof;
}

/// A usage or input error: message on stderr, and the JSON object with
/// --json. Returns the exit status.
static int fail(const std::string &msg) {
  errs() << "kvalidate: error: " << msg << "\n";
  if (Json) {
    kv::CheckResult r;
    r.verdict = kv::Verdict::Error;
    r.reason = msg;
    r.timeMs = elapsedMs();
    report(r);
  }
  return kv::exitCode(kv::Verdict::Error);
}

/// Give \p k a symbol name not yet used in \p module.
static void uniquifySymbol(kv::KernelOp k, mlir::ModuleOp module) {
  std::string base = k.getSymName().str(), name = base;
  auto taken = [&](StringRef n) {
    for (kv::KernelOp o : module.getOps<kv::KernelOp>())
      if (o != k && o.getSymName() == n)
        return true;
    return false;
  };
  for (unsigned i = 1; taken(name); ++i)
    name = base + "." + std::to_string(i);
  if (name != base)
    k.setSymName(name);
}

//===----------------------------------------------------------------------===//
// kvalidate replay CEX.json
//===----------------------------------------------------------------------===//

/// The counterexample of a saved --json verdict.
struct SavedCex {
  kv::LaunchConfig cfg;
  std::map<std::string, int64_t> scalars;
  std::map<std::string, std::map<uint64_t, int64_t>> arrays;
};

static bool readSavedCex(StringRef path, SavedCex &out, std::string &before,
                         std::string &after, std::string &err) {
  auto buf = MemoryBuffer::getFile(path);
  if (!buf) {
    err = "cannot read '" + path.str() + "': " + buf.getError().message();
    return false;
  }
  Expected<json::Value> v = json::parse((*buf)->getBuffer());
  if (!v) {
    err = path.str() + ": not JSON: " + toString(v.takeError());
    return false;
  }
  const json::Object *o = v->getAsObject();
  const json::Object *c = o ? o->getObject("counterexample") : nullptr;
  if (!c || !o->getString("before") || !o->getString("after")) {
    err = path.str() + ": expected the JSON object of a not-equivalent "
                       "verdict (kvalidate --json), with before, after and "
                       "counterexample";
    return false;
  }
  before = o->getString("before")->str();
  after = o->getString("after")->str();
  if (std::optional<int64_t> u = o->getInteger("unroll");
      u && *u > 0 && !Unroll.getNumOccurrences())
    Unroll.setValue((unsigned)*u);
  for (auto [key, dst] : {std::pair{"gridDim", out.cfg.grid},
                          {"blockDim", out.cfg.block}}) {
    const json::Array *a = c->getArray(key);
    if (!a || a->size() != 3) {
      err = path.str() + ": counterexample." + key + " must be [x, y, z]";
      return false;
    }
    for (int i = 0; i < 3; ++i)
      dst[i] = (*a)[i].getAsInteger().value_or(1);
  }
  if (const json::Object *sc = c->getObject("scalars"))
    for (auto &[name, val] : *sc)
      out.scalars[name.str()] = val.getAsInteger().value_or(0);
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

/// Run both kernels on the saved launch and inputs (cells not listed and
/// uninitialized shared memory are 0) and compare every global cell either
/// writes. Exit 1 when they differ, 0 when they agree.
static int replaySaved(kv::KernelOp before, kv::KernelOp after,
                       const SavedCex &cex, unsigned bits) {
  auto inputsFor = [&](kv::KernelOp k) {
    kv::ExecInputs in;
    in.bits = bits;
    in.scalar = [&, k](unsigned a) mutable {
      mlir::Type t = k.getBlock().getArgument(a).getType();
      unsigned w = kv::modelWidth(t.getIntOrFloatBitWidth(), bits);
      auto it = cex.scalars.find(before.getArgName(a).str());
      return APInt(w, it == cex.scalars.end() ? 0 : it->second, true);
    };
    in.initial = [&, k](unsigned a, uint64_t idx) mutable {
      mlir::Type et =
          kv::getArrayElementType(k.getBlock().getArgument(a).getType());
      unsigned w = kv::modelWidth(et.getIntOrFloatBitWidth(), bits);
      auto arr = cex.arrays.find(before.getArgName(a).str());
      if (arr != cex.arrays.end()) {
        auto it = arr->second.find(idx);
        if (it != arr->second.end())
          return APInt(w, it->second, true);
      }
      return APInt(w, 0);
    };
    in.sharedInitial = [&, k](unsigned a, const uint64_t *, uint64_t) mutable {
      mlir::Type et =
          kv::getArrayElementType(k.getBlock().getArgument(a).getType());
      return APInt(kv::modelWidth(et.getIntOrFloatBitWidth(), bits), 0);
    };
    return in;
  };
  kv::ExecResult rb = kv::execute(before, cex.cfg, inputsFor(before));
  kv::ExecResult ra = kv::execute(after, cex.cfg, inputsFor(after));
  if (!rb.ok || !ra.ok) {
    errs() << "kvalidate: error: cannot replay: "
           << (!rb.ok ? rb.error : ra.error) << "\n";
    return kv::exitCode(kv::Verdict::Error);
  }
  if (rb.assumeViolated)
    outs() << "replay: note: the input violates a __builtin_assume (or the "
              "no-overflow precondition) of the before kernel\n";
  unsigned differ = 0, cells = 0;
  std::set<std::pair<unsigned, uint64_t>> keys;
  for (kv::ExecResult *r : {&rb, &ra})
    for (auto &[arg, m] : r->written)
      for (auto &[idx, v] : m)
        keys.insert({arg, idx});
  for (auto [arg, idx] : keys) {
    ++cells;
    auto get = [&](kv::ExecResult &r, kv::KernelOp k) -> std::string {
      auto it = r.written[arg].find(idx);
      if (it == r.written[arg].end())
        return "unchanged";
      return toString(it->second, 10, true);
    };
    std::string b = get(rb, before), a = get(ra, after);
    if (b == a)
      continue;
    if (differ++ < 16)
      outs() << "replay: " << before.getArgName(arg) << "[" << (int64_t)idx
             << "]: before = " << b << ", after = " << a << "\n";
  }
  outs() << "replay: " << (differ ? "the kernels differ" : "the kernels agree")
         << " (" << differ << " of " << cells << " written cells differ)\n";
  return differ ? kv::exitCode(kv::Verdict::NotEquivalent) : 0;
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

int main(int argc, char **argv) {
  InitLLVM x(argc, argv);
  StartTime = Clock::now();
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "kvalidate " << KVVersion << " (LLVM/MLIR " LLVM_VERSION_STRING
       << ", clang " KV_CLANG ")\n";
  });
  cl::HideUnrelatedOptions(KVCategory);

  std::vector<std::string> renamed;
  renamed.reserve(argc); // the pointers taken below stay valid
  std::vector<char *> args(argv, argv + argc);
  for (char *&a : args) {
    StringRef arg(a);
    for (StringRef p : {"--threads", "-threads"})
      if (arg == p || arg.starts_with((p + "=").str())) {
        renamed.push_back("--baseline-threads" + arg.substr(p.size()).str());
        a = renamed.back().data();
        break;
      }
  }
  std::string clErrors;
  raw_string_ostream clErrs(clErrors);
  if (!cl::ParseCommandLineOptions((int)args.size(), args.data(), Overview,
                                   &clErrs)) {
    // cl prefixes its messages with the program name; reword them as ours.
    if (!Json)
      for (int i = 1; i < argc; ++i)
        if (StringRef(argv[i]) == "--json" || StringRef(argv[i]) == "-json")
          Json = true;
    SmallVector<StringRef> lines;
    StringRef(clErrors).trim().split(lines, '\n');
    std::string msg;
    for (StringRef line : lines) {
      line = line.trim();
      StringRef prog = sys::path::filename(argv[0]);
      if (line.consume_front(prog) || line.consume_front(argv[0]))
        line = line.ltrim(": ").ltrim();
      // Drop cl's own pointers to --help; we add one.
      for (StringRef hint : {"Try:", "See:"})
        line = line.take_front(line.find(hint)).rtrim(" :");
      if (line.empty())
        continue;
      if (!msg.empty())
        msg += " ";
      msg += line.str();
    }
    return fail(msg + " (see --help)");
  }

  if (BeforeArg.empty() || AfterArg.empty())
    return fail("expected two arguments BEFORE AFTER, each FILE:KERNEL "
                "(see --help)");
  // kvalidate replay CEX.json: the kernels named in a saved verdict.
  std::optional<SavedCex> saved;
  if (BeforeArg == "replay") {
    std::string b, a, e;
    saved.emplace();
    if (!readSavedCex(AfterArg, *saved, b, a, e))
      return fail(e);
    BeforeArg.setValue(b);
    AfterArg.setValue(a);
  }
  unsigned bits = 0, timeout = 0;
  if (StringRef(Bits).trim().getAsInteger(10, bits) || bits < 4 || bits > 64)
    return fail("--bits must be an integer between 4 and 64, got '" +
                Bits + "'");
  if (Timeout.getNumOccurrences() &&
      StringRef(Timeout).trim().getAsInteger(10, timeout))
    return fail("--timeout must be a non-negative integer (seconds), got '" +
                Timeout + "'");
  if (timeout)
    startWatchdog(timeout);

  std::string err;
  KernelRef beforeRef, afterRef;
  if (!splitArg(BeforeArg, beforeRef, err) ||
      !splitArg(AfterArg, afterRef, err))
    return fail(err);

  // The contexts outlive the inputs and the module.
  mlir::DialectRegistry registry;
  kv::registerKVDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  LLVMContext llvmCtx;
  Input before, after;
  before.ref = std::move(beforeRef);
  after.ref = std::move(afterRef);
  if (!loadInput(before, nullptr, llvmCtx, ctx, err) ||
      !loadInput(after, &before, llvmCtx, ctx, err))
    return fail(err);

  // Both kernels go into one module.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  // Scalar parameters are matched by position; a case split names them as
  // the before kernel does.
  std::vector<std::string> beforeNames, afterNames;
  for (auto [in, names] : {std::pair{&before, &beforeNames}, {&after, &afterNames}}) {
    if (in->function)
      *names = kv::parameterNames(*in->function);
    else
      for (mlir::Attribute n : in->kernel.getArgNames())
        names->push_back(cast<mlir::StringAttr>(n).getValue().str());
  }
  auto translate = [](const std::string &name, ArrayRef<std::string> from,
                      ArrayRef<std::string> to) {
    for (size_t i = 0; i < from.size() && i < to.size(); ++i)
      if (from[i] == name)
        return to[i];
    return name; // a launch dimension
  };
  // Lowers both kernels with the values of a case split folded in.
  kv::LowerPairFn lowerPair =
      [&](const kv::Case &pins, bool reportSplit,
          std::vector<std::string> &splitOn, kv::KernelOp &signature,
          kv::CheckResult &failure) -> std::optional<kv::LoweredPair> {
    kv::LoweredPair out;
    for (auto [in, side, slot] :
         {std::tuple<Input *, const char *, kv::KernelOp *>{&before, "before",
                                                            &out.before},
          {&after, "after", &out.after}}) {
      if (!in->function) {
        *slot = cast<kv::KernelOp>(in->kernel->clone());
        module->push_back(*slot);
        uniquifySymbol(*slot, *module);
        continue;
      }
      kv::Unsupported why;
      // The before kernel is the reference: its undefined behaviour (signed
      // overflow) is excluded, as C++ excludes it.
      kv::LowerOptions lo;
      lo.assumeNoSignedOverflow = in == &before;
      lo.unrollBound = LoweredUnroll;
      lo.reportSplit = reportSplit;
      for (auto &[name, value] : pins)
        lo.pins[in == &before ? name
                              : translate(name, beforeNames, afterNames)] =
            value;
      mlir::FailureOr<kv::KernelOp> k =
          kv::lowerKernel(*in->function, *module, why, lo);
      if (failed(k)) {
        if (!why.splitOn.empty()) {
          // The before kernel's parameters name the cases.
          std::vector<std::string> names;
          for (const std::string &n : why.splitOn)
            names.push_back(in == &before
                                ? n
                                : translate(n, afterNames, beforeNames));
          kv::requestSplit(names, why.signature, out, splitOn, signature);
          return std::nullopt;
        }
        if (out.before)
          out.before.erase();
        failure.verdict = kv::Verdict::Unsupported;
        failure.reason = std::string(side) + " kernel: " + why.str();
        return std::nullopt;
      }
      *slot = *k;
      uniquifySymbol(*slot, *module);
    }
    return out;
  };

  LoweredUnroll = Unroll;
  if (EmitKV || saved) {
    // One model per kernel: loops whose trip count the assumptions fix to
    // one value are unrolled for it.
    std::vector<std::string> splitOn;
    kv::KernelOp signature;
    kv::CheckResult failure;
    kv::CheckOptions o;
    o.bits = bits;
    o.hugeGrids = HugeGrids;
    o.assumptions.assign(Assumes.begin(), Assumes.end());
    kv::Case pins;
    std::optional<kv::LoweredPair> pair;
    while (!(pair = lowerPair(pins, true, splitOn, signature, failure)) &&
           !splitOn.empty()) {
      std::string why;
      auto cases = kv::enumerateCases(signature, splitOn, pins, o, 1, why);
      signature.erase();
      if (!cases || cases->empty())
        break;
      pins = cases->front();
      splitOn.clear();
    }
    if (!pair && !splitOn.empty())
      pair = lowerPair(pins, false, splitOn, signature, failure);
    if (!pair) {
      failure.timeMs = elapsedMs();
      report(failure);
      return kv::exitCode(failure.verdict);
    }
    before.kernel = pair->before;
    after.kernel = pair->after;
  }

  if (EmitKV) {
    module->print(outs());
    outs().flush();
    return 0;
  }

  if (saved)
    return replaySaved(before.kernel, after.kernel, *saved, bits);

  // The baseline: a concrete launch, every thread modelled.
  std::optional<kv::LaunchConfig> fixed;
  auto dims = [&](StringRef text, uint64_t out[3], const char *what) {
    SmallVector<StringRef> parts;
    text.split(parts, ',');
    if (parts.empty() || parts.size() > 3)
      return false;
    for (size_t i = 0; i < parts.size(); ++i)
      if (parts[i].trim().getAsInteger(10, out[i]) || out[i] == 0)
        return false;
    (void)what;
    return true;
  };
  if (Threads.getNumOccurrences() || BlockDims.getNumOccurrences() ||
      GridDims.getNumOccurrences()) {
    fixed.emplace();
    if (Threads.getNumOccurrences() && BlockDims.getNumOccurrences())
      return fail("--threads and --block are alternatives");
    if (Threads.getNumOccurrences() &&
        !dims(Threads, fixed->block, "threads"))
      return fail("--threads must be a positive integer, got '" + Threads +
                  "'");
    if (BlockDims.getNumOccurrences() &&
        !dims(BlockDims, fixed->block, "block"))
      return fail("--block must be X[,Y[,Z]] with positive integers, got '" +
                  BlockDims + "'");
    if (GridDims.getNumOccurrences() && !dims(GridDims, fixed->grid, "grid"))
      return fail("--grid must be X[,Y[,Z]] with positive integers, got '" +
                  GridDims + "'");
    uint64_t n = 1;
    for (int i = 0; i < 3; ++i)
      n *= fixed->block[i] * fixed->grid[i];
    if (fixed->block[0] * fixed->block[1] * fixed->block[2] > 1024 ||
        n > 65536)
      return fail("baseline launch too large: at most 1024 threads per block "
                  "and 65536 in all");
  }

  kv::CheckOptions opts;
  opts.bits = bits;
  opts.timeoutSecs = timeout;
  opts.hugeGrids = HugeGrids;
  opts.assumptions.assign(Assumes.begin(), Assumes.end());
  // A concrete launch fixes the dimensions for the lowering too.
  kv::Case launch;
  if (fixed)
    for (int i = 0; i < 3; ++i) {
      std::string ax = std::string(".") + "xyz"[i];
      launch.push_back({"blockDim" + ax, (int64_t)fixed->block[i]});
      launch.push_back({"gridDim" + ax, (int64_t)fixed->grid[i]});
    }
  auto check = [&](kv::KernelOp b, kv::KernelOp a, const kv::CheckOptions &o) {
    return fixed ? kv::checkFixedLaunch(b, a, o, *fixed)
                 : kv::checkEquivalence(b, a, o);
  };
  // The bounded search after an undecided proof applies where lowering
  // with its bound cuts a loop; it gets a share of the budget, kept back
  // from the proof.
  std::optional<std::vector<std::string>> plan;
  if (Hunt && !Unroll && !fixed)
    plan = planHunt(lowerPair, Hunt);
  bool hunt = plan.has_value();
  unsigned huntSecs = 0;
  if (hunt) {
    huntSecs = timeout ? std::clamp(timeout / 4, 5u, 60u) : 60;
    if (timeout && timeout <= huntSecs)
      hunt = false; // a budget this small goes to the proof
    else if (timeout)
      opts.timeoutSecs = timeout - huntSecs;
  }
  Clock::time_point checkStart = Clock::now();
  kv::CheckResult r =
      kv::checkByCases(lowerPair, opts, MaxCases, check, launch);
  if (hunt && (r.verdict == kv::Verdict::Unknown ||
               r.verdict == kv::Verdict::Unsupported)) {
    kv::CheckOptions ho = opts;
    if (timeout) {
      auto used = std::chrono::duration_cast<std::chrono::seconds>(
                      Clock::now() - checkStart)
                      .count();
      ho.timeoutSecs = std::max<long long>(1, (long long)timeout - used);
    } else {
      ho.timeoutSecs = huntSecs;
    }
    ho.assumptions.insert(ho.assumptions.end(), plan->begin(), plan->end());
    LoweredUnroll = Hunt;
    kv::CheckResult h = kv::checkByCases(lowerPair, ho, MaxCases, check);
    r = mergeHunt(std::move(r), std::move(h), Hunt, *plan);
    if (r.verdict != kv::Verdict::NotEquivalent)
      LoweredUnroll = 0;
  }
  if (r.verdict == kv::Verdict::Error)
    errs() << "kvalidate: error: " << r.reason << "\n";
  report(r);
  return kv::exitCode(r.verdict);
}
