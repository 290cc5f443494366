//===- LowerWarp.cpp - warp shuffles and lane ids into kv -----------------===//
//
// A warp is 32 threads of consecutive linear ids in a block; a lane is a
// linear id mod 32. A shuffle (llvm.nvvm.shfl.sync.*) becomes kv.shuffle with
// its source lane computed here as PTX's shfl.sync defines it.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/IR/IntrinsicsNVPTX.h"

using namespace mlir;

namespace kv {
namespace lowering {

Value Lowerer::laneId() { return LaneOp::create(b, loc, b.getI32Type()); }

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
  Value mask = active ? cst(i32, -1) : evalScalar(call.getArgOperand(0), s);
  Value p = active ? i1(true) : evalScalar(call.getArgOperand(1), s);
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

} // namespace lowering
} // namespace kv
