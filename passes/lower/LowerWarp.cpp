//===- LowerWarp.cpp - warp shuffles and lane ids into kv -----------------===//
//
// A warp is 32 threads of consecutive linear ids in a block; a lane is a
// linear id mod 32. A shuffle (llvm.nvvm.shfl.sync.*) becomes kv.shuffle with
// its source lane computed here as PTX's shfl.sync defines it.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

using namespace mlir;

namespace kv {
namespace lowering {

Value Lowerer::laneId() { return LaneOp::create(b, loc, b.getI32Type()); }

} // namespace lowering

std::optional<LaneRegister> laneRegisterAsm(const llvm::CallBase &call) {
  const auto *asmOp = dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  if (!asmOp || call.arg_size() != 0 || !call.getType()->isIntegerTy(32) ||
      asmOp->getConstraintString() != "=r")
    return std::nullopt;
  llvm::StringRef text = asmOp->getAsmString().trim();
  if (!text.consume_front("mov.u32") && !text.consume_front("mov.b32"))
    return std::nullopt;
  text = text.trim();
  if (!text.consume_front("$0"))
    return std::nullopt;
  text = text.ltrim();
  if (!text.consume_front(","))
    return std::nullopt;
  text = text.trim().rtrim(';').rtrim();
  return llvm::StringSwitch<std::optional<LaneRegister>>(text)
      .Case("%laneid", LaneRegister::Lane)
      .Case("%lanemask_eq", LaneRegister::MaskEq)
      .Case("%lanemask_lt", LaneRegister::MaskLt)
      .Case("%lanemask_le", LaneRegister::MaskLe)
      .Case("%lanemask_gt", LaneRegister::MaskGt)
      .Case("%lanemask_ge", LaneRegister::MaskGe)
      .Default(std::nullopt);
}

llvm::StringRef exactInlinePtx(const llvm::CallBase &call) {
  const auto *asmOp = dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  if (!asmOp || asmOp->hasSideEffects() || call.arg_size() != 1 ||
      !call.getType()->isIntegerTy(32) ||
      !call.getArgOperand(0)->getType()->isIntegerTy(32) ||
      asmOp->getConstraintString() != "=r,r")
    return "";
  llvm::StringRef text = asmOp->getAsmString().trim();
  llvm::StringRef op =
      text.take_until([](char c) { return c == ' ' || c == '\t'; });
  llvm::StringRef rest = text.drop_front(op.size()).trim().rtrim(';').rtrim();
  auto [d, a] = rest.split(',');
  if (d.trim() != "$0" || a.trim() != "$1")
    return "";
  static const char *exact[] = {"popc.b32",          "clz.b32",
                                "brev.b32",          "bfind.u32",
                                "bfind.s32",         "bfind.shiftamt.u32",
                                "bfind.shiftamt.s32"};
  for (const char *e : exact)
    if (op == e)
      return e;
  return "";
}

bool isWideMadInlinePtx(const llvm::CallBase &call) {
  const auto *asmOp = dyn_cast<llvm::InlineAsm>(call.getCalledOperand());
  auto *st = dyn_cast<llvm::StructType>(call.getType());
  if (!asmOp || asmOp->hasSideEffects() || call.arg_size() != 3 || !st ||
      st->getNumElements() != 2 || !st->getElementType(0)->isIntegerTy(32) ||
      !st->getElementType(1)->isIntegerTy(32) ||
      asmOp->getConstraintString() != "=r,=r,r,r,r")
    return false;
  // The text without braces, its blanks made single spaces.
  std::string text;
  for (char c : asmOp->getAsmString()) {
    if (c == '{' || c == '}')
      continue;
    if (llvm::isSpace(c)) {
      if (!text.empty() && text.back() != ' ')
        text += ' ';
      continue;
    }
    if (c == ',' && !text.empty() && text.back() == ' ')
      text.pop_back();
    text += c;
  }
  llvm::StringRef t = llvm::StringRef(text).trim();
  return t == "mad.lo.cc.u32 $0, $2, $3, $4; madc.hi.u32 $1, $2, $3, 0;" ||
         t == "mad.lo.cc.u32 $0,$2,$3,$4; madc.hi.u32 $1,$2,$3,0;";
}

namespace lowering {

Value Lowerer::exactPtx(llvm::StringRef op, Value a) {
  Type i32 = b.getI32Type();
  if (op == "popc.b32")
    return bitIntrinsic(llvm::Intrinsic::ctpop, {a});
  if (op == "clz.b32")
    return bitIntrinsic(llvm::Intrinsic::ctlz, {a});
  if (op == "brev.b32")
    return bitIntrinsic(llvm::Intrinsic::bitreverse, {a});
  if (op.ends_with(".s32"))
    a = select(b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::slt, a,
                                             cst(i32, 0)),
               b.createOrFold<arith::XOrIOp>(loc, a, cst(i32, -1)), a);
  Value clz = bitIntrinsic(llvm::Intrinsic::ctlz, {a});
  Value r = op.contains(".shiftamt")
                ? clz
                : b.createOrFold<arith::SubIOp>(loc, cst(i32, 31), clz);
  Value none = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, a,
                                             cst(i32, 0));
  return select(none, cst(i32, -1), r);
}

Value Lowerer::laneRegister(LaneRegister r) {
  Type i32 = b.getI32Type();
  Value lane = laneId();
  if (r == LaneRegister::Lane)
    return lane;
  Value eq = b.createOrFold<arith::ShLIOp>(loc, cst(i32, 1), lane);
  Value lt = b.createOrFold<arith::SubIOp>(loc, eq, cst(i32, 1));
  Value le = b.createOrFold<arith::OrIOp>(loc, lt, eq);
  auto inv = [&](Value x) {
    return b.createOrFold<arith::XOrIOp>(loc, x, cst(i32, -1));
  };
  switch (r) {
  case LaneRegister::MaskEq:
    return eq;
  case LaneRegister::MaskLt:
    return lt;
  case LaneRegister::MaskLe:
    return le;
  case LaneRegister::MaskGt:
    return inv(le);
  default:
    return inv(lt);
  }
}

void Lowerer::execShuffle(const llvm::CallBase &call, ShuffleMode mode,
                          State &s) {
  if (!symLoops.empty())
    return fail("warp shuffle in a loop with a symbolic trip count");
  Value mask = evalScalar(call.getArgOperand(0), s);
  Value v = evalScalar(call.getArgOperand(1), s);
  Value bArg = evalScalar(call.getArgOperand(2), s);
  Value c = evalScalar(call.getArgOperand(3), s);
  if (failed)
    return;
  Type i32 = b.getI32Type();
  auto bin = [&](auto tag, Value x, Value y) {
    return b.createOrFold<decltype(tag)>(loc, x, y);
  };
  Value c31 = cst(i32, 31), lane = laneId();
  // PTX: bval = b[4:0], cval = c[4:0], segmask = c[12:8].
  Value bval = bin(arith::AndIOp(), bArg, c31);
  Value cval = bin(arith::AndIOp(), c, c31);
  Value segmask =
      bin(arith::AndIOp(), bin(arith::ShRUIOp(), c, cst(i32, 8)), c31);
  Value notSeg = bin(arith::XOrIOp(), segmask, cst(i32, -1));
  Value minLane = bin(arith::AndIOp(), lane, segmask);
  Value maxLane =
      bin(arith::OrIOp(), minLane, bin(arith::AndIOp(), cval, notSeg));
  Value j, inSegment;
  auto cmp = [&](arith::CmpIPredicate p, Value x, Value y) {
    return b.createOrFold<arith::CmpIOp>(loc, p, x, y);
  };
  switch (mode) {
  case ShuffleMode::Up:
    j = bin(arith::SubIOp(), lane, bval);
    inSegment = cmp(arith::CmpIPredicate::sge, j, maxLane);
    break;
  case ShuffleMode::Down:
    j = bin(arith::AddIOp(), lane, bval);
    inSegment = cmp(arith::CmpIPredicate::sle, j, maxLane);
    break;
  case ShuffleMode::Xor:
    j = bin(arith::XOrIOp(), lane, bval);
    inSegment = cmp(arith::CmpIPredicate::sle, j, maxLane);
    break;
  case ShuffleMode::Index:
    j = bin(arith::OrIOp(), minLane, bin(arith::AndIOp(), bval, notSeg));
    inSegment = cmp(arith::CmpIPredicate::sle, j, maxLane);
    break;
  }
  // Outside the segment a lane reads its own value.
  j = select(inSegment, j, lane);
  s.vals[&call] =
      scalar(ShuffleOp::create(b, loc, v.getType(), v, j, mask, s.guard));
}

void Lowerer::execVote(const llvm::CallBase &call, llvm::Intrinsic::ID id,
                       State &s) {
  if (!symLoops.empty())
    return fail("warp vote in a loop with a symbolic trip count");
  Type i32 = b.getI32Type();
  bool active = id == llvm::Intrinsic::nvvm_activemask;
  // A legacy vote: of the lanes that execute it, as __activemask() is.
  bool legacy = syncVoteOfLegacy(id) != llvm::Intrinsic::not_intrinsic;
  if (legacy)
    id = syncVoteOfLegacy(id);
  Value mask =
      active || legacy ? cst(i32, -1) : evalScalar(call.getArgOperand(0), s);
  Value p = active   ? i1(true)
            : legacy ? evalScalar(call.getArgOperand(0), s)
                     : evalScalar(call.getArgOperand(1), s);
  if (failed)
    return;
  if (p.getType() != b.getI1Type())
    p = b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, p,
                                      cst(p.getType(), 0));
  auto ballot = [&](Value pred) {
    return BallotOp::create(b, loc, i32, pred, mask, s.guard).getResult();
  };
  auto eq0 = [&](Value x) {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, x,
                                         cst(i32, 0));
  };
  Value r;
  switch (id) {
  case llvm::Intrinsic::nvvm_vote_any_sync:
    r = notI1(eq0(ballot(p)));
    break;
  case llvm::Intrinsic::nvvm_vote_all_sync:
    // No lane of the vote has the predicate false.
    r = eq0(ballot(notI1(p)));
    break;
  case llvm::Intrinsic::nvvm_vote_uni_sync: {
    Value none = eq0(ballot(p)), all = eq0(ballot(notI1(p)));
    r = b.createOrFold<arith::OrIOp>(loc, none, all);
    break;
  }
  default: // ballot, activemask
    r = ballot(p);
    break;
  }
  if (call.getType()->isIntegerTy() &&
      call.getType()->getIntegerBitWidth() > 1 && r.getType() != i32)
    r = b.createOrFold<arith::ExtUIOp>(loc, typeFor(call.getType()), r);
  s.vals[&call] = scalar(r);
}

void Lowerer::execRedux(const llvm::CallBase &call, llvm::Intrinsic::ID id,
                        State &s) {
  // redux.sync: the operation over the values of the lanes in the mask,
  // every one of which must execute it (as a shuffle's source must): one
  // shuffle per lane, a flat term (a butterfly of shuffles nests five deep
  // and makes the query grow with every level).
  if (!symLoops.empty())
    return fail("warp reduction in a loop with a symbolic trip count");
  Value v = evalScalar(call.getArgOperand(0), s);
  Value mask = evalScalar(call.getArgOperand(1), s);
  if (failed)
    return;
  Type i32 = b.getI32Type();
  auto op = [&](Value x, Value y) -> Value {
    switch (id) {
    case llvm::Intrinsic::nvvm_redux_sync_add:
      return b.createOrFold<arith::AddIOp>(loc, x, y);
    case llvm::Intrinsic::nvvm_redux_sync_min:
      return b.createOrFold<arith::MinSIOp>(loc, x, y);
    case llvm::Intrinsic::nvvm_redux_sync_max:
      return b.createOrFold<arith::MaxSIOp>(loc, x, y);
    case llvm::Intrinsic::nvvm_redux_sync_umin:
      return b.createOrFold<arith::MinUIOp>(loc, x, y);
    case llvm::Intrinsic::nvvm_redux_sync_umax:
      return b.createOrFold<arith::MaxUIOp>(loc, x, y);
    case llvm::Intrinsic::nvvm_redux_sync_and:
      return b.createOrFold<arith::AndIOp>(loc, x, y);
    case llvm::Intrinsic::nvvm_redux_sync_or:
      return b.createOrFold<arith::OrIOp>(loc, x, y);
    default:
      return b.createOrFold<arith::XOrIOp>(loc, x, y);
    }
  };
  // Lane j's value where j is in the mask; the thread's own (a member)
  // elsewhere, which the operation absorbs (x op x = x for min, max, and,
  // or) or which is left out (add, xor).
  bool idempotent = id != llvm::Intrinsic::nvvm_redux_sync_add &&
                    id != llvm::Intrinsic::nvvm_redux_sync_xor;
  Value lane = laneId(), r = v;
  for (int j = 0; j < 32; ++j) {
    Value member = b.createOrFold<arith::CmpIOp>(
        loc, arith::CmpIPredicate::ne,
        b.createOrFold<arith::AndIOp>(loc, mask, cst(i32, (int32_t)(1u << j))),
        cst(i32, 0));
    Value x = ShuffleOp::create(
        b, loc, i32, v, select(member, cst(i32, j), lane), mask, s.guard);
    if (!idempotent)
      x = select(member, x, cst(i32, 0));
    r = j ? op(r, x) : (idempotent ? op(v, x) : x);
  }
  s.vals[&call] = scalar(r);
}

} // namespace lowering
} // namespace kv
