//===- LowerState.h - the symbolic state of the lowering -------*- C++ -*-===//
//
// What the lowering knows of a kernel's LLVM values as it runs through the
// function: byte offsets as linear forms, symbolic values (scalars,
// pointers, aggregates), stores to private memory, and the state a path
// carries (values, private stores, its guard).
//
//===----------------------------------------------------------------------===//
#ifndef KV_PASSES_LOWER_LOWERSTATE_H
#define KV_PASSES_LOWER_LOWERSTATE_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Instruction.h"

#include <cstdint>
#include <vector>

namespace kv {
namespace lowering {

using mlir::Value;

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
  /// the model does not keep past the loop. Opaque: the result of inline
  /// assembly without effects that the model cannot interpret (`origin`);
  /// it may be moved, computed with, kept; a branch, address or write fails.
  /// Aggregate: a struct or array value (a load of a whole struct, a
  /// struct returned by value), one SymVal per scalar, in the order of
  /// their offsets. FnPtr: a pointer to one of a few functions, each with
  /// the condition under which it is the one.
  enum Kind {
    None,
    LoopResult,
    Opaque,
    Scalar,
    Aggregate,
    PrivPtr,
    ArrayPtr,
    NullPtr,
    FnPtr
  } kind = None;
  Value scalar;                              // Scalar
  unsigned obj = 0;                          // PrivPtr: private object id
  Value array;                               // ArrayPtr: kv kernel argument
  Linear off;                                // pointers: byte offset
  std::vector<SymVal> parts;                 // Aggregate
  const llvm::Instruction *origin = nullptr; // Opaque
  std::vector<std::pair<const llvm::Function *, Value>> fns; // FnPtr
  bool isPtr() const { return kind >= PrivPtr; }
  bool operator==(const SymVal &o) const {
    return kind == o.kind && scalar == o.scalar && obj == o.obj &&
           array == o.array && off == o.off && parts == o.parts && fns == o.fns;
  }
};

struct PrivStore {
  unsigned obj;
  Linear off;
  uint64_t size;
  SymVal val;
  Value guard;
  /// A store of a modelled loop at an offset that depends on its
  /// iteration: after the loop it may have written anywhere in the object
  /// (off is then meaningless; its values died with the iteration).
  bool anywhere = false;
  /// This store of a modelled loop's iteration, as seen after the loop.
  void leaveLoop() {
    if (off.terms.empty())
      return;
    off = Linear();
    anywhere = true;
  }
};

struct State {
  llvm::DenseMap<const llvm::Value *, SymVal> vals;
  std::vector<PrivStore> stores;
  Value guard;
  bool dead = false;
  SymVal ret;

  State() = default;
  /// A copy is a branch's arm (or a loop's saved entry), which goes on
  /// storing: it gets room for that, so that its first store does not move
  /// every earlier one (an unrolled loop's states hold thousands).
  State(const State &o)
      : vals(o.vals), guard(o.guard), dead(o.dead), ret(o.ret) {
    stores.reserve(o.stores.size() + 16);
    stores.insert(stores.end(), o.stores.begin(), o.stores.end());
  }
  State(State &&) = default;
  State &operator=(const State &o) {
    if (this != &o)
      *this = State(o);
    return *this;
  }
  State &operator=(State &&) = default;
};

} // namespace lowering
} // namespace kv

#endif
