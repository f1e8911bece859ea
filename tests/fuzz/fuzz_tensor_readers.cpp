// libFuzzer target for the tensor file readers: the .npy reader (src/io/npy.cpp) and the ONNX
// TensorProto reader (src/frontend/tensor_proto.cpp). The first input byte picks the reader, the
// rest is the file. Any byte string must come back as a tensor consistent with its header or as
// an error naming the file, never as a crash, hang, leak, undefined behaviour or an allocation
// over the size limit (built with -fsanitize=fuzzer,address,undefined; run with
// tests/fuzz/run_fuzz.sh, which also caps the fuzzer's memory).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "base/size_limit.h"
#include "frontend/tensor_proto.h"
#include "io/npy.h"

namespace {
// External data resolves against a folder that does not exist (see fuzz_onnx_loader.cpp).
const std::string kBaseDir = "/nonexistent-openge-fuzz-dir";
const std::string kName = "fuzz.tensor";
// Far below -rss_limit_mb, so a tensor the policy let through can never trip the fuzzer's OOM.
constexpr uint64_t kFuzzLimit = uint64_t{64} << 20;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  openge::ScopedMaxTensorBytes limit(kFuzzLimit);
  const bool npy = data[0] & 1;
  auto t = npy ? openge::read_npy_from_bytes(data + 1, size - 1, kName)
               : openge::read_tensor_pb_from_bytes(data + 1, size - 1, kName, kBaseDir);
  if (!t.ok()) {
    if (t.status().message().find(kName) == std::string::npos) {
      std::fprintf(stderr, "error message does not name the file: %s\n", t.status().message().c_str());
      std::abort();
    }
    return 0;
  }
  // A tensor that was read is consistent: non-negative dims, numel and bytes as its shape says,
  // within the limit, and every byte readable (ASan checks the read).
  const openge::Tensor& tensor = t.value();
  int64_t numel = 1;
  for (int64_t d : tensor.shape()) {
    if (d < 0) std::abort();
    numel *= d;
  }
  if (numel != tensor.numel() || tensor.nbytes() > kFuzzLimit) std::abort();
  const auto* bytes = static_cast<const unsigned char*>(tensor.raw());
  unsigned sum = 0;
  for (size_t i = 0; i < tensor.nbytes(); ++i) sum += bytes[i];
  return sum == 0xdeadbeef ? 1 : 0;  // keeps the read from being optimised away
}
