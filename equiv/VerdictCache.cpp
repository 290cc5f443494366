//===- VerdictCache.cpp - verdicts kept across compiles -------------------===//
#include "equiv/VerdictCache.h"
#include "equiv/ReportFile.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

#include <array>

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

static std::string sha256Hex(StringRef s) {
  return toHex(SHA256::hash(arrayRefFromStringRef(s)), /*LowerCase=*/true);
}

std::string hmacSha256Hex(StringRef key, StringRef message) {
  // RFC 2104 over SHA-256, whose blocks are 64 bytes: a longer key is
  // hashed first, a shorter one padded with zeros.
  constexpr size_t Block = 64;
  std::string k = key.str();
  if (k.size() > Block) {
    std::array<uint8_t, 32> d = SHA256::hash(arrayRefFromStringRef(key));
    k.assign(d.begin(), d.end());
  }
  k.resize(Block, '\0');
  std::string inner(Block, '\0'), outer(Block, '\0');
  for (size_t i = 0; i < Block; ++i) {
    inner[i] = k[i] ^ 0x36;
    outer[i] = k[i] ^ 0x5c;
  }
  SHA256 in;
  in.update(inner);
  in.update(message);
  std::array<uint8_t, 32> innerDigest = in.final();
  SHA256 out;
  out.update(outer);
  out.update(innerDigest);
  return toHex(out.final(), /*LowerCase=*/true);
}

VerdictCache::Key VerdictCache::key(ArrayRef<std::string> parts) {
  SHA256 h;
  auto add = [&](StringRef s) {
    // Length-prefixed, so that parts cannot run into each other.
    h.update(std::to_string(s.size()) + ":");
    h.update(s);
  };
  Key k;
  json::Array digests;
  add(buildIdentity());
  for (const std::string &p : parts) {
    add(p);
    digests.push_back(sha256Hex(p));
  }
  k.id = toHex(h.final(), /*LowerCase=*/true);
  k.material = json::Object{{"kvalidate", versionString()},
                            {"build", buildIdentity()},
                            {"parts", std::move(digests)}};
  return k;
}

std::string VerdictCache::checkLocation(StringRef where) {
  size_t sep = where.find("://");
  if (sep == StringRef::npos)
    return "";
  StringRef scheme = where.take_front(sep);
  if (scheme != "redis")
    return "'" + where.str() + "' is not a directory or a Redis: scheme '" +
           scheme.str() + "://' is not supported (only redis://HOST:PORT)";
  StringRef rest = where.drop_front(sep + 3);
  auto [host, portText] = rest.rsplit(':');
  if (!rest.contains(':'))
    portText = "6379";
  unsigned port = 0;
  if (host.empty())
    return "'" + where.str() + "' names no host (expected redis://HOST:PORT)";
  if (portText.getAsInteger(10, port) || port == 0 || port > 65535)
    return "'" + where.str() + "' has a bad port '" + portText.str() +
           "' (expected redis://HOST:PORT, PORT in 1..65535)";
  return "";
}

VerdictCache::VerdictCache(std::string where, std::string secret)
    : secret(std::move(secret)) {
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

std::string VerdictCache::pathOf(StringRef id) const {
  SmallString<256> p(dir);
  sys::path::append(p, id.take_front(2), id.drop_front(2) + ".json");
  return p.str().str();
}

// An entry is an envelope around its content, kept as text so that the
// checksum and the signature are over the exact bytes written:
//   {"format":2,"payload":"<JSON text>","sha256":"<hex>","hmac-sha256":"<hex>"}
// The payload holds the key's id and material besides the verdict.
static constexpr int EntryFormat = 2;

std::optional<json::Object> VerdictCache::lookup(const Key &key) const {
  if (!enabled())
    return std::nullopt;
  std::string text;
  if (redis) {
#ifdef KV_HAVE_HIREDIS
    auto *r = static_cast<redisReply *>(
        redisCommand(static_cast<redisContext *>(redis), "GET kvalidate:%b",
                     key.id.data(), key.id.size()));
    if (r && r->type == REDIS_REPLY_STRING)
      text.assign(r->str, r->len);
    if (r)
      freeReplyObject(r);
#endif
  } else {
    ErrorOr<std::unique_ptr<MemoryBuffer>> buf =
        MemoryBuffer::getFile(pathOf(key.id));
    if (buf)
      text = (*buf)->getBuffer().str();
  }
  if (text.empty())
    return std::nullopt;
  auto parse = [](StringRef t) -> std::optional<json::Object> {
    Expected<json::Value> v = json::parse(t);
    if (!v) {
      consumeError(v.takeError());
      return std::nullopt;
    }
    if (json::Object *o = v->getAsObject())
      return std::move(*o);
    return std::nullopt;
  };
  std::optional<json::Object> envelope = parse(text);
  if (!envelope || envelope->getInteger("format") != EntryFormat)
    return std::nullopt;
  std::optional<StringRef> payload = envelope->getString("payload");
  std::optional<StringRef> sum = envelope->getString("sha256");
  // Edited by hand, or damaged: the content no longer matches its checksum.
  if (!payload || !sum || *sum != sha256Hex(*payload))
    return std::nullopt;
  if (!secret.empty()) {
    std::optional<StringRef> mac = envelope->getString("hmac-sha256");
    if (!mac || *mac != hmacSha256Hex(secret, *payload))
      return std::nullopt;
  }
  std::optional<json::Object> o = parse(*payload);
  // An entry of another key (copied or moved by hand, a hash collision), or
  // of another kvalidate, is no hit.
  if (!o || o->getString("key") != key.id)
    return std::nullopt;
  const json::Value *material = o->get("material");
  if (!material || *material != json::Value(json::Object(key.material)))
    return std::nullopt;
  o->erase("key");
  o->erase("material");
  return o;
}

bool VerdictCache::store(const Key &key, const json::Object &entry,
                         std::string &err) const {
  json::Object content = entry;
  content["key"] = key.id;
  content["material"] = json::Object(key.material);
  std::string payload;
  raw_string_ostream(payload) << json::Value(std::move(content));
  json::Object envelope{{"format", EntryFormat},
                        {"payload", payload},
                        {"sha256", sha256Hex(payload)}};
  if (!secret.empty())
    envelope["hmac-sha256"] = hmacSha256Hex(secret, payload);
  std::string text;
  raw_string_ostream(text) << json::Value(std::move(envelope));
  if (redis) {
#ifdef KV_HAVE_HIREDIS
    // SET replaces the value whole: a reader sees the old one or the new.
    auto *r = static_cast<redisReply *>(
        redisCommand(static_cast<redisContext *>(redis), "SET kvalidate:%b %b",
                     key.id.data(), key.id.size(), text.data(), text.size()));
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
  std::string path = pathOf(key.id);
  if (std::error_code ec =
          sys::fs::create_directories(sys::path::parent_path(path))) {
    err = "cannot create " + sys::path::parent_path(path).str() + ": " +
          ec.message();
    return false;
  }
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
