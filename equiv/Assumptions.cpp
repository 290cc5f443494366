//===- Assumptions.cpp - what the verdicts assume -------------------------===//
//
// The --assume parser (C expressions over launch dimensions and scalar
// parameters, straight to Z3), and the list of assumptions a verdict of
// checkEquivalence rests on.
//
//===----------------------------------------------------------------------===//
#include "equiv/Assumptions.h"
#include "equiv/Options.h"
#include "equiv/Safety.h"
#include "equiv/SafetyCheck.h"
#include "passes/lower/LowerToKV.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/Executor.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;

namespace kv {

namespace {

//===----------------------------------------------------------------------===//
// --assume: a small C expression parser straight to Z3.
//===----------------------------------------------------------------------===//

class AssumeParser {
public:
  AssumeParser(Encoder &enc, llvm::StringRef text) : enc(enc), text(text) {}

  /// The assumption as a Z3 boolean, or an error message.
  std::optional<z3::expr> parse(std::string &error) {
    pos = 0;
    std::optional<z3::expr> e = parseBinary(0);
    skipSpace();
    if (e && pos != text.size())
      err("unexpected '" + text.substr(pos, 1).str() + "'");
    if (!msg.empty()) {
      error = msg;
      return std::nullopt;
    }
    return toBool(*e);
  }

private:
  Encoder &enc;
  llvm::StringRef text;
  size_t pos = 0;
  std::string msg;
  /// Open parentheses and unary operators: the recursion's depth.
  unsigned depth = 0;

  /// Enter one level of nesting; past MaxAssumptionDepth an error, before
  /// the recursion overflows the stack.
  bool enter() {
    if (++depth <= MaxAssumptionDepth)
      return true;
    err(assumptionTooDeepMessage());
    return false;
  }

  unsigned width() { return modelWidth(32, enc.bits); }
  /// Terms of type unsigned int in C (blockDim, gridDim and arithmetic on
  /// them): comparisons, division and shifts involving one are unsigned, as
  /// C's usual arithmetic conversions make them. It matters below 32 bits,
  /// where gridDim.x may have its top bit set.
  std::set<unsigned> unsignedTerms;
  z3::expr markUnsigned(const z3::expr &e) {
    unsignedTerms.insert(e.id());
    return e;
  }
  bool isUnsigned(const z3::expr &e) { return unsignedTerms.count(e.id()); }
  void err(const std::string &m) {
    if (msg.empty())
      msg = "column " + std::to_string(pos + 1) + ": " + m;
  }
  void skipSpace() {
    while (pos < text.size() && isspace((unsigned char)text[pos]))
      ++pos;
  }
  bool eat(llvm::StringRef tok) {
    skipSpace();
    if (!text.substr(pos).starts_with(tok))
      return false;
    // Do not split "<=" into "<" "=", "&&" into "&" "&", and so on.
    static const char *longer[] = {
        "<=", ">=", "==", "!=", "&&", "||", "<<", ">>"};
    if (tok.size() == 1)
      for (const char *l : longer)
        if (text.substr(pos).starts_with(l) && l[0] == tok[0])
          return false;
    pos += tok.size();
    return true;
  }
  /// \p e as an integer: C's integer promotions make a narrower one an int;
  /// a wider one (a long or size_t parameter) keeps its width.
  z3::expr toBv(const z3::expr &e) {
    if (e.is_bool())
      return z3::ite(e, enc.ctx.bv_val(1, width()), enc.ctx.bv_val(0, width()));
    if (e.get_sort().bv_size() >= width())
      return e;
    return enc.resize(e, width(), !isUnsigned(e));
  }
  /// \p e converted to \p w bits, as C's usual arithmetic conversions do:
  /// extended by its own signedness.
  z3::expr widen(const z3::expr &e, unsigned w) {
    return enc.resize(e, w, !isUnsigned(e));
  }
  z3::expr toBool(const z3::expr &e) {
    return e.is_bool() ? e : e != enc.ctx.bv_val(0, e.get_sort().bv_size());
  }

  std::optional<z3::expr> parsePrimary() {
    skipSpace();
    if (pos >= text.size()) {
      err("expression expected");
      return std::nullopt;
    }
    char c = text[pos];
    if (eat("(")) {
      if (!enter())
        return std::nullopt;
      auto e = parseBinary(0);
      --depth;
      if (!eat(")"))
        err("')' expected");
      return e;
    }
    if (eat("!")) {
      if (!enter())
        return std::nullopt;
      auto e = parsePrimary();
      --depth;
      return e ? std::optional<z3::expr>(!toBool(*e)) : std::nullopt;
    }
    if (eat("-")) {
      if (!enter())
        return std::nullopt;
      auto e = parsePrimary();
      --depth;
      return e ? std::optional<z3::expr>(-toBv(*e)) : std::nullopt;
    }
    if (eat("~")) {
      if (!enter())
        return std::nullopt;
      auto e = parsePrimary();
      --depth;
      return e ? std::optional<z3::expr>(~toBv(*e)) : std::nullopt;
    }
    if (isdigit((unsigned char)c)) {
      size_t start = pos;
      while (pos < text.size() && isalnum((unsigned char)text[pos]))
        ++pos;
      llvm::StringRef lit = text.slice(start, pos);
      uint64_t v;
      if (lit.getAsInteger(0, v)) {
        pos = start;
        err("bad integer '" + lit.str() + "'");
        return std::nullopt;
      }
      // A literal wider than the word would silently wrap (and could make
      // the assumptions vacuous); say so instead.
      if (width() < 32) {
        if (v >> width()) {
          pos = start;
          err("integer " + lit.str() + " does not fit in a " +
              std::to_string(width()) + "-bit word (--bits)");
          return std::nullopt;
        }
        return enc.ctx.bv_val(v, width());
      }
      // As in C: an int if it fits, else a long, else an unsigned long.
      if (v >> 31 == 0)
        return enc.ctx.bv_val(v, width());
      if (v >> 63 == 0)
        return enc.ctx.bv_val(v, 64);
      return markUnsigned(enc.ctx.bv_val(v, 64));
    }
    if (isalpha((unsigned char)c) || c == '_') {
      size_t start = pos;
      while (pos < text.size() && (isalnum((unsigned char)text[pos]) ||
                                   text[pos] == '_' || text[pos] == '.'))
        ++pos;
      llvm::StringRef id = text.slice(start, pos);
      for (int i = 0; i < 3; ++i) {
        std::string ax = std::string(".") + "xyz"[i];
        if (id == "blockDim" + ax)
          return markUnsigned(enc.bdim[i]);
        if (id == "gridDim" + ax)
          return markUnsigned(enc.gdim[i]);
        // The after kernel's own launch (--launch-after).
        if (id == "after.blockDim" + ax)
          return markUnsigned(enc.bdimOf(1)[i]);
        if (id == "after.gridDim" + ax)
          return markUnsigned(enc.gdimOf(1)[i]);
      }
      for (unsigned i = 0; i < enc.paramNames.size(); ++i)
        if (enc.paramNames[i] == id && enc.params[i] &&
            !enc.params[i]->is_array()) {
          // At its own width if wider than an int (long, size_t).
          z3::expr p = *enc.params[i];
          unsigned w = std::max(width(), p.get_sort().bv_size());
          if (enc.paramUnsigned[i])
            return markUnsigned(enc.resize(p, w, false));
          return enc.resize(p, w, true);
        }
      pos = start;
      std::string known = "blockDim.{x,y,z}, gridDim.{x,y,z}";
      for (unsigned i = 0; i < enc.paramNames.size(); ++i)
        if (enc.params[i] && !enc.params[i]->is_array())
          known += ", " + enc.paramNames[i];
      std::string hint;
      for (unsigned i = 0; i < enc.paramNames.size(); ++i)
        if (enc.paramNames[i] == "arg" + std::to_string(i))
          hint = "; the IR has no parameter names: compile with "
                 "-fno-discard-value-names, or use argN";
      err("unknown name '" + id.str() + "' (known: " + known + ")" + hint);
      return std::nullopt;
    }
    err("unexpected '" + std::string(1, c) + "'");
    return std::nullopt;
  }

  // Precedence climbing over C's binary operators.
  std::optional<z3::expr> parseBinary(int minPrec) {
    auto lhs = parsePrimary();
    while (lhs && msg.empty()) {
      static const std::pair<const char *, int> ops[] = {
          {"||", 1}, {"&&", 2}, {"|", 3},  {"^", 4},  {"&", 5},  {"==", 6},
          {"!=", 6}, {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8}, {"<", 7},
          {">", 7},  {"+", 9},  {"-", 9},  {"*", 10}, {"/", 10}, {"%", 10}};
      const char *op = nullptr;
      int prec = 0;
      size_t save = pos;
      for (auto [o, p] : ops)
        if (p >= minPrec && eat(o)) {
          op = o;
          prec = p;
          break;
        }
      if (!op) {
        pos = save;
        break;
      }
      auto rhs = parseBinary(prec + 1);
      if (!rhs)
        return std::nullopt;
      z3::expr l = *lhs, r = *rhs;
      llvm::StringRef o(op);
      if (o == "||")
        lhs = toBool(l) || toBool(r);
      else if (o == "&&")
        lhs = toBool(l) && toBool(r);
      else {
        l = toBv(l);
        r = toBv(r);
        // The usual arithmetic conversions: the wider type; of equal
        // widths, unsigned wins (an unsigned int meets a long as a long).
        unsigned wl = l.get_sort().bv_size(), wr = r.get_sort().bv_size();
        unsigned w = std::max(wl, wr);
        bool u = (isUnsigned(l) && wl == w) || (isUnsigned(r) && wr == w);
        l = widen(l, w);
        r = widen(r, w);
        if (o == "|")
          lhs = l | r;
        else if (o == "^")
          lhs = l ^ r;
        else if (o == "&")
          lhs = l & r;
        else if (o == "==")
          lhs = l == r;
        else if (o == "!=")
          lhs = l != r;
        else if (o == "<=")
          lhs = u ? z3::ule(l, r) : l <= r;
        else if (o == ">=")
          lhs = u ? z3::uge(l, r) : l >= r;
        else if (o == "<")
          lhs = u ? z3::ult(l, r) : l < r;
        else if (o == ">")
          lhs = u ? z3::ugt(l, r) : l > r;
        else if (o == "<<")
          lhs = z3::shl(l, r);
        else if (o == ">>")
          lhs = u ? z3::lshr(l, r) : z3::ashr(l, r);
        else if (o == "+")
          lhs = l + r;
        else if (o == "-")
          lhs = l - r;
        // The kernels' products are abstracted alike: gridDim.x * blockDim.x
        // here is the same term as a grid-stride loop's step.
        else if (o == "*")
          lhs = enc.mulTerm(l, r);
        else if (o == "/")
          lhs = u ? z3::udiv(l, r) : l / r;
        else
          lhs = u ? z3::urem(l, r) : z3::srem(l, r);
        if (u && !lhs->is_bool())
          markUnsigned(*lhs);
      }
    }
    return lhs;
  }
};

} // namespace

std::optional<z3::expr> parseAssumption(Encoder &enc, llvm::StringRef text,
                                        std::string &error) {
  AssumeParser parser(enc, text);
  return parser.parse(error);
}

std::optional<z3::expr> parseAssumptions(Encoder &enc, const CheckOptions &opts,
                                         std::string &err) {
  z3::expr f = enc.ctx.bool_val(true);
  for (const std::string &a : opts.assumptions) {
    AssumeParser parser(enc, a);
    auto e = parser.parse(err);
    if (!e) {
      // A long assumption (one nested too deeply) is not quoted whole.
      std::string quoted = a.size() > 80 ? a.substr(0, 60) + "..." : a;
      err = "cannot parse --assume='" + quoted + "': " + err;
      return std::nullopt;
    }
    f = f && *e;
  }
  return f;
}

void listAssumptions(KernelOp before, KernelOp after, const CheckOptions &opts,
                     CheckResult &result, bool &bounded, int64_t &bound) {
  std::vector<std::string> arrays;
  bool hasApply = false;
  for (KernelOp k : {before, after}) {
    KernelModel km(k, "");
    hasApply |= km.hasApply;
  }
  // Only arrays one of the kernels accesses: an unused pointer (a memref
  // descriptor's allocated pointer, beside its aligned one) aliases freely.
  Block &afterArgs = after.getBlock();
  for (BlockArgument a : before.getBlock().getArguments()) {
    // The printf stream is the model's own, apart from every array.
    if (!isa<GlobalArrayType>(a.getType()) ||
        printStreamArg(before) == a.getArgNumber() ||
        nullParamsArg(before) == a.getArgNumber())
      continue;
    unsigned n = a.getArgNumber();
    bool usedAfter = n >= afterArgs.getNumArguments() ||
                     !afterArgs.getArgument(n).use_empty();
    if (!a.use_empty() || usedAfter)
      arrays.push_back(before.getArgName(n).str());
  }
  if (arrays.size() > 1)
    result.assumptions.push_back("pointer parameters " +
                                 llvm::join(arrays, ", ") +
                                 " point to distinct, non-overlapping arrays");
  result.assumptions.push_back(
      "launch within CUDA limits: blockDim <= (1024, 1024, 64) with at most "
      "1024 threads per block, gridDim <= (2^31-1, 65535, 65535)");
  if (!opts.hugeGrids)
    result.assumptions.push_back(
        "global thread indices fit in an int: gridDim.d * blockDim.d <= "
        "2^31-1 for d = x, y, z (--huge-grids drops this)");
  // At 32 bits the model is exact (64-bit values always are); narrower
  // words are the paper's bounded-width abstraction.
  if (opts.bits < 32)
    result.assumptions.push_back(
        "integers are " + std::to_string(opts.bits) +
        "-bit words (int and unsigned taken modulo 2^" +
        std::to_string(opts.bits) + "; 64-bit addresses are exact)");
  bool gridSync = false;
  for (KernelOp k : {before, after})
    k.walk([&](BarrierOp b) { gridSync |= b.getGrid(); });
  if (gridSync)
    result.assumptions.push_back(
        "launched cooperatively (cudaLaunchCooperativeKernel, every block "
        "resident at once), as grid.sync() requires");
  for (const std::string &a : opts.assumptions)
    result.assumptions.push_back(opts.describeAssumption(a));
  KernelModel kb(before, "");
  bool noOverflow = false, noUnreachable = false, noNullAccess = false;
  std::vector<std::string> traps;
  for (KernelOp k : {before, after})
    k.walk([&](AssumeOp a) {
      if (IntegerAttr n = a.getBoundAttr()) {
        bounded = true;
        bound = std::max(bound, n.getInt());
      }
    });
  if (bounded)
    result.assumptions.push_back(
        "bounded: loops with a symbolic trip count run at most " +
        std::to_string(bound) +
        " iterations (--unroll; longer executions are not considered)");
  for (AssumeOp a : kb.assumes) {
    if (a.getBound())
      continue;
    if (a.getUb() && a->hasAttr("null")) {
      noNullAccess = true;
      continue;
    }
    if (a.getUb()) {
      // An overflow check (`!guard || nowrap`), or a path that reaches
      // `unreachable` (`!guard`).
      Operation *d = a.getCond().getDefiningOp();
      bool overflow =
          d && (isa<NoWrapOp>(d) || llvm::any_of(d->getOperands(), [](Value v) {
                  return v.getDefiningOp<NoWrapOp>() != nullptr;
                }));
      if (!overflow && a->hasAttr("trap")) {
        std::string at = safety::locationOf(a);
        if (!llvm::is_contained(traps, at))
          traps.push_back(at);
        continue;
      }
      (overflow ? noOverflow : noUnreachable) = true;
      continue;
    }
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "__builtin_assume in the before kernel at ";
    if (auto l = dyn_cast<FileLineColLoc>(a.getLoc()))
      os << l.getFilename() << ":" << l.getLine() << ":" << l.getColumn();
    else
      os << a.getLoc();
    result.assumptions.push_back(s);
  }
  if (noNullAccess)
    result.assumptions.push_back(
        "the before kernel accesses nothing through a pointer parameter that "
        "is null (undefined behaviour)");
  if (noOverflow)
    result.assumptions.push_back(
        "the before kernel has no signed integer overflow (undefined "
        "behaviour in C++)");
  for (const std::string &at : traps)
    result.assumptions.push_back(
        "the before kernel reaches no trap or failed assertion at " + at +
        " (such a launch ends with an error, not a result)");
  if (noUnreachable)
    result.assumptions.push_back(
        "the before kernel reaches no __builtin_unreachable() (undefined "
        "behaviour)");
  // Loops with breaks: T is at most 2^31 (smt-encode/Breaks.cpp).
  std::vector<std::string> breakLoops;
  for (KernelOp k : {before, after})
    k.walk([&](IterOp it) {
      if (!hasBreaks(it))
        return;
      std::string loc = safety::locationOf(it);
      if (!llvm::is_contained(breakLoops, loc))
        breakLoops.push_back(loc);
    });
  if (!breakLoops.empty())
    result.assumptions.push_back(
        std::string("the loop") + (breakLoops.size() > 1 ? "s" : "") +
        " with breaks or data-dependent exits at " +
        llvm::join(breakLoops, ", ") +
        (breakLoops.size() > 1 ? " stop" : " stops") +
        " within 2^31 iterations (a loop that never stops and has no "
        "volatile or atomic access is undefined behaviour in C++)");
  // An addend of -0.0, and a factor or divisor of +-1, which the encoding
  // folds (see Encoder::encodeApply): an operand that is such a constant,
  // or a select with such a constant arm.
  bool negZeroAddend = false, unitFactor = false;
  auto constantArms = [](Value o, llvm::function_ref<void(llvm::APInt)> f) {
    llvm::SmallVector<Value, 2> cands = {o};
    if (auto sel = o.getDefiningOp<arith::SelectOp>())
      cands = {sel.getTrueValue(), sel.getFalseValue()};
    for (Value c : cands)
      if (auto cst = c.getDefiningOp<arith::ConstantOp>())
        if (auto ia = dyn_cast<IntegerAttr>(cst.getValue()))
          f(ia.getValue());
  };
  for (KernelOp k : {before, after})
    k.walk([&](ApplyOp a) {
      bool div = a.getFn() == "fdiv";
      if (a.getFn() == "fadd")
        for (Value o : a.getOperands())
          constantArms(o,
                       [&](llvm::APInt v) { negZeroAddend |= v.isSignMask(); });
      if ((a.getFn() != "fmul" && !div) || a.getNumOperands() != 2)
        return;
      for (unsigned i = div ? 1 : 0; i < 2; ++i)
        constantArms(a.getOperand(i), [&](llvm::APInt v) {
          if (v.getBitWidth() != 32 && v.getBitWidth() != 64)
            return;
          llvm::APFloat f(v.getBitWidth() == 32 ? llvm::APFloat::IEEEsingle()
                                                : llvm::APFloat::IEEEdouble(),
                          v);
          unitFactor |= f.isExactlyValue(1.0) || f.isExactlyValue(-1.0);
        });
    });
  if (unitFactor)
    result.assumptions.push_back(
        "x * 1 and x / 1 are x, x * -1 and x / -1 are -x, as LLVM folds them "
        "(they differ only in a NaN operand's sign and payload, which LLVM "
        "leaves unspecified)");
  if (negZeroAddend)
    result.assumptions.push_back(
        "x + (-0.0) is x, as LLVM folds it (the two differ only in a NaN "
        "operand's payload, which LLVM leaves unspecified)");
  if (hasApply && opts.realFloats)
    result.assumptions.push_back(
        "--fp=real: where the proof is not bit for bit, float addition, "
        "subtraction, multiplication, division and fma are exact real "
        "arithmetic (no rounding, overflow or NaN)");
  if (hasApply)
    result.assumptions.push_back(
        "floating-point and other uninterpreted operations give equal results "
        "on equal operands (nothing else is assumed about them)");
  // Device functions defined in another translation unit (the lowering's
  // `extern:` operations).
  std::set<std::string> externs;
  for (KernelOp k : {before, after})
    k.walk([&](ApplyOp a) {
      llvm::StringRef fn = a.getFn();
      if (fn.consume_front("extern:"))
        externs.insert(sourceName(fn));
    });
  if (!externs.empty())
    result.assumptions.push_back(
        "device function" + std::string(externs.size() > 1 ? "s " : " ") +
        llvm::join(externs, ", ") +
        " (no body here, defined in another translation unit) " +
        (externs.size() > 1 ? "are functions" : "is a function") + " of " +
        (externs.size() > 1 ? "their" : "its") +
        " arguments: no effects, no reads of memory the kernels write");
}

bool admitsLaunch(KernelOp before, const CheckOptions &opts,
                  CheckResult &result) {
  // The CUDA limits alone admit a launch of one thread: no solver context
  // (15 ms to make) for the common case.
  if (opts.assumptions.empty())
    return true;
  try {
    // Most assumptions admit a plain launch (one thread, or a block of 32,
    // scalars 0 or 1): evaluated without a solver, whose bit-blasted launch
    // products cost tens of milliseconds, in the thread's evaluation
    // context; a fresh one only for the solver.
    auto launches = [&](z3::context &ctx) -> std::optional<z3::expr> {
      Encoder enc(ctx, opts.bits, before);
      enc.hugeGrids = opts.hugeGrids;
      std::string err;
      std::optional<z3::expr> a = parseAssumptions(enc, opts, err);
      if (!a) {
        result.verdict = Verdict::Error;
        result.reason = err;
        return std::nullopt;
      }
      z3::expr all = enc.launchConstraints() && *a;
      z3::expr_vector vars(ctx);
      for (int i = 0; i < 3; ++i) {
        vars.push_back(enc.bdim[i]);
        vars.push_back(enc.gdim[i]);
      }
      for (auto &prm : enc.params)
        if (prm && !prm->is_array() && prm->is_bv() && prm->is_const())
          vars.push_back(*prm);
      for (uint64_t block : {1, 32})
        for (uint64_t scalar : {0, 1}) {
          z3::expr_vector vals(ctx);
          for (unsigned i = 0; i < vars.size(); ++i) {
            unsigned w = vars[i].get_sort().bv_size();
            vals.push_back(ctx.bv_val(i == 0 ? block : i < 6 ? 1 : scalar, w));
          }
          if (all.substitute(vars, vals).simplify().is_true())
            return ctx.bool_val(true);
        }
      return all;
    };
    std::optional<z3::expr> all = launches(evaluationContext());
    if (!all)
      return false;
    if (all->is_true())
      return true;
    // The lease outlives the terms made in its context.
    ContextLease lease;
    std::optional<z3::expr> exact = launches(lease);
    if (!exact)
      return false;
    z3::solver s(lease.get());
    s.add(*exact);
    if (s.check() == z3::unsat) {
      result.verdict = Verdict::Error;
      result.reason = "the assumptions admit no launch configuration within "
                      "the CUDA limits (nothing to prove)";
      return false;
    }
  } catch (z3::exception &e) {
    result.verdict = Verdict::Unknown;
    result.reason = std::string("solver error: ") + e.msg();
    return false;
  }
  return true;
}

} // namespace kv
