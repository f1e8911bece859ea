// MappedFile: the model loader's and external_weight's read-only view of a file.
#include "base/mapped_file.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "options/options_test_util.h"

namespace openge {
namespace {

TEST(MappedFile, MapsEveryByteOfTheFile) {
  options::test::TempDir d;
  std::string content(100000, '\0');
  for (size_t k = 0; k < content.size(); ++k) content[k] = static_cast<char>(k * 7 + 3);
  const std::string path = d.file("weights.bin", content);
  auto file = MappedFile::open(path);
  ASSERT_TRUE(file.ok()) << file.status().message();
  ASSERT_EQ((*file)->size(), content.size());
  EXPECT_EQ(std::memcmp((*file)->data(), content.data(), content.size()), 0);
  EXPECT_EQ((*file)->path(), path);
}

TEST(MappedFile, AnEmptyFileHasNoBytes) {
  options::test::TempDir d;
  auto file = MappedFile::open(d.file("empty.onnx", ""));
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ((*file)->size(), 0u);
  EXPECT_EQ((*file)->data(), nullptr);
}

TEST(MappedFile, AMissingFileOrAFolderIsAnErrorNamingThePath) {
  options::test::TempDir d;
  auto missing = MappedFile::open(d.path() + "/nope.onnx");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kIoError);
  EXPECT_NE(missing.status().message().find("nope.onnx"), std::string::npos);
  auto folder = MappedFile::open(d.dir("sub"));
  ASSERT_FALSE(folder.ok());
  EXPECT_NE(folder.status().message().find("not a regular file"), std::string::npos);
}

}  // namespace
}  // namespace openge
