//===- EncoderInternal.h - shared by the Encoder's files --------*- C++ -*-===//
//
// Private to smt-encode: what several of the files that implement Encoder
// need.
//
//===----------------------------------------------------------------------===//
#ifndef KV_SMTENCODE_ENCODERINTERNAL_H
#define KV_SMTENCODE_ENCODERINTERNAL_H

namespace kv {

/// The axes of thread and block coordinates, as symbols' names spell them.
static const char *axes[3] = {"x", "y", "z"};

} // namespace kv

#endif
