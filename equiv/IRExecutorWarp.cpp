//===- IRExecutorWarp.cpp - warp shuffles and votes in the IR replay ------===//
//
// A thread that reaches a shuffle or a vote stops there (Stop::Shuffle);
// once every thread of the block has stopped, completeShuffles exchanges
// the values warp by warp and the threads go on.
//
//===----------------------------------------------------------------------===//
#include "equiv/IRExecutorInternal.h"
#include "passes/lower/LowerToKV.h"
#include "llvm/IR/IntrinsicsNVPTX.h"

namespace kv {
namespace irexec {

bool IRRunner::parkShuffle(ThreadState &t, const CallBase &c,
                           Intrinsic::ID id) {
  uint64_t lane = laneOf(t);
  uint64_t mask = get(t, c.getArgOperand(0)).bits & 0xffffffff;
  Val v = get(t, c.getArgOperand(1));
  int64_t b = get(t, c.getArgOperand(2)).bits & 31;
  uint64_t cw = get(t, c.getArgOperand(3)).bits;
  // PTX's shfl.sync: the source lane j, or the thread's own lane where j
  // is outside its segment.
  int64_t cval = cw & 31, seg = (cw >> 8) & 31, l = (int64_t)lane;
  int64_t minLane = l & seg, maxLane = minLane | (cval & ~seg), j;
  bool in;
  switch (id) {
  case Intrinsic::nvvm_shfl_sync_up_i32:
  case Intrinsic::nvvm_shfl_sync_up_f32:
    j = l - b;
    in = j >= maxLane;
    break;
  case Intrinsic::nvvm_shfl_sync_down_i32:
  case Intrinsic::nvvm_shfl_sync_down_f32:
    j = l + b;
    in = j <= maxLane;
    break;
  case Intrinsic::nvvm_shfl_sync_bfly_i32:
  case Intrinsic::nvvm_shfl_sync_bfly_f32:
    j = l ^ b;
    in = j <= maxLane;
    break;
  default:
    j = minLane | (b & ~seg);
    in = j <= maxLane;
    break;
  }
  Frame &f = t.stack.back();
  t.shuffle = {&c, v, in ? (uint64_t)j : lane, mask,
               f.base + f.info->slots.lookup(&c)};
  return true;
}

bool IRRunner::parkVote(ThreadState &t, const CallBase &c, Intrinsic::ID id) {
  // activemask: a ballot of true; __syncwarp(mask): a vote on nothing; a
  // reduction (redux.sync): a vote on its value, with the mask last.
  // A legacy vote (__any): its predicate alone, of the lanes that execute
  // it, as __activemask() is.
  bool legacy = syncVoteOfLegacy(id) != Intrinsic::not_intrinsic;
  if (legacy)
    id = syncVoteOfLegacy(id);
  bool active = id == Intrinsic::nvvm_activemask;
  bool sync = id == Intrinsic::nvvm_bar_warp_sync;
  unsigned maskArg = isReduxIntrinsic(id) ? 1 : 0;
  Frame &f = t.stack.back();
  t.shuffle.call = &c;
  t.shuffle.value = active || sync ? Val{1}
                    : legacy       ? get(t, c.getArgOperand(0))
                                   : get(t, c.getArgOperand(1 - maskArg));
  t.shuffle.srcLane = 0;
  t.shuffle.mask = active || legacy
                       ? 0xffffffff
                       : get(t, c.getArgOperand(maskArg)).bits & 0xffffffff;
  t.shuffle.resultReg = sync ? 0 : f.base + f.info->slots.lookup(&c);
  t.shuffle.vote = id;
  return true;
}

/// redux.sync's operation over the values \p vs.
static Val reduxResult(Intrinsic::ID id, ArrayRef<uint32_t> vs) {
  uint32_t r = vs.front();
  for (uint32_t v : vs.drop_front())
    switch (id) {
    case Intrinsic::nvvm_redux_sync_add:
      r += v;
      break;
    case Intrinsic::nvvm_redux_sync_min:
      r = std::min((int32_t)r, (int32_t)v);
      break;
    case Intrinsic::nvvm_redux_sync_max:
      r = std::max((int32_t)r, (int32_t)v);
      break;
    case Intrinsic::nvvm_redux_sync_umin:
      r = std::min(r, v);
      break;
    case Intrinsic::nvvm_redux_sync_umax:
      r = std::max(r, v);
      break;
    case Intrinsic::nvvm_redux_sync_and:
      r &= v;
      break;
    case Intrinsic::nvvm_redux_sync_or:
      r |= v;
      break;
    default:
      r ^= v;
      break;
    }
  return Val{r};
}

/// The result of the vote \p t waits at, from the lanes of its warp in
/// \p warp (perBlock threads from \p base) that wait at the same one.
static Val voteResult(const ThreadState &t, const std::vector<ThreadState> &ts,
                      uint64_t base) {
  const ThreadState::Shuffle &sh = t.shuffle;
  uint64_t ballot = 0, against = 0;
  SmallVector<uint32_t, 32> values;
  for (uint64_t lane = 0; lane < 32 && base + lane < ts.size(); ++lane) {
    const ThreadState &u = ts[base + lane];
    if (u.shuffle.call != sh.call || !((sh.mask >> lane) & 1))
      continue;
    values.push_back((uint32_t)u.shuffle.value.bits);
    if (u.shuffle.value.bits & 1)
      ballot |= uint64_t(1) << lane;
    else
      against |= uint64_t(1) << lane;
  }
  if (isReduxIntrinsic(sh.vote))
    return reduxResult(sh.vote, values);
  switch (sh.vote) {
  case Intrinsic::nvvm_vote_any_sync:
    return Val{ballot != 0};
  case Intrinsic::nvvm_vote_all_sync:
    return Val{against == 0};
  case Intrinsic::nvvm_vote_uni_sync:
    return Val{ballot == 0 || against == 0};
  default:
    return Val{ballot};
  }
}

bool IRRunner::completeShuffles(std::vector<ThreadState> &ts) {
  uint64_t perBlock = ts.size();
  for (uint64_t l = 0; l < perBlock; ++l) {
    ThreadState &t = ts[l];
    if (!t.shuffle.call)
      continue;
    if (t.shuffle.vote != Intrinsic::not_intrinsic) {
      cur = t.shuffle.call;
      if (!((t.shuffle.mask >> (l & 31)) & 1))
        return warpDefect(l,
                          "vote whose mask leaves out the lane that "
                          "executes it",
                          "the mask of a vote leaves out lane " +
                              Twine(l & 31));
      // Every lane of a reduction's mask takes part in it.
      if (isReduxIntrinsic(t.shuffle.vote))
        for (uint64_t lane = 0; lane < 32; ++lane) {
          uint64_t u = (l & ~uint64_t(31)) | lane;
          if (((t.shuffle.mask >> lane) & 1) &&
              (u >= perBlock || ts[u].shuffle.call != t.shuffle.call))
            return warpDefect(
                l,
                "warp reduction whose mask names a lane that does not "
                "execute it",
                "a warp reduction's mask names lane " + Twine(lane) +
                    (u >= perBlock ? ", which is not in the block"
                                   : ", which does not execute it"));
        }
      continue;
    }
    cur = t.shuffle.call;
    const ThreadState::Shuffle &sh = t.shuffle;
    uint64_t lane = l & 31, src = (l & ~uint64_t(31)) | sh.srcLane;
    if (!((sh.mask >> lane) & 1) || !((sh.mask >> sh.srcLane) & 1))
      return warpDefect(l, "shuffle from a lane outside its mask",
                        "the mask of a shuffle leaves out lane " +
                            Twine(((sh.mask >> lane) & 1) ? sh.srcLane : lane));
    if (src >= perBlock || ts[src].shuffle.call != sh.call)
      return warpDefect(l,
                        src >= perBlock
                            ? "shuffle from a lane beyond the block"
                            : "shuffle from a lane that does not execute it",
                        "a shuffle reads lane " + Twine(sh.srcLane) +
                            (src >= perBlock ? ", which is not in the block"
                                             : ", which does not execute it"));
  }
  // All read first: a thread's result is another's operand.
  std::vector<Val> results(perBlock);
  for (uint64_t l = 0; l < perBlock; ++l) {
    ThreadState &t = ts[l];
    if (!t.shuffle.call)
      continue;
    uint64_t base = l & ~uint64_t(31);
    results[l] = t.shuffle.vote != Intrinsic::not_intrinsic
                     ? voteResult(t, ts, base)
                     : ts[base | t.shuffle.srcLane].shuffle.value;
    if (trace) {
      // A vote's result is every lane's: all of the warp stand for it.
      int64_t first = launchThread() - curThread;
      if (t.shuffle.vote == Intrinsic::not_intrinsic)
        trace->readFrom(first + (int64_t)l,
                        first + (int64_t)(base | t.shuffle.srcLane));
      else
        for (uint64_t u = base; u < std::min(base + 32, perBlock); ++u)
          trace->readFrom(first + (int64_t)l, first + (int64_t)u);
    }
  }
  for (uint64_t l = 0; l < perBlock; ++l)
    if (ts[l].shuffle.call &&
        ts[l].shuffle.vote != Intrinsic::nvvm_bar_warp_sync)
      ts[l].regs[ts[l].shuffle.resultReg] = results[l];
  for (ThreadState &t : ts)
    t.shuffle = {};
  return true;
}

} // namespace irexec
} // namespace kv
