//===- LowerIntegers.cpp - integer functions and bit intrinsics -----------===//
//
// The integer operations whose results are defined bit for bit, lowered to
// arith: libdevice's integer functions (__nv_min, __nv_mulhi, __nv_mul24,
// __nv_sad, __nv_byte_perm, ...) and the PTX intrinsics their -O2-inlined
// bodies leave, and LLVM's bit intrinsics (ctpop, ctlz, bitreverse, bswap,
// funnel shifts).
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/IR/Intrinsics.h"

namespace kv {
namespace lowering {

Value Lowerer::libdeviceInteger(llvm::StringRef name,
                                llvm::ArrayRef<Value> ops) {
  name.consume_front("__nv_");
  auto i32 = [&](Value v) -> Value {
    Type t = b.getI32Type();
    if (v.getType() == t)
      return v;
    return b.createOrFold<arith::TruncIOp>(loc, t, v);
  };
  if (ops.size() == 2) {
    Value l = ops[0], r = ops[1];
    if (name == "min" || name == "llmin")
      return b.createOrFold<arith::MinSIOp>(loc, l, r);
    if (name == "max" || name == "llmax")
      return b.createOrFold<arith::MaxSIOp>(loc, l, r);
    if (name == "umin" || name == "ullmin")
      return b.createOrFold<arith::MinUIOp>(loc, l, r);
    if (name == "umax" || name == "ullmax")
      return b.createOrFold<arith::MaxUIOp>(loc, l, r);
    auto shr = [&](Value v, int64_t n, bool sgn) -> Value {
      Value c = cst(v.getType(), n);
      if (sgn)
        return b.createOrFold<arith::ShRSIOp>(loc, v, c);
      return b.createOrFold<arith::ShRUIOp>(loc, v, c);
    };
    if (name == "mul24" || name == "umul24") {
      // PTX mul24.lo: the low 32 bits of the product of the operands' low
      // 24 bits, sign- or zero-extended.
      bool sgn = name == "mul24";
      auto low24 = [&](Value v) {
        return shr(b.createOrFold<arith::ShLIOp>(loc, v, cst(v.getType(), 8)),
                   8, sgn);
      };
      return b.createOrFold<arith::MulIOp>(loc, low24(l), low24(r));
    }
    if (name == "hadd" || name == "uhadd" || name == "rhadd" ||
        name == "urhadd") {
      // (a + b) >> 1 (rounded up for rhadd) without overflow.
      bool sgn = name == "hadd" || name == "rhadd";
      Value x = b.createOrFold<arith::XOrIOp>(loc, l, r);
      Value half = shr(x, 1, sgn);
      if (name.contains("rhadd"))
        return b.createOrFold<arith::SubIOp>(
            loc, b.createOrFold<arith::OrIOp>(loc, l, r), half);
      return b.createOrFold<arith::AddIOp>(
          loc, b.createOrFold<arith::AndIOp>(loc, l, r), half);
    }
    bool isSigned = name == "mulhi" || name == "mul64hi";
    if (isSigned || name == "umulhi" || name == "umul64hi") {
      // The high half of the double-width product.
      Type t = l.getType();
      unsigned w = t.getIntOrFloatBitWidth();
      Type wide = b.getIntegerType(2 * w);
      auto ext = [&](Value v) -> Value {
        if (isSigned)
          return b.createOrFold<arith::ExtSIOp>(loc, wide, v);
        return b.createOrFold<arith::ExtUIOp>(loc, wide, v);
      };
      Value p = b.createOrFold<arith::MulIOp>(loc, ext(l), ext(r));
      Value hi = b.createOrFold<arith::ShRUIOp>(loc, p, cst(wide, w));
      return b.createOrFold<arith::TruncIOp>(loc, t, hi);
    }
    return nullptr;
  }
  if (ops.size() == 3 && (name == "sad" || name == "usad")) {
    // |x - y| + z, the difference of x and y taken signed (sad) or
    // unsigned (usad); |x - y| fits the width as an unsigned number.
    Value x = ops[0], y = ops[1], z = ops[2];
    Value gt = b.createOrFold<arith::CmpIOp>(
        loc,
        name == "sad" ? arith::CmpIPredicate::sgt : arith::CmpIPredicate::ugt,
        x, y);
    Value d = select(gt, b.createOrFold<arith::SubIOp>(loc, x, y),
                     b.createOrFold<arith::SubIOp>(loc, y, x));
    return b.createOrFold<arith::AddIOp>(loc, d, z);
  }
  if (ops.size() == 3 && (name == "prmt" || name == "byte_perm") &&
      llvm::all_of(ops, [](Value v) { return v.getType().isInteger(32); })) {
    // PTX prmt.b32 (default mode): result byte n is byte (s >> 4n) & 7 of
    // {b, a}, replaced by its sign where bit 3 of the selector is set;
    // __byte_perm keeps the low three bits of each selector.
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    Value sel = ops[2];
    if (name == "byte_perm")
      sel = b.createOrFold<arith::AndIOp>(loc, sel, cst(i32, 0x7777));
    Value both = b.createOrFold<arith::OrIOp>(
        loc,
        b.createOrFold<arith::ShLIOp>(
            loc, b.createOrFold<arith::ExtUIOp>(loc, i64, ops[1]),
            cst(i64, 32)),
        b.createOrFold<arith::ExtUIOp>(loc, i64, ops[0]));
    auto band = [&](Value v, int64_t m) {
      return b.createOrFold<arith::AndIOp>(loc, v, cst(v.getType(), m));
    };
    Value out = cst(i32, 0);
    for (unsigned n = 0; n < 4; ++n) {
      Value nib =
          band(b.createOrFold<arith::ShRUIOp>(loc, sel, cst(i32, 4 * n)), 0xf);
      Value bytePos = b.createOrFold<arith::ShLIOp>(
          loc, b.createOrFold<arith::ExtUIOp>(loc, i64, band(nib, 7)),
          cst(i64, 3));
      Value byte = b.createOrFold<arith::TruncIOp>(
          loc, i32,
          band(b.createOrFold<arith::ShRUIOp>(loc, both, bytePos), 0xff));
      Value signBit = b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::ne, band(byte, 0x80), cst(i32, 0));
      Value replicate = b.createOrFold<arith::CmpIOp>(
          loc, arith::CmpIPredicate::ne, band(nib, 8), cst(i32, 0));
      byte =
          select(replicate, select(signBit, cst(i32, 0xff), cst(i32, 0)), byte);
      out = b.createOrFold<arith::OrIOp>(
          loc, out, b.createOrFold<arith::ShLIOp>(loc, byte, cst(i32, 8 * n)));
    }
    return out;
  }
  if (ops.size() != 1)
    return nullptr;
  Value x = ops[0];
  if (name == "abs" || name == "llabs") {
    Value zero = cst(x.getType(), 0);
    Value neg = b.createOrFold<arith::SubIOp>(loc, zero, x);
    Value lt =
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, x, zero);
    return select(lt, neg, x);
  }
  if (name == "popc" || name == "popcll")
    return i32(bitIntrinsic(llvm::Intrinsic::ctpop, {x}));
  if (name == "clz" || name == "clzll")
    return i32(bitIntrinsic(llvm::Intrinsic::ctlz, {x}));
  if (name == "brev" || name == "brevll")
    return bitIntrinsic(llvm::Intrinsic::bitreverse, {x});
  if (name == "ffs" || name == "ffsll") {
    // 1 + the lowest set bit's position, 0 for 0.
    Value tz = bitIntrinsic(llvm::Intrinsic::cttz, {x});
    Value zero = cst(x.getType(), 0);
    Value isZero =
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x, zero);
    Value one = b.createOrFold<arith::AddIOp>(loc, tz, cst(x.getType(), 1));
    return i32(select(isZero, zero, one));
  }
  return nullptr;
}

Value Lowerer::bitIntrinsic(llvm::Intrinsic::ID id, llvm::ArrayRef<Value> ops) {
  Value x = ops[0];
  Type t = x.getType();
  unsigned w = t.getIntOrFloatBitWidth();
  auto c = [&](uint64_t v) { return cst(t, (int64_t)v); };
  auto shl = [&](Value v, Value n) {
    return b.createOrFold<arith::ShLIOp>(loc, v, n);
  };
  auto shr = [&](Value v, Value n) {
    return b.createOrFold<arith::ShRUIOp>(loc, v, n);
  };
  auto band = [&](Value l, Value r) {
    return b.createOrFold<arith::AndIOp>(loc, l, r);
  };
  auto bor = [&](Value l, Value r) {
    return b.createOrFold<arith::OrIOp>(loc, l, r);
  };
  auto bit = [&](unsigned i) { return band(shr(x, c(i)), c(1)); };
  switch (id) {
  case llvm::Intrinsic::ctpop: {
    Value acc = c(0);
    for (unsigned i = 0; i < w; ++i)
      acc = b.createOrFold<arith::AddIOp>(loc, acc, bit(i));
    return acc;
  }
  case llvm::Intrinsic::ctlz:
  case llvm::Intrinsic::cttz: {
    // From the far end inwards: the last set bit seen decides.
    bool lead = id == llvm::Intrinsic::ctlz;
    Value acc = c(w);
    for (unsigned k = 0; k < w; ++k) {
      unsigned i = lead ? k : w - 1 - k; // bit index, lowest priority first
      Value set = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                                bit(i), c(0));
      acc = select(set, c(lead ? w - 1 - i : i), acc);
    }
    return acc;
  }
  case llvm::Intrinsic::bitreverse: {
    Value acc = c(0);
    for (unsigned i = 0; i < w; ++i)
      acc = bor(acc, shl(bit(i), c(w - 1 - i)));
    return acc;
  }
  case llvm::Intrinsic::bswap: {
    Value acc = c(0);
    for (unsigned i = 0; i < w / 8; ++i) {
      Value byte = band(shr(x, c(8 * i)), c(0xff));
      acc = bor(acc, shl(byte, c(w - 8 - 8 * i)));
    }
    return acc;
  }
  default: {
    // Funnel shifts: the top (fshl) or bottom (fshr) half of a:b shifted
    // by the amount modulo the width.
    Value a = ops[0], lo = ops[1];
    Value sh = b.createOrFold<arith::RemUIOp>(loc, ops[2], c(w));
    Value zero =
        b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, sh, c(0));
    Value back = b.createOrFold<arith::SubIOp>(loc, c(w), sh);
    if (id == llvm::Intrinsic::fshl)
      return select(zero, a, bor(shl(a, sh), shr(lo, back)));
    return select(zero, lo, bor(shl(a, back), shr(lo, sh)));
  }
  }
}

} // namespace lowering
} // namespace kv
