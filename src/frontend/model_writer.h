// Writes an ONNX model back with some initializers replaced (a trained model's weights): the
// source model's every other field as it was, each replaced initializer stored inline (raw_data,
// no external data), the file written under a temporary name and renamed.
#pragma once
#include <map>
#include <string>

#include "openge/status.h"
#include "openge/tensor.h"

namespace openge {

// `source`: the model file the values came from; `values`: initializer name -> new value (each
// must name an initializer of the main graph).
Status write_model_with_initializers(const std::string& source, const std::map<std::string, Tensor>& values,
                                     const std::string& path);

}  // namespace openge
