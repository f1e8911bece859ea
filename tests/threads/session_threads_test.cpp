// Sessions under concurrency, the suite the ThreadSanitizer build runs (test.sh): one Session
// run from several threads with several input shapes (compiles, cache hits and LRU evictions
// racing each other), and several Sessions run at once. Every output is checked by hand.
// Sessions here use one thread each: OpenMP's own synchronisation is invisible to TSan (libgomp
// is not instrumented), so only the threads these tests start run concurrently (CONTRIBUTING.md).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "openge/session.h"
#include "options/option_builder.h"
#include "options/option_set.h"
#include "threads/relu_model.h"

namespace openge {
namespace {

using testing::is_relu_of_ramp;
using testing::ramp;
using testing::relu_model_bytes;

SessionOptions one_thread_with_cache(int64_t cache_size) {
  options::OptionInputs in;
  in.flags.push_back({"compiled_shape_cache_size", std::to_string(cache_size), "test"});
  in.check_files = false;
  auto set = options::build_option_set(in);
  EXPECT_TRUE(set.ok()) << set.status().message();
  SessionOptions so;
  so.num_threads = 1;
  if (set.ok()) so.config = std::make_shared<const options::OptionSet>(std::move(set.value()));
  return so;
}

std::unique_ptr<Session> open_relu(const SessionOptions& so) {
  const std::string bytes = relu_model_bytes();
  auto s = Session::open_from_memory(bytes.data(), bytes.size(), so, "relu");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

TEST(SessionThreads, OneSessionManyThreadsManyShapesUnderAnEvictingCache) {
  // Five shape sets, a cache of two: threads keep compiling, hitting and evicting at once.
  auto session = open_relu(one_thread_with_cache(2));
  ASSERT_NE(session, nullptr);
  constexpr int kThreads = 4, kRuns = 15;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRuns; ++r) {
        const int64_t rows = 1 + (t + r) % 5, cols = 3, offset = t * 100 + r;
        auto out = session->run({ramp(rows, cols, offset)});
        if (!out.ok() || !is_relu_of_ramp((*out)[0], rows, cols, offset)) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(session->compiled_shape_count(), 2u);
  EXPECT_GE(session->compiled_shape_count(), 1u);
}

TEST(SessionThreads, TheShapeCacheIsBoundedByTheOption) {
  auto session = open_relu(one_thread_with_cache(3));
  ASSERT_NE(session, nullptr);
  for (int64_t rows = 1; rows <= 6; ++rows) {
    auto out = session->run({ramp(rows, 2)});
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_TRUE(is_relu_of_ramp((*out)[0], rows, 2));
    EXPECT_EQ(session->compiled_shape_count(), static_cast<size_t>(std::min<int64_t>(rows, 3)));
  }
}

TEST(SessionThreads, SeveralSessionsRunAtOnce) {
  // Each session's concurrent outputs equal what that session gives when run alone.
  const std::string demo = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";
  SessionOptions so;
  so.num_threads = 1;
  std::vector<std::unique_ptr<Session>> sessions;
  for (int i = 0; i < 3; ++i) {
    auto s = Session::open(demo, so);
    ASSERT_TRUE(s.ok()) << s.status().message();
    sessions.push_back(std::move(s.value()));
  }
  auto relu = open_relu(one_thread_with_cache(4));
  ASSERT_NE(relu, nullptr);
  auto image = [](int seed) {
    Tensor t(DType::kFloat32, {1, 3, 32, 32});
    for (int64_t i = 0; i < t.numel(); ++i) t.data<float>()[i] = static_cast<float>((i * 7 + seed) % 13) / 13.0f - 0.5f;
    return t;
  };
  std::vector<Tensor> alone;
  for (int i = 0; i < 3; ++i) {
    auto out = sessions[static_cast<size_t>(i)]->run({image(i)});
    ASSERT_TRUE(out.ok()) << out.status().message();
    alone.push_back((*out)[0]);
  }
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 3; ++i)
    threads.emplace_back([&, i] {
      for (int r = 0; r < 5; ++r) {
        auto out = sessions[static_cast<size_t>(i)]->run({image(i)});
        const Tensor& want = alone[static_cast<size_t>(i)];
        if (!out.ok() || std::memcmp((*out)[0].raw(), want.raw(), want.nbytes()) != 0) ++wrong;
      }
    });
  threads.emplace_back([&] {
    for (int r = 0; r < 10; ++r) {
      auto out = relu->run({ramp(1 + r % 4, 8, r)});
      if (!out.ok() || !is_relu_of_ramp((*out)[0], 1 + r % 4, 8, r)) ++wrong;
    }
  });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

}  // namespace
}  // namespace openge
