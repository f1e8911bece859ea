#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace openge {

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path) {
  // O_NONBLOCK: opening a FIFO does not wait for a writer (it is refused below as not a regular
  // file); a regular file's reads ignore the flag.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return io_error(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int why = errno;
    ::close(fd);
    return io_error(path + ": cannot read its size: " + std::strerror(why));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return io_error(path + ": not a regular file");
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<size_t>(st.st_size);
  if (file->size_ > 0) {
    void* address = ::mmap(nullptr, file->size_, PROT_READ, MAP_SHARED, fd, 0);
    const int why = errno;
    if (address == MAP_FAILED) {
      ::close(fd);
      return io_error(path + ": cannot map: " + std::strerror(why));
    }
    file->address_ = address;
  }
  ::close(fd);  // the mapping keeps the file open
  return std::shared_ptr<const MappedFile>(std::move(file));
}

MappedFile::~MappedFile() {
  if (address_) ::munmap(address_, size_);
}

void MappedFile::advise_sequential() const {
  if (address_) ::madvise(address_, size_, MADV_SEQUENTIAL);
}

void MappedFile::release_pages(size_t offset, size_t size) const {
  if (!address_ || offset >= size_) return;
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t end = std::min(offset + size, size_) / page * page;
  const size_t begin = (offset + page - 1) / page * page;
  if (begin < end) ::madvise(static_cast<char*>(address_) + begin, end - begin, MADV_DONTNEED);
}

void MappedFile::copy_releasing(size_t offset, size_t size, void* destination) const {
  constexpr size_t kStretch = size_t{8} << 20;
  auto* out = static_cast<char*>(destination);
  for (size_t done = 0; done < size; done += kStretch) {
    const size_t n = std::min(kStretch, size - done);
    std::memcpy(out + done, static_cast<const char*>(address_) + offset + done, n);
    release_pages(offset + done, n);
  }
}

}  // namespace openge
