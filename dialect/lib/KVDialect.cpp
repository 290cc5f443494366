//===- KVDialect.cpp - the kv kernel model dialect ------------------------===//
#include "kv/KVDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace kv;

/// custom<EnumKeyword>: a kv enum attribute as its case's keyword
/// (`tid.x`); the parser takes a quoted string too (`"tid.x"`).
template <typename AttrT>
static ParseResult parseEnumKeyword(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  FailureOr<EnumT> value = FieldParser<EnumT>::parse(parser);
  if (failed(value))
    return failure();
  attr = AttrT::get(parser.getContext(), *value);
  return success();
}

template <typename AttrT>
static void printEnumKeyword(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

/// custom<RmwArray>: a kv.write's array, after `atomic KIND` for an atomic
/// update.
static ParseResult parseRmwArray(OpAsmParser &parser, RmwKindAttr &attr,
                                 OpAsmParser::UnresolvedOperand &array) {
  if (succeeded(parser.parseOptionalKeyword("atomic")) &&
      failed(parseEnumKeyword(parser, attr)))
    return failure();
  return parser.parseOperand(array);
}

static void printRmwArray(OpAsmPrinter &printer, Operation *op,
                          RmwKindAttr attr, Value array) {
  if (attr) {
    printer << "atomic ";
    printEnumKeyword(printer, op, attr);
    printer << ' ';
  }
  printer << array;
}

#include "kv/KVEnums.cpp.inc"
#include "kv/KVOpsDialect.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "kv/KVOpsAttrs.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "kv/KVOpsTypes.cpp.inc"
#define GET_OP_CLASSES
#include "kv/KVOps.cpp.inc"

void KVDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "kv/KVOpsAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "kv/KVOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "kv/KVOps.cpp.inc"
      >();
}

Type kv::getArrayElementType(Type t) {
  if (auto g = dyn_cast<GlobalArrayType>(t))
    return g.getElementType();
  if (auto s = dyn_cast<SharedArrayType>(t))
    return s.getElementType();
  return {};
}

static std::optional<unsigned> globalArrayNamed(KernelOp k,
                                                llvm::StringRef name) {
  Block &blk = k.getBlock();
  for (unsigned i = 0; i < blk.getNumArguments(); ++i)
    if (isa<GlobalArrayType>(blk.getArgument(i).getType()) &&
        i < k.getArgNames().size() && k.getArgName(i) == name)
      return i;
  return std::nullopt;
}

std::optional<unsigned> kv::printStreamArg(KernelOp k) {
  return globalArrayNamed(k, kPrintStream);
}

std::optional<unsigned> kv::nullParamsArg(KernelOp k) {
  return globalArrayNamed(k, kNullParams);
}

bool kv::isArrayType(Type t) {
  return isa<GlobalArrayType, SharedArrayType>(t);
}

void kv::registerKVDialects(DialectRegistry &registry) {
  registry.insert<KVDialect, arith::ArithDialect>();
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult KernelOp::verify() {
  Block &b = getBlock();
  if (getArgNames().size() != b.getNumArguments())
    return emitOpError("has ") << b.getNumArguments() << " block arguments but "
                               << getArgNames().size() << " arg_names";
  if (auto u = getUnsignedParams())
    for (Attribute a : *u) {
      StringRef name = cast<StringAttr>(a).getValue();
      auto arg = llvm::find_if(b.getArguments(), [&](BlockArgument x) {
        return getArgName(x.getArgNumber()) == name;
      });
      if (arg == b.getArguments().end() || !arg->getType().isInteger())
        return emitOpError("unsigned_params names '")
               << name << "', which is not an integer parameter";
    }
  bool sawShared = false;
  for (BlockArgument a : b.getArguments()) {
    Type t = a.getType();
    if (isa<SharedArrayType>(t)) {
      sawShared = true;
      continue;
    }
    if (sawShared)
      return emitOpError("parameter #")
             << a.getArgNumber() << " follows a shared array";
    if (!isa<GlobalArrayType>(t) && !t.isSignlessInteger())
      return emitOpError("parameter #")
             << a.getArgNumber() << " must be an integer or !kv.global, got "
             << t;
  }
  for (BlockArgument a : b.getArguments())
    if (Type e = getArrayElementType(a.getType()))
      if (!e.isSignlessInteger())
        return emitOpError("array element type must be a signless integer "
                           "(floats are kept as bit patterns), got ")
               << e;
  for (Operation &op : b) {
    if (isa<arith::ArithDialect>(op.getDialect()) ||
        isa<SRegOp, ReadOp, WriteOp, BarrierOp, AssumeOp, ApplyOp, NoWrapOp,
            IterOp, SumOp, ProveOp, CarryOp, FoldOp, BreakOp, LastOp, ShuffleOp,
            LaneOp, BallotOp>(op))
      continue;
    return op.emitOpError("is not allowed in a kv.kernel body");
  }
  return success();
}

void KernelOp::getAsmBlockArgumentNames(Region &region,
                                        OpAsmSetValueNameFn setNameFn) {
  if (&region != &getBody() || region.empty())
    return;
  for (BlockArgument a : region.front().getArguments())
    if (a.getArgNumber() < getArgNames().size())
      setNameFn(a, getArgName(a.getArgNumber()));
}

static LogicalResult verifyArrayOperand(Operation *op, Value array) {
  auto arg = dyn_cast<BlockArgument>(array);
  if (!arg || !isa<KernelOp>(arg.getOwner()->getParentOp()))
    return op->emitOpError("array operand must be a kv.kernel argument");
  return success();
}

LogicalResult ReadOp::verify() {
  if (failed(verifyArrayOperand(*this, getArray())))
    return failure();
  if (getResult().getType() != getArrayElementType(getArray().getType()))
    return emitOpError("result type ")
           << getResult().getType() << " differs from the element type "
           << getArrayElementType(getArray().getType());
  return success();
}

LogicalResult WriteOp::verify() {
  if (failed(verifyArrayOperand(*this, getArray())))
    return failure();
  if (getValue().getType() != getArrayElementType(getArray().getType()))
    return emitOpError("value type ")
           << getValue().getType() << " differs from the element type "
           << getArrayElementType(getArray().getType());
  if (isAtomic() && !isa<IntegerType>(getValue().getType()))
    return emitOpError("atomic update of a non-integer value");
  return success();
}

LogicalResult BarrierOp::verify() {
  if (getWarp() != (getMask() != nullptr))
    return emitOpError("a warp barrier has a mask, a block barrier none");
  if (getWarp() && getGrid())
    return emitOpError("a barrier of the grid is not a warp barrier");
  return success();
}

LogicalResult SumOp::verify() {
  if (!getIter().getDefiningOp<IterOp>())
    return emitOpError("iterates over a value that is not a kv.iter");
  return success();
}

LogicalResult CarryOp::verify() {
  if (!getIter().getDefiningOp<IterOp>())
    return emitOpError("iterates over a value that is not a kv.iter");
  return success();
}

LogicalResult BreakOp::verify() {
  if (!getIter().getDefiningOp<IterOp>())
    return emitOpError("iterates over a value that is not a kv.iter");
  return success();
}

LogicalResult LastOp::verify() {
  if (!getIter().getDefiningOp<IterOp>())
    return emitOpError("iterates over a value that is not a kv.iter");
  return success();
}

LogicalResult FoldOp::verify() {
  CarryOp c = getCarry();
  if (!c)
    return emitOpError("accumulator is not a kv.carry");
  for (Operation *u : c->getUsers())
    if (u != getOperation() && isa<FoldOp>(u))
      return emitOpError("two kv.fold ops name one kv.carry");
  return success();
}
