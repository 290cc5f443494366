//===- kv-opt.cpp - mlir-opt for the kv dialect ---------------------------===//
#include "kv/KVDialect.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  kv::registerKVDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "kv dialect test driver\n", registry));
}
