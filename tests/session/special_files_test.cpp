// Readers take regular files only: a model path that is a FIFO is refused at once (opening it for
// reading would wait for a writer forever), naming the path and why.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "openge/session.h"

namespace openge {
namespace {

TEST(SpecialFiles, FifoAsModelIsRefusedWithoutWaiting) {
  const std::filesystem::path fifo =
      std::filesystem::temp_directory_path() / ("openge_fifo_model_" + std::to_string(::getpid()));
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto session = Session::open(fifo.string());
  std::filesystem::remove(fifo);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("not a regular file"), std::string::npos) << session.status().message();
  EXPECT_NE(session.status().message().find(fifo.string()), std::string::npos) << session.status().message();
}

}  // namespace
}  // namespace openge
