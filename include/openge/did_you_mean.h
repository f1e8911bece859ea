// "Did you mean" for unknown names: case-insensitive edit distance.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace openge::options {

size_t edit_distance(std::string_view a, std::string_view b);
// Up to three candidates within max(2, len/3) edits of `name`, closest first.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates);
// " (did you mean 'x' or 'y'?)" or "".
std::string did_you_mean_suffix(const std::vector<std::string>& suggestions);

}  // namespace openge::options
