//===- IndexMaps.cpp - writes whose index is a mixed-radix number --------===//
//
// A write index such as `K * t + k` (each thread's K contiguous cells) or
// `t + k * T` (a grid-strided walk) is a mixed-radix number: every thread
// id, block id and loop iteration it depends on (a digit) ranges over
// [0, R) and is multiplied by the product of the ranges of the digits below
// it. Such a map is a bijection from the digits onto [0, P), P the product
// of all ranges. Two kernels whose writes have the same P (the same
// factors, in any order) write the same cells, and the writer of a cell is
// found by dividing it by the ranges: no solver has to find a quotient
// through a product of symbolic values.
//
// The facts given to the solver are theorems about the kernel's own index
// arithmetic (its 32-bit wraps included, see indexMap):
//   image:   a thread in range whose digits are in range and that writes
//            cell c has 0 <= c < P, when P <= 2^(w-1);
//   onto:    for 0 <= c < P (c < 2^(w-1)), a thread whose digits are in
//            range writes its index at c (its digits are skolem constants:
//            the digits of c);
//   bounded: the trusted kernel's last thread (every digit at its range
//            minus one), where it performs the write, computes P - 1 without
//            signed overflow (the kernel's own undefined behaviour), so
//            P <= 2^(w-1).
// w is the narrowest width the index passes through as a partial sum.
//
//===----------------------------------------------------------------------===//
#include "smt-encode/Debug.h"
#include "smt-encode/Encoder.h"
#include "smt-encode/EncoderInternal.h"
#include "smt-encode/Executor.h"

#include "mlir/IR/Matchers.h"

#include <algorithm>
#include <map>
#include <optional>

using namespace mlir;

namespace kv {

namespace {

/// A polynomial over atoms with positive integer coefficients: monomial
/// (sorted atom names, repeated for powers) -> coefficient.
using Poly = std::map<std::vector<std::string>, int64_t>;

std::optional<Poly> add(const Poly &a, const Poly &b) {
  Poly r = a;
  for (auto &[m, c] : b)
    if (__builtin_add_overflow(r[m], c, &r[m]))
      return std::nullopt;
  return r;
}

std::optional<Poly> mul(const Poly &a, const Poly &b) {
  Poly r;
  for (auto &[ma, ca] : a)
    for (auto &[mb, cb] : b) {
      std::vector<std::string> m;
      std::merge(ma.begin(), ma.end(), mb.begin(), mb.end(),
                 std::back_inserter(m));
      int64_t c;
      if (__builtin_mul_overflow(ca, cb, &c) ||
          __builtin_add_overflow(r[m], c, &r[m]))
        return std::nullopt;
    }
  return r;
}

bool isDigit(const std::string &a) {
  return llvm::StringRef(a).starts_with("tid.") ||
         llvm::StringRef(a).starts_with("bid.") ||
         llvm::StringRef(a).starts_with("iter#");
}

/// Whether every term of \p part is a term of \p whole with at most its
/// coefficient (all values nonnegative: part <= whole).
bool subSum(const Poly &part, const Poly &whole) {
  for (auto &[m, c] : part) {
    auto it = whole.find(m);
    if (c < 0 || it == whole.end() || c > it->second)
      return false;
  }
  return true;
}

/// A launch-index term that fits in an int by the launch limits:
/// gridDim * blockDim, blockIdx * blockDim, blockIdx * blockDim + threadIdx
/// along one axis.
bool launchIndexTerm(const Poly &p) {
  // In either launch (launchAtom).
  for (const char *l : {".", "A."})
    for (char a : {'x', 'y', 'z'}) {
      std::string s(1, a);
      Poly total{{{"bdim" + (l + s), "gdim" + (l + s)}, 1}};
      Poly base{{{"bdim" + (l + s), "bid." + s}, 1}};
      Poly global = base;
      global[{"tid." + s}] = 1;
      if (p == total || p == base || p == global)
        return true;
    }
  return false;
}

/// The atom of launch dimension \p group ("bdim" or "gdim") along \p axis
/// in launch \p launch: "bdim.x", or "bdimA.x" in the after kernel's own.
std::string launchAtom(const char *group, unsigned launch, unsigned axis) {
  return std::string(group) + (launch ? "A." : ".") + "xyz"[axis];
}

} // namespace

namespace {

struct PolyWalk {
  PolyWalk(KernelModel &k, bool hugeGrids, bool subDigits = false)
      : k(k), hugeGrids(hugeGrids), subDigits(subDigits) {}
  KernelModel &k;
  bool hugeGrids;
  /// Also an id's quotient or remainder by a constant as a digit of its
  /// own (Digit::subBy): for coordinateDigits, whose caller puts the id
  /// back together; never in an index map.
  bool subDigits;
  std::map<std::string, Encoder::IndexMap::Digit> digits;
  /// Partial sums that change width, with the narrower width.
  std::vector<std::pair<Poly, unsigned>> narrowed;
  std::vector<std::pair<mlir::Operation *, Poly>> ringOps;
  llvm::DenseMap<mlir::Value, std::optional<Poly>> memo;

  static unsigned widthOf(Type t) { return t.getIntOrFloatBitWidth(); }

  std::optional<Poly> atom(const std::string &name) {
    return Poly{{{name}, 1}};
  }

  std::optional<Poly> iterDigit(IterOp it) {
    llvm::APInt lb, step;
    if (!matchPattern(it.getLb(), m_ConstantInt(&lb)) || !lb.isZero() ||
        !matchPattern(it.getStep(), m_ConstantInt(&step)) || !step.isOne() ||
        !it.isStrict() || it.getDoWhile() || it.getUncounted() ||
        it.getFromNe())
      return std::nullopt;
    std::optional<Poly> bound = walk(it.getBound());
    if (!bound || bound->size() != 1)
      return std::nullopt;
    auto &[m, c] = *bound->begin();
    if (c < 1 || llvm::any_of(m, isDigit))
      return std::nullopt;
    // trunc(k) is exact for k < R: R at most INT_MAX.
    bool fits = m.empty() ? c <= INT32_MAX
                          : m.size() == 1 && c == 1 &&
                                llvm::StringRef(m[0]).starts_with("p");
    if (!fits)
      return std::nullopt;
    unsigned n = llvm::find(k.iterOps, it) - k.iterOps.begin();
    std::string name = "iter#" + std::to_string(n);
    Encoder::IndexMap::Digit d;
    d.name = name;
    d.loop = it;
    d.range = m;
    d.rangeConst = c;
    digits[name] = d;
    return atom(name);
  }

  std::optional<Poly> walk(Value v) {
    auto it = memo.find(v);
    if (it != memo.end())
      return it->second;
    std::optional<Poly> r = compute(v);
    memo[v] = r;
    return r;
  }

  std::optional<Poly> compute(Value v) {
    if (auto a = dyn_cast<BlockArgument>(v)) {
      if (a.getOwner() != &k.op.getBlock() || !a.getType().isInteger() ||
          widthOf(a.getType()) > 32)
        return std::nullopt;
      return atom("p" + std::to_string(a.getArgNumber()));
    }
    Operation *d = v.getDefiningOp();
    if (!d)
      return std::nullopt;
    llvm::APInt c;
    if (matchPattern(v, m_ConstantInt(&c))) {
      if (c.getBitWidth() > 64)
        return std::nullopt;
      return Poly{{{}, c.getSExtValue()}};
    }
    if (auto s = dyn_cast<SRegOp>(d)) {
      const char *axis[] = {"x", "y", "z"};
      unsigned ax = s.getAxis();
      switch (s.getGroup()) {
      case SRegGroup::Tid:
      case SRegGroup::Bid: {
        bool block = s.getGroup() == SRegGroup::Bid;
        std::string name = (block ? "bid." : "tid.") + std::string(axis[ax]);
        Encoder::IndexMap::Digit dg;
        dg.name = name;
        dg.axis = ax;
        dg.block = block;
        dg.range = {launchAtom(block ? "gdim" : "bdim", k.launch, ax)};
        digits[name] = dg;
        return atom(name);
      }
      case SRegGroup::BDim:
      case SRegGroup::GDim: {
        return atom(launchAtom(
            s.getGroup() == SRegGroup::BDim ? "bdim" : "gdim", k.launch, ax));
      }
      }
      return std::nullopt;
    }
    if (auto it = dyn_cast<IterOp>(d))
      return iterDigit(it);
    // A 2-D tile numbered in one dimension: threadIdx.x / 16 and
    // threadIdx.x % 16, each a digit (the quotient below the id's range).
    if (subDigits &&
        isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp>(
            d)) {
      auto s = d->getOperand(0).getDefiningOp<SRegOp>();
      llvm::APInt by;
      if (!s ||
          (s.getGroup() != SRegGroup::Tid && s.getGroup() != SRegGroup::Bid) ||
          !matchPattern(d->getOperand(1), m_ConstantInt(&by)) ||
          by.isNegative() || by.isZero() || by.getActiveBits() > 30)
        return std::nullopt;
      bool block = s.getGroup() == SRegGroup::Bid,
           rem = isa<arith::RemUIOp, arith::RemSIOp>(d);
      unsigned ax = s.getAxis();
      Encoder::IndexMap::Digit dg;
      dg.name = std::string(block ? "bid." : "tid.") + "xyz"[ax] +
                (rem ? "%" : "/") + std::to_string(by.getZExtValue());
      dg.axis = ax;
      dg.block = block;
      dg.subBy = by.getZExtValue();
      dg.subRem = rem;
      if (rem)
        dg.rangeConst = dg.subBy;
      else
        dg.range = {launchAtom(block ? "gdim" : "bdim", k.launch, ax)};
      digits[dg.name] = dg;
      return atom(dg.name);
    }
    if (isa<arith::AddIOp, arith::MulIOp, arith::ShLIOp>(d)) {
      std::optional<Poly> l = walk(d->getOperand(0));
      std::optional<Poly> r;
      if (isa<arith::ShLIOp>(d)) {
        llvm::APInt s;
        if (!matchPattern(d->getOperand(1), m_ConstantInt(&s)) ||
            s.getZExtValue() >= 62)
          return std::nullopt;
        r = Poly{{{}, int64_t(1) << s.getZExtValue()}};
      } else {
        r = walk(d->getOperand(1));
      }
      if (!l || !r)
        return std::nullopt;
      std::optional<Poly> p = isa<arith::AddIOp>(d) ? add(*l, *r) : mul(*l, *r);
      if (p)
        ringOps.push_back({d, *p});
      return p;
    }
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(d)) {
      Value src = d->getOperand(0);
      std::optional<Poly> p = walk(src);
      if (!p)
        return std::nullopt;
      unsigned from = widthOf(src.getType()), to = widthOf(v.getType());
      unsigned narrow = std::min(from, to);
      if (p->size() == 1 && p->begin()->second == 1 &&
          p->begin()->first.size() == 1) {
        const std::string &a = p->begin()->first[0];
        // A parameter's value is its signed value; ids and dimensions are
        // below 2^31; an iteration below its range (at most INT_MAX).
        if (a[0] == 'p')
          return isa<arith::ExtSIOp>(d) ? p : std::nullopt;
        if (narrow >= 32)
          return p;
        return std::nullopt;
      }
      if (launchIndexTerm(*p) && !hugeGrids && narrow >= 32)
        return p;
      if (narrow < 2)
        return std::nullopt;
      narrowed.push_back({*p, narrow});
      return p;
    }
    return std::nullopt;
  }
};

} // namespace

const Encoder::IndexMap *Encoder::indexMap(KernelModel &k, WriteOp w) {
  auto key = std::make_pair(&k, w.getOperation());
  auto found = indexMaps.find(key);
  if (found != indexMaps.end())
    return found->second.get();
  std::unique_ptr<IndexMap> &slot = indexMaps[key];
  // The widths below are the program's: under --bits the encoding wraps
  // elsewhere.
  if (modelWidth(32, bits) != 32)
    return nullptr;
  PolyWalk pw(k, hugeGrids);
  std::optional<Poly> whole = pw.walk(w.getIndex());
  if (!whole)
    return nullptr;
  unsigned top = PolyWalk::widthOf(w.getIndex().getType());
  if (top < 64)
    pw.narrowed.push_back({*whole, top});
  // Peel digits off, least significant first: the term with the product of
  // the ranges so far and one digit.
  auto map = std::make_unique<IndexMap>();
  Poly rest = *whole;
  std::vector<std::string> scale;
  int64_t scaleConst = 1;
  while (!rest.empty()) {
    std::optional<std::string> next;
    for (auto &[m, c] : rest) {
      if (c != scaleConst || m.size() != scale.size() + 1)
        continue;
      std::vector<std::string> digitsIn, others;
      for (const std::string &a : m)
        (isDigit(a) ? digitsIn : others).push_back(a);
      if (digitsIn.size() != 1 || others != scale)
        continue;
      if (next) // two digits of one weight: not a bijection
        return nullptr;
      next = digitsIn[0];
    }
    if (!next)
      return nullptr;
    std::vector<std::string> m = scale;
    m.insert(llvm::upper_bound(m, *next), *next);
    rest.erase(m);
    const IndexMap::Digit &d = pw.digits.at(*next);
    if (llvm::any_of(map->digits, [&](const IndexMap::Digit &o) {
          return o.name == d.name;
        }))
      return nullptr;
    map->digits.push_back(d);
    std::vector<std::string> s;
    std::merge(scale.begin(), scale.end(), d.range.begin(), d.range.end(),
               std::back_inserter(s));
    scale = s;
    if (__builtin_mul_overflow(scaleConst, d.rangeConst, &scaleConst))
      return nullptr;
  }
  // Every loop the write is in is a digit: one cell per iteration.
  for (Operation *loop : k.itersOf(w))
    if (!llvm::any_of(map->digits,
                      [&](const IndexMap::Digit &d) { return d.loop == loop; }))
      return nullptr;
  for (auto &[p, width] : pw.narrowed) {
    if (!subSum(p, *whole))
      return nullptr;
    map->narrowWidth = std::min(map->narrowWidth, width);
  }
  map->narrowWhole = !pw.narrowed.empty() &&
                     pw.narrowed.back().first == *whole &&
                     pw.narrowed.back().second == map->narrowWidth;
  // Operands the lowering gave two constant ops of one value.
  auto same = [](Value a, Value b) {
    llvm::APInt x, y;
    return a == b || (matchPattern(a, m_ConstantInt(&x)) &&
                      matchPattern(b, m_ConstantInt(&y)) && x == y);
  };
  for (auto &[op, p] : pw.ringOps) {
    if (launchIndexTerm(p) && !hugeGrids)
      continue;
    bool nsw = false;
    if (isa<arith::AddIOp, arith::MulIOp>(op))
      for (Operation *u : op->getOperand(0).getUsers())
        if (auto nw = dyn_cast<NoWrapOp>(u))
          nsw |= (nw.getKind() == NoWrapKind::add) == isa<arith::AddIOp>(op) &&
                 nw.getKind() != NoWrapKind::sub &&
                 ((same(nw.getLhs(), op->getOperand(0)) &&
                   same(nw.getRhs(), op->getOperand(1))) ||
                  (same(nw.getRhs(), op->getOperand(0)) &&
                   same(nw.getLhs(), op->getOperand(1))));
    if (!nsw && debugEnabled("encoder"))
      llvm::errs() << "index op without no-wrap: " << *op << "\n";
    map->noWrap &= nsw;
  }
  slot = std::move(map);
  if (debugEnabled("encoder")) {
    llvm::errs() << k.label << " write index is mixed-radix:";
    for (const IndexMap::Digit &d : slot->digits)
      llvm::errs() << " " << d.name;
    llvm::errs() << " (narrowest " << slot->narrowWidth << " bits"
                 << (slot->noWrap ? ", no wrap" : "") << ")\n";
  }
  return slot.get();
}

/// Whether each of \p ids ("tid.x" ... "bid.z") is a digit of \p m.
static bool digitsInclude(const Encoder::IndexMap &m,
                          const std::set<std::string> &ids) {
  return llvm::all_of(ids, [&](const std::string &id) {
    return llvm::any_of(m.digits, [&](const Encoder::IndexMap::Digit &d) {
      return d.name == id;
    });
  });
}

bool Encoder::idsTellApart(KernelModel &k, WriteOp w,
                           const std::set<std::string> &ids) {
  const IndexMap *m = indexMap(k, w);
  // Every partial sum of the index is below 2^31 then, so its own
  // arithmetic computes the mixed-radix number exactly (see indexMap).
  if (!m || m->narrowWidth < 32 || m->digits.empty())
    return false;
  bool blocks = false;
  for (const IndexMap::Digit &d : m->digits) {
    if (d.loop || d.axis < 0 || d.rangeConst != 1)
      return false;
    blocks |= d.block;
  }
  // Cells below 2^31: at most 1024 threads in a block; blockIdx * blockDim
  // + threadIdx below 2^31 unless --huge-grids.
  if (blocks) {
    const IndexMap::Digit &lo = m->digits.front();
    if (hugeGrids || m->digits.size() != 2 || lo.block ||
        !m->digits.back().block || lo.axis != m->digits.back().axis)
      return false;
  }
  return digitsInclude(*m, ids);
}

std::optional<z3::expr>
Encoder::instancesApartWhen(KernelModel &k, WriteOp w,
                            const std::set<std::string> &ids) {
  // indexMap makes every loop of the write a digit.
  const IndexMap *m = indexMap(k, w);
  if (!m || m->narrowWidth < 32 || m->digits.empty() || !digitsInclude(*m, ids))
    return std::nullopt;
  // Below the product of the ranges, every partial sum of the index is
  // below 2^31 too: the kernel's arithmetic computes the number exactly.
  RadixBound b = radixBound(*m);
  return b.positive && b.exact &&
         z3::ule(b.product, ctx.bv_val((uint64_t(1) << 31) - 1, 64));
}

z3::expr Encoder::atomValue(const std::string &a) {
  // pN: parameter N (signed); bdim.x ... gdim.z: launch dimensions.
  if (a[0] == 'p')
    return resize(*params[std::stoul(a.substr(1))], 64, /*isSigned=*/true);
  return resize(dimOfAtom(a), 64, /*isSigned=*/false);
}

z3::expr Encoder::dimOfAtom(const std::string &a) {
  unsigned axis = a.back() - 'x', launch = a[4] == 'A';
  return (a[0] == 'b' ? bdimOf(launch) : gdimOf(launch))[axis];
}

z3::expr Encoder::digitValue(const IndexMap::Digit &d, const Thread &t) {
  if (d.loop)
    return iterVar(cast<IterOp>(d.loop), t);
  return resize(d.block ? t.bid[d.axis] : t.tid[d.axis], 64, false);
}

z3::expr Encoder::rangeValue(const IndexMap::Digit &d) {
  std::optional<z3::expr> r;
  for (const std::string &a : d.range)
    r = r ? exactlyAbstracted(*r, atomValue(a)) : atomValue(a);
  if (!r)
    return ctx.bv_val(d.rangeConst, 64);
  return d.rangeConst == 1 ? *r : *r * ctx.bv_val(d.rangeConst, 64);
}

std::optional<std::vector<std::pair<Encoder::IndexMap::Digit, z3::expr>>>
Encoder::coordinateDigits(KernelModel &k, Value coord, const z3::expr &x) {
  unsigned w = x.get_sort().bv_size();
  if (modelWidth(32, bits) != 32 || w != 32)
    return std::nullopt;
  PolyWalk pw(k, hugeGrids, /*subDigits=*/true);
  std::optional<Poly> p = pw.walk(coord);
  if (!p)
    return std::nullopt;
  auto dim = [&](const std::string &a) { return dimOfAtom(a); };
  // A product of atoms at the coordinate's width.
  auto product = [&](const std::vector<std::string> &atoms, int64_t c) {
    std::optional<z3::expr> v;
    for (const std::string &a : atoms)
      v = v ? mulTerm(*v, dim(a)) : dim(a);
    if (!v)
      return ctx.bv_val(c, w);
    return c == 1 ? *v : *v * ctx.bv_val(c, w);
  };
  // A scale the launch limits keep below 2^32 (so nonzero, and the
  // division below defines its quotient): blockDims (at most 1024 each)
  // times a constant, or blockDim * gridDim along one axis (below 2^31).
  auto nonzero = [&](const std::vector<std::string> &atoms, int64_t c) {
    unsigned bits = 0;
    for (const std::string &a : atoms)
      bits += a[0] == 'b' ? 10 : 32;
    if (atoms.size() == 2 && atoms[0][0] == 'b' && atoms[1][0] == 'g' &&
        atoms[0].back() == atoms[1].back() && !hugeGrids)
      bits = 31;
    return bits <= 31 && c < (int64_t(1) << (32 - bits));
  };
  // Each digit in one monomial of its own, times a scale (the monomial's
  // other atoms and its coefficient); monomials without digits are an
  // offset.
  struct Term {
    std::string digit;
    std::vector<std::string> scale;
    int64_t coef;
  };
  std::vector<Term> terms;
  z3::expr rest = x;
  for (auto &[m, c] : *p) {
    std::vector<std::string> digits, scale;
    for (const std::string &a : m)
      (isDigit(a) ? digits : scale).push_back(a);
    if (llvm::any_of(scale, [](const std::string &a) { return a[0] == 'p'; }))
      return std::nullopt;
    if (digits.empty()) {
      rest = rest - product(scale, c);
      continue;
    }
    if (digits.size() != 1 || c < 1 || !nonzero(scale, c) ||
        llvm::any_of(
            terms, [&](const Term &t) { return t.digit == digits[0]; }))
      return std::nullopt;
    terms.push_back({digits[0], scale, c});
  }
  // Scales that divide one another, least first, the least 1: then the
  // digits are found from the most significant down, each the quotient by
  // its scale, and the last remainder is the least digit. Whatever x is,
  // the digits found put it back together exactly (modulo 2^w): x is the
  // coordinate of the thread made of them.
  llvm::sort(terms, [](const Term &a, const Term &b) {
    return std::make_pair(a.scale.size(), a.coef) <
           std::make_pair(b.scale.size(), b.coef);
  });
  if (terms.empty() || !terms[0].scale.empty() || terms[0].coef != 1)
    return std::nullopt;
  for (size_t i = 1; i < terms.size(); ++i)
    if (terms[i].coef % terms[i - 1].coef ||
        !std::includes(terms[i].scale.begin(), terms[i].scale.end(),
                       terms[i - 1].scale.begin(), terms[i - 1].scale.end()))
      return std::nullopt;
  std::vector<std::pair<IndexMap::Digit, z3::expr>> out;
  for (size_t i = terms.size(); i-- > 0;) {
    const IndexMap::Digit &dg = pw.digits.at(terms[i].digit);
    z3::expr d = rest;
    if (i) {
      int64_t c;
      z3::expr s = product(terms[i].scale, terms[i].coef);
      z3::expr n = rest;
      if (z3::expr sv = s.simplify();
          sv.is_numeral() && llvm::isPowerOf2_64(sv.get_numeral_uint64())) {
        d = z3::udiv(n, sv);
        rest = z3::urem(n, sv);
      } else {
        std::tie(d, rest) = quotient(n, s);
      }
      // The digit is below its range where the dividend is below the scale
      // times the range (so also where that product wraps): the digit in
      // range without multiplying the quotient out.
      if (llvm::all_of(dg.range,
                       [](const std::string &a) {
                         return a[0] == 'b' || a[0] == 'g';
                       }) &&
          !__builtin_mul_overflow(terms[i].coef, dg.rangeConst, &c)) {
        std::vector<std::string> all = terms[i].scale;
        for (const std::string &a : dg.range)
          all.insert(llvm::upper_bound(all, a), a);
        side.push_back(
            z3::implies(z3::ult(n, product(all, c)),
                        z3::ult(d, product(dg.range, dg.rangeConst))));
      }
    }
    out.push_back({dg, d});
  }
  return out;
}

Encoder::RadixBound Encoder::radixBound(const IndexMap &m) {
  // One term for one multiset of factors, whichever kernel: the atoms in
  // name order, then the constant.
  std::vector<std::string> all;
  int64_t c = 1;
  for (const IndexMap::Digit &d : m.digits) {
    all.insert(all.end(), d.range.begin(), d.range.end());
    c *= d.rangeConst;
  }
  llvm::sort(all);
  RadixBound b{ctx.bv_val(1, 64), ctx.bool_val(true), ctx.bool_val(true)};
  bool first = true;
  for (const std::string &a : all) {
    z3::expr v = atomValue(a);
    b.positive = b.positive && v >= ctx.bv_val(1, 64);
    if (first) {
      b.product = v;
      first = false;
      continue;
    }
    b.exact = b.exact && unsignedNoWrap(b.product, v);
    b.product = exactlyAbstracted(b.product, v);
  }
  if (c != 1) {
    z3::expr cv = ctx.bv_val(c, 64);
    b.exact = b.exact && z3::bvmul_no_overflow(b.product, cv, false);
    b.product = b.product * cv;
  }
  return b;
}

z3::expr Encoder::digitsInRange(const IndexMap &m, const Thread &t) {
  z3::expr in = inRange(t);
  for (const IndexMap::Digit &d : m.digits)
    in = in && z3::ult(digitValue(d, t), rangeValue(d));
  return in;
}

void Encoder::radixLemmas(const z3::expr &cell) {
  if (radixDone)
    return;
  radixDone = true;
  unsigned arg = radixArg;
  auto fact = [&](const z3::expr &f) {
    radixFacts.push_back(f);
    side.push_back(f);
  };
  for (KernelModel *km : radixPair)
    for (auto &[iv, ws] : km->writes[arg])
      for (WriteOp w : ws) {
        const IndexMap *m = indexMap(*km, w);
        if (!m)
          continue;
        RadixBound b = radixBound(*m);
        z3::expr small = z3::ule(
            b.product, ctx.bv_val(uint64_t(1) << (m->narrowWidth - 1), 64));
        // image: the writers the query is about write below P.
        for (const Thread *a : anchors)
          if (a->launch == km->launch)
            fact(z3::implies(b.positive && b.exact && small &&
                                 digitsInRange(*m, *a) &&
                                 hits(*km, w, cell, *a),
                             z3::ult(cell, b.product)));
        // bounded: the trusted kernel's last thread does not overflow.
        if (km == trusted && m->noWrap && m->narrowWhole) {
          unsigned wd = modelWidth(32, bits);
          std::vector<z3::expr> tid(3, ctx.bv_val(0, wd)),
              bid(3, ctx.bv_val(0, wd));
          for (const IndexMap::Digit &d : m->digits)
            if (!d.loop)
              (d.block ? bid : tid)[d.axis] =
                  (d.block ? gdimOf(km->launch) : bdimOf(km->launch))[d.axis] -
                  ctx.bv_val(1, wd);
          Thread &last =
              makeThread(tid, bid, maxCandidateDepth + 1, km->launch);
          for (const IndexMap::Digit &d : m->digits)
            if (d.loop)
              last.iters.emplace(d.loop, rangeValue(d) - ctx.bv_val(1, 64));
          fact(z3::implies(b.positive && inRange(last) &&
                               accessGuard(*km, w, last),
                           b.exact && small));
        }
      }
}

Thread *Encoder::radixWriter(KernelModel &k, WriteOp w, const z3::expr &cell,
                             unsigned depth) {
  const IndexMap *m = indexMap(k, w);
  if (!m)
    return nullptr;
  // The digits of the cell: skolem constants for "some thread writes c".
  unsigned wd = modelWidth(32, bits);
  unsigned n = fresh++;
  std::vector<z3::expr> tid(3, ctx.bv_val(0, wd)), bid(3, ctx.bv_val(0, wd));
  for (const IndexMap::Digit &d : m->digits)
    if (!d.loop)
      (d.block ? bid : tid)[d.axis] =
          ctx.bv_const(("r" + std::to_string(n) + "." + d.name).c_str(), wd);
  RadixBound b = radixBound(*m);
  z3::expr limit = ctx.bv_val((uint64_t(1) << (m->narrowWidth - 1)) - 1, 64);
  z3::expr exists =
      b.positive && b.exact && z3::ult(cell, b.product) && z3::ule(cell, limit);
  // Out of range where no thread writes the cell: never a valid candidate.
  tid[0] = z3::ite(exists, tid[0], bdimOf(k.launch)[0]);
  Thread &t = makeThread(tid, bid, depth + 1, k.launch);
  for (const IndexMap::Digit &d : m->digits)
    if (d.loop)
      t.iters.emplace(
          d.loop,
          ctx.bv_const(("r" + std::to_string(n) + "." + d.name).c_str(), 64));
  z3::expr onto =
      z3::implies(exists, digitsInRange(*m, t) &&
                              toIndex(value(k, w.getIndex(), t)) == cell);
  // Stated with the image and bound facts (radixLemmas).
  radixFacts.push_back(onto);
  side.push_back(onto);
  // The value under the index's extensions is the cell's low bits: where
  // the writer is a thread (in range, so it exists) it is that value, by
  // the lemma (an extension is injective). What the writer computes from
  // it (a row's inputs) is then the other kernel's terms, not the digits'
  // sum that only the lemma relates to them.
  llvm::SmallVector<Value> wider;
  Value v = underExtensions(w.getIndex(), &wider);
  if (v.getType().isInteger()) {
    unsigned nw = widthOf(v.getType());
    memo.insert_or_assign(std::make_pair(v.getAsOpaquePointer(), t.id),
                          cell.extract(nw - 1, 0).simplify());
    for (Value x : wider)
      memo.erase(std::make_pair(x.getAsOpaquePointer(), t.id));
  }
  return &t;
}

} // namespace kv
