// The per-shape compiled-graph cache (session/shape_cache.h) under concurrency: a run of a
// compiled shape goes on while another shape's compile is held in progress, one shape is
// compiled once however many threads ask for it at once, and the cache keeps at most its
// capacity, dropping the least recently used. Real graphs compiled by Executable::compile; the
// compile function only adds a gate so that a compile can be held open.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include "frontend/onnx_loader.h"
#include "options/option_table.h"
#include "compiler/pipeline.h"
#include "session/shape_cache.h"
#include "threads/relu_model.h"

namespace openge {
namespace {

using namespace std::chrono_literals;
using testing::ramp;
using testing::relu_model_bytes;

// Far longer than any run of this model takes, even under a sanitizer: reaching it means the
// run was blocked.
constexpr auto kBlockedAfter = 60s;

Result<std::shared_ptr<Executable>> compile_relu(const std::vector<Shape>& shapes) {
  const std::string bytes = relu_model_bytes();
  auto graph = load_onnx_from_bytes(bytes.data(), bytes.size(), "relu");
  if (!graph.ok()) return graph.status();
  CompileOptions co;
  co.num_threads = 1;
  auto exe = compiler::compile(std::move(graph.value()), shapes, co);
  if (!exe.ok()) return exe.status();
  return std::shared_ptr<Executable>(std::move(exe.value()));
}

const std::vector<Shape> kA = {{2, 3}};
const std::vector<Shape> kB = {{4, 5}};
const std::vector<Shape> kC = {{6, 7}};

TEST(ShapeCache, RunOfACompiledShapeCompletesWhileAnotherShapesCompileIsHeld) {
  ShapeCache cache(4);
  auto a = cache.get_or_compile(kA, [] { return compile_relu(kA); });
  ASSERT_TRUE(a.ok()) << a.status().message();

  std::promise<void> entered, release;
  std::shared_future<void> released = release.get_future().share();
  std::thread compiling_b([&] {
    auto b = cache.get_or_compile(kB, [&] {
      entered.set_value();
      released.wait();  // the compile of B stays in progress until the test releases it
      return compile_relu(kB);
    });
    EXPECT_TRUE(b.ok()) << b.status().message();
  });
  entered.get_future().wait();

  // While B compiles: look up A and run it, on another thread so that a block shows as a timeout.
  auto run_a = std::async(std::launch::async, [&]() -> bool {
    auto exe = cache.get_or_compile(kA, [] { return compile_relu(kA); });
    if (!exe.ok()) return false;
    auto out = exe.value()->run({ramp(2, 3)});
    return out.ok() && testing::is_relu_of_ramp((*out)[0], 2, 3);
  });
  const bool finished = run_a.wait_for(kBlockedAfter) == std::future_status::ready;
  release.set_value();
  compiling_b.join();
  ASSERT_TRUE(finished) << "a run of an already-compiled shape waited for another shape's compile";
  EXPECT_TRUE(run_a.get());
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ShapeCache, ConcurrentCallersOfOneNewShapeShareOneCompile) {
  ShapeCache cache(4);
  std::atomic<int> compiles{0};
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::future<std::shared_ptr<Executable>>> callers;
  for (int i = 0; i < 4; ++i)
    callers.push_back(std::async(std::launch::async, [&]() -> std::shared_ptr<Executable> {
      auto exe = cache.get_or_compile(kA, [&] {
        ++compiles;
        released.wait();
        return compile_relu(kA);
      });
      return exe.ok() ? exe.value() : nullptr;
    }));
  std::this_thread::sleep_for(100ms);  // let every caller reach the cache while the compile is held
  release.set_value();
  std::vector<std::shared_ptr<Executable>> got;
  for (auto& c : callers) got.push_back(c.get());
  EXPECT_EQ(compiles.load(), 1);
  for (const auto& exe : got) {
    ASSERT_NE(exe, nullptr);
    EXPECT_EQ(exe, got[0]);
  }
}

TEST(ShapeCache, KeepsAtMostItsCapacityDroppingTheLeastRecentlyUsed) {
  ShapeCache cache(2);
  int compiles = 0;
  auto get = [&](const std::vector<Shape>& shapes) {
    auto exe = cache.get_or_compile(shapes, [&] {
      ++compiles;
      return compile_relu(shapes);
    });
    EXPECT_TRUE(exe.ok()) << exe.status().message();
  };
  get(kA);
  get(kB);
  get(kA);  // A is now more recently used than B
  get(kC);  // over capacity: B goes
  EXPECT_EQ(compiles, 3);
  EXPECT_EQ(cache.size(), 2u);
  get(kA);
  get(kC);
  EXPECT_EQ(compiles, 3) << "A and C should still be cached";
  get(kB);
  EXPECT_EQ(compiles, 4) << "B should have been dropped and compiled again";
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ShapeCache, AFailedCompileIsNotKept) {
  ShapeCache cache(2);
  int compiles = 0;
  auto failing = [&]() -> Result<std::shared_ptr<Executable>> {
    ++compiles;
    return invalid_argument("no");
  };
  EXPECT_FALSE(cache.get_or_compile(kA, failing).ok());
  EXPECT_FALSE(cache.get_or_compile(kA, failing).ok());
  EXPECT_EQ(compiles, 2);
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.first(), nullptr);
}

TEST(ShapeCache, TheOptionRowsDefaultIsTheCachesDefault) {
  const options::OptionSpec* row = options::find_option("compiled_shape_cache_size");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ(std::string(row->default_value), std::to_string(kDefaultShapeCacheSize));
}

}  // namespace
}  // namespace openge
