// Exceptions become error Statuses at the boundary (src/base/guard.h), and Result::value() on an
// error fails loudly in every build type (include/openge/status.h).
#include <gtest/gtest.h>

#include <google/protobuf/stubs/common.h>

#include <new>
#include <stdexcept>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "base/guard.h"
#include "base/size_limit.h"
#include "openge/tensor.h"

namespace openge {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

template <class E>
Status status_of_throw(E e) {
  return guard_exceptions([&]() -> Status { throw e; }, "node X");
}

TEST(Guard, PassesStatusesAndResultsThrough) {
  EXPECT_TRUE(guard_exceptions([] { return Status::Ok(); }, "w").ok());
  Status err = guard_exceptions([] { return invalid_model("bad"); }, "w");
  EXPECT_EQ(err.message(), "bad");  // no context added to a returned error
  Result<int> r = guard_exceptions([]() -> Result<int> { return 42; }, "w");
  EXPECT_EQ(r.value(), 42);
}

TEST(Guard, BadAllocBecomesResourceExhausted) {
  Status s = status_of_throw(std::bad_alloc());
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_EQ(s.message(), "node X: out of memory (std::bad_alloc)");
}

TEST(Guard, LengthErrorFromAnAbsurdVectorBecomesAnError) {
  Status s = guard_exceptions(
      []() -> Status {
        std::vector<double> v;
        v.reserve(v.max_size() + 1);  // throws std::length_error
        return Status::Ok();
      },
      "node X");
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(contains(s.message(), "node X: ")) << s.message();
}

TEST(Guard, OverflowErrorBecomesAnError) {
  Status s = status_of_throw(std::overflow_error("shape product"));
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(contains(s.message(), "shape product")) << s.message();
}

TEST(Guard, TensorSizeErrorKeepsItsStatus) {
  Status s = guard_exceptions(
      []() -> Status {
        Tensor t(DType::kFloat32, {int64_t{1} << 40});
        return Status::Ok();
      },
      [] { return std::string("Expand 'e1'"); });
  EXPECT_EQ(s.code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(contains(s.message(), "Expand 'e1': tensor of shape [1099511627776]")) << s.message();
  EXPECT_TRUE(contains(s.message(), "max_tensor_bytes")) << s.message();
}

TEST(Guard, OneDnnErrorBecomesAnInternalError) {
  Status s = status_of_throw(dnnl::error(dnnl_invalid_arguments, "could not create a primitive"));
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_TRUE(contains(s.message(), "could not create a primitive")) << s.message();
}

TEST(Guard, ProtobufFatalExceptionBecomesAnInternalError) {
  Status s = status_of_throw(google::protobuf::FatalException("message.cc", 1, "CHECK failed: parse"));
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_TRUE(contains(s.message(), "CHECK failed: parse")) << s.message();
}

TEST(Guard, NonStandardExceptionsAreCaughtToo) {
  Status s = status_of_throw(7);
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_TRUE(contains(s.message(), "node X: ")) << s.message();
}

TEST(Guard, TheLabelIsOnlyBuiltOnAnException) {
  int built = 0;
  Status s = guard_exceptions([] { return Status::Ok(); },
                              [&] {
                                ++built;
                                return std::string("label");
                              });
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(built, 0);
}

TEST(ResultAccess, ValueOfAnErrorThrowsWithTheIgnoredErrorInEveryBuildType) {
  Result<int> r = invalid_argument("input 'x' is missing");
  try {
    (void)r.value();
    FAIL() << "value() of an error returned";
  } catch (const BadResultAccess& e) {
    EXPECT_TRUE(contains(e.what(), "input 'x' is missing")) << e.what();
  }
  EXPECT_THROW((void)*r, BadResultAccess);
  Result<std::string> s = invalid_argument("no");
  EXPECT_THROW((void)s->size(), BadResultAccess);
  EXPECT_THROW((void)std::move(s).value(), BadResultAccess);
}

TEST(ResultAccess, AResultFromAnOkStatusIsAnErrorNotAnEmptyValue) {
  Result<int> r = Status::Ok();
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.status().ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace openge
