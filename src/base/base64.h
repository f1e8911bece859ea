// Base64 (RFC 4648, with padding) for binary data kept in text fields: a .oge stores the shared
// objects of its prebuilt kernels in metadata strings, which ONNX tools read as UTF-8.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace openge {

std::string base64_encode(std::string_view bytes);
// The bytes, or nullopt when `text` is not canonical base64 (wrong length, a foreign character,
// padding anywhere but at the end): the text may come from a damaged or hostile file.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace openge
