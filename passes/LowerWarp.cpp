//===- LowerWarp.cpp - warp shuffles and lane ids into kv -----------------===//
//
// A warp is 32 threads of consecutive linear ids in a block; a lane is a
// linear id mod 32. A shuffle (llvm.nvvm.shfl.sync.*) becomes kv.shuffle with
// its source lane computed here as PTX's shfl.sync defines it.
//
//===----------------------------------------------------------------------===//
#include "passes/Lowerer.h"

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

} // namespace lowering
} // namespace kv
