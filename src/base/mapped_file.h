// A file mapped read-only into memory (mmap, MAP_SHARED). The model loader parses an .onnx file
// straight from its pages instead of copying it into a string first (one model-sized copy less
// at load), and external_weight maps its weight files back through it. The mapping lives until
// the last shared_ptr to it goes.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include "openge/status.h"

namespace openge {

class MappedFile {
 public:
  // Maps the whole of `path`. An empty file maps to data() == nullptr, size() == 0.
  static Result<std::shared_ptr<const MappedFile>> open(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const void* data() const { return address_; }
  size_t size() const { return size_; }
  const std::string& path() const { return path_; }

  // Tells the kernel the pages will be read once, front to back (read-ahead, early reclaim).
  void advise_sequential() const;
  // Gives back the whole pages inside [offset, offset + size) (a copy of them is made): they
  // leave this process's resident memory and are read from the file again if touched.
  void release_pages(size_t offset, size_t size) const;
  // Copies [offset, offset + size) to `destination` a few MiB at a time, giving each stretch's
  // pages back once copied: the copy never holds more than a stretch of both at once.
  void copy_releasing(size_t offset, size_t size, void* destination) const;

 private:
  MappedFile() = default;
  void* address_ = nullptr;
  size_t size_ = 0;
  std::string path_;
};

}  // namespace openge
