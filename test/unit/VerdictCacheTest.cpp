//===- VerdictCacheTest.cpp - the verdict cache's checks ------------------===//
//
// The signature of cache entries (HMAC-SHA256, RFC 2104) against the test
// vectors of RFC 4231, and the cache locations that are refused.
//
//===----------------------------------------------------------------------===//

#include "equiv/VerdictCache.h"

#include "gtest/gtest.h"

#include <string>

namespace {

// RFC 4231, test case 2: a key shorter than the block.
TEST(VerdictCacheTest, HmacShortKey) {
  EXPECT_EQ(kv::hmacSha256Hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

// RFC 4231, test case 6: a key longer than the block is hashed first.
TEST(VerdictCacheTest, HmacLongKey) {
  std::string key(131, '\xaa');
  EXPECT_EQ(kv::hmacSha256Hex(
                key, "Test Using Larger Than Block-Size Key - Hash Key First"),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(VerdictCacheTest, Locations) {
  EXPECT_EQ(kv::VerdictCache::checkLocation("/tmp/cache"), "");
  EXPECT_EQ(kv::VerdictCache::checkLocation("redis://cache.local:6380"), "");
  EXPECT_EQ(kv::VerdictCache::checkLocation("redis://cache.local"), "");
  EXPECT_NE(kv::VerdictCache::checkLocation("http://x").find("'http://'"),
            std::string::npos);
  EXPECT_NE(kv::VerdictCache::checkLocation("redis://:6379").find("no host"),
            std::string::npos);
  EXPECT_NE(kv::VerdictCache::checkLocation("redis://h:70000").find("bad port"),
            std::string::npos);
  EXPECT_NE(kv::VerdictCache::checkLocation("redis://h:").find("bad port"),
            std::string::npos);
}

} // namespace
