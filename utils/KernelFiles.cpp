//===- KernelFiles.cpp - the command line's input files -------------------===//

#include "utils/KernelFiles.h"
#include "passes/lower/ImportGPU.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Debug.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Verifier.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Signals.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#ifndef KV_CLANG
#define KV_CLANG "/usr/lib/llvm-22/bin/clang++"
#endif

using namespace llvm;
using namespace kv;

//===----------------------------------------------------------------------===//
// Temporary files
//===----------------------------------------------------------------------===//

namespace {
/// Temporary files, removed as soon as they are read, at exit and on
/// signals. kvalidate leaves with _Exit (no static destructors), so it
/// calls kv::removeTemporaryFiles() itself; the watchdog may do so from
/// its own thread, hence the lock.
struct TempFiles {
  std::mutex lock;
  std::vector<std::string> paths;
  ~TempFiles() { removeAll(); }
  /// Create an empty temporary file; returns false and sets \p err on error.
  bool create(StringRef prefix, StringRef suffix, std::string &path,
              std::string &err) {
    SmallString<128> p;
    if (std::error_code ec = sys::fs::createTemporaryFile(prefix, suffix, p)) {
      err = "cannot create a temporary file: " + ec.message();
      return false;
    }
    path = std::string(p);
    std::lock_guard<std::mutex> g(lock);
    paths.push_back(path);
    sys::RemoveFileOnSignal(path);
    return true;
  }
  void remove(const std::string &path) {
    std::lock_guard<std::mutex> g(lock);
    auto it = llvm::find(paths, path);
    if (it == paths.end())
      return;
    (void)sys::fs::remove(path);
    sys::DontRemoveFileOnSignal(path);
    paths.erase(it);
  }
  void removeAll() {
    std::lock_guard<std::mutex> g(lock);
    for (const std::string &p : paths) {
      (void)sys::fs::remove(p);
      sys::DontRemoveFileOnSignal(p);
    }
    paths.clear();
  }
};
TempFiles Temps;
} // namespace

void kv::removeTemporaryFiles() { Temps.removeAll(); }

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

/// Prepended to .cu inputs when there is no CUDA SDK (utils/kv_cuda.h).
#include "KVCudaHeader.inc"

namespace {
/// A kernel a name can refer to.
struct Candidate {
  std::string symbol, source;
};
} // namespace

/// Split FILE:KERNEL. Paths and kernel names (ns::foo) may contain ':', so
/// prefer the rightmost split whose FILE exists, else the last ':' that is
/// not part of a '::'.
bool kv::splitArg(StringRef arg, KernelRef &ref, std::string &err) {
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
static std::optional<size_t>
pickKernel(ArrayRef<Candidate> cands, const KernelRef &ref, std::string &err) {
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
static std::optional<std::string> cudaSDK(const CudaFlags &flags) {
  if (flags.cudaPath)
    return flags.cudaPath->empty() ? std::nullopt : flags.cudaPath;
  if (sys::fs::exists("/usr/local/cuda/include/cuda_runtime.h"))
    return std::string("/usr/local/cuda");
  return std::nullopt;
}

/// The SDK's headers (clang's CUDA runtime wrapper), precompiled once per
/// clang, SDK and flags into \p flags.cacheDir: parsing them is most of a
/// .cu compile (about 0.7 s of 0.8). Built into a temporary file and renamed
/// into place, so that concurrent runs never read a partial one. None (and
/// the compile parses the headers) when the cache is off or cannot be
/// written.
static std::optional<std::string>
sdkHeaderPCH(const std::vector<std::string> &args, StringRef sdk,
             const CudaFlags &flags) {
  if (flags.cacheDir.empty())
    return std::nullopt;
  // What the precompiled headers depend on: clang, the SDK's headers, and
  // every flag (-D and -I included: clang rejects a PCH whose macros
  // differ).
  std::string key;
  auto stamp = [&](StringRef path) {
    sys::fs::file_status st;
    if (sys::fs::status(path, st))
      return false;
    key += path.str() + ":" + std::to_string(st.getSize()) + ":" +
           std::to_string(sys::toTimeT(st.getLastModificationTime())) + "\n";
    return true;
  };
  if (!stamp(KV_CLANG) || !stamp((sdk + "/include/cuda_runtime.h").str()))
    return std::nullopt;
  stamp((sdk + "/include/cuda.h").str());
  for (const std::string &a : args)
    key += a + "\n";
  SmallString<128> pch(flags.cacheDir);
  sys::path::append(pch, "cuda-sdk-" + utohexstr(xxh3_64bits(key)) + ".pch");
  if (sys::fs::exists(pch))
    return pch.str().str();
  if (sys::fs::create_directories(flags.cacheDir))
    return std::nullopt;
  // An empty header: the compile of it includes the wrapper implicitly.
  // Created once and never truncated: every PCH records its modification
  // time, and clang rejects a PCH whose source changed since, so rewriting
  // it for one set of flags would make the PCHs of all others stale.
  SmallString<128> src(flags.cacheDir), tmp;
  sys::path::append(src, "empty.cuh");
  if (!sys::fs::exists(src)) {
    int fd;
    if (sys::fs::openFileForWrite(src, fd, sys::fs::CD_OpenAlways))
      return std::nullopt;
    (void)sys::Process::SafelyCloseFileDescriptor(fd);
  }
  if (sys::fs::createUniqueFile(pch + "-%%%%%%%%", tmp))
    return std::nullopt;
  std::vector<std::string> build = args;
  build.insert(build.end(), {"-S", "-Xclang", "-emit-pch", "-o",
                             tmp.str().str(), src.str().str()});
  SmallVector<StringRef> refs(build.begin(), build.end());
  std::optional<StringRef> quiet[] = {StringRef(""), StringRef(""),
                                      StringRef("")};
  int rc = sys::ExecuteAndWait(KV_CLANG, refs, std::nullopt, quiet);
  if (rc != 0 || sys::fs::rename(tmp, pch)) {
    (void)sys::fs::remove(tmp);
    return std::nullopt;
  }
  return pch.str().str();
}

/// Clang drops a __builtin_assume whose condition may have side effects
/// (any call: `sz == blockDim.x` reads blockDim through one) and says so
/// with -Wassume; the kernel's precondition is then not in the IR. The
/// user is told, since a verdict may hinge on it.
static void reportIgnoredAssumes(StringRef clangOutput) {
  SmallVector<StringRef> lines;
  clangOutput.split(lines, '\n');
  for (StringRef l : lines)
    if (l.contains("[-Wassume]"))
      errs() << "kvalidate: warning: " << l.split(": warning: ").first
             << ": clang ignores this __builtin_assume (its condition may "
                "have side effects), so it is no precondition of the check; "
                "`if (!(COND)) __builtin_unreachable();` states it\n";
}

/// Compile a .cu file to LLVM IR at the start of the pipeline.
static bool compileCuda(StringRef file, const CudaFlags &flags,
                        std::string &llPath, std::string &err) {
  std::string errPath;
  if (!Temps.create("kvalidate", "ll", llPath, err) ||
      !Temps.create("kvalidate-clang", "txt", errPath, err))
    return false;
  llvm::scope_exit dropErrors([&] { Temps.remove(errPath); });
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
  std::optional<std::string> sdk = cudaSDK(flags);
  if (sdk) {
    args.push_back("--cuda-path=" + *sdk);
    // CUDA 13 keeps libcu++ (which cooperative_groups.h includes) under
    // include/cccl, a directory nvcc searches and clang 22 does not.
    SmallString<128> cccl(*sdk);
    sys::path::append(cccl, "include", "cccl");
    if (sys::fs::is_directory(cccl))
      args.push_back("-isystem" + cccl.str().str());
  } else {
    static std::string hdrPath;
    if (hdrPath.empty()) {
      if (!Temps.create("kvalidate-cuda", "h", hdrPath, err))
        return false;
      std::error_code ec;
      raw_fd_ostream os(hdrPath, ec);
      if (!ec) {
        // Messages name the header as the project does, not the temporary
        // file (removed when kvalidate ends).
        os << "#line 1 \"kv_cuda.h\"\n" << KVCudaHeader;
        os.close();
        ec = os.error();
      }
      if (ec) {
        err = "cannot write " + hdrPath + ": " + ec.message();
        hdrPath.clear();
        return false;
      }
    }
    args.insert(args.end(),
                {"--cuda-path=/nonexistent", "-nocudainc", "-nocudalib",
                 "--cuda-feature=+ptx80", "-include", hdrPath});
  }
  for (const std::string &dir : flags.includeDirs)
    args.push_back("-I" + dir);
  for (const std::string &def : flags.defines)
    args.push_back("-D" + def);
  auto run = [&](const std::vector<std::string> &withPCH,
                 std::string &execErr) {
    std::vector<std::string> all = args;
    all.insert(all.end(), withPCH.begin(), withPCH.end());
    all.insert(all.end(), {"-o", llPath, file.str()});
    SmallVector<StringRef> argRefs(all.begin(), all.end());
    std::optional<StringRef> redirects[] = {StringRef(""), StringRef(errPath),
                                            StringRef(errPath)};
    return sys::ExecuteAndWait(KV_CLANG, argRefs, std::nullopt, redirects,
                               /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                               &execErr);
  };
  std::string execErr;
  // With the SDK's headers precompiled; any failure is retried without
  // them, so that a stale or rejected PCH costs time, never a verdict, and
  // the diagnostics shown are those of a plain compile.
  std::optional<std::string> pch =
      sdk ? sdkHeaderPCH(args, *sdk, flags) : std::nullopt;
  bool pchRejected = false;
  if (pch) {
    int rc = run({"-Xclang", "-include-pch", "-Xclang", *pch}, execErr);
    KV_DEBUG("compile", errs()
                            << "kvalidate: compile " << file << " with " << *pch
                            << ": " << (rc == 0 ? "ok" : "failed") << "\n");
    if (rc == 0) {
      reportIgnoredAssumes(readFile(errPath));
      return true;
    }
    // Clang names the PCH when it rejects it (a header changed since it
    // was built, or the file is not a PCH).
    pchRejected = StringRef(readFile(errPath)).contains(*pch);
  }
  int rc = run({}, execErr);
  KV_DEBUG("compile", errs() << "kvalidate: compile " << file
                             << " without precompiled headers: "
                             << (rc == 0 ? "ok" : "failed") << "\n");
  if (rc == 0) {
    // A rejected PCH is removed, so that the next run builds a fresh one
    // instead of paying for two compiles each time.
    if (pchRejected)
      (void)sys::fs::remove(*pch);
    reportIgnoredAssumes(readFile(errPath));
    return true;
  }
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

/// Compile or parse an LLVM input into \p in.ownedLLVM.
static bool readLLVM(Input &in, LLVMContext &llvmCtx, const CudaFlags &flags,
                     std::string &err) {
  std::string irPath = in.ref.file;
  if (sys::path::extension(in.ref.file).lower() == ".cu" &&
      !compileCuda(in.ref.file, flags, irPath, err))
    return false;
  SMDiagnostic diag;
  in.ownedLLVM = parseIRFile(irPath, diag, llvmCtx);
  if (irPath != in.ref.file)
    Temps.remove(irPath);
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
    err =
        in.ref.file + ": invalid LLVM IR: " + StringRef(verifyMsg).trim().str();
    return false;
  }
  in.llvmModule = in.ownedLLVM.get();
  return true;
}

/// Load an LLVM input (.cu, .ll, .bc) and find its kernel.
static bool loadLLVM(Input &in, LLVMContext &llvmCtx, const CudaFlags &flags,
                     std::string &err) {
  if (!in.llvmModule && !readLLVM(in, llvmCtx, flags, err))
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

/// Load a kv module (.mlir) and find its kernel; a module of gpu kernels
/// is lowered to LLVM IR (once per file) and read as one.
static bool loadMLIR(Input &in, LLVMContext &llvmCtx, mlir::MLIRContext &ctx,
                     const CudaFlags &flags, std::string &err) {
  if (!in.mlirModule && !readMLIR(in, ctx, err))
    return false;
  if (in.llvmModule || kv::hasGPUKernels(in.mlirModule)) {
    if (!in.llvmModule) {
      in.ownedLLVM = kv::gpuKernelsToLLVM(in.mlirModule, llvmCtx, err);
      if (!in.ownedLLVM) {
        err = in.ref.file + ": " + err;
        return false;
      }
      in.llvmModule = in.ownedLLVM.get();
      KV_DEBUG("import", errs() << "; " << in.ref.file << " as LLVM IR\n"
                                << *in.llvmModule);
    }
    return loadLLVM(in, llvmCtx, flags, err);
  }
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
bool kv::loadInput(Input &in, const Input *prev, LLVMContext &llvmCtx,
                   mlir::MLIRContext &ctx, const CudaFlags &flags,
                   std::string &err) {
  if (prev && prev->ref.file == in.ref.file) {
    in.llvmModule = prev->llvmModule;
    in.mlirModule = prev->mlirModule;
  }
  std::string ext = sys::path::extension(in.ref.file).lower();
  if (ext == ".cu" || ext == ".ll" || ext == ".bc")
    return loadLLVM(in, llvmCtx, flags, err);
  if (ext == ".mlir")
    return loadMLIR(in, llvmCtx, ctx, flags, err);
  err = in.ref.file + ": unknown input kind '" + ext +
        "' (expected .cu, .ll, .bc or .mlir)";
  return false;
}
