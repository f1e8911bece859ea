// Base64 as RFC 4648 defines it: its test vectors, every byte value round trip, and refusal of
// text that is not canonical base64 (a damaged or hostile .oge).
#include <gtest/gtest.h>

#include "base/base64.h"

namespace openge {
namespace {

TEST(Base64, Rfc4648TestVectors) {
  const std::pair<const char*, const char*> vectors[] = {{"", ""},
                                                         {"f", "Zg=="},
                                                         {"fo", "Zm8="},
                                                         {"foo", "Zm9v"},
                                                         {"foob", "Zm9vYg=="},
                                                         {"fooba", "Zm9vYmE="},
                                                         {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    EXPECT_EQ(base64_encode(plain), encoded);
    EXPECT_EQ(base64_decode(encoded), std::optional<std::string>(plain)) << encoded;
  }
}

TEST(Base64, EveryByteRoundTrips) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (size_t n = 0; n <= bytes.size(); n += 37) {
    const std::string part = bytes.substr(0, n) + bytes.substr(256 - n % 3);
    EXPECT_EQ(base64_decode(base64_encode(part)), std::optional<std::string>(part));
  }
}

TEST(Base64, NonCanonicalTextIsRefused) {
  for (const char* bad : {"Zg=", "Zg", "Z===", "====", "Zm9v!A==", "Zh==", "Zm9=v", "Zm8=Zm8=", "Zm\n9v"})
    EXPECT_FALSE(base64_decode(bad).has_value()) << bad;
}

}  // namespace
}  // namespace openge
