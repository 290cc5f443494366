//===- kvalidate.cpp - the kvalidate command line -------------------------===//
//
// kvalidate [options] BEFORE AFTER, each FILE:KERNEL. Loads both kernels
// (.cu compiled with clang, .ll/.bc LLVM IR, .mlir kv modules), lowers them
// into one kv module and asks the checker whether they are equivalent.
//
//===----------------------------------------------------------------------===//

#include "equiv/Driver.h"
#include "equiv/IRExecutor.h"
#include "equiv/Report.h"
#include "equiv/ReportFile.h"
#include "kv/Budget.h"
#include "kv/KVDialect.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Executor.h"
#include "smt-encode/Solver.h"
#include "smt-encode/Stats.h"
#include "utils/KernelFiles.h"
#include "utils/SavedCex.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "passes/lower/ImportGPU.h"
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
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace llvm;

#ifndef KV_CLANG
#define KV_CLANG "/usr/lib/llvm-22/bin/clang++"
#endif

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

// The option table shared with the pass plugin (equiv/Options.def).
#define KV_OPTION_PREFIX ""
#define KV_OPTION_PLUGIN 0
#define KV_OPTION_CATEGORY KVCategory
#include "equiv/OptionTable.inc"

static cl::opt<bool> Json("json", cl::desc("Print one JSON object on stdout"),
                          cl::cat(KVCategory));

// Registered as "phase-stats" and renamed "stats" in main(): LLVM's
// libraries own an option of that name (see --threads).
static cl::opt<bool>
    Stats("phase-stats",
          cl::desc("Print the time of each phase (lowering, run-first, "
                   "safety, lockstep, equivalence, solver, replay) on stderr"),
          cl::cat(KVCategory));

static cl::opt<std::string> ReportPath(
    "report",
    cl::desc("Also append the verdict to FILE: SARIF 2.1.0 if FILE ends in "
             ".sarif, else one JSON object per line"),
    cl::value_desc("FILE"), cl::cat(KVCategory));

static cl::list<std::string>
    IncludeDirs("I", cl::Prefix,
                cl::desc("Add DIR to the include path of .cu inputs"),
                cl::value_desc("DIR"), cl::cat(KVCategory));

static cl::list<std::string> Defines("D", cl::Prefix,
                                     cl::desc("Define a macro for .cu inputs"),
                                     cl::value_desc("NAME[=V]"),
                                     cl::cat(KVCategory));

static cl::opt<std::string> CudaPath(
    "cuda-path",
    cl::desc("CUDA SDK for .cu inputs (default: /usr/local/cuda if it has "
             "include/cuda_runtime.h, else none; an empty DIR forces none)"),
    cl::value_desc("DIR"), cl::cat(KVCategory));

static cl::opt<std::string> CacheDir(
    "cache-dir",
    cl::desc("Where the CUDA SDK's headers are kept precompiled for .cu "
             "inputs (default: kvalidate in the user's cache directory; an "
             "empty DIR turns the cache off)"),
    cl::value_desc("DIR"), cl::cat(KVCategory));

// Registered as "baseline-threads" and renamed "threads" in main(): LLVM's
// libraries already own an option of that name.
static cl::opt<std::string> Threads(
    "baseline-threads",
    cl::desc("Non-parameterized baseline, one block of N threads "
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

static cl::opt<std::string> LaunchBefore(
    "launch-before",
    cl::desc("The before kernel's own launch, 'grid=(X, Y, Z) block=(X, Y, "
             "Z)', each a C expression of its scalar parameters (with "
             "--launch-after; the kernels then need not share a launch)"),
    cl::value_desc("LAUNCH"), cl::cat(KVCategory));
static cl::opt<std::string>
    LaunchAfter("launch-after",
                cl::desc("The after kernel's own launch, in its own "
                         "parameters' names (with --launch-before)"),
                cl::value_desc("LAUNCH"), cl::cat(KVCategory));

static cl::opt<unsigned> ReplayEntry(
    "entry",
    cl::desc("kvalidate replay: which counterexample of a report file with "
             "several to replay, counting from 1 (default: the first)"),
    cl::value_desc("N"), cl::init(1), cl::cat(KVCategory));

static cl::opt<bool> EmitKV("emit-kv",
                            cl::desc("Print the two kv kernels and exit"),
                            cl::cat(KVCategory));

static const char *const Overview = R"(prove two CUDA kernels equivalent

  Proves that BEFORE and AFTER write the same values to every global array
  cell for every launch configuration (gridDim, blockDim) and every input,
  under the --assume assumptions. Parameters are matched by position.
  With --launch-before and --launch-after each kernel has a launch of its
  own, computed from the scalar parameters: the proof is then for every
  input and every value of the scalars the assumptions admit.

  BEFORE and AFTER are FILE:KERNEL. FILE is a CUDA source (.cu, compiled with
  clang for sm_80), nvptx LLVM IR (.ll, .bc), or an MLIR module (.mlir) of
  gpu.func kernels (lowered by MLIR's gpu-to-nvvm conversion) or kv kernels.
  KERNEL is the kernel's source name (transpose, ns::foo<16>), its name
  without template arguments if that is unique, its mangled name, or its
  MLIR symbol name.

EXIT STATUS
  0  equivalent; the verdict line says which kind: equivalent (every
     launch), equivalent-for-launch (--threads/--block/--grid: that one
     launch), equivalent-up-to-bound (--unroll: loops cut at the bound),
     equivalent-over-the-reals (--fp=real: each float operation exact)
  1  not equivalent (with a counterexample)
  2  unknown (timeout, undecided) or unsupported construct
  3  error (usage, input)
  4  a kernel is defective: data race, barrier divergence, or an
     out-of-bounds shared-array access (with the launch and threads)

EXAMPLES
  kvalidate transpose.cu:transpose_naive transpose.cu:transpose_tiled
  kvalidate --assume='blockDim.x == 32' --assume='n % 32 == 0' \
            old.cu:scale new.cu:scale
  kvalidate --launch-before='grid=((n+15)/16, (n+15)/16) block=(16, 16)' \
            --launch-after='grid=((n+15)/16, (n+15)/16) block=256' \
            mm.cu:naive mm.cu:coalesced
  kvalidate --json --bits=16 -I include -DTILE=16 a.cu:k b.cu:k
  kvalidate --json a.cu:k b.cu:k > cex.json; kvalidate replay cex.json

BOUNDED SEARCH
  When the proof ends unknown or unsupported and a loop's trip count is
  symbolic, a bounded search follows (--hunt=N, default 16): loops unrolled
  N times, the integer scalars no --assume names within 0..32, so that
  loops they fix split into cases. A counterexample it finds is replayed
  and reported as not-equivalent ("found by" says so); otherwise the
  proof's verdict stays, its reason extended by what the search saw. With
  --timeout=T the search gets T/3 (5 to 60 s) of the budget; without, 60 s.

REPLAY
  Every counterexample is run on the kv models the proof reasons about and
  on the kernels' own LLVM IR, which must agree cell by cell ("replayed
  on:" says what ran). Where they disagree, the lowering into kv is wrong:
  the verdict is unknown with an internal error, never a counterexample.
  kvalidate replay CEX.json runs both kernels of a saved --json verdict on
  its counterexample (input cells not listed and uninitialized shared memory
  are 0), both ways, and prints every output cell that differs. It also
  reads a report file (--report, or the plugin's -kvalidate-report, which
  saves both kernels' IR beside it for a not-equivalent kernel): the first
  verdict there with a counterexample, or the --entry=N-th. Exit 1 when
  the kernels differ, 0 when they agree, 3 when the file or a kernel cannot
  be read or the two runs of a kernel disagree. A verdict found with
  --unroll=N records N ("unroll"), and the replay lowers the kernels with
  the same bound.
)";

//===----------------------------------------------------------------------===//
// Output
//===----------------------------------------------------------------------===//

/// Set by whoever prints the verdict first: the main thread or the
/// watchdog (see startWatchdog).
static std::atomic<bool> Reported{false};

/// The after kernel, once loaded: where the report locates the verdict.
static const Function *AfterFunction = nullptr;

/// The --report entry of \p v (the policy of the plugin's default: a
/// not-equivalent or defective kernel is an error).
static void writeReportFile(const kv::Validation &v,
                            const kv::PairNames &names) {
  if (ReportPath.empty())
    return;
  kv::ReportEntry e;
  StringRef after(AfterArg);
  e.kernel = after.rsplit(':').second.str();
  if (AfterFunction)
    kv::sourceLocation(*AfterFunction, e.file, e.line);
  if (e.file.empty()) {
    // FILE:KERNEL of a kernel that was not loaded: the file, no line.
    StringRef file = after.rsplit(':').first;
    SmallString<256> abs(file);
    if (!file.empty() && !sys::fs::make_absolute(abs))
      e.file = abs.str().str();
  }
  e.verdict = v.result.verdict;
  e.level = kv::levelOf(e.verdict, kv::FailOn::Mismatch);
  std::string text;
  raw_string_ostream os(text);
  os << kv::verdictName(e.verdict);
  if (!v.result.reason.empty() && v.result.verdict != kv::Verdict::Equivalent)
    os << ": " << v.result.reason;
  e.message = text;
  json::Value fields = kv::toJSON(v, names);
  if (json::Object *o = fields.getAsObject())
    e.fields = std::move(*o);
  std::string err;
  if (!kv::appendReport(ReportPath, {e}, err))
    errs() << "kvalidate: warning: cannot write the report: " << err << "\n";
}

static void report(const kv::Validation &v) {
  if (Reported.exchange(true))
    return; // the watchdog has answered and is exiting
  kv::PairNames names{BeforeArg, AfterArg};
  if (Json)
    outs() << kv::toJSON(v, names) << "\n";
  else
    kv::printText(outs(), v, names);
  outs().flush();
  writeReportFile(v, names);
}

using Clock = std::chrono::steady_clock;
static Clock::time_point StartTime;

/// The time spent compiling or parsing the two inputs (--stats).
static double LoadMs = 0;

static double elapsedMs() {
  return std::chrono::duration<double, std::milli>(Clock::now() - StartTime)
      .count();
}

/// A verdict without a check: an error, or the watchdog's unknown.
static kv::Validation verdictOnly(kv::Verdict verdict, std::string reason) {
  kv::Validation v;
  v.result.verdict = verdict;
  v.result.reason = std::move(reason);
  v.result.timeMs = elapsedMs();
  return v;
}

/// Ends the process once everything is reported, without static
/// destructors: they tear down Z3's and the runtime's globals while the
/// context factory's worker may still be making or deleting a context (a
/// replay aborted on its way out under a loaded CI run: `free(): invalid
/// pointer`, then `pure virtual method called`).
[[noreturn]] static void leave(int status) {
  outs().flush();
  errs().flush();
  std::fflush(nullptr);
  kv::removeTemporaryFiles();
  std::_Exit(status);
}

/// The solver is asked to stop at the time budget, but Z3 does not check
/// its interrupt everywhere (quantifier instantiation, some tactics): past
/// the budget and a grace period, answer `unknown` and exit, so that a CI
/// job gated on kvalidate always ends.
static void startWatchdog(unsigned timeoutSecs) {
  unsigned limit = timeoutSecs + std::max(30u, timeoutSecs / 4);
  std::thread([limit, timeoutSecs] {
    std::this_thread::sleep_for(std::chrono::seconds(limit));
    kv::Validation v = verdictOnly(
        kv::Verdict::Unknown,
        "no verdict within " + std::to_string(limit) +
            " s: the solver did not stop at the time budget (--timeout=" +
            std::to_string(timeoutSecs) + ")");
    if (Reported.load())
      return;
    report(v);
    leave(kv::exitCode(kv::Verdict::Unknown));
  }).detach();
}

/// A usage or input error: message on stderr, and the JSON object with
/// --json. Returns the exit status.
static int fail(const std::string &msg) {
  errs() << "kvalidate: error: " << msg << "\n";
  if (Json)
    report(verdictOnly(kv::Verdict::Error, msg));
  else if (!Reported.exchange(true))
    writeReportFile(verdictOnly(kv::Verdict::Error, msg),
                    kv::PairNames{BeforeArg, AfterArg});
  return kv::exitCode(kv::Verdict::Error);
}

//===----------------------------------------------------------------------===//
// main
//===----------------------------------------------------------------------===//

/// Parse the command line into the cl options; a message on failure.
static std::optional<std::string> parseCommandLine(int argc, char **argv) {
  // --threads and --stats are ours: LLVM's libraries register options of
  // those names, which a user of kvalidate never means. (The old internal
  // names stay accepted.)
  auto &registered = cl::getRegisteredOptions();
  for (auto [ours, name] :
       {std::pair<cl::Option *, StringRef>{&Threads, "threads"},
        {&Stats, "stats"}}) {
    if (auto it = registered.find(name);
        it != registered.end() && it->second != ours)
      it->second->removeArgument();
    ours->setArgStr(name);
  }
  static cl::alias ThreadsOld("baseline-threads", cl::aliasopt(Threads),
                              cl::ReallyHidden);
  static cl::alias StatsOld("phase-stats", cl::aliasopt(Stats),
                            cl::ReallyHidden);
  std::vector<char *> args(argv, argv + argc);
  std::string clErrors;
  raw_string_ostream clErrs(clErrors);
  if (cl::ParseCommandLineOptions((int)args.size(), args.data(), Overview,
                                  &clErrs))
    return std::nullopt;
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
  return msg + " (see --help)";
}

/// The baseline's launch (--threads, --block, --grid), if one is given; a
/// message in \p err when it is malformed.
static std::optional<kv::LaunchConfig> parseLaunch(std::string &err) {
  if (!Threads.getNumOccurrences() && !BlockDims.getNumOccurrences() &&
      !GridDims.getNumOccurrences())
    return std::nullopt;
  auto dims = [&](StringRef text, uint64_t out[3]) {
    SmallVector<StringRef> parts;
    text.split(parts, ',');
    if (parts.empty() || parts.size() > 3)
      return false;
    for (size_t i = 0; i < parts.size(); ++i)
      if (parts[i].trim().getAsInteger(10, out[i]) || out[i] == 0)
        return false;
    return true;
  };
  kv::LaunchConfig fixed;
  if (Threads.getNumOccurrences() && BlockDims.getNumOccurrences())
    err = "--threads and --block are alternatives";
  else if (Threads.getNumOccurrences() && !dims(Threads, fixed.block))
    err = "--threads must be a positive integer, got '" + Threads + "'";
  else if (BlockDims.getNumOccurrences() && !dims(BlockDims, fixed.block))
    err = "--block must be X[,Y[,Z]] with positive integers, got '" +
          BlockDims + "'";
  else if (GridDims.getNumOccurrences() && !dims(GridDims, fixed.grid))
    err = "--grid must be X[,Y[,Z]] with positive integers, got '" + GridDims +
          "'";
  if (!err.empty())
    return std::nullopt;
  uint64_t n = 1;
  for (int i = 0; i < 3; ++i)
    n *= fixed.block[i] * fixed.grid[i];
  if (fixed.block[0] * fixed.block[1] * fixed.block[2] > 1024 || n > 65536) {
    err = "baseline launch too large: at most 1024 threads per block and "
          "65536 in all";
    return std::nullopt;
  }
  return fixed;
}

/// The driver's view of a loaded input.
static kv::KernelInput kernelInput(const kv::Input &in, bool isBefore) {
  kv::KernelInput k;
  k.function = in.function;
  k.kernel = in.function ? kv::KernelOp() : in.kernel;
  k.label = isBefore ? "before kernel" : "after kernel";
  // The before kernel is the reference: its undefined behaviour (signed
  // overflow) is excluded, as C++ excludes it.
  k.isSource = isBefore;
  return k;
}

static int run(int argc, char **argv) {
  cl::SetVersionPrinter([](raw_ostream &os) {
    os << "kvalidate " << kv::versionString()
       << " (LLVM/MLIR " LLVM_VERSION_STRING << ", clang " KV_CLANG ")\n";
  });
  cl::HideUnrelatedOptions(KVCategory);
  if (std::optional<std::string> clError = parseCommandLine(argc, argv))
    return fail(*clError);

  if (BeforeArg == "replay" && AfterArg.empty())
    return fail("replay expects a saved verdict: kvalidate replay CEX.json "
                "(the output of kvalidate --json; see --help)");
  if (BeforeArg.empty() || AfterArg.empty())
    return fail("expected two arguments BEFORE AFTER, each FILE:KERNEL "
                "(see --help)");
  // kvalidate replay CEX.json: the kernels named in a saved verdict.
  std::optional<kv_cli::SavedCex> saved;
  unsigned savedUnroll = 0;
  if (BeforeArg == "replay") {
    std::string b, a, e;
    saved.emplace();
    if (!kv_cli::readSavedCex(AfterArg, ReplayEntry,
                              ReplayEntry.getNumOccurrences(), *saved, b, a,
                              savedUnroll, e))
      return fail(e);
    BeforeArg.setValue(b);
    AfterArg.setValue(a);
  }
  std::string err;
  std::optional<kv::Options> opts = readOptionTable(err);
  if (!opts)
    return fail(err);
  // A saved verdict's kernels are lowered as they were for it.
  if (savedUnroll && !kv_option_table::unroll.getNumOccurrences())
    opts->unroll = savedUnroll;
  opts->launchBefore = LaunchBefore;
  opts->launchAfter = LaunchAfter;
  if (LaunchBefore.getNumOccurrences() != LaunchAfter.getNumOccurrences())
    return fail("--launch-before and --launch-after go together: each "
                "kernel's launch, or neither (see --help)");
  if (opts->timeoutSecs)
    startWatchdog(opts->timeoutSecs);
  // Z3 contexts are made while the inputs load (15 ms each).
  if (!EmitKV)
    kv::ContextLease::prepare();

  kv::KernelRef beforeRef, afterRef;
  if (!kv::splitArg(BeforeArg, beforeRef, err) ||
      !kv::splitArg(AfterArg, afterRef, err))
    return fail(err);

  // The contexts outlive the inputs and the module.
  mlir::DialectRegistry registry;
  kv::registerKVDialects(registry);
  kv::registerGPUImportDialects(registry);
  mlir::MLIRContext ctx(registry);
  ctx.loadAllAvailableDialects();
  LLVMContext llvmCtx;
  kv::Input before, after;
  before.ref = std::move(beforeRef);
  after.ref = std::move(afterRef);
  kv::CudaFlags flags;
  flags.includeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  flags.defines.assign(Defines.begin(), Defines.end());
  if (CudaPath.getNumOccurrences())
    flags.cudaPath = CudaPath;
  flags.cacheDir = CacheDir;
  if (!CacheDir.getNumOccurrences()) {
    SmallString<128> dir;
    if (sys::path::cache_directory(dir)) {
      sys::path::append(dir, "kvalidate");
      flags.cacheDir = dir.str().str();
    }
  }
  double loadStart = elapsedMs();
  if (!kv::loadInput(before, nullptr, llvmCtx, ctx, flags, err) ||
      !kv::loadInput(after, &before, llvmCtx, ctx, flags, err))
    return fail(err);
  LoadMs = elapsedMs() - loadStart;
  // A gpu.func with memrefs of dynamic shape against its CUDA twin: the
  // descriptor parts it does not use are no parameters of the comparison.
  if (before.function && after.function &&
      before.function->arg_size() != after.function->arg_size())
    for (kv::Input *in : {&before, &after})
      kv::dropUnusedDescriptorParts(in->function);
  AfterFunction = after.function;

  // Both kernels go into one module.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::ModuleOp::create(mlir::UnknownLoc::get(&ctx));
  kv::Driver driver(kernelInput(before, true), kernelInput(after, false),
                    *module, *opts);

  if (EmitKV || saved) {
    // A saved counterexample runs on the kv models and on the LLVM IR,
    // which must agree (a check of kvalidate's lowering); where both
    // kernels have IR (at full width) and the models do not lower or run
    // within 10 s (a loop unrolled for the saved launch thousands of
    // times, or not taken at all), on the IR alone.
    kv::Driver::ScratchKernels sig;
    bool haveIR = saved && opts->bits == 32 && driver.irSignatures(sig);
    const Function *beforeFn = kernelInput(before, true).function,
                   *afterFn = kernelInput(after, false).function;
    kv::CheckResult failure;
    std::optional<kv::LoweredPair> pair;
    {
      kv::budget::Scope scope({haveIR ? 10u : 0u, 0});
      pair = driver.lowerOnce(opts->unroll, failure);
      if (saved && pair && kv::budget::stopped() == kv::budget::Kind::None) {
        int rc =
            kv_cli::replaySaved(pair->before, pair->after, *saved, opts->bits,
                                beforeFn, afterFn, /*irOnly=*/false, haveIR);
        if (rc >= 0)
          return rc;
      }
    }
    if (haveIR)
      return kv_cli::replaySaved(sig.k[0], sig.k[1], *saved, opts->bits,
                                 beforeFn, afterFn,
                                 /*irOnly=*/true);
    if (!pair) {
      kv::Validation v;
      v.result = failure;
      v.result.timeMs = elapsedMs();
      report(v);
      return kv::exitCode(failure.verdict);
    }
    if (saved)
      return kv_cli::replaySaved(pair->before, pair->after, *saved, opts->bits,
                                 beforeFn, afterFn);
    module->print(outs());
    outs().flush();
    return 0;
  }

  // The baseline: a concrete launch, every thread modelled.
  std::optional<kv::LaunchConfig> fixed = parseLaunch(err);
  if (!err.empty())
    return fail(err);
  kv::Validation v = driver.validate(fixed);
  if (v.result.verdict == kv::Verdict::Error)
    errs() << "kvalidate: error: " << v.result.reason << "\n";
  report(v);
  if (Stats) {
    // Phases nest: the solver's time is part of safety's and equivalence's.
    errs() << "kvalidate: time per phase (total " << (int64_t)elapsedMs()
           << " ms, inputs loaded in " << (int64_t)LoadMs << " ms):\n";
    kv::stats::print(errs());
  }
  // Everything is reported: leave without tearing down the MLIR and LLVM
  // contexts, the modules and the Z3 contexts made ahead (a quarter of a
  // trivial validation's time), as compilers do.
  leave(kv::exitCode(v.result.verdict));
}

int main(int argc, char **argv) {
  InitLLVM x(argc, argv);
  StartTime = Clock::now();
  leave(run(argc, argv));
}
