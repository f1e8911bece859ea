// The online compiler refuses a compile cache folder other users can write (base/trusted_path.h)
// instead of building kernels into it: a graph compile with jit_compile on fails with one line
// naming the folder and the fix, and the compiler never runs. The same folder made private again
// compiles.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "fused_model_test_util.h"

namespace openge::testing {
namespace {
namespace fs = std::filesystem;
using options::test::TempDir;

TEST(OnlineCompileTrust, WorldWritableCacheFolderFailsTheCompileWithOneLineAndRunsNoCompiler) {
  TempDir d;
  const std::string cxx = fused::counting_compiler(d.path());
  const std::string cache = d.path() + "/c";
  fs::create_directories(cache + "/kernel_cache");
  ASSERT_EQ(::chmod((cache + "/kernel_cache").c_str(), 0777), 0);
  auto cfg = [&] { return fused::config({{"jit_compile", "true"}, {"op_compiler_cache_dir", cache}}, {{"CXX", cxx}}); };
  auto refused = fused::try_compile(fused::one_group(), cfg());
  ASSERT_FALSE(refused.ok()) << "compiled kernels into a folder any user can write";
  const std::string& why = refused.status().message();
  EXPECT_NE(why.find(cache + "/kernel_cache"), std::string::npos) << why;
  EXPECT_NE(why.find("chmod go-w"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  EXPECT_EQ(fused::compiler_runs(d.path()), 0);

  ASSERT_EQ(::chmod((cache + "/kernel_cache").c_str(), 0750), 0);
  auto compiled = fused::try_compile(fused::one_group(), cfg());
  ASSERT_TRUE(compiled.ok()) << compiled.status().message();
  EXPECT_EQ(fused::compiler_runs(d.path()), 1);
}

}  // namespace
}  // namespace openge::testing
