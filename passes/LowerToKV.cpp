//===- LowerToKV.cpp - nvptx LLVM IR to the kv kernel model ---------------===//
//
// Symbolic execution of one parameterized thread. Each path through the CFG
// carries a guard; at a branch on a symbolic condition both sides run to the
// branch's immediate post-dominator and their states are merged with selects.
// Branches on conditions that fold to constants are followed, which unrolls
// loops with constant trip counts. Writes to shared/global memory become
// kv.write ops guarded by the path condition; reads become kv.read ops, with
// the thread's own earlier writes in the same barrier interval forwarded.
//
//===----------------------------------------------------------------------===//
#include "passes/LowerToKV.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/GetElementPtrTypeIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <map>
#include <memory>
#include <set>

using namespace mlir;
using llvm::cast;
using llvm::dyn_cast;
using llvm::isa;

namespace kv {

bool isKernel(const llvm::Function &f) {
  return f.getCallingConv() == llvm::CallingConv::PTX_Kernel;
}

/// The name of a variable: `tile` for the local static
/// `_ZZ15transpose_tiledPiPKiiiE4tile`.
static std::string variableName(llvm::StringRef mangled) {
  std::string d = llvm::demangle(mangled);
  size_t colons = d.rfind("::");
  return colons == std::string::npos ? d : d.substr(colons + 2);
}

std::string sourceName(llvm::StringRef mangled) {
  llvm::ItaniumPartialDemangler d;
  if (!mangled.starts_with("_Z") || d.partialDemangle(mangled.data()))
    return mangled.str();
  char *buf = d.getFunctionName(nullptr, nullptr);
  std::string s = buf ? buf : mangled.str();
  std::free(buf);
  return s;
}

/// Which of \p f's parameters have an unsigned C type: from the debug
/// info's subroutine type, else from the mangled name's parameter list
/// (`unsigned int`, `unsigned long`, ...). Unknown ones count as signed.
static std::vector<bool> unsignedParameters(const llvm::Function &f) {
  std::vector<bool> out(f.arg_size(), false);
  if (const llvm::DISubprogram *sp = f.getSubprogram())
    if (const llvm::DISubroutineType *st = sp->getType()) {
      llvm::DITypeRefArray types = st->getTypeArray();
      // types[0] is the return type.
      if (types.size() == f.arg_size() + 1) {
        for (unsigned i = 0; i < f.arg_size(); ++i) {
          const llvm::DIType *t = types[i + 1];
          // Through typedefs (size_t) and const.
          while (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
            if (d->getTag() != llvm::dwarf::DW_TAG_typedef &&
                d->getTag() != llvm::dwarf::DW_TAG_const_type)
              break;
            t = d->getBaseType();
          }
          if (auto *bt = llvm::dyn_cast_or_null<llvm::DIBasicType>(t))
            out[i] = bt->getEncoding() == llvm::dwarf::DW_ATE_unsigned ||
                     bt->getEncoding() == llvm::dwarf::DW_ATE_unsigned_char;
        }
        return out;
      }
    }
  llvm::ItaniumPartialDemangler d;
  llvm::StringRef mangled = f.getName();
  if (!mangled.starts_with("_Z") || d.partialDemangle(mangled.data()))
    return out;
  char *buf = d.getFunctionParameters(nullptr, nullptr);
  if (!buf)
    return out;
  // "(int*, unsigned int, Foo<a, b>)": split at top-level commas.
  std::string list(buf);
  std::free(buf);
  std::vector<std::string> params;
  std::string cur;
  int depth = 0;
  for (char c : llvm::StringRef(list).drop_front().drop_back()) {
    if (c == '<' || c == '(' || c == '[')
      ++depth;
    else if (c == '>' || c == ')' || c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      params.push_back(llvm::StringRef(cur).trim().str());
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!llvm::StringRef(cur).trim().empty())
    params.push_back(llvm::StringRef(cur).trim().str());
  if (params.size() != f.arg_size())
    return out;
  for (unsigned i = 0; i < params.size(); ++i) {
    llvm::StringRef p = params[i];
    p.consume_back(" const");
    out[i] = !p.contains('*') && !p.contains('&') &&
             (p.starts_with("unsigned ") || p == "unsigned");
  }
  return out;
}

std::string describeLocation(const llvm::Instruction *inst, bool outermost) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (const llvm::DILocation *dl = inst->getDebugLoc().get()) {
    // After inlining, the kernel's own line is the end of the inlinedAt chain.
    if (outermost)
      while (const llvm::DILocation *at = dl->getInlinedAt())
        dl = at;
    os << dl->getFilename() << ":" << dl->getLine() << ":" << dl->getColumn();
    return s;
  }
  os << sourceName(inst->getFunction()->getName()) << ": `";
  inst->print(os);
  os << "`";
  return s;
}

/// Source names of the parameters from debug info (clang discards IR value
/// names by default): the DILocalVariables with an argument number, found in
/// the subprogram's retained nodes (-O1 and up) or in debug records.
static std::vector<std::string>
parameterNamesFromDebugInfo(const llvm::Function &f) {
  std::vector<std::string> names(f.arg_size());
  auto note = [&](const llvm::DILocalVariable *v) {
    if (v && v->getArg() >= 1 && v->getArg() <= names.size() &&
        v->getScope() == f.getSubprogram())
      names[v->getArg() - 1] = v->getName().str();
  };
  const llvm::DISubprogram *sp = f.getSubprogram();
  if (!sp)
    return names;
  for (const llvm::DINode *n : sp->getRetainedNodes())
    note(llvm::dyn_cast<llvm::DILocalVariable>(n));
  for (const llvm::BasicBlock &bb : f)
    for (const llvm::Instruction &i : bb)
      for (const llvm::DbgVariableRecord &r :
           llvm::filterDbgVars(i.getDbgRecordRange()))
        note(r.getVariable());
  return names;
}

/// The parameter names of the definition of \p name whose parameter list
/// starts at or after \p from in \p text: `name (` ... `) {`, the list
/// split at top-level commas, each parameter's last identifier (after
/// dropping a default value and array bounds). Empty when the text has no
/// such definition or a parameter has no name.
static std::vector<std::string> namesInDefinition(llvm::StringRef text,
                                                  llvm::StringRef name,
                                                  size_t from, size_t &next) {
  auto isId = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  next = llvm::StringRef::npos;
  for (size_t at = text.find(name, from); at != llvm::StringRef::npos;
       at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at > 0 && isId(text[at - 1])) ||
        (end < text.size() && isId(text[end])))
      continue;
    size_t open = end;
    while (open < text.size() && llvm::isSpace(text[open]))
      ++open;
    if (open >= text.size() || text[open] != '(')
      continue;
    // The list up to the matching parenthesis; comments become spaces.
    std::string list;
    std::vector<size_t> commas;
    int depth = 0;
    size_t i = open + 1;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
        i = text.find('\n', i);
        if (i == llvm::StringRef::npos)
          return {};
        list += ' ';
        continue;
      }
      if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
        i = text.find("*/", i + 2);
        if (i == llvm::StringRef::npos)
          return {};
        ++i;
        list += ' ';
        continue;
      }
      if (c == '(' || c == '[' || c == '<' || c == '{')
        ++depth;
      if (c == ')' || c == ']' || c == '>' || c == '}') {
        if (depth == 0)
          break;
        --depth;
      }
      if (c == ',' && depth == 0)
        commas.push_back(list.size());
      list += c;
    }
    if (i >= text.size() || text[i] != ')')
      continue;
    // A definition: the body follows (a declaration or a call does not).
    size_t body = i + 1;
    while (body < text.size() && llvm::isSpace(text[body]))
      ++body;
    if (body >= text.size() || text[body] != '{')
      continue;
    next = body;
    std::vector<std::string> names;
    llvm::StringRef all(list);
    if (all.trim().empty() || all.trim() == "void")
      return names;
    size_t start = 0;
    commas.push_back(list.size());
    for (size_t c : commas) {
      llvm::StringRef param = all.slice(start, c);
      start = c + 1;
      param = param.take_front(param.find('=')).take_front(param.find('['));
      param = param.rtrim();
      size_t idEnd = param.size(), idStart = idEnd;
      while (idStart > 0 && isId(param[idStart - 1]))
        --idStart;
      llvm::StringRef id = param.slice(idStart, idEnd);
      // The name follows a type: `int n`, `int *out`, `T &x`.
      llvm::StringRef before = param.take_front(idStart).rtrim();
      if (id.empty() || llvm::isDigit(id[0]) || before.empty() ||
          !(isId(before.back()) || before.back() == '*' ||
            before.back() == '&'))
        return {};
      names.push_back(id.str());
    }
    return names;
  }
  return {};
}

/// Source names of the parameters read from the kernel's definition in its
/// source file, for IR without value names or debug variables (clang's
/// default): at the subprogram's line when there is debug info (-g, or the
/// locations -Rpass asks for), else the one definition of that name in the
/// module's main file. Empty when that is not found, ambiguous, or does not
/// match the IR's parameter count (a macro-made parameter list).
static std::vector<std::string>
parameterNamesFromSource(const llvm::Function &f) {
  std::string path;
  unsigned line = 0;
  if (const llvm::DISubprogram *sp = f.getSubprogram()) {
    llvm::SmallString<256> p(sp->getFilename());
    if (!llvm::sys::path::is_absolute(p) && !sp->getDirectory().empty()) {
      p = sp->getDirectory();
      llvm::sys::path::append(p, sp->getFilename());
    }
    path = p.str().str();
    line = sp->getLine();
  } else if (f.getParent()) {
    path = f.getParent()->getSourceFileName();
  }
  if (path.empty())
    return {};
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf || (*buf)->getBufferSize() > (64u << 20))
    return {};
  llvm::StringRef text = (*buf)->getBuffer();
  std::string full = sourceName(f.getName());
  llvm::StringRef name(full);
  name = name.take_front(name.find('<'));
  name = name.substr(name.rfind(':') + 1);
  if (name.empty())
    return {};
  auto fits = [&](const std::vector<std::string> &v) {
    std::set<std::string> unique(v.begin(), v.end());
    return v.size() == f.arg_size() && unique.size() == v.size();
  };
  size_t next = 0;
  if (line) {
    size_t from = 0;
    for (unsigned l = 1; l < line && from != llvm::StringRef::npos; ++l) {
      from = text.find('\n', from);
      if (from != llvm::StringRef::npos)
        ++from;
    }
    if (from == llvm::StringRef::npos)
      return {};
    std::vector<std::string> v = namesInDefinition(text, name, from, next);
    return fits(v) ? v : std::vector<std::string>();
  }
  // Without a line: every definition of the name must agree.
  std::optional<std::vector<std::string>> found;
  for (size_t from = 0; from != llvm::StringRef::npos; from = next) {
    std::vector<std::string> v = namesInDefinition(text, name, from, next);
    if (next == llvm::StringRef::npos)
      break;
    if (!fits(v))
      continue;
    if (found && *found != v)
      return {};
    found = v;
  }
  return found ? *found : std::vector<std::string>();
}

std::vector<std::string> parameterNames(const llvm::Function &f) {
  std::vector<std::string> names = parameterNamesFromDebugInfo(f);
  bool unnamed = llvm::any_of(f.args(), [&](const llvm::Argument &a) {
    return a.getName().empty() && names[a.getArgNo()].empty();
  });
  if (unnamed) {
    std::vector<std::string> fromSource = parameterNamesFromSource(f);
    for (size_t i = 0; i < fromSource.size(); ++i)
      if (names[i].empty())
        names[i] = fromSource[i];
  }
  for (const llvm::Argument &a : f.args()) {
    std::string &name = names[a.getArgNo()];
    if (!a.getName().empty())
      name = a.getName().str();
    if (name.empty())
      name = "arg" + std::to_string(a.getArgNo());
  }
  return names;
}

namespace {

/// A byte offset: constant + sum of coefficient * i64 value.
struct Linear {
  int64_t constant = 0;
  llvm::SmallVector<std::pair<Value, int64_t>, 2> terms;
  bool operator==(const Linear &o) const {
    return constant == o.constant && terms == o.terms;
  }
  void add(const Linear &o, int64_t scale = 1) {
    constant += o.constant * scale;
    for (auto &[v, c] : o.terms)
      addTerm(v, c * scale);
  }
  void addTerm(Value v, int64_t c) {
    if (c == 0)
      return;
    for (auto &t : terms)
      if (t.first == v) {
        t.second += c;
        if (t.second == 0)
          terms.erase(&t);
        return;
      }
    terms.push_back({v, c});
  }
};

struct SymVal {
  /// LoopResult: a value a loop with a symbolic trip count computed, which
  /// the model does not keep past the loop.
  enum Kind { None, LoopResult, Scalar, PrivPtr, ArrayPtr, NullPtr } kind =
      None;
  Value scalar;      // Scalar
  unsigned obj = 0;  // PrivPtr: private object id
  Value array;       // ArrayPtr: kv kernel argument
  Linear off;        // pointers: byte offset
  bool isPtr() const { return kind >= PrivPtr; }
  bool operator==(const SymVal &o) const {
    return kind == o.kind && scalar == o.scalar && obj == o.obj &&
           array == o.array && off == o.off;
  }
};

struct PrivStore {
  unsigned obj;
  Linear off;
  uint64_t size;
  SymVal val;
  Value guard;
};

struct State {
  llvm::DenseMap<const llvm::Value *, SymVal> vals;
  std::vector<PrivStore> stores;
  Value guard;
  bool dead = false;
  SymVal ret;
};

struct OwnWrite {
  Value array, index, value, guard;
};

struct Failure {};

class Lowerer {
public:
  Lowerer(llvm::Function &f, ModuleOp module, Unsupported &why,
          const LowerOptions &opts)
      : f(f), module(module), why(why), opts(opts), ctx(module.getContext()),
        b(ctx) {}

  FailureOr<KernelOp> run();

private:
  llvm::Function &f;
  ModuleOp module;
  Unsupported &why;
  const LowerOptions &opts;
  MLIRContext *ctx;
  OpBuilder b;
  KernelOp kernel;
  Location loc = UnknownLoc::get(ctx);
  const llvm::Instruction *curInst = nullptr;
  bool failed = false;

  llvm::DenseMap<const llvm::Value *, Value> argArrays; // ptr params/globals
  llvm::DenseMap<const llvm::Value *, SymVal> paramVals;
  std::map<std::string, Value> sregs;
  std::vector<OwnWrite> ownWrites; // current barrier interval
  llvm::DenseMap<const llvm::Function *,
                 std::unique_ptr<llvm::PostDominatorTree>>
      pdts;
  llvm::DenseMap<const llvm::BasicBlock *, unsigned> visits;
  unsigned nextObj = 1;
  unsigned depth = 0;
  llvm::SmallVector<std::string> argNames;
  llvm::DenseMap<Value, uint64_t> arrayElemSize;

  // --- loops with a symbolic trip count ------------------------------------
  /// A loop entered from outside, at its first iteration: where to roll
  /// back to when its exit test turns out symbolic.
  struct LoopEntry {
    const llvm::Loop *loop;
    unsigned headerVisits;
  };
  std::vector<LoopEntry> loopEntries;
  /// Set (with `failed`) to unwind to the entry of this loop.
  const llvm::Loop *restartLoop = nullptr;
  /// Loops being modelled as one symbolic iteration (kv.iter), innermost
  /// last.
  struct SymLoop {
    const llvm::Loop *loop = nullptr;
    const llvm::BasicBlock *exiting = nullptr;
    Value guard; // placeholder for "this iteration runs"
    Value cond;  // the exit test, once seen
    bool stayOnTrue = false;
    Operation *startMark = nullptr; // last op before the iteration
    /// Array -> indices read / written in the iteration.
    llvm::DenseMap<Value, llvm::SmallVector<Value, 2>> read, written;
    // A barrier loop: the barrier intervals of one iteration are its
    // phases. A shared array written in one phase and read in later ones
    // (a tile) is staged: each read is served by the writer the lowering
    // solves for, in the same iteration (kv.prove makes the checker show
    // that one exists), so no read sees the array through memory.
    unsigned phase = 0;
    /// Writes earlier in the barrier interval the loop starts in.
    bool preDirty = false;
    bool globalWrite = false;
    struct SharedWrite {
      Value index, value, guard;
      WriteOp op;
      unsigned phase;
    };
    llvm::MapVector<Value, llvm::SmallVector<SharedWrite, 1>> sharedWrites;
    /// Staged array -> the phase that writes it.
    llvm::MapVector<Value, unsigned> staged;
    /// Staged reads: array, phase.
    llvm::SmallVector<std::pair<Value, unsigned>, 4> stagedReads;
    /// Staged reads to resolve: (index, guard) -> value, and the array.
    llvm::SmallVector<std::pair<UnrealizedConversionCastOp, Value>, 4> pending;
  };
  std::vector<SymLoop> symLoops;
  /// Loops that fell back to unrolling (their model failed).
  llvm::DenseSet<const llvm::Loop *> noModel;
  /// Arrays a symbolic loop wrote in the current barrier interval: the
  /// model cannot forward those writes to later reads.
  llvm::DenseSet<Value> loopWritten;
  /// Shared arrays a barrier loop staged: their contents after the loop
  /// are not modelled.
  llvm::DenseSet<Value> stagedDone;
  /// decompose()'s atoms at 64 bits, for one writerOf() call.
  llvm::DenseMap<std::pair<Value, char>, Value> wideAtoms;

  // --- failure reporting -------------------------------------------------
  void fail(const llvm::Twine &what) {
    if (failed)
      return;
    failed = true;
    why.construct = what.str();
    if (!curInst) {
      why.location = sourceName(f.getName());
      return;
    }
    // Name the line of the kernel itself (the outermost call site, through
    // calls and inlined frames), and the callee's own line after it.
    const llvm::Instruction *outer =
        callStack.empty() ? curInst : callStack.front();
    why.location = describeLocation(outer, /*outermost=*/true);
    std::string inner = describeLocation(curInst, false);
    if (inner != why.location)
      why.construct += " (in " +
                       sourceName(curInst->getFunction()->getName()) +
                       " at " + inner + ")";
  }
  llvm::SmallVector<const llvm::CallBase *> callStack;

  // --- expression helpers ------------------------------------------------
  Value cst(Type t, int64_t v) {
    return arith::ConstantOp::create(b, loc, t, IntegerAttr::get(t, v));
  }
  Value i1(bool v) { return cst(b.getI1Type(), v); }
  static bool constBool(Value v, bool &out) {
    llvm::APInt ap;
    if (!matchPattern(v, m_ConstantInt(&ap)))
      return false;
    out = !ap.isZero();
    return true;
  }
  bool isTrue(Value v) {
    bool c;
    return constBool(v, c) && c;
  }
  bool isFalse(Value v) {
    bool c;
    return constBool(v, c) && !c;
  }
  Value andI1(Value a, Value c) {
    if (isTrue(a))
      return c;
    if (isTrue(c))
      return a;
    if (isFalse(a) || isFalse(c))
      return i1(false);
    return b.createOrFold<arith::AndIOp>(loc, a, c);
  }
  Value notI1(Value a) {
    return b.createOrFold<arith::XOrIOp>(loc, a, i1(true));
  }
  Value select(Value c, Value t, Value e) {
    if (t == e)
      return t;
    return b.createOrFold<arith::SelectOp>(loc, c, t, e);
  }
  Value eq(Value a, Value c) {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, a, c);
  }
  Value toI64(Value v, bool isSigned = true) {
    unsigned w = v.getType().getIntOrFloatBitWidth();
    if (w == 64)
      return v;
    if (w > 64) {
      fail("integer wider than 64 bits");
      return cst(b.getI64Type(), 0);
    }
    if (isSigned && w > 1)
      return b.createOrFold<arith::ExtSIOp>(loc, b.getI64Type(), v);
    return b.createOrFold<arith::ExtUIOp>(loc, b.getI64Type(), v);
  }
  Value materialize(const Linear &l) {
    Type i64 = b.getI64Type();
    Value acc = cst(i64, l.constant);
    for (auto &[v, c] : l.terms) {
      Value t = c == 1 ? v : b.createOrFold<arith::MulIOp>(loc, v, cst(i64, c));
      acc = b.createOrFold<arith::AddIOp>(loc, acc, t);
    }
    return acc;
  }
  static Linear linearOf(Value v) {
    Linear l;
    llvm::APInt ap;
    if (matchPattern(v, m_ConstantInt(&ap)))
      l.constant = ap.getSExtValue();
    else
      l.terms.push_back({v, 1});
    return l;
  }

  Type typeFor(llvm::Type *t) {
    if (t->isIntegerTy())
      return b.getIntegerType(t->getIntegerBitWidth());
    if (t->isFloatingPointTy())
      return b.getIntegerType(t->getPrimitiveSizeInBits());
    fail("value of type " + typeName(t));
    return b.getI32Type();
  }
  static std::string typeName(llvm::Type *t) {
    std::string s;
    llvm::raw_string_ostream os(s);
    t->print(os);
    return s;
  }

  /// The source name of launch dimension \p sreg ("bdim.x" -> "blockDim.x"),
  /// or "" for thread and block ids.
  static std::string dimName(llvm::StringRef sreg) {
    if (sreg.consume_front("bdim."))
      return ("blockDim." + sreg).str();
    if (sreg.consume_front("gdim."))
      return ("gridDim." + sreg).str();
    return "";
  }

  Value sreg(llvm::StringRef name) {
    auto it = sregs.find(name.str());
    if (it != sregs.end())
      return it->second;
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(&kernel.getBlock());
    Value v;
    auto pin = opts.pins.find(dimName(name));
    if (pin != opts.pins.end())
      v = arith::ConstantOp::create(b, UnknownLoc::get(ctx), b.getI32Type(),
                                    b.getI32IntegerAttr(pin->second));
    else
      v = SRegOp::create(b, UnknownLoc::get(ctx), b.getI32Type(),
                         b.getStringAttr(name));
    sregs[name.str()] = v;
    return v;
  }

  /// The names a case split on \p c would fix: launch dimensions and scalar
  /// parameters. False if \p c also depends on anything else (thread ids,
  /// memory, uninterpreted operations), where splitting cannot help.
  bool splitNames(Value c, std::set<std::string> &names) {
    llvm::SmallPtrSet<Value, 16> seen;
    llvm::SmallVector<Value> work{c};
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (auto a = dyn_cast<BlockArgument>(v)) {
        if (a.getOwner() != &kernel.getBlock() ||
            !a.getType().isIntOrIndex() ||
            a.getArgNumber() >= argNames.size())
          return false;
        names.insert(argNames[a.getArgNumber()]);
        continue;
      }
      Operation *op = v.getDefiningOp();
      if (auto r = dyn_cast<SRegOp>(op)) {
        std::string n = dimName(r.getName());
        if (n.empty())
          return false;
        names.insert(n);
        continue;
      }
      if (isa<ReadOp, ApplyOp>(op) || op->getNumRegions())
        return false;
      for (Value o : op->getOperands())
        work.push_back(o);
    }
    return !names.empty();
  }

  // --- values --------------------------------------------------------------
  SymVal scalar(Value v) {
    SymVal s;
    s.kind = SymVal::Scalar;
    s.scalar = v;
    return s;
  }
  SymVal eval(const llvm::Value *v, State &s);
  Value evalScalar(const llvm::Value *v, State &s) {
    SymVal sv = eval(v, s);
    if (sv.kind != SymVal::Scalar) {
      if (!failed)
        fail(sv.kind == SymVal::LoopResult
                 ? "value computed in a loop with a symbolic trip count, "
                   "used after the loop"
                 : "pointer used as an integer");
      return cst(b.getI32Type(), 0);
    }
    return sv.scalar;
  }
  SymVal evalConstant(const llvm::Constant *c, State &s);
  Value arrayFor(const llvm::Value *base);

  // --- execution -------------------------------------------------------
  void runBlocks(const llvm::BasicBlock *bb, State &s,
                 const llvm::BasicBlock *stopAt,
                 const llvm::BasicBlock *from = nullptr,
                 bool entered = false);
  /// \p header of loop \p l is entered from outside: run the loop (and the
  /// rest up to \p stopAt), as a kv.iter model if its exit test is
  /// symbolic, else unrolled.
  void enterLoop(const llvm::Loop *l, const llvm::BasicBlock *header,
                 State &s, const llvm::BasicBlock *stopAt,
                 const llvm::BasicBlock *from);
  /// One symbolic iteration of \p l from state \p s; on success \p s is
  /// the state after the loop on its exit edge to \p exit.
  bool modelLoop(const llvm::Loop *l, State &s,
                 const llvm::BasicBlock *&exit);
  /// A __syncthreads() inside the loop being modelled: the next phase.
  void stageBarrier(State &s);
  /// The value a staged read of \p array at \p index sees in loop \p l.
  Value forwardStaged(SymLoop &l, Value array, Value index, Value guard,
                      Type ty);
  /// The thread of the reader's block whose write at \p wIdx (an index
  /// computed by the executing thread) hits \p rIdx: 64-bit thread ids, or
  /// nothing when \p wIdx is not linear in the thread ids.
  std::optional<std::array<Value, 3>> writerOf(Value wIdx, Value rIdx);
  /// \p v computed by another thread: its slice with tid.* replaced.
  Value instantiate(Value v, llvm::DenseMap<Value, Value> &map);
  /// Whether an op in the backward slice of \p v satisfies \p pred.
  bool sliceHas(Value v, llvm::function_ref<bool(Operation *)> pred);
  bool dependsOnTid(Value v);
  bool dependsOnRead(Value v);
  /// The expanded copy of staged shared array \p a: one slice of 2^32
  /// cells per iteration.
  Value stagedArray(Value a);
  /// The cells of shared array \p a (0: extern, or not known yet).
  int64_t sharedCells(Value a);
  /// \p v as constant + sum of coefficient * 64-bit atom, through adds,
  /// subtractions, multiplications and shifts by constants, extensions and
  /// truncations (a guide only: what it yields is checked by kv.prove).
  Linear decompose(Value v, char sign = 's', int depth = 0);
  /// The thread-id axis that \p v is (through extensions), or -1.
  static int tidAxis(Value v);
  /// Move the ops that compute \p v (and are after \p before) before it.
  void hoist(Value v, Operation *before);
  bool dependsOnAny(Value v, const llvm::DenseSet<Operation *> &ops);
  /// The same pure expression (same ops over the same leaves).
  static bool sameExpr(Value a, Value b, unsigned depth = 0) {
    if (a == b)
      return true;
    Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
    if (!x || !y || depth > 32 || x->getName() != y->getName() ||
        x->getAttrDictionary() != y->getAttrDictionary() ||
        x->getNumOperands() != y->getNumOperands() ||
        a.getType() != b.getType() || !isPure(x) ||
        cast<OpResult>(a).getResultNumber() !=
            cast<OpResult>(b).getResultNumber())
      return false;
    for (unsigned i = 0; i < x->getNumOperands(); ++i)
      if (!sameExpr(x->getOperand(i), y->getOperand(i), depth + 1))
        return false;
    return true;
  }
  void takeEdge(const llvm::BasicBlock *from, const llvm::BasicBlock *to,
                State &s);
  State merge(State &t, State &e, Value c, Value guard, size_t forkStores);
  SymVal mergeVal(const SymVal &t, const SymVal &e, Value c);
  void exec(const llvm::Instruction &inst, State &s);
  void execCall(const llvm::CallBase &call, State &s);
  /// With --unroll=N, the exit successor of a loop-exiting branch once the
  /// loop's header has been entered more than N times; else null.
  /// With reportSplit: stop at a loop exit whose symbolic condition \p c
  /// depends only on launch dimensions and scalars, naming them.
  bool splitLoopExit(const llvm::BasicBlock *bb, const llvm::BasicBlock *succ0,
                     const llvm::BasicBlock *succ1, Value c);
  const llvm::BasicBlock *boundedExit(const llvm::BasicBlock *bb,
                                      const llvm::BasicBlock *succ0,
                                      const llvm::BasicBlock *succ1);
  SymVal callFunction(const llvm::Function &callee, const llvm::CallBase &call,
                      State &s);
  Value loadArray(Value array, const Linear &off, llvm::Type *ty, Value guard);
  void storeArray(Value array, const Linear &off, Value val, llvm::Type *ty,
                  State &s);
  Value elementIndex(Value array, const Linear &off, llvm::Type *ty);
  SymVal loadPrivate(const SymVal &p, llvm::Type *ty, State &s);
  Value floatOp(llvm::StringRef fn, llvm::ArrayRef<Value> ops, Type result) {
    return ApplyOp::create(b, loc, result, b.getStringAttr(fn), ops);
  }
  llvm::PostDominatorTree &pdt(const llvm::Function &fn) {
    auto &p = pdts[&fn];
    if (!p)
      p = std::make_unique<llvm::PostDominatorTree>(
          const_cast<llvm::Function &>(fn));
    return *p;
  }
  struct Loops {
    llvm::DominatorTree dt;
    llvm::LoopInfo li;
    explicit Loops(llvm::Function &fn) : dt(fn), li(dt) {}
  };
  llvm::DenseMap<const llvm::Function *, std::unique_ptr<Loops>> loopInfos;
  llvm::LoopInfo &loops(const llvm::Function &fn) {
    auto &l = loopInfos[&fn];
    if (!l)
      l = std::make_unique<Loops>(const_cast<llvm::Function &>(fn));
    return l->li;
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

Value Lowerer::arrayFor(const llvm::Value *base) {
  auto it = argArrays.find(base);
  if (it != argArrays.end())
    return it->second;
  auto *gv = dyn_cast<llvm::GlobalVariable>(base);
  if (!gv)
    return {};
  // A global variable: shared memory (addrspace 3) or a __device__ /
  // __constant__ variable, which acts as a global-memory array.
  Block &blk = kernel.getBlock();
  std::string name = variableName(gv->getName());
  // Element type and size are fixed at the first access.
  Type placeholder;
  if (gv->getAddressSpace() == 3)
    placeholder = SharedArrayType::get(ctx, b.getI8Type(), 0);
  else
    placeholder = GlobalArrayType::get(ctx, b.getI8Type());
  unsigned pos = blk.getNumArguments();
  if (!isa<SharedArrayType>(placeholder)) {
    // Global arrays come before shared arrays.
    pos = 0;
    while (pos < blk.getNumArguments() &&
           !isa<SharedArrayType>(blk.getArgument(pos).getType()))
      ++pos;
  }
  Value a = blk.insertArgument(pos, placeholder, UnknownLoc::get(ctx));
  argNames.insert(argNames.begin() + pos, name);
  argArrays[base] = a;
  return a;
}

SymVal Lowerer::evalConstant(const llvm::Constant *c, State &s) {
  if (auto *ci = dyn_cast<llvm::ConstantInt>(c)) {
    Type t = b.getIntegerType(ci->getBitWidth());
    return scalar(arith::ConstantOp::create(
        b, loc, t, IntegerAttr::get(t, ci->getValue())));
  }
  if (auto *cf = dyn_cast<llvm::ConstantFP>(c)) {
    llvm::APInt bits = cf->getValueAPF().bitcastToAPInt();
    Type t = b.getIntegerType(bits.getBitWidth());
    return scalar(
        arith::ConstantOp::create(b, loc, t, IntegerAttr::get(t, bits)));
  }
  if (isa<llvm::ConstantPointerNull>(c)) {
    SymVal n;
    n.kind = SymVal::NullPtr;
    return n;
  }
  if (isa<llvm::UndefValue>(c) && !c->getType()->isPointerTy()) {
    // undef/poison: any value is a refinement; 0 is one of them.
    Type t = typeFor(c->getType());
    return scalar(cst(t, 0));
  }
  if (auto *gv = dyn_cast<llvm::GlobalVariable>(c)) {
    Value a = arrayFor(gv);
    SymVal p;
    p.kind = SymVal::ArrayPtr;
    p.array = a;
    return p;
  }
  if (auto *ce = dyn_cast<llvm::ConstantExpr>(c)) {
    // Evaluate the expression as an instruction would be.
    llvm::Instruction *inst = ce->getAsInstruction();
    const llvm::Instruction *site = curInst;
    Location siteLoc = loc;
    State tmp = s;
    for (unsigned i = 0; i < inst->getNumOperands(); ++i)
      tmp.vals[inst->getOperand(i)] = eval(inst->getOperand(i), s);
    exec(*inst, tmp);
    SymVal r = tmp.vals.lookup(inst);
    inst->deleteValue();
    curInst = site;
    loc = siteLoc;
    return r;
  }
  fail("constant `" + [&] {
    std::string str;
    llvm::raw_string_ostream os(str);
    c->print(os);
    return str;
  }() + "`");
  return scalar(cst(b.getI32Type(), 0));
}

SymVal Lowerer::eval(const llvm::Value *v, State &s) {
  auto it = s.vals.find(v);
  if (it != s.vals.end())
    return it->second;
  auto pit = paramVals.find(v);
  if (pit != paramVals.end())
    return pit->second;
  if (auto *c = dyn_cast<llvm::Constant>(v))
    return evalConstant(c, s);
  fail("value used before it is defined");
  return scalar(cst(b.getI32Type(), 0));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

Value Lowerer::elementIndex(Value array, const Linear &off, llvm::Type *ty) {
  Type et = typeFor(ty);
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ty);
  // The element type of an array is fixed by its first access.
  Type cur = getArrayElementType(array.getType());
  auto sizeIt = arrayElemSize.find(array);
  if (sizeIt == arrayElemSize.end()) {
    arrayElemSize[array] = size;
    if (auto sh = dyn_cast<SharedArrayType>(array.getType())) {
      int64_t n = sh.getSize();
      array.setType(SharedArrayType::get(ctx, et, n));
    } else {
      array.setType(GlobalArrayType::get(ctx, et));
    }
  } else if (cur != et) {
    fail("array accessed with two element types (" + typeName(ty) + ")");
    return cst(b.getI64Type(), 0);
  }
  Linear idx;
  if (off.constant % (int64_t)size) {
    fail("unaligned access into an array");
    return cst(b.getI64Type(), 0);
  }
  idx.constant = off.constant / (int64_t)size;
  for (auto &[v, c] : off.terms) {
    if (c % (int64_t)size) {
      fail("array index not a multiple of the element size");
      return cst(b.getI64Type(), 0);
    }
    idx.addTerm(v, c / (int64_t)size);
  }
  return materialize(idx);
}

Value Lowerer::loadArray(Value array, const Linear &off, llvm::Type *ty,
                          Value guard) {
  Value idx = elementIndex(array, off, ty);
  if (failed)
    return cst(typeFor(ty), 0);
  if (stagedDone.contains(array)) {
    fail("read of a shared array after a barrier loop that stages it (the "
         "model does not keep its contents past the loop)");
    return cst(typeFor(ty), 0);
  }
  for (SymLoop &l : symLoops) {
    auto st = l.staged.find(array);
    if (st == l.staged.end())
      continue;
    if (st->second == l.phase) {
      fail("read of a shared array in the barrier interval in which a loop "
           "with a symbolic trip count writes it");
      return cst(typeFor(ty), 0);
    }
    l.stagedReads.push_back({array, l.phase});
    // Resolved when the loop's body is complete: the private variables it
    // does not change are then their values before it (thread ids, say).
    auto ph = UnrealizedConversionCastOp::create(
        b, loc, TypeRange{typeFor(ty)}, ValueRange{idx, guard});
    l.pending.push_back({ph, array});
    return ph.getResult(0);
  }
  if (loopWritten.contains(array)) {
    fail("read of an array that a loop with a symbolic trip count writes "
         "in the same barrier interval");
    return cst(typeFor(ty), 0);
  }
  for (SymLoop &l : symLoops)
    l.read[array].push_back(idx);
  Value v = ReadOp::create(b, loc, typeFor(ty), array, idx, guard);
  // Forward this thread's own earlier writes in the barrier interval: a
  // kv.read sees the array as it stood when the interval began.
  for (const OwnWrite &w : ownWrites) {
    if (w.array != array)
      continue;
    Value hit = andI1(w.guard, eq(w.index, idx));
    v = select(hit, w.value, v);
  }
  return v;
}

void Lowerer::storeArray(Value array, const Linear &off, Value val,
                         llvm::Type *ty, State &s) {
  Value idx = elementIndex(array, off, ty);
  if (failed)
    return;
  if (isFalse(s.guard))
    return;
  for (SymLoop &l : symLoops)
    if (l.staged.contains(array))
      return fail("write to a shared array that a barrier loop stages, in "
                  "another of its barrier intervals");
  auto write = WriteOp::create(b, loc, array, idx, val, s.guard);
  if (!symLoops.empty()) {
    SymLoop &l = symLoops.back();
    if (isa<SharedArrayType>(array.getType()))
      l.sharedWrites[array].push_back({idx, val, s.guard, write, l.phase});
    else
      l.globalWrite = true;
    // Written once per iteration: a later read cannot be forwarded.
    for (SymLoop &l : symLoops)
      l.written[array].push_back(idx);
    loopWritten.insert(array);
    return;
  }
  ownWrites.push_back({array, idx, val, s.guard});
}

SymVal Lowerer::loadPrivate(const SymVal &p, llvm::Type *ty, State &s) {
  const llvm::DataLayout &dl = f.getParent()->getDataLayout();
  uint64_t size = dl.getTypeStoreSize(ty);
  // Walk the stores to this object from the latest; an exact hit under a
  // true guard ends the walk.
  std::vector<std::pair<Value, SymVal>> hits; // condition, value
  bool complete = false;
  for (auto it = s.stores.rbegin(); it != s.stores.rend(); ++it) {
    if (it->obj != p.obj)
      continue;
    Linear diff = it->off;
    diff.add(p.off, -1);
    if (diff.terms.empty()) {
      int64_t d = diff.constant;
      if (d == 0 && it->size == size) {
        hits.push_back({it->guard, it->val});
        // A store of the loop body at its top level is unconditional
        // within the iteration, and one made under the reading path's own
        // guard happened on that path (a counter inside an if stays a
        // constant, so a loop there keeps its constant trip count).
        if (isTrue(it->guard) || it->guard == s.guard ||
            (!symLoops.empty() && it->guard == symLoops.back().guard)) {
          complete = true;
          break;
        }
        continue;
      }
      // Disjoint byte ranges do not matter.
      if (d >= (int64_t)size || -d >= (int64_t)it->size)
        continue;
      fail("private memory accessed with overlapping sizes");
      return scalar(cst(b.getI32Type(), 0));
    }
    if (it->size != size) {
      fail("private memory accessed with overlapping sizes");
      return scalar(cst(b.getI32Type(), 0));
    }
    Value same = eq(materialize(it->off), materialize(p.off));
    hits.push_back({andI1(it->guard, same), it->val});
  }
  SymVal result;
  if (complete) {
    result = hits.back().second;
    hits.pop_back();
  } else if (!hits.empty()) {
    // Reading a private location on a path where it may be uninitialized:
    // its content is indeterminate, so any value (here the oldest store) is
    // a valid refinement.
    result = hits.back().second;
    hits.pop_back();
  } else {
    if (ty->isPointerTy()) {
      fail("read of an uninitialized private pointer");
      return scalar(cst(b.getI32Type(), 0));
    }
    result = scalar(cst(typeFor(ty), 0));
  }
  for (auto it = hits.rbegin(); it != hits.rend(); ++it)
    result = mergeVal(it->second, result, it->first);
  return result;
}

//===----------------------------------------------------------------------===//
// Control flow
//===----------------------------------------------------------------------===//

SymVal Lowerer::mergeVal(const SymVal &t, const SymVal &e, Value c) {
  if (t == e)
    return t;
  if (t.kind == SymVal::Scalar && e.kind == SymVal::Scalar) {
    if (t.scalar.getType() != e.scalar.getType()) {
      fail("values of different types merged");
      return t;
    }
    return scalar(select(c, t.scalar, e.scalar));
  }
  if (t.kind == e.kind && t.obj == e.obj && t.array == e.array &&
      t.isPtr()) {
    SymVal r = t;
    r.off = linearOf(select(c, materialize(t.off), materialize(e.off)));
    return r;
  }
  if (t.kind == SymVal::LoopResult || e.kind == SymVal::LoopResult) {
    SymVal r;
    r.kind = SymVal::LoopResult;
    return r;
  }
  if (t.kind == SymVal::None)
    return e;
  if (e.kind == SymVal::None)
    return t;
  // A pointer that may point into two different objects: give up.
  SymVal bad;
  bad.kind = SymVal::None;
  return bad;
}

State Lowerer::merge(State &t, State &e, Value c, Value guard,
                     size_t forkStores) {
  if (t.dead)
    return std::move(e);
  if (e.dead)
    return std::move(t);
  State m;
  m.guard = guard;
  m.vals = t.vals;
  for (auto &[k, ev] : e.vals) {
    auto it = m.vals.find(k);
    if (it == m.vals.end())
      m.vals[k] = ev;
    else
      it->second = mergeVal(it->second, ev, c);
  }
  m.stores = std::move(t.stores);
  m.stores.insert(m.stores.end(), e.stores.begin() + forkStores,
                  e.stores.end());
  m.ret = mergeVal(t.ret, e.ret, c);
  return m;
}

void Lowerer::takeEdge(const llvm::BasicBlock *from,
                       const llvm::BasicBlock *to, State &s) {
  llvm::SmallVector<std::pair<const llvm::PHINode *, SymVal>> phis;
  for (const llvm::PHINode &phi : to->phis())
    phis.push_back({&phi, eval(phi.getIncomingValueForBlock(from), s)});
  for (auto &[phi, v] : phis)
    s.vals[phi] = v;
}

const llvm::BasicBlock *Lowerer::boundedExit(const llvm::BasicBlock *bb,
                                             const llvm::BasicBlock *succ0,
                                             const llvm::BasicBlock *succ1) {
  if (!opts.unrollBound)
    return nullptr;
  llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
  if (!l || visits[l->getHeader()] <= opts.unrollBound)
    return nullptr;
  bool in0 = l->contains(succ0), in1 = l->contains(succ1);
  if (in0 == in1)
    return nullptr;
  return in0 ? succ1 : succ0;
}

bool Lowerer::splitLoopExit(const llvm::BasicBlock *bb,
                            const llvm::BasicBlock *succ0,
                            const llvm::BasicBlock *succ1, Value c) {
  if (!opts.reportSplit)
    return false;
  llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
  if (!l || l->contains(succ0) == l->contains(succ1))
    return false;
  std::set<std::string> names;
  if (!splitNames(c, names))
    return false;
  why.splitOn.assign(names.begin(), names.end());
  fail("loop whose trip count depends on " + llvm::join(why.splitOn, ", "));
  return true;
}

//===----------------------------------------------------------------------===//
// Loops with a symbolic trip count
//===----------------------------------------------------------------------===//

void Lowerer::enterLoop(const llvm::Loop *l, const llvm::BasicBlock *header,
                        State &s, const llvm::BasicBlock *stopAt,
                        const llvm::BasicBlock *from) {
  Block &blk = kernel.getBlock();
  // sreg() adds ops at the block's start: mark the end, not a count.
  Operation *mark = blk.empty() ? nullptr : &blk.back();
  State saved = s;
  std::vector<OwnWrite> ownSaved = ownWrites;
  llvm::DenseSet<Value> loopWrittenSaved = loopWritten;
  Unsupported whyBefore = why;
  // The visits of an attempt that is rolled back are undone too: --unroll's
  // bound counts header visits, and a model attempt's iteration would
  // otherwise use up part of it (the bounded verdict would claim more
  // iterations than were unrolled).
  auto visitsSaved = visits;
  auto rollBack = [&]() {
    visits = visitsSaved;
    while (!blk.empty() && &blk.back() != mark) {
      Operation &op = blk.back();
      op.dropAllUses();
      op.erase();
    }
    s = saved;
    ownWrites = ownSaved;
    loopWritten = loopWrittenSaved;
    failed = false;
    why = whyBefore;
  };
  loopEntries.push_back({l, visits[header]});
  runBlocks(header, s, stopAt, from, /*entered=*/true);
  loopEntries.pop_back();
  if (!failed || restartLoop != l)
    return;
  restartLoop = nullptr;
  rollBack();
  const llvm::BasicBlock *exit = nullptr;
  if (modelLoop(l, s, exit)) {
    if (exit != stopAt)
      runBlocks(exit, s, stopAt, l->getExitingBlock());
    return;
  }
  // No model: unroll as far as the trip count allows, and say why the model
  // did not apply if that fails too.
  std::string reason = why.construct;
  rollBack();
  noModel.insert(l);
  runBlocks(header, s, stopAt, from, /*entered=*/true);
  noModel.erase(l);
  if (failed && why.splitOn.empty() &&
      llvm::StringRef(why.construct).starts_with("loop whose trip count"))
    why.construct += "; as a loop model: " + reason;
}

//===----------------------------------------------------------------------===//
// Barrier loops with a symbolic trip count: staged shared arrays
//===----------------------------------------------------------------------===//
//
// A loop whose body has barriers runs its phases (the barrier intervals of
// one iteration) in lockstep across the block. The model keeps it as one
// kv.iter loop without barriers, which is exact for what it lets through:
//  - a shared array the body writes in one phase and reads only in later
//    phases of the same iteration (a tile) is staged: a read is the value
//    its writer thread stored in this iteration, with the writer solved
//    from the write index; kv.prove ops make the checker show that the
//    writer is in the block, writes, and hits the cell, and that the
//    accesses are in bounds. The writes go to an expanded array indexed by
//    (iteration, cell), so the race check still sees two writers of one
//    cell in one iteration;
//  - the trip count is the same for the whole block, no global memory is
//    written in the loop, and nothing reads a staged array after it.
// Anything else fails with the reason.

void Lowerer::stageBarrier(State &s) {
  if (symLoops.size() != 1)
    return fail("__syncthreads() in nested loops with symbolic trip counts");
  SymLoop &l = symLoops.back();
  if (s.guard != l.guard)
    return fail("__syncthreads() under a condition inside a loop with a "
                "symbolic trip count");
  if (l.preDirty)
    return fail("__syncthreads() in a loop with a symbolic trip count that "
                "starts after writes in the same barrier interval");
  for (auto &[a, is] : l.written)
    if (!isa<SharedArrayType>(a.getType()))
      return fail("write to global memory in a loop with a symbolic trip "
                  "count and a __syncthreads()");
  for (auto &[a, ws] : l.sharedWrites) {
    if (l.staged.contains(a))
      continue;
    if (l.read.contains(a))
      return fail("shared array read in a barrier loop before the loop "
                  "writes it (the read would see the previous iteration)");
    l.staged[a] = l.phase;
    loopWritten.erase(a);
    l.written.erase(a);
  }
  ++l.phase;
}

int Lowerer::tidAxis(Value v) {
  while (Operation *d = v.getDefiningOp()) {
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(d)) {
      v = d->getOperand(0);
      continue;
    }
    if (auto r = dyn_cast<SRegOp>(d))
      if (r.getName().starts_with("tid."))
        return r.getName().back() - 'x';
    return -1;
  }
  return -1;
}

bool Lowerer::sliceHas(Value v, llvm::function_ref<bool(Operation *)> pred) {
  // No cache across calls: a rolled-back attempt frees ops whose addresses
  // new ones reuse.
  llvm::SmallPtrSet<Operation *, 16> seen;
  llvm::SmallVector<Value> work{v};
  while (!work.empty()) {
    Operation *d = work.pop_back_val().getDefiningOp();
    if (!d || !seen.insert(d).second)
      continue;
    if (pred(d))
      return true;
    for (Value o : d->getOperands())
      work.push_back(o);
  }
  return false;
}

bool Lowerer::dependsOnTid(Value v) {
  return sliceHas(v, [](Operation *d) {
    auto r = dyn_cast<SRegOp>(d);
    return r && r.getName().starts_with("tid.");
  });
}

bool Lowerer::dependsOnRead(Value v) {
  return sliceHas(v, [](Operation *d) { return isa<ReadOp>(d); });
}

int64_t Lowerer::sharedCells(Value a) {
  for (auto &[base, arr] : argArrays) {
    auto *gv = dyn_cast<llvm::GlobalVariable>(base);
    if (arr != a || !gv || gv->getAddressSpace() != 3)
      continue;
    uint64_t bytes =
        f.getParent()->getDataLayout().getTypeAllocSize(gv->getValueType());
    uint64_t es = arrayElemSize.count(arr) ? arrayElemSize[arr] : 0;
    return es ? (int64_t)(bytes / es) : 0;
  }
  return 0;
}

Value Lowerer::stagedArray(Value a) {
  Block &blk = kernel.getBlock();
  auto sh = cast<SharedArrayType>(a.getType());
  Value ex = blk.addArgument(SharedArrayType::get(ctx, sh.getElementType(), 0),
                             UnknownLoc::get(ctx));
  argNames.push_back(argNames[cast<BlockArgument>(a).getArgNumber()] +
                     ".staged");
  arrayElemSize[ex] = arrayElemSize.lookup(a);
  return ex;
}

Linear Lowerer::decompose(Value v, char sign, int depth) {
  Linear l;
  llvm::APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) {
    l.constant = sign == 'u' ? (int64_t)c.getZExtValue() : c.getSExtValue();
    return l;
  }
  Operation *d = v.getDefiningOp();
  auto constOf = [&](Value x, int64_t &out) {
    if (!matchPattern(x, m_ConstantInt(&c)) || c.getBitWidth() > 64)
      return false;
    out = c.getSExtValue();
    return true;
  };
  if (d && depth < 24) {
    if (isa<arith::ExtSIOp>(d))
      return decompose(d->getOperand(0), 's', depth + 1);
    if (isa<arith::ExtUIOp>(d))
      return decompose(d->getOperand(0), 'u', depth + 1);
    if (isa<arith::TruncIOp>(d))
      return decompose(d->getOperand(0), sign, depth + 1);
    if (isa<arith::AddIOp, arith::SubIOp>(d)) {
      l = decompose(d->getOperand(0), sign, depth + 1);
      l.add(decompose(d->getOperand(1), sign, depth + 1),
            isa<arith::SubIOp>(d) ? -1 : 1);
      return l;
    }
    int64_t k;
    if (isa<arith::MulIOp>(d)) {
      for (int i = 0; i < 2; ++i)
        if (constOf(d->getOperand(i), k)) {
          l.add(decompose(d->getOperand(1 - i), sign, depth + 1), k);
          return l;
        }
    }
    if (isa<arith::ShLIOp>(d) && constOf(d->getOperand(1), k) && k >= 0 &&
        k < 62) {
      l.add(decompose(d->getOperand(0), sign, depth + 1), int64_t(1) << k);
      return l;
    }
  }
  // An atom, at 64 bits (one extension per value and signedness, so that
  // equal atoms are one term).
  Value &w = wideAtoms[{v, sign}];
  if (!w) {
    OpBuilder::InsertionGuard g(b);
    if (Operation *def = v.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(&kernel.getBlock());
    w = toI64(v, sign != 'u');
  }
  l.terms.push_back({w, 1});
  return l;
}

std::optional<std::array<Value, 3>> Lowerer::writerOf(Value wIdx, Value rIdx) {
  wideAtoms.clear();
  Linear W = decompose(wIdx), R = decompose(rIdx);
  int64_t coef[3] = {0, 0, 0};
  Linear D = R;
  D.constant -= W.constant;
  for (auto &[v, c] : W.terms) {
    if (int d = tidAxis(v); d >= 0)
      coef[d] += c;
    else if (dependsOnTid(v))
      return std::nullopt;
    else
      D.addTerm(v, -c);
  }
  Type i64 = b.getI64Type();
  std::array<Value, 3> who;
  std::vector<int> open;
  for (int d = 0; d < 3; ++d) {
    std::string axis(1, char('x' + d));
    who[d] = toI64(sreg("tid." + axis), /*isSigned=*/false);
    if (coef[d] == 0)
      continue;
    if (coef[d] < 0)
      return std::nullopt;
    // The read names the same coordinate with the same weight: the writer
    // shares it with the reader (as[ty][k] read, as[ty][tx] written).
    int64_t rc = 0;
    for (auto &[v, c] : D.terms)
      if (tidAxis(v) == d)
        rc += c;
    if (rc == coef[d]) {
      Linear rest;
      rest.constant = D.constant;
      for (auto &[v, c] : D.terms)
        if (tidAxis(v) != d)
          rest.addTerm(v, c);
      D = rest;
      continue;
    }
    open.push_back(d);
  }
  llvm::sort(open, [&](int x, int y) { return coef[x] < coef[y]; });
  if (open.size() == 1) {
    int64_t c = coef[open[0]];
    bool exact = D.constant % c == 0;
    for (auto &[v, k] : D.terms)
      exact = exact && k % c == 0;
    if (exact) {
      Linear q;
      q.constant = D.constant / c;
      for (auto &[v, k] : D.terms)
        q.addTerm(v, k / c);
      who[open[0]] = materialize(q);
    } else {
      who[open[0]] = b.createOrFold<arith::DivUIOp>(loc, materialize(D),
                                                    cst(i64, c));
    }
  } else if (!open.empty()) {
    // Mixed radix: the weights must divide one another.
    Value x = materialize(D);
    for (size_t i = 0; i < open.size(); ++i) {
      int64_t c = coef[open[i]];
      Value q = b.createOrFold<arith::DivUIOp>(loc, x, cst(i64, c));
      if (i + 1 < open.size()) {
        int64_t next = coef[open[i + 1]];
        if (next % c)
          return std::nullopt;
        q = b.createOrFold<arith::RemUIOp>(loc, q, cst(i64, next / c));
      }
      who[open[i]] = q;
    }
  }
  return who;
}

Value Lowerer::instantiate(Value v, llvm::DenseMap<Value, Value> &map) {
  auto it = map.find(v);
  if (it != map.end())
    return it->second;
  Operation *d = v.getDefiningOp();
  if (!d || !dependsOnTid(v))
    return v;
  if (isa<IterOp, SumOp, WriteOp, AssumeOp, ProveOp>(d) ||
      d->getNumResults() != 1) {
    fail("value stored to a staged shared array computed in an inner loop "
         "from the thread id");
    return v;
  }
  // Operands first: the clone must come after them.
  llvm::SmallVector<Value, 4> ops;
  for (Value o : d->getOperands())
    ops.push_back(instantiate(o, map));
  Operation *c = b.clone(*d);
  c->setOperands(ops);
  return map[v] = c->getResult(0);
}

Value Lowerer::forwardStaged(SymLoop &l, Value array, Value index,
                             Value guard, Type ty) {
  Type i64 = b.getI64Type();
  Value v = cst(ty, 0), any = i1(false);
  bool first = true;
  for (const SymLoop::SharedWrite &rec : l.sharedWrites[array]) {
    // The op's operands, not the record's: placeholders are replaced.
    WriteOp w = rec.op;
    std::optional<std::array<Value, 3>> who = writerOf(w.getIndex(), index);
    if (!who) {
      fail("read of a shared array staged in a barrier loop whose write "
           "index is not linear in the thread ids");
      return v;
    }
    llvm::DenseMap<Value, Value> map;
    Value in = i1(true);
    for (int d = 0; d < 3; ++d) {
      std::string axis(1, char('x' + d));
      Value tid = sreg("tid." + axis);
      map[tid] = b.createOrFold<arith::TruncIOp>(loc, tid.getType(), (*who)[d]);
      in = andI1(in, b.createOrFold<arith::CmpIOp>(
                         loc, arith::CmpIPredicate::ult, (*who)[d],
                         toI64(sreg("bdim." + axis), false)));
    }
    Value wv = instantiate(w.getValue(), map);
    Value hit = andI1(andI1(in, instantiate(w.getGuard(), map)),
                      eq(instantiate(w.getIndex(), map), index));
    if (failed)
      return v;
    if (wv.getType() != ty) {
      fail("staged shared array read with another type than written");
      return v;
    }
    // Some write hits (kv.prove): the first needs no test.
    v = first ? wv : select(hit, wv, v);
    first = false;
    any = b.createOrFold<arith::OrIOp>(loc, any, hit);
  }
  ProveOp::create(b, loc, b.createOrFold<arith::OrIOp>(loc, notI1(guard), any),
                  b.getStringAttr("a thread of the block wrote the staged "
                                  "shared cell in this iteration"));
  if (int64_t size = sharedCells(array))
    ProveOp::create(
        b, loc,
        b.createOrFold<arith::OrIOp>(
            loc, notI1(guard),
            b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                          index, cst(i64, size))),
        b.getStringAttr("staged shared-array read in bounds"));
  return v;
}

void Lowerer::hoist(Value v, Operation *before) {
  Operation *d = v.getDefiningOp();
  if (!d || d->getBlock() != before->getBlock() || d == before ||
      d->isBeforeInBlock(before))
    return;
  for (Value o : d->getOperands())
    hoist(o, before);
  d->moveBefore(before);
}

bool Lowerer::dependsOnAny(Value v, const llvm::DenseSet<Operation *> &ops) {
  return sliceHas(v, [&](Operation *d) { return ops.contains(d); });
}

bool Lowerer::modelLoop(const llvm::Loop *l, State &s,
                        const llvm::BasicBlock *&exit) {
  const llvm::BasicBlock *header = l->getHeader();
  const llvm::BasicBlock *latch = l->getLoopLatch();
  const llvm::BasicBlock *exiting = l->getExitingBlock();
  exit = l->getExitBlock();
  curInst = header->getTerminator();
  if (!latch || !exiting || !exit || (exiting != header && exiting != latch)) {
    fail("loop with several exits or back edges");
    return false;
  }
  Block &blk = kernel.getBlock();
  State pre = s;
  Value entryGuard = s.guard;
  // Placeholders for the values carried around the loop (header phis and
  // private variables), and for "this iteration runs".
  llvm::DenseSet<Operation *> holders;
  auto placeholder = [&](Type t) {
    auto op = UnrealizedConversionCastOp::create(b, loc, TypeRange{t},
                                                 ValueRange{});
    holders.insert(op);
    return op.getResult(0);
  };
  struct Carried {
    const llvm::PHINode *phi = nullptr; // else a private variable
    unsigned obj = 0;
    int64_t off = 0;
    uint64_t size = 0;
    Value init, holder, next;
    Value step64; // an induction variable's step, 64 bits
  };
  std::vector<Carried> carried;
  for (const llvm::PHINode &phi : header->phis()) {
    SymVal v = s.vals.lookup(&phi);
    if (v.kind != SymVal::Scalar) {
      curInst = &phi;
      fail("pointer carried around a loop with a symbolic trip count");
      return false;
    }
    Carried c;
    c.phi = &phi;
    c.init = v.scalar;
    c.holder = placeholder(v.scalar.getType());
    s.vals[&phi] = scalar(c.holder);
    carried.push_back(c);
  }
  {
    std::set<std::tuple<unsigned, int64_t, uint64_t>> seen;
    std::vector<PrivStore> stores = s.stores;
    for (const PrivStore &st : stores) {
      if (!st.off.terms.empty() || st.val.kind != SymVal::Scalar ||
          !seen.insert({st.obj, st.off.constant, st.size}).second)
        continue;
      SymVal p;
      p.kind = SymVal::PrivPtr;
      p.obj = st.obj;
      p.off = st.off;
      SymVal cur = loadPrivate(
          p, llvm::IntegerType::get(f.getContext(), st.size * 8), s);
      if (failed)
        return false;
      if (cur.kind != SymVal::Scalar)
        continue;
      Carried c;
      c.obj = st.obj;
      c.off = st.off.constant;
      c.size = st.size;
      c.init = cur.scalar;
      c.holder = placeholder(cur.scalar.getType());
      s.stores.push_back({st.obj, st.off, st.size, scalar(c.holder), i1(true)});
      carried.push_back(c);
    }
  }
  Value guard = placeholder(b.getI1Type());
  Operation *anchor = guard.getDefiningOp();
  if (!carried.empty())
    anchor = carried.front().holder.getDefiningOp();
  s.guard = guard;
  size_t storeBase = s.stores.size();
  symLoops.emplace_back();
  symLoops.back().loop = l;
  symLoops.back().exiting = exiting;
  symLoops.back().guard = guard;
  symLoops.back().startMark = &blk.back();
  symLoops.back().preDirty = !ownWrites.empty() || !loopWritten.empty();
  runBlocks(header, s, /*stopAt=*/header, nullptr, /*entered=*/true);
  SymLoop m = std::move(symLoops.back());
  symLoops.pop_back();
  for (SymLoop &outer : symLoops) {
    for (auto &[a, is] : m.read)
      outer.read[a].append(is.begin(), is.end());
    for (auto &[a, is] : m.written)
      outer.written[a].append(is.begin(), is.end());
  }
  auto give = [&](const llvm::Twine &why) {
    if (!failed) {
      curInst = exiting->getTerminator();
      fail(why);
    }
    return false;
  };
  if (failed)
    return false;
  if (s.dead)
    return give("loop body that does not return to its header");
  if (!m.cond)
    return give("loop without an exit test");
  if (m.phase) {
    for (auto &[a, is] : m.written)
      if (!isa<SharedArrayType>(a.getType()))
        return give("write to global memory in a loop with a symbolic trip "
                    "count and a __syncthreads()");
      else
        return give("shared array written after the last __syncthreads() of "
                    "a loop iteration (the next iteration reads it)");
    // A tile read in the last phase and written in the first would be
    // overwritten by the next iteration's first phase with no barrier
    // between.
    for (auto &[a, phase] : m.stagedReads)
      if (m.staged.lookup(a) == 0 && phase == m.phase)
        return give("shared array read after the last __syncthreads() of a "
                    "loop iteration and written before the first");
  }
  // A cell read before the loop writes it, at the same index, is one no
  // other iteration wrote (the race check shows two iterations never write
  // one cell): `y[i] = a * x[i] + y[i]`. Anything else would have to see
  // other iterations' writes.
  for (auto &[a, reads] : m.read) {
    auto w = m.written.find(a);
    if (w == m.written.end())
      continue;
    for (Value i : llvm::concat<Value>(reads, w->second))
      if (!sameExpr(i, reads.front()))
        return give("loop that reads an array it writes at another index "
                    "(iterations would see each other's writes)");
  }

  // A pointer the loop stores into a private variable that lives on.
  for (size_t i = storeBase; i < s.stores.size(); ++i)
    if (s.stores[i].val.kind != SymVal::Scalar)
      for (size_t j = 0; j < storeBase; ++j)
        if (pre.stores.size() > j && s.stores[j].obj == s.stores[i].obj)
          return give("pointer stored to a private variable in a loop with "
                      "a symbolic trip count");
  // What each carried value became after one iteration.
  for (Carried &c : carried) {
    if (c.phi) {
      SymVal v = s.vals.lookup(c.phi);
      if (v.kind != SymVal::Scalar)
        return give("pointer carried around a loop with a symbolic trip "
                    "count");
      c.next = v.scalar;
      continue;
    }
    c.next = c.holder;
    for (size_t i = s.stores.size(); i-- > storeBase;) {
      const PrivStore &st = s.stores[i];
      if (st.obj != c.obj)
        continue;
      bool exact = st.off.terms.empty() && st.off.constant == c.off &&
                   st.size == c.size;
      bool disjoint = st.off.terms.empty() &&
                      (st.off.constant >= c.off + (int64_t)c.size ||
                       c.off >= st.off.constant + (int64_t)st.size);
      if (disjoint)
        continue;
      if (!exact || (!isTrue(st.guard) && st.guard != guard) ||
          st.val.kind != SymVal::Scalar)
        return give("private variable updated conditionally or through a "
                    "pointer in a loop with a symbolic trip count");
      c.next = st.val.scalar;
      break;
    }
  }
  // Values the loop does not change are their initial values.
  {
    std::vector<Carried> changed;
    for (Carried &c : carried) {
      if (c.next != c.holder) {
        changed.push_back(c);
        continue;
      }
      Operation *h = c.holder.getDefiningOp();
      if (h == anchor)
        anchor = h->getNextNode();
      c.holder.replaceAllUsesWith(c.init);
      holders.erase(h);
      h->erase();
    }
    carried = std::move(changed);
  }
  // Staged reads, now that the unchanged variables are known.
  for (auto &[ph, array] : m.pending) {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(ph);
    Location outer = loc;
    loc = ph.getLoc();
    auto restore = llvm::make_scope_exit([&] { loc = outer; });
    Value v = forwardStaged(m, array, ph.getOperand(0), ph.getOperand(1),
                            ph.getResult(0).getType());
    if (failed)
      return false;
    ph.getResult(0).replaceAllUsesWith(v);
    ph.erase();
  }
  // Induction variables: next = holder + step, the step loop-invariant.
  auto stepOf = [&](const Carried &c) -> Value {
    auto add = c.next.getDefiningOp<arith::AddIOp>();
    if (!add)
      return {};
    Value step = add.getLhs() == c.holder   ? add.getRhs()
                 : add.getRhs() == c.holder ? add.getLhs()
                                            : Value();
    if (!step || dependsOnAny(step, holders))
      return {};
    return step;
  };
  // Accumulators: next = holder + term, or select(c, holder + term, holder)
  // (a conditional `s += term`), where the term does not depend on any
  // accumulator. The loop's result is init + kv.sum(term).
  llvm::DenseSet<Operation *> accHolders;
  for (Carried &c : carried)
    if (c.next != c.holder && !stepOf(c))
      accHolders.insert(c.holder.getDefiningOp());
  if (m.cond && dependsOnAny(m.cond, accHolders))
    return give("loop exit test that depends on a value carried around the "
                "loop other than an induction variable");
  // The ops that compute next from the holder; the term.
  auto accTerm = [&](Carried &c, llvm::SmallVectorImpl<Operation *> &chain,
                     unsigned &addends) -> Value {
    Value n = c.next, cond;
    bool negate = false;
    if (auto sel = n.getDefiningOp<arith::SelectOp>()) {
      chain.push_back(sel);
      cond = sel.getCondition();
      if (sel.getFalseValue() == c.holder) {
        n = sel.getTrueValue();
      } else if (sel.getTrueValue() == c.holder) {
        n = sel.getFalseValue();
        negate = true;
      } else {
        return {};
      }
    }
    // holder + t0 + t1 + ... in any association (`s += a; s += b;`, or an
    // unrolled body): the term is the sum of the addends.
    llvm::DenseSet<Operation *> self{c.holder.getDefiningOp()};
    Value term;
    addends = 0;
    while (n != c.holder) {
      auto add = n.getDefiningOp<arith::AddIOp>();
      if (!add)
        return {};
      chain.push_back(add);
      bool inL = dependsOnAny(add.getLhs(), self);
      bool inR = dependsOnAny(add.getRhs(), self);
      if (inL == inR)
        return {};
      Value t = inL ? add.getRhs() : add.getLhs();
      term = term ? b.createOrFold<arith::AddIOp>(loc, t, term) : t;
      ++addends;
      n = inL ? add.getLhs() : add.getRhs();
    }
    if (!term || dependsOnAny(term, accHolders) ||
        (cond && dependsOnAny(cond, accHolders)))
      return {};
    if (cond) {
      Value zero = cst(term.getType(), 0);
      term = negate ? select(cond, zero, term) : select(cond, term, zero);
    }
    return term;
  };
  struct Acc {
    Carried *c;
    Value term;
    llvm::SmallVector<Operation *, 2> chain;
    unsigned addends = 0;
  };
  // A bounded check (--unroll) unrolls sums: a sum in one kernel and its
  // unrolled terms in the other could not be compared.
  if (!accHolders.empty() && opts.unrollBound)
    return give("value carried around a loop with a symbolic trip count "
                "that is not an induction variable, with --unroll");
  std::vector<Acc> accs;
  for (Carried &c : carried) {
    if (!accHolders.contains(c.holder.getDefiningOp()))
      continue;
    Acc a{&c, {}, {}};
    a.term = accTerm(c, a.chain, a.addends);
    if (!a.term)
      return give("value carried around a loop with a symbolic trip count "
                  "that is neither an induction variable nor a sum "
                  "(s += term)");
    accs.push_back(std::move(a));
  }
  // The running sum has no value inside the loop: only the source kernel's
  // "no signed overflow" assumptions may use it, and they are dropped (an
  // assumption fewer keeps a proof sound).
  for (Acc &a : accs) {
    llvm::SetVector<Operation *> slice;
    llvm::SmallVector<Value> work{a.c->holder};
    for (Operation *op : a.chain)
      work.push_back(op->getResult(0));
    while (!work.empty()) {
      Value v = work.pop_back_val();
      for (Operation *u : v.getUsers()) {
        if (llvm::is_contained(a.chain, u) || !slice.insert(u))
          continue;
        if (auto as = dyn_cast<AssumeOp>(u)) {
          if (!as->hasAttr("ub"))
            return give("running value of a sum used inside its loop");
          continue;
        }
        if (u->getNumResults() != 1 || isa<ReadOp>(u))
          return give("running value of a sum used inside its loop");
        work.push_back(u->getResult(0));
      }
    }
    // Users come after their operands in the block: erase from the last.
    llvm::SmallVector<Operation *> dead(slice.begin(), slice.end());
    dead.append(a.chain.begin(), a.chain.end());
    llvm::sort(dead, [](Operation *x, Operation *y) {
      return y->isBeforeInBlock(x);
    });
    for (Operation *op : dead)
      op->erase();
  }

  // The exit test: stay while (holder + offset) pred bound.
  auto cmp = m.cond.getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return give("loop exit test that is not a comparison");
  using P = arith::CmpIPredicate;
  P pred = m.stayOnTrue ? cmp.getPredicate()
                        : arith::invertPredicate(cmp.getPredicate());
  Value lhs = cmp.getLhs(), rhs = cmp.getRhs();
  if (dependsOnAny(lhs, holders) == dependsOnAny(rhs, holders))
    return give("loop exit test that does not compare an induction variable "
                "with a loop-invariant bound");
  if (dependsOnAny(rhs, holders)) {
    std::swap(lhs, rhs);
    switch (pred) {
    case P::slt: pred = P::sgt; break;
    case P::sle: pred = P::sge; break;
    case P::sgt: pred = P::slt; break;
    case P::sge: pred = P::sle; break;
    case P::ult: pred = P::ugt; break;
    case P::ule: pred = P::uge; break;
    case P::ugt: pred = P::ult; break;
    case P::uge: pred = P::ule; break;
    default: break;
    }
  }
  // `x != bound` (how -O2 writes a rotated loop's test): ult, with the
  // checker proving that x starts at most at bound and reaches it exactly.
  bool fromNe = pred == P::ne;
  if (fromNe)
    pred = P::ult;
  // A decreasing loop (x > bound, x >= bound) is counted on ~x, which
  // increases: ~ reverses the order of the w-bit values, signed and
  // unsigned alike, so the model's test and its no-wraparound check carry
  // over to it.
  bool down = false;
  switch (pred) {
  case P::sgt: pred = P::slt; down = true; break;
  case P::sge: pred = P::sle; down = true; break;
  case P::ugt: pred = P::ult; down = true; break;
  case P::uge: pred = P::ule; down = true; break;
  default: break;
  }
  bool isSigned = pred == P::slt || pred == P::sle;
  if (!isSigned && pred != P::ult && pred != P::ule)
    return give("loop exit test other than <, <=, >, >=, != on an induction "
                "variable");
  // Comparing extended values is comparing the values.
  if (auto e = lhs.getDefiningOp<arith::ExtSIOp>(); e && isSigned)
    lhs = e.getIn();
  else if (auto e = lhs.getDefiningOp<arith::ExtUIOp>(); e && !isSigned)
    lhs = e.getIn();
  if (auto e = rhs.getDefiningOp<arith::ExtSIOp>(); e && isSigned &&
      e.getIn().getType() == lhs.getType())
    rhs = e.getIn();
  else if (auto e = rhs.getDefiningOp<arith::ExtUIOp>(); e && !isSigned &&
           e.getIn().getType() == lhs.getType())
    rhs = e.getIn();
  const Carried *iv = nullptr;
  Value offset;
  for (const Carried &c : carried) {
    if (c.next == c.holder)
      continue;
    if (lhs == c.holder) {
      iv = &c;
    } else if (auto add = lhs.getDefiningOp<arith::AddIOp>()) {
      Value o = add.getLhs() == c.holder   ? add.getRhs()
                : add.getRhs() == c.holder ? add.getLhs()
                                           : Value();
      if (o && !dependsOnAny(o, holders)) {
        iv = &c;
        offset = o;
      }
    }
    if (iv)
      break;
  }
  if (!iv)
    return give("loop exit test on something other than an induction "
                "variable plus a loop-invariant offset");
  Value step = stepOf(*iv);
  // `x != bound` stepping down by a constant.
  if (llvm::APInt c; fromNe && matchPattern(step, m_ConstantInt(&c)) &&
                     c.isNegative())
    down = true;
  // The model counts without wraparound; kv.iter's width makes the checker
  // prove that the variable does not wrap before the loop ends (C's
  // `i += blockDim.x * gridDim.x` is an unsigned add that may).
  unsigned w = lhs.getType().getIntOrFloatBitWidth();
  if (w > 32)
    return give("loop whose induction variable is wider than 32 bits");
  bool doWhile = exiting == latch;
  // `x != bound` tested on the value before the step (the old value, at the
  // latch): the model starts one step below the first value, -1 from 0, so
  // it counts signed.
  if (fromNe && doWhile && offset != step) {
    pred = P::slt;
    isSigned = true;
  }

  // Build the model right before the loop body: kv.iter, the induction
  // variables at iteration k, and the iteration's guard.
  Type i64 = b.getI64Type();
  auto ext = [&](Value v, bool sgn) { return toI64(v, sgn); };
  // A decreasing unsigned variable steps by a negative number too.
  Value step64 = ext(step, isSigned || down);
  Value init64 = ext(iv->init, isSigned);
  // The value tested in iteration j is init + offset + j * step. A header
  // test runs iteration k when its own test passes; a latch test (a
  // rotated loop) when iteration k - 1's did: lb = init + offset - step,
  // which is init when the latch tests the incremented value.
  Value lb = init64;
  if (!(doWhile && offset == step)) {
    if (offset)
      lb = b.createOrFold<arith::AddIOp>(loc, lb, ext(offset, isSigned));
    if (doWhile)
      lb = b.createOrFold<arith::SubIOp>(loc, lb, step64);
  }
  Value bound = ext(rhs, isSigned);
  // The model's variable for a decreasing loop: ~x as a 64-bit value, C - x
  // with C = -1 (signed) or 2^w - 1 (unsigned), with the opposite step.
  Value iterLb = lb, iterStep = step64, iterBound = bound;
  if (down) {
    Value c = cst(i64, isSigned ? -1 : int64_t((uint64_t(1) << w) - 1));
    iterLb = b.createOrFold<arith::SubIOp>(loc, c, lb);
    iterBound = b.createOrFold<arith::SubIOp>(loc, c, bound);
    iterStep = b.createOrFold<arith::SubIOp>(loc, cst(i64, 0), step64);
  }
  auto iter = IterOp::create(b, loc, i64, iterLb, iterStep, iterBound,
                             entryGuard,
                             b.getStringAttr(isSigned
                                                 ? (pred == P::slt ? "slt"
                                                                   : "sle")
                                                 : (pred == P::ult ? "ult"
                                                                   : "ule")),
                             doWhile ? b.getUnitAttr() : UnitAttr(),
                             b.getI64IntegerAttr(w),
                             fromNe ? b.getUnitAttr() : UnitAttr());
  Value k = iter.getResult();
  llvm::DenseMap<Value, Value> mulByStep;
  auto times = [&](Value s64) {
    Value &m = mulByStep[s64];
    if (!m)
      m = b.createOrFold<arith::MulIOp>(loc, k, s64);
    return m;
  };
  Value tested = b.createOrFold<arith::AddIOp>(loc, iterLb, times(iterStep));
  Value live = b.createOrFold<arith::CmpIOp>(loc, pred, tested, iterBound);
  if (doWhile)
    live = b.createOrFold<arith::OrIOp>(loc, eq(k, cst(i64, 0)), live);
  live = andI1(entryGuard, live);
  std::vector<std::pair<Value, Value>> repl{{guard, live}};
  for (Carried &c : carried) {
    if (accHolders.contains(c.holder.getDefiningOp()))
      continue;
    Value v = c.init;
    if (c.next != c.holder) {
      bool sgn = &c != iv || isSigned;
      unsigned cw = c.holder.getType().getIntOrFloatBitWidth();
      Value s64 = &c == iv ? step64 : ext(stepOf(c), sgn);
      c.step64 = s64;
      Value at = b.createOrFold<arith::AddIOp>(
          loc, &c == iv ? init64 : ext(c.init, sgn), times(s64));
      v = cw == 64 ? at
                   : b.createOrFold<arith::TruncIOp>(loc, c.holder.getType(),
                                                     at);
    }
    repl.push_back({c.holder, v});
  }
  for (auto &[h, v] : repl) {
    hoist(v, anchor);
    h.replaceAllUsesWith(v);
  }
  // Barriers inside: every thread of the block runs the same iterations.
  if (m.phase)
    for (Value v : {iterLb, iterStep, iterBound, entryGuard})
      if (dependsOnTid(v) || dependsOnRead(v))
        return give("loop with a __syncthreads() whose trip count may "
                    "differ between the threads of a block");
  // Each sum, after the loop body.
  // A loop unrolled U times (the step of its induction variable is U, and
  // its sums add U terms per iteration) is marked: the checker then tries to
  // regroup its sums with a remainder loop's.
  std::optional<unsigned> unrolled;
  if (llvm::APInt c; matchPattern(step, m_ConstantInt(&c))) {
    if (down)
      c.negate();
    if (c.sgt(1) && c.slt(64))
      unrolled = c.getZExtValue();
  }
  std::vector<Value> totals;
  for (Acc &a : accs) {
    auto sum = SumOp::create(b, loc, a.term.getType(), a.term, k,
                             IntegerAttr());
    if (unrolled && a.addends == *unrolled)
      sum.setGroupAttr(b.getI64IntegerAttr(*unrolled));
    // A barrier loop over tiles adds a tile's terms per iteration: the
    // checker tries to regroup them with a loop over single terms.
    else if (m.phase && a.addends >= 2)
      sum.setGroupAttr(b.getI64IntegerAttr(a.addends));
    totals.push_back(
        b.createOrFold<arith::AddIOp>(loc, a.c->init, sum.getResult()));
  }
  // A loop that reaches its bound exactly (x != bound) runs
  // (bound - lb) / step iterations: its induction variables' values after
  // it are known (a runtime-unrolled loop's remainder starts there).
  std::vector<std::pair<const llvm::Value *, Value>> finals;
  if (fromNe) {
    Value trips = b.createOrFold<arith::DivUIOp>(
        loc, b.createOrFold<arith::SubIOp>(loc, iterBound, iterLb), iterStep);
    for (Carried &c : carried) {
      if (!c.phi || !c.step64)
        continue;
      bool sgn = &c != iv || isSigned;
      Type ct = c.phi->getType()->isIntegerTy()
                    ? b.getIntegerType(c.phi->getType()->getIntegerBitWidth())
                    : Type();
      if (!ct)
        continue;
      Value s64 = c.step64;
      Value init = &c == iv ? init64 : ext(c.init, sgn);
      auto at = [&](Value n) {
        Value v = b.createOrFold<arith::AddIOp>(
            loc, init, b.createOrFold<arith::MulIOp>(loc, n, s64));
        return ct.getIntOrFloatBitWidth() == 64
                   ? v
                   : b.createOrFold<arith::TruncIOp>(loc, ct, v);
      };
      // The update's last value is the one of iteration `trips`; the
      // phi's, seen by the exit, that of the iteration that tested it.
      Value after = at(trips);
      if (auto *upd = dyn_cast<llvm::Instruction>(
              c.phi->getIncomingValueForBlock(latch));
          upd && l->contains(upd))
        finals.push_back({upd, after});
      finals.push_back(
          {c.phi, exiting == header
                      ? after
                      : at(b.createOrFold<arith::SubIOp>(loc, trips,
                                                          cst(i64, 1)))});
    }
  }
  for (Operation *h : holders) {
    if (!h->use_empty())
      return give("running value of a sum used inside its loop");
    h->erase();
  }

  // After the loop: the state before it (the loop ends for every thread
  // that enters it); what the loop computed is not kept, but for its sums.
  s = std::move(pre);
  SymVal gone;
  gone.kind = SymVal::LoopResult;
  for (const llvm::BasicBlock *bb : l->blocks())
    for (const llvm::Instruction &i : *bb)
      if (!i.getType()->isVoidTy())
        s.vals[&i] = gone;
  for (auto &[v, val] : finals)
    s.vals[v] = scalar(val);
  for (Carried &c : carried)
    if (!c.phi && c.next != c.holder) {
      Linear off;
      off.constant = c.off;
      s.stores.push_back({c.obj, off, c.size, gone, i1(true)});
    }
  for (size_t i = 0; i < accs.size(); ++i) {
    const Carried &c = *accs[i].c;
    if (!c.phi) {
      Linear off;
      off.constant = c.off;
      s.stores.push_back({c.obj, off, c.size, scalar(totals[i]), i1(true)});
      continue;
    }
    // The value of the last iteration's update is the total; so is the
    // header's phi when the header tests the exit (it saw every update).
    if (auto *upd = dyn_cast<llvm::Instruction>(
            c.phi->getIncomingValueForBlock(latch)))
      if (l->contains(upd))
        s.vals[upd] = scalar(totals[i]);
    if (exiting == header)
      s.vals[c.phi] = scalar(totals[i]);
  }
  // The staged writes go to an expanded array, one slice per iteration
  // (the race check then compares writers within an iteration), with
  // their bounds proved on the array's own size.
  for (auto &[a, phase] : m.staged) {
    stagedDone.insert(a);
    Value ex = stagedArray(a);
    int64_t cells = sharedCells(a);
    for (SymLoop::SharedWrite &sw : m.sharedWrites[a]) {
      // The placeholders the record saw are replaced: read the op.
      WriteOp w = sw.op;
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPoint(w);
      Value at = b.createOrFold<arith::AddIOp>(
          loc, b.createOrFold<arith::MulIOp>(loc, k, cst(i64, int64_t(1) << 32)),
          w.getIndex());
      int64_t size = cells > 0 ? cells : int64_t(1) << 32;
      ProveOp::create(
          b, w.getLoc(),
          b.createOrFold<arith::OrIOp>(
              loc, notI1(w.getGuard()),
              b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                            w.getIndex(), cst(i64, size))),
          b.getStringAttr("staged shared-array write in bounds"));
      w.getArrayMutable().assign(ex);
      w.getIndexMutable().assign(at);
    }
  }
  takeEdge(exiting, exit, s);
  return !failed;
}

void Lowerer::runBlocks(const llvm::BasicBlock *bb, State &s,
                        const llvm::BasicBlock *stopAt,
                        const llvm::BasicBlock *from, bool entered) {
  while (bb && !failed) {
    if (!entered) {
      llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
      if (l && l->getHeader() == bb && (!from || !l->contains(from)))
        return enterLoop(l, bb, s, stopAt, from);
    }
    entered = false;
    if (++visits[bb] > opts.maxBlockVisits) {
      curInst = bb->getTerminator();
      fail("loop whose trip count is not a constant (unrolled " +
           llvm::Twine(opts.maxBlockVisits) +
           " times; --unroll=N gives a bounded check)");
      return;
    }
    for (const llvm::Instruction &inst : *bb) {
      if (isa<llvm::PHINode>(inst))
        continue;
      if (inst.isTerminator())
        break;
      exec(inst, s);
      if (failed || s.dead)
        return;
    }
    const llvm::Instruction *term = bb->getTerminator();
    curInst = term;
    if (term->getDebugLoc())
      loc = FileLineColLoc::get(ctx, term->getDebugLoc()->getFilename(),
                                term->getDebugLoc().getLine(),
                                term->getDebugLoc().getCol());
    if (auto *ret = dyn_cast<llvm::ReturnInst>(term)) {
      if (ret->getReturnValue())
        s.ret = eval(ret->getReturnValue(), s);
      return;
    }
    if (isa<llvm::UnreachableInst>(term)) {
      s.dead = true;
      return;
    }
    // A two-way branch: a br, or a switch with two distinct targets (as in
    // clang's cleanup code for an early return).
    const llvm::BasicBlock *succ0 = nullptr, *succ1 = nullptr;
    Value c;
    bool uncond = false;
    if (auto *br = dyn_cast<llvm::BranchInst>(term)) {
      uncond = br->isUnconditional();
      succ0 = br->getSuccessor(0);
      if (!uncond) {
        succ1 = br->getSuccessor(1);
        c = evalScalar(br->getCondition(), s);
      }
    } else if (auto *sw = dyn_cast<llvm::SwitchInst>(term)) {
      Value v = evalScalar(sw->getCondition(), s);
      llvm::SmallPtrSet<const llvm::BasicBlock *, 4> targets;
      for (unsigned i = 0; i < sw->getNumSuccessors(); ++i)
        targets.insert(sw->getSuccessor(i));
      if (targets.size() > 2) {
        fail("switch with more than two targets");
        return;
      }
      // c: the value selects one of the case blocks of succ0.
      succ0 = sw->case_begin() != sw->case_end()
                  ? sw->case_begin()->getCaseSuccessor()
                  : sw->getDefaultDest();
      c = i1(sw->getDefaultDest() == succ0);
      for (auto &cs : sw->cases()) {
        Value hit = eq(v, arith::ConstantOp::create(
                              b, loc, v.getType(),
                              IntegerAttr::get(v.getType(),
                                               cs.getCaseValue()->getValue())));
        if (cs.getCaseSuccessor() == succ0)
          c = b.createOrFold<arith::OrIOp>(loc, c, hit);
        else if (sw->getDefaultDest() == succ0)
          c = andI1(c, notI1(hit));
      }
      for (const llvm::BasicBlock *t : targets)
        if (t != succ0)
          succ1 = t;
      if (!succ1)
        uncond = true;
    } else {
      fail(llvm::Twine("terminator '") + term->getOpcodeName() + "'");
      return;
    }
    const llvm::BasicBlock *next = nullptr;
    llvm::Loop *exitsLoop = nullptr;
    if (!uncond && succ0 != succ1) {
      llvm::Loop *l = loops(*bb->getParent()).getLoopFor(bb);
      if (l && l->contains(succ0) != l->contains(succ1))
        exitsLoop = l;
    }
    bool k;
    if (exitsLoop && !symLoops.empty() && symLoops.back().loop == exitsLoop) {
      // The exit test of the loop being modelled: the iteration goes on;
      // the test becomes the kv.iter's condition.
      SymLoop &m = symLoops.back();
      if (bb != m.exiting || m.cond) {
        fail("loop with several exit tests");
        return;
      }
      m.cond = c;
      m.stayOnTrue = exitsLoop->contains(succ0);
      if (bb == exitsLoop->getHeader() && bb != exitsLoop->getLoopLatch())
        for (Operation &op :
             llvm::make_range(std::next(m.startMark->getIterator()),
                              kernel.getBlock().end()))
          if (isa<WriteOp>(op)) {
            fail("loop whose exit test follows a write in the loop header");
            return;
          }
      next = m.stayOnTrue ? succ0 : succ1;
    } else if (exitsLoop && !constBool(c, k) && !noModel.contains(exitsLoop) &&
               !loopEntries.empty() && loopEntries.back().loop == exitsLoop &&
               visits[exitsLoop->getHeader()] ==
                   loopEntries.back().headerVisits + 1) {
      // A symbolic exit test in the first iteration: go back to the loop's
      // entry and model it (enterLoop).
      restartLoop = exitsLoop;
      failed = true;
      return;
    } else if (uncond) {
      next = succ0;
    } else {
      if (constBool(c, k)) {
        next = k ? succ0 : succ1;
      } else if (succ0 == succ1) {
        next = succ0;
      } else if (const llvm::BasicBlock *exit = boundedExit(bb, succ0, succ1)) {
        // --unroll: the loop has run its bound; executions that stay in it
        // longer are assumed away (a bounded verdict), this one leaves.
        Value stay = exit == succ0 ? notI1(c) : c;
        AssumeOp::create(b, loc, notI1(andI1(s.guard, stay)))
            ->setAttr("bound", b.getI64IntegerAttr(opts.unrollBound));
        next = exit;
      } else if (splitLoopExit(bb, succ0, succ1, c)) {
        return;
      } else {
        const llvm::BasicBlock *join =
            pdt(*bb->getParent()).getNode(bb)->getIDom()->getBlock();
        size_t forkStores = s.stores.size();
        State t = s, e = s;
        t.guard = andI1(s.guard, c);
        e.guard = andI1(s.guard, notI1(c));
        for (auto [st, succ] :
             {std::pair<State *, const llvm::BasicBlock *>{&t, succ0},
              {&e, succ1}}) {
          takeEdge(bb, succ, *st);
          if (succ != join)
            runBlocks(succ, *st, join, bb);
        }
        if (failed)
          return;
        s = merge(t, e, c, s.guard, forkStores);
        if (!join || join == stopAt || s.dead)
          return;
        from = bb;
        bb = join;
        continue;
      }
    }
    takeEdge(bb, next, s);
    if (next == stopAt)
      return;
    from = bb;
    bb = next;
  }
}

//===----------------------------------------------------------------------===//
// Instructions
//===----------------------------------------------------------------------===//

void Lowerer::exec(const llvm::Instruction &inst, State &s) {
  curInst = &inst;
  if (const llvm::DebugLoc &dl = inst.getDebugLoc())
    loc = FileLineColLoc::get(ctx, dl->getFilename(), dl.getLine(),
                              dl.getCol());
  if (inst.getType()->isVectorTy()) {
    fail("vector operation");
    return;
  }
  auto set = [&](SymVal v) { s.vals[&inst] = v; };
  auto setS = [&](Value v) { s.vals[&inst] = scalar(v); };

  if (auto *bo = dyn_cast<llvm::BinaryOperator>(&inst)) {
    Value l = evalScalar(bo->getOperand(0), s);
    Value r = evalScalar(bo->getOperand(1), s);
    if (failed)
      return;
    using O = llvm::Instruction::BinaryOps;
    if (opts.assumeNoSignedOverflow && isa<llvm::OverflowingBinaryOperator>(bo) &&
        bo->hasNoSignedWrap() && !isFalse(s.guard)) {
      const char *kind = bo->getOpcode() == O::Add   ? "add"
                         : bo->getOpcode() == O::Sub ? "sub"
                         : bo->getOpcode() == O::Mul ? "mul"
                                                     : nullptr;
      if (kind) {
        Value ok = NoWrapOp::create(b, loc, b.getI1Type(), b.getStringAttr(kind), l, r);
        Value implied = b.createOrFold<arith::OrIOp>(loc, notI1(s.guard), ok);
        if (!isTrue(implied))
          AssumeOp::create(b, loc, implied)->setAttr("ub", b.getUnitAttr());
      }
    }
    switch (bo->getOpcode()) {
    case O::Add: return setS(b.createOrFold<arith::AddIOp>(loc, l, r));
    case O::Sub: return setS(b.createOrFold<arith::SubIOp>(loc, l, r));
    case O::Mul: return setS(b.createOrFold<arith::MulIOp>(loc, l, r));
    case O::UDiv: return setS(b.createOrFold<arith::DivUIOp>(loc, l, r));
    case O::SDiv: return setS(b.createOrFold<arith::DivSIOp>(loc, l, r));
    case O::URem: return setS(b.createOrFold<arith::RemUIOp>(loc, l, r));
    case O::SRem: return setS(b.createOrFold<arith::RemSIOp>(loc, l, r));
    case O::Shl: {
      // x << c is x * 2^c: the checker's index reasoning (solving for a
      // coordinate, the mixed-radix lemmas) knows products, and -O2 turns
      // the source's `blockIdx.x * 16` into a shift.
      if (auto *c = dyn_cast<llvm::ConstantInt>(bo->getOperand(1));
          c && c->getValue().ult(c->getBitWidth()))
        return setS(b.createOrFold<arith::MulIOp>(
            loc, l,
            arith::ConstantOp::create(
                b, loc, l.getType(),
                IntegerAttr::get(l.getType(),
                                 llvm::APInt::getOneBitSet(
                                     c->getBitWidth(), c->getZExtValue())))));
      return setS(b.createOrFold<arith::ShLIOp>(loc, l, r));
    }
    case O::LShr: return setS(b.createOrFold<arith::ShRUIOp>(loc, l, r));
    case O::AShr: return setS(b.createOrFold<arith::ShRSIOp>(loc, l, r));
    case O::And: return setS(b.createOrFold<arith::AndIOp>(loc, l, r));
    case O::Or:
      // `or disjoint` is an add (an unrolled body's `k | 1` for k + 1), as
      // the index reasoning knows it. Overlapping bits would make it
      // poison, which, like the target's other poison flags, is not
      // modelled.
      if (cast<llvm::PossiblyDisjointInst>(bo)->isDisjoint())
        return setS(b.createOrFold<arith::AddIOp>(loc, l, r));
      return setS(b.createOrFold<arith::OrIOp>(loc, l, r));
    case O::Xor: return setS(b.createOrFold<arith::XOrIOp>(loc, l, r));
    case O::FAdd: return setS(floatOp("fadd", {l, r}, l.getType()));
    case O::FSub: return setS(floatOp("fsub", {l, r}, l.getType()));
    case O::FMul: return setS(floatOp("fmul", {l, r}, l.getType()));
    case O::FDiv: return setS(floatOp("fdiv", {l, r}, l.getType()));
    case O::FRem: return setS(floatOp("frem", {l, r}, l.getType()));
    default:
      return fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
    }
  }
  if (auto *un = dyn_cast<llvm::UnaryOperator>(&inst)) {
    Value v = evalScalar(un->getOperand(0), s);
    if (un->getOpcode() == llvm::Instruction::FNeg)
      return setS(floatOp("fneg", {v}, v.getType()));
    return fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
  }
  if (auto *cmp = dyn_cast<llvm::ICmpInst>(&inst)) {
    if (cmp->getOperand(0)->getType()->isPointerTy())
      return fail("pointer comparison");
    Value l = evalScalar(cmp->getOperand(0), s);
    Value r = evalScalar(cmp->getOperand(1), s);
    if (failed)
      return;
    using P = llvm::CmpInst::Predicate;
    arith::CmpIPredicate p;
    switch (cmp->getPredicate()) {
    case P::ICMP_EQ: p = arith::CmpIPredicate::eq; break;
    case P::ICMP_NE: p = arith::CmpIPredicate::ne; break;
    case P::ICMP_SLT: p = arith::CmpIPredicate::slt; break;
    case P::ICMP_SLE: p = arith::CmpIPredicate::sle; break;
    case P::ICMP_SGT: p = arith::CmpIPredicate::sgt; break;
    case P::ICMP_SGE: p = arith::CmpIPredicate::sge; break;
    case P::ICMP_ULT: p = arith::CmpIPredicate::ult; break;
    case P::ICMP_ULE: p = arith::CmpIPredicate::ule; break;
    case P::ICMP_UGT: p = arith::CmpIPredicate::ugt; break;
    default: p = arith::CmpIPredicate::uge; break;
    }
    return setS(b.createOrFold<arith::CmpIOp>(loc, p, l, r));
  }
  if (auto *fc = dyn_cast<llvm::FCmpInst>(&inst)) {
    Value l = evalScalar(fc->getOperand(0), s);
    Value r = evalScalar(fc->getOperand(1), s);
    std::string fn = ("fcmp." + llvm::CmpInst::getPredicateName(
                                    fc->getPredicate()))
                         .str();
    return setS(floatOp(fn, {l, r}, b.getI1Type()));
  }
  if (auto *sel = dyn_cast<llvm::SelectInst>(&inst)) {
    Value c = evalScalar(sel->getCondition(), s);
    SymVal t = eval(sel->getTrueValue(), s), e = eval(sel->getFalseValue(), s);
    SymVal r = mergeVal(t, e, c);
    if (r.kind == SymVal::None && !failed)
      return fail("select between pointers into different objects");
    return set(r);
  }
  if (auto *cast = dyn_cast<llvm::CastInst>(&inst)) {
    using O = llvm::Instruction::CastOps;
    if (cast->getOpcode() == O::AddrSpaceCast ||
        (cast->getOpcode() == O::BitCast && cast->getType()->isPointerTy()))
      return set(eval(cast->getOperand(0), s));
    if (cast->getOpcode() == O::PtrToInt || cast->getOpcode() == O::IntToPtr)
      return fail("pointer/integer cast");
    Value v = evalScalar(cast->getOperand(0), s);
    Type t = typeFor(cast->getType());
    if (failed)
      return;
    switch (cast->getOpcode()) {
    case O::ZExt: return setS(b.createOrFold<arith::ExtUIOp>(loc, t, v));
    case O::SExt: return setS(b.createOrFold<arith::ExtSIOp>(loc, t, v));
    case O::Trunc: return setS(b.createOrFold<arith::TruncIOp>(loc, t, v));
    case O::BitCast: return setS(v); // float <-> int: same bits
    default: {
      std::string fn = std::string(cast->getOpcodeName()) + "." +
                       typeName(cast->getSrcTy()) + "." +
                       typeName(cast->getDestTy());
      return setS(floatOp(fn, {v}, t));
    }
    }
  }
  if (auto *fr = dyn_cast<llvm::FreezeInst>(&inst))
    return set(eval(fr->getOperand(0), s));
  if (isa<llvm::PHINode>(inst))
    return; // resolved on the edge
  if (isa<llvm::AllocaInst>(inst)) {
    SymVal p;
    p.kind = SymVal::PrivPtr;
    p.obj = nextObj++;
    return set(p);
  }
  if (auto *gep = dyn_cast<llvm::GetElementPtrInst>(&inst)) {
    SymVal p = eval(gep->getPointerOperand(), s);
    if (!p.isPtr() || p.kind == SymVal::NullPtr)
      return failed ? void() : fail("address computed from an unknown pointer");
    const llvm::DataLayout &dl = f.getParent()->getDataLayout();
    for (llvm::gep_type_iterator gi = llvm::gep_type_begin(gep),
                                 ge = llvm::gep_type_end(gep);
         gi != ge; ++gi) {
      const llvm::Value *idx = gi.getOperand();
      if (llvm::StructType *st = gi.getStructTypeOrNull()) {
        unsigned field = cast<llvm::ConstantInt>(idx)->getZExtValue();
        p.off.constant += dl.getStructLayout(st)->getElementOffset(field);
        continue;
      }
      int64_t stride = gi.getSequentialElementStride(dl).getFixedValue();
      if (auto *ci = dyn_cast<llvm::ConstantInt>(idx)) {
        p.off.constant += ci->getSExtValue() * stride;
        continue;
      }
      Value iv = toI64(evalScalar(idx, s));
      if (failed)
        return;
      p.off.add(linearOf(iv), stride);
    }
    return set(p);
  }
  if (auto *ld = dyn_cast<llvm::LoadInst>(&inst)) {
    if (ld->isAtomic())
      return fail("atomic load");
    SymVal p = eval(ld->getPointerOperand(), s);
    if (p.kind == SymVal::PrivPtr)
      return set(loadPrivate(p, ld->getType(), s));
    if (p.kind == SymVal::ArrayPtr) {
      if (ld->getType()->isPointerTy())
        return fail("pointer loaded from shared/global memory");
      return setS(loadArray(p.array, p.off, ld->getType(), s.guard));
    }
    return failed ? void() : fail("load through an unknown pointer");
  }
  if (auto *st = dyn_cast<llvm::StoreInst>(&inst)) {
    if (st->isAtomic())
      return fail("atomic store");
    SymVal p = eval(st->getPointerOperand(), s);
    SymVal v = eval(st->getValueOperand(), s);
    if (failed)
      return;
    if (p.kind == SymVal::PrivPtr) {
      const llvm::DataLayout &dl = f.getParent()->getDataLayout();
      PrivStore ps;
      ps.obj = p.obj;
      ps.off = p.off;
      ps.size = dl.getTypeStoreSize(st->getValueOperand()->getType());
      ps.val = v;
      ps.guard = s.guard;
      s.stores.push_back(ps);
      return;
    }
    if (p.kind == SymVal::ArrayPtr) {
      if (v.kind != SymVal::Scalar)
        return fail("pointer stored to shared/global memory");
      return storeArray(p.array, p.off, v.scalar,
                        st->getValueOperand()->getType(), s);
    }
    return fail("store through an unknown pointer");
  }
  if (auto *call = dyn_cast<llvm::CallBase>(&inst))
    return execCall(*call, s);
  if (isa<llvm::AtomicRMWInst, llvm::AtomicCmpXchgInst, llvm::FenceInst>(inst))
    return fail(llvm::Twine("atomic operation '") + inst.getOpcodeName() + "'");
  fail(llvm::Twine("instruction '") + inst.getOpcodeName() + "'");
}

void Lowerer::execCall(const llvm::CallBase &call, State &s) {
  const llvm::Function *callee = call.getCalledFunction();
  if (!callee)
    return fail(call.isInlineAsm() ? "inline assembly" : "indirect call");
  llvm::StringRef name = callee->getName();
  auto setS = [&](Value v) { s.vals[&call] = scalar(v); };
  if (callee->isIntrinsic()) {
    llvm::Intrinsic::ID id = callee->getIntrinsicID();
    if (name.starts_with("llvm.nvvm.read.ptx.sreg.")) {
      llvm::StringRef reg = name.drop_front(strlen("llvm.nvvm.read.ptx.sreg."));
      static const std::pair<const char *, const char *> map[] = {
          {"tid.", "tid."},
          {"ntid.", "bdim."},
          {"ctaid.", "bid."},
          {"nctaid.", "gdim."}};
      for (auto [from, to] : map)
        if (reg.starts_with(from) && reg.size() == strlen(from) + 1)
          return setS(sreg((llvm::Twine(to) + reg.take_back(1)).str()));
      if (reg == "warpsize")
        return setS(cst(b.getI32Type(), 32));
      return fail("special register '" + reg + "'");
    }
    switch (id) {
    case llvm::Intrinsic::nvvm_barrier_cta_sync_aligned_all:
    case llvm::Intrinsic::nvvm_barrier_cta_sync_all: {
      auto *id = dyn_cast<llvm::ConstantInt>(call.getArgOperand(0));
      if (!id || !id->isZero())
        return fail("named barrier (barrier id other than 0)");
      // A condition is kept: the checker shows the block agrees on it, or
      // reports barrier divergence.
      if (!symLoops.empty())
        return stageBarrier(s);
      BarrierOp::create(b, loc, isTrue(s.guard) ? Value() : s.guard);
      ownWrites.clear();
      loopWritten.clear();
      return;
    }
    case llvm::Intrinsic::lifetime_start:
    case llvm::Intrinsic::lifetime_end:
    case llvm::Intrinsic::dbg_declare:
    case llvm::Intrinsic::dbg_value:
    case llvm::Intrinsic::dbg_label:
    case llvm::Intrinsic::donothing:
    case llvm::Intrinsic::experimental_noalias_scope_decl:
      return;
    case llvm::Intrinsic::assume: {
      Value c = evalScalar(call.getArgOperand(0), s);
      if (failed)
        return;
      // Holds on this path: guard => c.
      Value implied = b.createOrFold<arith::OrIOp>(loc, notI1(s.guard), c);
      if (!isTrue(implied))
        AssumeOp::create(b, loc, implied);
      return;
    }
    case llvm::Intrinsic::smax:
    case llvm::Intrinsic::smin:
    case llvm::Intrinsic::umax:
    case llvm::Intrinsic::umin: {
      Value l = evalScalar(call.getArgOperand(0), s);
      Value r = evalScalar(call.getArgOperand(1), s);
      if (failed)
        return;
      if (id == llvm::Intrinsic::smax)
        return setS(b.createOrFold<arith::MaxSIOp>(loc, l, r));
      if (id == llvm::Intrinsic::smin)
        return setS(b.createOrFold<arith::MinSIOp>(loc, l, r));
      if (id == llvm::Intrinsic::umax)
        return setS(b.createOrFold<arith::MaxUIOp>(loc, l, r));
      return setS(b.createOrFold<arith::MinUIOp>(loc, l, r));
    }
    case llvm::Intrinsic::abs: {
      Value v = evalScalar(call.getArgOperand(0), s);
      Value zero = cst(v.getType(), 0);
      Value neg = b.createOrFold<arith::SubIOp>(loc, zero, v);
      Value lt = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                               v, zero);
      return setS(select(lt, neg, v));
    }
    default:
      break;
    }
    // Pure floating-point math intrinsics stay uninterpreted.
    if (callee->doesNotAccessMemory() && !call.getType()->isVoidTy() &&
        call.getType()->isFloatingPointTy()) {
      llvm::SmallVector<Value> ops;
      for (const llvm::Use &a : call.args())
        ops.push_back(evalScalar(a.get(), s));
      return setS(floatOp(name, ops, typeFor(call.getType())));
    }
    return fail("intrinsic '" + name + "'");
  }
  if (callee->isDeclaration()) {
    // A pure external function (e.g. libdevice math) is deterministic:
    // keep it uninterpreted.
    if (callee->doesNotAccessMemory() && !call.getType()->isVoidTy() &&
        !call.getType()->isPointerTy()) {
      llvm::SmallVector<Value> ops;
      for (const llvm::Use &a : call.args())
        ops.push_back(evalScalar(a.get(), s));
      return setS(floatOp(name, ops, typeFor(call.getType())));
    }
    return fail("call to external function '" + sourceName(name) + "'");
  }
  SymVal r = callFunction(*callee, call, s);
  if (!call.getType()->isVoidTy())
    s.vals[&call] = r;
}

SymVal Lowerer::callFunction(const llvm::Function &callee,
                             const llvm::CallBase &call, State &s) {
  if (++depth > opts.maxInlineDepth) {
    fail("call nesting deeper than " + llvm::Twine(opts.maxInlineDepth) +
         " (recursion?)");
    return {};
  }
  const llvm::Instruction *site = curInst;
  callStack.push_back(&call);
  for (unsigned i = 0; i < callee.arg_size(); ++i)
    s.vals[callee.getArg(i)] = eval(call.getArgOperand(i), s);
  s.ret = SymVal();
  // Block visit counts are per call: a helper called in an unrolled loop is
  // entered once per iteration.
  auto savedVisits = std::move(visits);
  visits.clear();
  runBlocks(&callee.getEntryBlock(), s, nullptr);
  visits = std::move(savedVisits);
  curInst = site;
  callStack.pop_back();
  --depth;
  if (s.dead && !failed)
    fail("call to '" + sourceName(callee.getName()) +
         "' never returns normally");
  return s.ret;
}

FailureOr<KernelOp> Lowerer::run() {
  b.setInsertionPointToEnd(module.getBody());
  std::string sym = f.getName().str();
  kernel = KernelOp::create(b, UnknownLoc::get(ctx), b.getStringAttr(sym),
                            b.getStrArrayAttr({}), StringAttr(), ArrayAttr());
  kernel.setSourceNameAttr(b.getStringAttr(sourceName(f.getName())));
  Block *blk = new Block();
  kernel.getBody().push_back(blk);
  b.setInsertionPointToEnd(blk);

  std::vector<std::string> names = parameterNames(f);
  std::vector<bool> isUnsigned = unsignedParameters(f);
  llvm::SmallVector<llvm::StringRef> unsignedNames;
  for (const llvm::Argument &a : f.args())
    if (isUnsigned[a.getArgNo()] && a.getType()->isIntegerTy())
      unsignedNames.push_back(names[a.getArgNo()]);
  if (!unsignedNames.empty())
    kernel.setUnsignedParamsAttr(b.getStrArrayAttr(unsignedNames));
  for (const llvm::Argument &a : f.args()) {
    const std::string &name = names[a.getArgNo()];
    if (a.getType()->isPointerTy()) {
      if (a.hasByValAttr()) {
        curInst = nullptr;
        fail("by-value struct parameter '" + name + "'");
        break;
      }
      Value arr = blk->addArgument(GlobalArrayType::get(ctx, b.getI8Type()),
                                   UnknownLoc::get(ctx));
      argArrays[&a] = arr;
      SymVal p;
      p.kind = SymVal::ArrayPtr;
      p.array = arr;
      paramVals[&a] = p;
    } else if (a.getType()->isIntegerTy() ||
               a.getType()->isFloatingPointTy()) {
      Value v = blk->addArgument(typeFor(a.getType()), UnknownLoc::get(ctx));
      auto pin = opts.pins.find(name);
      if (pin != opts.pins.end() && a.getType()->isIntegerTy())
        v = arith::ConstantOp::create(
            b, UnknownLoc::get(ctx), v.getType(),
            IntegerAttr::get(v.getType(),
                             llvm::APInt(a.getType()->getIntegerBitWidth(),
                                         (uint64_t)pin->second, true)));
      paramVals[&a] = scalar(v);
    } else {
      fail("parameter '" + name + "' of type " + typeName(a.getType()));
      break;
    }
    argNames.push_back(name);
  }
  if (!failed) {
    State s;
    s.guard = i1(true);
    runBlocks(&f.getEntryBlock(), s, nullptr);
  }
  // Arrays never accessed keep a placeholder element type; give them i32.
  for (BlockArgument a : blk->getArguments())
    if (getArrayElementType(a.getType()) == b.getI8Type() &&
        !arrayElemSize.count(a))
      a.setType(isa<SharedArrayType>(a.getType())
                    ? Type(SharedArrayType::get(ctx, b.getI32Type(), 0))
                    : Type(GlobalArrayType::get(ctx, b.getI32Type())));
  // Shared arrays get their size in elements from the global's type.
  for (auto &[base, arr] : argArrays) {
    auto *gv = dyn_cast<llvm::GlobalVariable>(base);
    auto sh = dyn_cast<SharedArrayType>(arr.getType());
    if (!gv || !sh)
      continue;
    uint64_t bytes =
        f.getParent()->getDataLayout().getTypeAllocSize(gv->getValueType());
    uint64_t es = arrayElemSize.count(arr) ? arrayElemSize[arr] : 4;
    arr.setType(SharedArrayType::get(ctx, sh.getElementType(),
                                     (int64_t)(bytes / es)));
  }
  kernel.setArgNamesAttr(b.getStrArrayAttr(
      llvm::SmallVector<llvm::StringRef>(argNames.begin(), argNames.end())));
  if (failed) {
    if (why.splitOn.empty()) {
      kernel.erase();
      return mlir::failure();
    }
    // Keep the parameters: the caller enumerates the split's cases over
    // them.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*blk))) {
      op.dropAllUses();
      op.erase();
    }
    why.signature = kernel;
    return mlir::failure();
  }
  // Drop expression ops nobody uses (constant folding leaves some behind).
  bool changed = true;
  while (changed) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*blk)))
      if (op.use_empty() && isPure(&op)) {
        op.erase();
        changed = true;
      }
  }
  return kernel;
}

FailureOr<KernelOp> lowerKernel(llvm::Function &f, ModuleOp module,
                                Unsupported &why, const LowerOptions &opts) {
  Lowerer l(f, module, why, opts);
  return l.run();
}

} // namespace kv
