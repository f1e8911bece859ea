// Reading one model input from a file the way the Ascend tools do: .npy (NumPy), .pb (ONNX
// TensorProto, or the input's sequence/optional proto) and .bin (msame / ais_bench raw bytes,
// read with the input's declared element type and shape).
#pragma once
#include <string>

#include "openge/session.h"

namespace openge::cli {

// The tensor in `path` for `info`, checked against its declared kind, dtype and shape; errors
// name the input, the file and what to change.
Result<Tensor> read_input_file(const TensorInfo& info, const std::string& path);

}  // namespace openge::cli
