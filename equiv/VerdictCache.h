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
  /// \p where is a directory, or redis://HOST:PORT for a cache shared by
  /// a build farm; empty turns the cache off. A Redis that cannot be
  /// reached leaves the cache off, with the reason in warning().
  explicit VerdictCache(std::string where);
  ~VerdictCache();
  VerdictCache(const VerdictCache &) = delete;
  VerdictCache &operator=(const VerdictCache &) = delete;
  bool enabled() const { return !dir.empty() || redis; }
  /// Why the cache is off though one was asked for ("" if it is not).
  const std::string &warning() const { return why; }

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
  /// A hiredis redisContext, when the cache is in Redis.
  void *redis = nullptr;
  std::string why;
};

/// Every option's value, as one string for cache keys.
std::string optionsFingerprint(const Options &opts);

/// The default cache directory: kvalidate/verdicts in the user's cache
/// directory ($XDG_CACHE_HOME or ~/.cache), or "" if there is none.
std::string defaultVerdictCacheDir();

} // namespace kv

#endif
