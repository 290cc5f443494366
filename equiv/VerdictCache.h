//===- VerdictCache.h - verdicts kept across compiles -----------*- C++ -*-===//
//
// A verdict depends only on the two kernels, the options and kvalidate
// itself: the cache keeps it under a hash of those, in a local directory
// (-kvalidate-cache=DIR), so that a rebuild of an unchanged kernel costs a
// file read. Entries are written whole through a rename: a compile killed
// half-way leaves no torn entry, and a concurrent compile reads either the
// old entry or the new one.
//
//===----------------------------------------------------------------------===//
#ifndef KV_EQUIV_VERDICTCACHE_H
#define KV_EQUIV_VERDICTCACHE_H

#include "equiv/Options.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace kv {

class VerdictCache {
public:
  /// An empty \p dir turns the cache off.
  explicit VerdictCache(std::string dir) : dir(std::move(dir)) {}
  bool enabled() const { return !dir.empty(); }

  /// The key of a verdict: a SHA-256 of \p parts, kvalidate's build and
  /// version included.
  static std::string key(llvm::ArrayRef<std::string> parts);

  std::optional<llvm::json::Object> lookup(llvm::StringRef key) const;
  /// Returns false with \p err when the entry cannot be written.
  bool store(llvm::StringRef key, const llvm::json::Object &entry,
             std::string &err) const;

private:
  std::string pathOf(llvm::StringRef key) const;
  std::string dir;
};

/// Every option's value, as one string for cache keys.
std::string optionsFingerprint(const Options &opts);

/// The default cache directory: kvalidate/verdicts in the user's cache
/// directory ($XDG_CACHE_HOME or ~/.cache), or "" if there is none.
std::string defaultVerdictCacheDir();

} // namespace kv

#endif
