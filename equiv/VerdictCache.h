//===- VerdictCache.h - verdicts kept across compiles -----------*- C++ -*-===//
//
// A verdict depends only on the two kernels, the options and kvalidate
// itself: the cache keeps it under a hash of those, in a local directory
// (-kvalidate-cache=DIR), so that a rebuild of an unchanged kernel costs a
// file read. Entries are written whole through a rename: a compile killed
// half-way leaves no torn entry, and a concurrent compile reads either the
// old entry or the new one.
//
// An entry cannot be talked into a verdict: it carries what its key was made
// of (the digests of the key's parts, kvalidate's version and build) and a
// SHA-256 of its content, both checked on read, so that an entry edited by
// hand or copied under another key is a miss. With a shared secret
// (-kvalidate-cache-key=FILE) entries are also signed (HMAC-SHA256), and an
// entry without the right signature is a miss: only a holder of the secret
// can write a verdict that others read.
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
  /// A verdict's key: its id (the file name, the Redis key) and what it was
  /// made of, which each entry carries and is checked against.
  struct Key {
    std::string id;
    llvm::json::Object material;
  };

  /// \p where is a directory, or redis://HOST:PORT for a cache shared by
  /// a build farm; empty turns the cache off. A Redis that cannot be
  /// reached leaves the cache off, with the reason in warning(). A non-empty
  /// \p secret signs the entries written and is required of those read.
  explicit VerdictCache(std::string where, std::string secret = "");
  ~VerdictCache();
  VerdictCache(const VerdictCache &) = delete;
  VerdictCache &operator=(const VerdictCache &) = delete;
  bool enabled() const { return !dir.empty() || redis; }
  /// Why the cache is off though one was asked for ("" if it is not).
  const std::string &warning() const { return why; }

  /// Why \p where cannot be a cache location ("" if it can): a scheme other
  /// than redis://, or a redis:// without a host or with a bad port. Checked
  /// before a compile starts, so that a typo is not a directory named
  /// "http:".
  static std::string checkLocation(llvm::StringRef where);

  /// The key of a verdict: a SHA-256 of \p parts, kvalidate's build and
  /// version included.
  static Key key(llvm::ArrayRef<std::string> parts);

  /// The entry kept under \p key, if there is one that passes the checks.
  std::optional<llvm::json::Object> lookup(const Key &key) const;
  /// Returns false with \p err when the entry cannot be written.
  bool store(const Key &key, const llvm::json::Object &entry,
             std::string &err) const;

private:
  std::string pathOf(llvm::StringRef id) const;
  std::string dir;
  std::string secret;
  /// A hiredis redisContext, when the cache is in Redis.
  void *redis = nullptr;
  std::string why;
};

/// HMAC-SHA256 (RFC 2104) of \p message under \p key, in lower-case hex.
std::string hmacSha256Hex(llvm::StringRef key, llvm::StringRef message);

/// Every option's value, as one string for cache keys.
std::string optionsFingerprint(const Options &opts);

/// The default cache directory: kvalidate/verdicts in the user's cache
/// directory ($XDG_CACHE_HOME or ~/.cache), or "" if there is none.
std::string defaultVerdictCacheDir();

} // namespace kv

#endif
