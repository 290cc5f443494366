//===- VerdictCache.cpp - verdicts kept across compiles -------------------===//
#include "equiv/VerdictCache.h"
#include "equiv/ReportFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#ifdef KV_HAVE_HIREDIS
#include <hiredis.h>
#endif

using namespace llvm;

namespace kv {

/// Which kvalidate this is: the library or executable holding this code,
/// by path, size and modification time. A rebuilt kvalidate (whose version
/// string may not change while it is developed) never sees the verdicts of
/// the one before.
static std::string buildIdentity() {
  static const std::string id = [] {
    std::string s = versionString();
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&buildIdentity), &info) &&
        info.dli_fname) {
      sys::fs::file_status st;
      s += std::string(" ") + info.dli_fname;
      if (!sys::fs::status(info.dli_fname, st))
        s += " " + std::to_string(st.getSize()) + " " +
             std::to_string(
                 st.getLastModificationTime().time_since_epoch().count());
    }
    return s;
  }();
  return id;
}

std::string VerdictCache::key(ArrayRef<std::string> parts) {
  SHA256 h;
  auto add = [&](StringRef s) {
    // Length-prefixed, so that parts cannot run into each other.
    h.update(std::to_string(s.size()) + ":");
    h.update(s);
  };
  add(buildIdentity());
  for (const std::string &p : parts)
    add(p);
  return toHex(h.final(), /*LowerCase=*/true);
}

VerdictCache::VerdictCache(std::string where) {
  StringRef spec(where);
  if (!spec.consume_front("redis://")) {
    dir = std::move(where);
    return;
  }
#ifdef KV_HAVE_HIREDIS
  auto [host, portText] = spec.rsplit(':');
  unsigned port = 6379;
  if (host.empty() || (!portText.empty() && portText.getAsInteger(10, port))) {
    why = "malformed " + where + " (expected redis://HOST:PORT)";
    return;
  }
  // A build must not wait on a cache: half a second to connect, and as
  // long for each command.
  timeval limit{0, 500000};
  redisContext *c = redisConnectWithTimeout(host.str().c_str(), port, limit);
  if (!c || c->err) {
    why = where + " is unreachable (" +
          (c ? std::string(c->errstr) : std::string("out of memory")) + ")";
    if (c)
      redisFree(c);
    return;
  }
  redisSetTimeout(c, limit);
  redis = c;
#else
  why = "this kvalidate was built without hiredis: no " + where;
#endif
}

VerdictCache::~VerdictCache() {
#ifdef KV_HAVE_HIREDIS
  if (redis)
    redisFree(static_cast<redisContext *>(redis));
#endif
}

std::string VerdictCache::pathOf(StringRef key) const {
  SmallString<256> p(dir);
  sys::path::append(p, key.take_front(2), key.drop_front(2) + ".json");
  return p.str().str();
}

std::optional<json::Object> VerdictCache::lookup(StringRef key) const {
  if (!enabled())
    return std::nullopt;
  std::string text;
  if (redis) {
#ifdef KV_HAVE_HIREDIS
    auto *r = static_cast<redisReply *>(
        redisCommand(static_cast<redisContext *>(redis), "GET kvalidate:%b",
                     key.data(), key.size()));
    if (r && r->type == REDIS_REPLY_STRING)
      text.assign(r->str, r->len);
    if (r)
      freeReplyObject(r);
#endif
  } else {
    ErrorOr<std::unique_ptr<MemoryBuffer>> buf =
        MemoryBuffer::getFile(pathOf(key));
    if (buf)
      text = (*buf)->getBuffer().str();
  }
  if (text.empty())
    return std::nullopt;
  Expected<json::Value> v = json::parse(text);
  if (!v) {
    consumeError(v.takeError());
    return std::nullopt;
  }
  json::Object *o = v->getAsObject();
  // An entry of another key (a hash collision, a file moved by hand) is
  // no hit.
  if (!o || o->getString("key") != key)
    return std::nullopt;
  return std::move(*o);
}

bool VerdictCache::store(StringRef key, const json::Object &entry,
                         std::string &err) const {
  if (redis) {
#ifdef KV_HAVE_HIREDIS
    json::Object o = entry;
    o["key"] = key;
    std::string text;
    raw_string_ostream os(text);
    os << json::Value(std::move(o));
    // SET replaces the value whole: a reader sees the old one or the new.
    auto *r = static_cast<redisReply *>(
        redisCommand(static_cast<redisContext *>(redis), "SET kvalidate:%b %b",
                     key.data(), key.size(), text.data(), text.size()));
    bool ok = r && r->type == REDIS_REPLY_STATUS;
    if (!ok)
      err = std::string("redis: ") +
            (r && r->type == REDIS_REPLY_ERROR
                 ? std::string(r->str, r->len)
                 : std::string(static_cast<redisContext *>(redis)->errstr));
    if (r)
      freeReplyObject(r);
    return ok;
#endif
  }
  std::string path = pathOf(key);
  if (std::error_code ec =
          sys::fs::create_directories(sys::path::parent_path(path))) {
    err = "cannot create " + sys::path::parent_path(path).str() + ": " +
          ec.message();
    return false;
  }
  json::Object o = entry;
  o["key"] = key;
  std::string text;
  raw_string_ostream os(text);
  os << json::Value(std::move(o));
  return writeFileAtomically(path, text, err);
}

std::string optionsFingerprint(const Options &o) {
  std::string s;
  raw_string_ostream os(s);
#define KV_UINT(FIELD, NAME, CLI_DEFAULT, PLUGIN_DEFAULT, MIN, MAX, VALUE,     \
                RANGE, HIDDEN, DESC)                                           \
  os << NAME << "=" << o.FIELD << ";";
#define KV_BOOL(FIELD, NAME, CLI_DEFAULT, PLUGIN_DEFAULT, HIDDEN, DESC)        \
  os << NAME << "=" << o.FIELD << ";";
#define KV_LIST(FIELD, NAME, VALUE, DESC)                                      \
  for (const std::string &v : o.FIELD)                                         \
    os << NAME << "=" << v.size() << ":" << v << ";";
#define KV_CHOICE(FIELD, NAME, CHOICES, HIDDEN, DESC)                          \
  os << NAME << "=" << o.FIELD << ";";
#include "equiv/Options.def"
  return s;
}

std::string defaultVerdictCacheDir() {
  SmallString<128> dir;
  if (!sys::path::cache_directory(dir))
    return "";
  sys::path::append(dir, "kvalidate", "verdicts");
  return dir.str().str();
}

} // namespace kv
