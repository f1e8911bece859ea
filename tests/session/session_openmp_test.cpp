// A Session and the caller's OpenMP settings: num_threads=0 takes the OpenMP setting of the
// thread that opens the session (OMP_NUM_THREADS unless that thread changed it), and no compile
// or run leaves the calling thread's setting changed. The threads a run used are read from the
// chunk counter parallel_for keeps per calling thread (base/parallel.h): a Relu over 2^22
// elements on the reference engine is split into exactly one chunk per thread. Its estimated work
// (2^23 cycles) is at the top of the threading grain's range, so it gets a team whatever this
// machine's load made the grain (compiler/op_grain.h).
#include <gtest/gtest.h>

#include <omp.h>

#include <cstdlib>
#include <thread>

#include "base/parallel.h"
#include "openge/session.h"
#include "compiler/op_grain.h"
#include "threads/relu_model.h"

namespace openge {
namespace {

using testing::ramp;

std::unique_ptr<Session> open_relu(int num_threads) {
  SessionOptions so;
  so.num_threads = num_threads;
  so.use_aicore = false;  // the reference Relu, one parallel_for
  const std::string bytes = testing::relu_model_bytes();
  auto s = Session::open_from_memory(bytes.data(), bytes.size(), so, "relu");
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

// Threads the run used: parallel_for chunks added on this thread by one run.
int64_t chunks_of_one_run(Session& session) {
  static_assert(int64_t{2} * 2048 * 2048 >= kMaxGrainCycles);
  const Tensor x = ramp(2048, 2048);
  const int64_t before = tls_parallel_chunks;
  auto out = session.run({x});
  EXPECT_TRUE(out.ok()) << out.status().message();
  return tls_parallel_chunks - before;
}

// Runs `body` on a fresh thread, whose OpenMP setting starts at the process default.
template <class Fn>
void on_fresh_thread(Fn body) {
  std::thread t(body);
  t.join();
}

TEST(SessionOpenMp, NumThreadsZeroTakesTheOpeningThreadsSettingAndKeepsIt) {
  on_fresh_thread([] {
    omp_set_num_threads(3);
    auto session = open_relu(0);
    ASSERT_NE(session, nullptr);
    EXPECT_EQ(chunks_of_one_run(*session), 3);
    omp_set_num_threads(2);  // the caller's later change is the caller's: the session keeps 3
    EXPECT_EQ(chunks_of_one_run(*session), 3);
    EXPECT_EQ(omp_get_max_threads(), 2);
  });
}

TEST(SessionOpenMp, CompileAndRunRestoreTheCallersSetting) {
  on_fresh_thread([] {
    omp_set_num_threads(5);
    auto session = open_relu(2);
    ASSERT_NE(session, nullptr);
    EXPECT_EQ(chunks_of_one_run(*session), 2);  // the first run compiles too
    EXPECT_EQ(omp_get_max_threads(), 5);
    EXPECT_EQ(chunks_of_one_run(*session), 2);
    EXPECT_EQ(omp_get_max_threads(), 5);
  });
}

// ctest runs this one again with OMP_NUM_THREADS=3 (tests/threads/suite.cmake).
TEST(SessionOpenMp, NumThreadsZeroHonoursOmpNumThreads) {
  const char* env = std::getenv("OMP_NUM_THREADS");
  on_fresh_thread([env] {
    const int expected = env ? std::atoi(env) : omp_get_num_procs();
    auto session = open_relu(0);
    ASSERT_NE(session, nullptr);
    EXPECT_EQ(chunks_of_one_run(*session), expected);
  });
}

}  // namespace
}  // namespace openge
