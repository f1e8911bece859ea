// Messages of bounded length (openge/bounded_text.h): a 2 MB option value echoed in an error stays
// a few kB, keeping its head and its tail (where the advice is).
#include <gtest/gtest.h>

#include <string>

#include "openge/bounded_text.h"

namespace openge {
namespace {

TEST(BoundedText, ShortTextIsUnchanged) {
  EXPECT_EQ(bound_text("precision_mode 'x' is invalid"), "precision_mode 'x' is invalid");
  const std::string exact(kMaxMessageChars, 'a');
  EXPECT_EQ(bound_text(exact), exact);
}

TEST(BoundedText, TwoMegabyteValueBecomesAtMostTheLimitWithHeadTailAndTheCountLeftOut) {
  const std::string value(2'000'000, 'v');
  const std::string message = "Value [" + value + "] for parameter [precision_mode] is invalid; choose one of ...";
  const std::string bounded = bound_text(message);
  EXPECT_LE(bounded.size(), kMaxMessageChars + 8);  // the count's digits may differ from the estimate
  EXPECT_EQ(bounded.rfind("Value [vvv", 0), 0u) << "the head is kept";
  EXPECT_NE(bounded.find("is invalid; choose one of ..."), std::string::npos) << "the tail is kept";
  const size_t at = bounded.find(" characters left out]");
  ASSERT_NE(at, std::string::npos);
  const size_t open = bounded.rfind('[', at);
  const size_t left_out = std::stoul(bounded.substr(open + 1, at - open - 1));
  const std::string marker = " ... [" + std::to_string(left_out) + " characters left out] ... ";
  EXPECT_EQ(bounded.size() - marker.size() + left_out, message.size()) << "the count is exact";
}

}  // namespace
}  // namespace openge
