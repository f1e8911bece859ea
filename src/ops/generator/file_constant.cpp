#include "ops/generator/file_constant.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file_backed_memory.h"
#include "ir/attribute_values.h"
#include "ops/op_registry.h"
#include "ops/shape/shape_common.h"

namespace openge {
namespace {

struct FileWeight {
  std::string path;
  uint64_t offset = 0, length = 0;
  DType dtype = DType::kUndefined;
  Shape shape;
};

template <class Ctx>
Result<FileWeight> file_weight_of(const Ctx& ctx) {
  FileWeight w;
  w.path = ctx.attrs().get_string("file_path", "");
  if (w.path.empty()) return ctx.error("the 'file_path' attribute is missing: it names the file holding the weight");
  const int64_t offset = ctx.attrs().get_int("offset", 0);
  if (offset < 0) return ctx.error("'offset' is " + std::to_string(offset) + ", it must be >= 0");
  w.offset = static_cast<uint64_t>(offset);
  const Attribute* dtype = ctx.attrs().find("dtype");
  if (!dtype || dtype->kind != Attribute::Kind::kInt) return ctx.error("the integer 'dtype' attribute is missing");
  w.dtype = static_cast<DType>(dtype->i);
  if (!dtype_supported(w.dtype) || w.dtype == DType::kString)
    return ctx.error("'dtype' " + std::to_string(dtype->i) + " is not a numeric type OpenGE holds");
  w.shape = ctx.attrs().get_ints("shape");
  uint64_t bytes = dtype_size(w.dtype);
  for (int64_t d : w.shape) {
    if (d < 0 || (d > 0 && bytes > (uint64_t{1} << 62) / static_cast<uint64_t>(d)))
      return ctx.error("'shape' " + shape_to_string(w.shape) + " is not a shape of a tensor OpenGE can hold");
    bytes *= static_cast<uint64_t>(d);
  }
  const int64_t length = ctx.attrs().get_int("length", static_cast<int64_t>(bytes));
  if (length < 0 || static_cast<uint64_t>(length) != bytes)
    return ctx.error("'length' is " + std::to_string(length) + " bytes but dtype and shape " +
                     shape_to_string(w.shape) + " make " + std::to_string(bytes));
  w.length = bytes;
  return w;
}

// Reads the weight into `dst` (a file nobody mapped: a model that carries FileConstant nodes itself).
Status read_range(const FileWeight& w, void* dst) {
  const int fd = ::open(w.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return io_error(w.path + ": cannot open the FileConstant's file: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) < w.offset ||
      static_cast<uint64_t>(st.st_size) - w.offset < w.length) {
    ::close(fd);
    return io_error(w.path + ": holds " + std::to_string(st.st_size) + " bytes, the FileConstant reads " +
                    std::to_string(w.length) + " from offset " + std::to_string(w.offset));
  }
  char* p = static_cast<char*>(dst);
  uint64_t done = 0;
  while (done < w.length) {
    const ssize_t n = ::pread(fd, p + done, w.length - done, static_cast<off_t>(w.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      return io_error(w.path + ": cannot read the FileConstant's bytes");
    }
    done += static_cast<uint64_t>(n);
  }
  ::close(fd);
  return Status::Ok();
}

// The weight as a tensor: a view of external_weight's mapping when one shows the range (the
// weight stays file-backed and is never copied), else the file's bytes read into owned memory.
template <class Ctx>
Result<Tensor> load(const Ctx& ctx, const FileWeight& w) {
  if (const void* mapped = find_file_backed_memory(w.path, w.offset, w.length))
    return Tensor::borrow(w.dtype, w.shape, const_cast<void*>(mapped));
  Tensor t(w.dtype, w.shape);
  Status read = read_range(w, t.raw());
  if (!read.ok()) return ctx.error(read.message());
  return t;
}

Status file_constant_infer(InferContext& ctx) {
  auto w = file_weight_of(ctx);
  if (!w.ok()) return w.status();
  OPENGE_RETURN_IF_ERROR(check_shape_size(ctx, w->shape, w->dtype, "the weight"));
  auto t = load(ctx, *w);
  if (!t.ok()) return t.status();
  ctx.set_output_value(0, std::move(t.value()));
  return Status::Ok();
}

Status file_constant_kernel(KernelContext& ctx) {
  auto w = file_weight_of(ctx);
  if (!w.ok()) return w.status();
  Tensor& out = ctx.output(0);
  if (out.dtype() != w->dtype || out.shape() != w->shape)
    return ctx.error("the output is not the attributes' dtype and shape " + shape_to_string(w->shape));
  if (const void* mapped = find_file_backed_memory(w->path, w->offset, w->length)) {
    std::memcpy(out.raw(), mapped, w->length);
    return Status::Ok();
  }
  Status read = read_range(*w, out.raw());
  return read.ok() ? Status::Ok() : ctx.error(read.message());
}

}  // namespace

Attributes file_constant_attributes(const std::string& path, uint64_t offset, uint64_t length, DType dtype,
                                    const Shape& shape) {
  Attributes a;
  a.set("file_path", string_attr(path));
  a.set("offset", int_attr(static_cast<int64_t>(offset)));
  a.set("length", int_attr(static_cast<int64_t>(length)));
  a.set("dtype", int_attr(static_cast<int64_t>(dtype)));  // DType values are ONNX's TensorProto types
  a.set("shape", ints_attr(Shape(shape.begin(), shape.end())));
  return a;
}

void register_file_constant_op(std::vector<OpSchema>& table) {
  OpSchema row{kFileConstantOp, 0, 0, 1, 1, &file_constant_infer, &file_constant_kernel, false};
  row.domain = kFileConstantDomain;
  table.push_back(row);
}

}  // namespace openge
