//===- HostKernels.cpp - host functions as one-thread kernels -------------===//
//
// A host function (func.func) that does its work in `scf.parallel` loops, or
// launches kernels (gpu.launch_func, gpu.launch once outlined), is a kernel
// of its own for kvalidate: its effect on the memrefs it is given. This is
// what MLIR's gpu-map-parallel-loops and convert-parallel-loops-to-gpu
// change: a parallel loop nest before, a launch after.
//
// The function becomes a gpu.func of the same name in a gpu.module of its
// own, whose body runs in one thread (thread 0 of block 0; every other
// thread returns at once, so the verdict holds for every launch of it). A
// parallel loop keeps its meaning there: iterations run one after another,
// which is one of its schedules. A launch becomes a loop nest over the
// grid's blocks and the block's threads around the kernel's body, with the
// ids the loops' indices. Running the threads one after another is the
// launch's meaning only when the threads do not depend on each other: the
// kernel has no barrier, warp or atomic operation (else the function is not
// modelled, and says where), and it is race-free at the launch's sizes.
// That last condition is left to the driver (equiv/Driver.cpp), which
// checks each launched kernel for races and bounds at its sizes, read from
// the function attribute `kv-host-launches` set here.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/ImportGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace kv {

namespace {

std::string where(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    os << f.getFilename().getValue() << ":" << f.getLine() << ":"
       << f.getColumn();
  else
    os << loc;
  return s;
}

/// Whether \p f does work a kernel can be made of.
bool isHostKernel(func::FuncOp f) {
  if (f.isDeclaration() || f.getNumResults() != 0)
    return false;
  bool found = false;
  f.walk([&](Operation *op) {
    found |= isa<gpu::LaunchFuncOp, scf::ParallelOp>(op);
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

/// Why kernel \p k's threads cannot run one after another, or "".
std::string notSequential(gpu::GPUFuncOp k) {
  if (!k.getWorkgroupAttributions().empty())
    return "workgroup memory";
  if (!k.getPrivateAttributions().empty())
    return "private attributions";
  std::string why;
  k.walk([&](Operation *op) {
    if (op == k.getOperation() ||
        isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
            gpu::ReturnOp>(op))
      return WalkResult::advance();
    if (op->getDialect() && op->getDialect()->getNamespace() == "gpu")
      why = "'" + op->getName().getStringRef().str() + "' at " +
            where(op->getLoc());
    else if (isa<memref::AtomicRMWOp, memref::GenericAtomicRMWOp>(op))
      why = "the atomic '" + op->getName().getStringRef().str() + "' at " +
            where(op->getLoc());
    return why.empty() ? WalkResult::advance() : WalkResult::interrupt();
  });
  return why;
}

/// The launch's six sizes (grid x y z, block x y z).
SmallVector<Value, 6> sizesOf(gpu::LaunchFuncOp l) {
  return {l.getGridSizeX(),  l.getGridSizeY(),  l.getGridSizeZ(),
          l.getBlockSizeX(), l.getBlockSizeY(), l.getBlockSizeZ()};
}

/// Replace launch \p l (in a host kernel) by a loop nest over its blocks and
/// threads around a copy of kernel \p k's body. Returns the launch's record
/// for kv-host-launches ("KERNEL=gx,gy,gz,bx,by,bz|OPERANDS@LOC", '?' for a
/// value that is not a constant).
FailureOr<std::string> inlineLaunch(gpu::LaunchFuncOp l, gpu::GPUFuncOp k,
                                    Block *params, std::string &err) {
  if (!l.getAsyncDependencies().empty() || l.getAsyncToken() ||
      l.getDynamicSharedMemorySize() || l.hasClusterSize()) {
    err = "an asynchronous launch, or one with dynamic shared memory or "
          "clusters, at " +
          where(l.getLoc());
    return failure();
  }
  if (std::string why = notSequential(k); !why.empty()) {
    err = "the launch of '" + k.getName().str() + "' at " + where(l.getLoc()) +
          ": its threads are not independent (" + why + ")";
    return failure();
  }
  std::string record;
  llvm::raw_string_ostream os(record);
  os << k.getName() << "=";
  SmallVector<Value, 6> sizes = sizesOf(l);
  for (auto [i, v] : llvm::enumerate(sizes)) {
    if (i)
      os << ",";
    if (std::optional<int64_t> c = getConstantIntValue(v))
      os << *c;
    else
      os << "?";
  }
  // The kernel's operands: '*' for a memref (distinct parameters of the
  // host function, so that the race check's distinct arrays hold), an
  // integer constant's value, 'p' for a parameter of the host function
  // (passed once), '?' for any other scalar.
  os << "|";
  llvm::SmallPtrSet<Value, 8> arrays;
  for (auto [i, v] : llvm::enumerate(l.getKernelOperands())) {
    if (i)
      os << ",";
    if (isa<BaseMemRefType>(v.getType())) {
      auto a = dyn_cast<BlockArgument>(v);
      if (!a || a.getOwner() != params || !arrays.insert(v).second) {
        err = "the launch of '" + k.getName().str() + "' at " +
              where(l.getLoc()) + ": memref operand " + std::to_string(i) +
              " is not a parameter of the host function of its own (the "
              "race check of the launch assumes distinct arrays)";
        return failure();
      }
      os << "*";
    } else if (std::optional<int64_t> c = getConstantIntValue(v)) {
      os << *c;
    } else if (auto a = dyn_cast<BlockArgument>(v);
               a && a.getOwner() == params && arrays.insert(v).second) {
      os << "p"; // the host's own parameter: any value is an input
    } else {
      os << "?";
    }
  }
  os << "@" << where(l.getLoc());

  OpBuilder b(l);
  Location loc = l.getLoc();
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  // Blocks outside threads, x outermost: a parallel loop mapped x-first
  // keeps its order.
  SmallVector<Value, 6> ivs(6);
  for (int i : {0, 1, 2, 3, 4, 5}) {
    auto loop = scf::ForOp::create(b, loc, zero, sizes[i], one);
    ivs[i] = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  // The kernel's body, possibly of many blocks, as one region.
  auto region = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
  IRMapping map;
  for (auto [arg, operand] : llvm::zip(k.getArguments(), l.getKernelOperands()))
    map.map(arg, operand);
  // The entry block's arguments, mapped, are not cloned: their uses are
  // the launch's operands.
  k.getBody().cloneInto(&region.getRegion(), map);
  auto dimOf = [](gpu::Dimension d) { return (int)d; };
  SmallVector<Operation *> dead;
  region.walk([&](Operation *op) {
    OpBuilder ob(op);
    Value with;
    if (auto t = dyn_cast<gpu::ThreadIdOp>(op))
      with = ivs[3 + dimOf(t.getDimension())];
    else if (auto t = dyn_cast<gpu::BlockIdOp>(op))
      with = ivs[dimOf(t.getDimension())];
    else if (auto t = dyn_cast<gpu::BlockDimOp>(op))
      with = sizes[3 + dimOf(t.getDimension())];
    else if (auto t = dyn_cast<gpu::GridDimOp>(op))
      with = sizes[dimOf(t.getDimension())];
    else if (isa<gpu::ReturnOp>(op)) {
      scf::YieldOp::create(ob, op->getLoc());
      dead.push_back(op);
      return;
    } else
      return;
    op->getResult(0).replaceAllUsesWith(with);
    dead.push_back(op);
  });
  for (Operation *op : dead)
    op->erase();
  l.erase();
  return record;
}

} // namespace

LogicalResult buildHostKernels(ModuleOp work,
                               std::map<std::string, std::string> &launches,
                               std::map<std::string, std::string> &unsupported,
                               std::string &err) {
  SmallVector<func::FuncOp> hosts;
  for (auto f : work.getOps<func::FuncOp>())
    if (isHostKernel(f))
      hosts.push_back(f);
  if (hosts.empty())
    return success();
  // Launch sizes computed on the host (affine.apply of constants, say)
  // folded, so that the driver can check the launch at its sizes.
  for (func::FuncOp f : hosts) {
    PassManager pm(work.getContext(), func::FuncOp::getOperationName());
    pm.addPass(createCanonicalizerPass());
    if (failed(pm.run(f))) {
      err = "host function '" + f.getName().str() + "' does not canonicalize";
      return failure();
    }
  }
  OpBuilder b(work.getBodyRegion());
  b.setInsertionPointToEnd(work.getBody());
  auto gm = gpu::GPUModuleOp::create(b, work.getLoc(), "kv_host_functions");
  for (func::FuncOp f : hosts) {
    OpBuilder gb(gm.getBodyRegion());
    gb.setInsertionPointToStart(gm.getBody());
    auto g = gpu::GPUFuncOp::create(gb, f.getLoc(), f.getName(),
                                    f.getFunctionType());
    g->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), gb.getUnitAttr());
    if (ArrayAttr args = f.getAllArgAttrs())
      g.setAllArgAttrs(args);
    // The entry: only thread 0 of block 0 goes on into the function's body.
    Block &entry = g.getBody().front();
    for (auto [arg, from] : llvm::zip(entry.getArguments(), f.getArguments()))
      arg.setLoc(from.getLoc());
    IRMapping map;
    f.getBody().cloneInto(&g.getBody(), map);
    Block *body = map.lookup(&f.getBody().front());
    Block *exit = new Block();
    g.getBody().push_back(exit);
    OpBuilder eb = OpBuilder::atBlockEnd(exit);
    gpu::ReturnOp::create(eb, f.getLoc());
    eb.setInsertionPointToEnd(&entry);
    Location loc = f.getLoc();
    Value zero = arith::ConstantIndexOp::create(eb, loc, 0);
    Value first = arith::ConstantIntOp::create(eb, loc, 1, 1);
    for (gpu::Dimension d :
         {gpu::Dimension::x, gpu::Dimension::y, gpu::Dimension::z}) {
      for (Value id : {(Value)gpu::ThreadIdOp::create(eb, loc, d),
                       (Value)gpu::BlockIdOp::create(eb, loc, d)}) {
        Value is0 =
            arith::CmpIOp::create(eb, loc, arith::CmpIPredicate::eq, id, zero);
        first = arith::AndIOp::create(eb, loc, first, is0);
      }
    }
    cf::CondBranchOp::create(eb, loc, first, body, entry.getArguments(), exit,
                             ValueRange{});
    // func.return -> gpu.return.
    SmallVector<func::ReturnOp> returns;
    g.walk([&](func::ReturnOp r) { returns.push_back(r); });
    for (func::ReturnOp r : returns) {
      OpBuilder rb(r);
      gpu::ReturnOp::create(rb, r.getLoc());
      r.erase();
    }
    // Launches as loop nests.
    SmallVector<gpu::LaunchFuncOp> calls;
    g.walk([&](gpu::LaunchFuncOp l) { calls.push_back(l); });
    std::string records, why;
    for (gpu::LaunchFuncOp l : calls) {
      auto k = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          work, l.getKernel());
      if (!k) {
        why = "the kernel its launch at " + where(l.getLoc()) +
              " names is not in the module";
        break;
      }
      FailureOr<std::string> rec = inlineLaunch(l, k, body, why);
      if (failed(rec))
        break;
      records += (records.empty() ? "" : ";") + *rec;
    }
    if (!why.empty()) {
      // Not modelled: an empty kernel that says why, so that the rest of
      // the module is still validated.
      Region &r = g.getBody();
      r.dropAllReferences();
      r.getBlocks().clear();
      Block *only = new Block();
      r.push_back(only);
      for (BlockArgument a : f.getArguments())
        only->addArgument(a.getType(), a.getLoc());
      OpBuilder ob = OpBuilder::atBlockEnd(only);
      gpu::ReturnOp::create(ob, f.getLoc());
      unsupported[f.getName().str()] = why;
      continue;
    }
    launches[f.getName().str()] = records;
  }
  // One-trip loops (a launch of one block, of one thread per block) gone.
  PassManager pm(work.getContext(), gpu::GPUModuleOp::getOperationName());
  pm.addPass(createCanonicalizerPass());
  if (failed(pm.run(gm))) {
    err = "the host functions' kernels do not canonicalize";
    return failure();
  }
  return success();
}

} // namespace kv
