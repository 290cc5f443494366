//===- RelationalCanon.cpp - integer arithmetic in one normal form -------===//
//
// The two kernels compute the same index in different shapes: the source's
// `t + k * (nctaid * ntid)` is -O2's `(k * nctaid + ctaid) * ntid + tid`.
// Equal as polynomials over the same variables, they are different terms,
// and a solver proves them equal by bit-blasting the multipliers (tens of
// seconds where a query has several). Written as sums of monomials in one
// order, with the variables an invariant says equal replaced by one of
// them, they are the same term, and the solver matches them without
// arithmetic.
//
//===----------------------------------------------------------------------===//

#include "equiv/RelationalProduct.h"

#include <algorithm>
#include <map>

namespace kv::rel {

namespace {

/// A polynomial over atoms modulo 2^w: monomial (sorted atom ids, repeated
/// for powers) -> coefficient.
using Poly = std::map<std::vector<unsigned>, uint64_t>;

/// Past this many monomials a product is left as it is.
constexpr size_t maxMonomials = 48;

class Canonical {
public:
  explicit Canonical(z3::context &ctx) : ctx(ctx) {}

  z3::expr run(const z3::expr &e) {
    if (auto it = memo.find(e.id()); it != memo.end())
      return it->second;
    z3::expr r = e;
    if (arithmetic(e)) {
      if (const Poly *p = poly(e))
        r = build(*p, e.get_sort().bv_size());
    } else if (e.is_app() && e.num_args() > 0) {
      z3::expr_vector args(ctx);
      bool changed = false;
      for (unsigned i = 0; i < e.num_args(); ++i) {
        args.push_back(run(e.arg(i)));
        changed |= args.back().id() != e.arg(i).id();
      }
      if (changed)
        r = e.decl()(args);
    }
    memo.emplace(e.id(), r);
    return r;
  }

private:
  z3::context &ctx;
  std::unordered_map<unsigned, z3::expr> memo;
  std::unordered_map<unsigned, std::optional<Poly>> polys;
  std::unordered_map<unsigned, z3::expr> atoms;

  static uint64_t mask(unsigned w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }

  static bool arithmetic(const z3::expr &e) {
    if (!e.is_app() || !e.is_bv() || e.get_sort().bv_size() > 64)
      return false;
    switch (e.decl().decl_kind()) {
    case Z3_OP_BADD:
    case Z3_OP_BSUB:
    case Z3_OP_BMUL:
    case Z3_OP_BNEG:
      return true;
    case Z3_OP_BSHL:
      return e.arg(1).is_numeral();
    case Z3_OP_CONCAT:
      return shifted(e).has_value();
    default:
      return false;
    }
  }

  /// Z3's simplifier writes `x << k` as concat(extract(w-k-1, 0, x), 0^k):
  /// x and k, where \p e has that form.
  static std::optional<std::pair<z3::expr, unsigned>>
  shifted(const z3::expr &e) {
    if (e.num_args() != 2 || !e.arg(1).is_numeral())
      return std::nullopt;
    uint64_t low = 1;
    z3::expr hi = e.arg(0);
    unsigned k = e.arg(1).get_sort().bv_size();
    if (!e.arg(1).is_numeral_u64(low) || low != 0 || !hi.is_app() ||
        hi.decl().decl_kind() != Z3_OP_EXTRACT || hi.lo() != 0)
      return std::nullopt;
    z3::expr x = hi.arg(0);
    if (x.get_sort().bv_size() != e.get_sort().bv_size())
      return std::nullopt;
    return std::make_pair(x, k);
  }

  Poly atom(const z3::expr &e) {
    z3::expr a = run(e);
    atoms.emplace(a.id(), a);
    return Poly{{{a.id()}, 1}};
  }

  static void add(Poly &into, const Poly &p, uint64_t scale, uint64_t m) {
    for (auto &[mono, c] : p) {
      uint64_t &x = into[mono];
      x = (x + c * scale) & m;
      if (!x)
        into.erase(mono);
    }
  }

  static std::optional<Poly> mul(const Poly &a, const Poly &b, uint64_t m) {
    if (a.size() * b.size() > maxMonomials * 4)
      return std::nullopt;
    Poly r;
    for (auto &[ma, ca] : a)
      for (auto &[mb, cb] : b) {
        std::vector<unsigned> mono = ma;
        mono.insert(mono.end(), mb.begin(), mb.end());
        std::sort(mono.begin(), mono.end());
        uint64_t &x = r[mono];
        x = (x + ca * cb) & m;
        if (!x)
          r.erase(mono);
      }
    if (r.size() > maxMonomials)
      return std::nullopt;
    return r;
  }

  /// \p e as a polynomial (an atom where it is not arithmetic, or where
  /// expanding it grows too large); null for a numeral too wide to hold.
  const Poly *poly(const z3::expr &e) {
    if (auto it = polys.find(e.id()); it != polys.end())
      return it->second ? &*it->second : nullptr;
    unsigned w = e.get_sort().bv_size();
    uint64_t m = mask(w);
    std::optional<Poly> r;
    auto sub = [&](const z3::expr &x) -> Poly {
      if (const Poly *p = poly(x))
        return *p;
      return atom(x);
    };
    if (e.is_numeral()) {
      uint64_t v = 0;
      if (e.is_numeral_u64(v))
        r = v & m ? Poly{{{}, v & m}} : Poly{};
    } else if (!arithmetic(e)) {
      r = atom(e);
    } else {
      switch (e.decl().decl_kind()) {
      case Z3_OP_BADD:
        r.emplace();
        for (unsigned i = 0; i < e.num_args(); ++i)
          add(*r, sub(e.arg(i)), 1, m);
        break;
      case Z3_OP_BSUB:
        r = sub(e.arg(0));
        for (unsigned i = 1; i < e.num_args(); ++i)
          add(*r, sub(e.arg(i)), m, m); // times -1
        break;
      case Z3_OP_BNEG:
        r.emplace();
        add(*r, sub(e.arg(0)), m, m);
        break;
      case Z3_OP_BMUL: {
        r = sub(e.arg(0));
        for (unsigned i = 1; i < e.num_args() && r; ++i)
          r = mul(*r, sub(e.arg(i)), m);
        break;
      }
      case Z3_OP_BSHL: {
        uint64_t k = 0;
        if (e.arg(1).is_numeral_u64(k) && k < w) {
          r.emplace();
          add(*r, sub(e.arg(0)), 1ull << k, m);
        }
        break;
      }
      case Z3_OP_CONCAT: {
        auto [x, k] = *shifted(e);
        r.emplace();
        add(*r, sub(x), 1ull << k, m);
        break;
      }
      default:
        break;
      }
      // Too large to expand: its operands canonical, itself an atom.
      if (!r) {
        z3::expr_vector args(ctx);
        for (unsigned i = 0; i < e.num_args(); ++i)
          args.push_back(run(e.arg(i)));
        z3::expr a = e.decl()(args);
        atoms.emplace(a.id(), a);
        r = Poly{{{a.id()}, 1}};
      }
    }
    auto it = polys.emplace(e.id(), std::move(r)).first;
    return it->second ? &*it->second : nullptr;
  }

  z3::expr build(const Poly &p, unsigned w) {
    std::optional<z3::expr> sum;
    // (The map's order: by atom ids, the same for both kernels' terms.)
    for (auto &[mono, c] : p) {
      // The atoms' product first, then its coefficient: `4 * (a * b)`
      // shares `a * b` with `a * b + c`.
      std::optional<z3::expr> term;
      for (unsigned id : mono)
        term = term ? *term * atoms.at(id) : atoms.at(id);
      if (!term)
        term = ctx.bv_val(c, w);
      else if (c != 1)
        term = ctx.bv_val(c, w) * *term;
      sum = sum ? *sum + *term : *term;
    }
    return sum ? *sum : ctx.bv_val(0, w);
  }
};

} // namespace

z3::expr canonicalArithmetic(const z3::expr &f) {
  Canonical c(f.ctx());
  return c.run(f);
}

} // namespace kv::rel
