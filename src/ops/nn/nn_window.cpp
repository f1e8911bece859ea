#include "ops/nn/nn_window.h"

#include "ops/generated_size.h"

namespace openge {
namespace {

std::string ints_to_string(const std::vector<int64_t>& v) { return shape_to_string(v); }

// Reads an ints attribute with `expected` entries (or the default when absent) and checks that
// every entry lies in [lo, kMaxWindowAttr].
Status read_ints(const Attributes& attrs, const char* name, size_t expected, int64_t fallback, int64_t lo,
                 std::vector<int64_t>* out) {
  const Attribute* a = attrs.find(name);
  if (!a) {
    out->assign(expected, fallback);
    return Status::Ok();
  }
  if (a->kind != Attribute::Kind::kInts)
    return invalid_model(std::string("attribute '") + name + "' must be a list of ints");
  if (a->ints.size() != expected)
    return invalid_model(std::string("attribute '") + name + "' has " + std::to_string(a->ints.size()) + " entries " +
                         ints_to_string(a->ints) + "; expected " + std::to_string(expected) +
                         " for this input's spatial rank");
  for (int64_t v : a->ints)
    if (v < lo || v > kMaxWindowAttr)
      return invalid_model(std::string("attribute '") + name + "' = " + ints_to_string(a->ints) +
                           " has a value outside [" + std::to_string(lo) + ", " + std::to_string(kMaxWindowAttr) + "]");
  *out = a->ints;
  return Status::Ok();
}

// The two ways ONNX splits an odd total pad.
void split_pad(int64_t total, bool extra_at_end, int64_t* begin, int64_t* end) {
  const int64_t small = total / 2;
  *begin = extra_at_end ? small : total - small;
  *end = total - *begin;
}

WindowGeometry start_geometry(const WindowParams& p, const std::vector<int64_t>& input_spatial) {
  WindowGeometry g;
  g.kernel = p.kernel;
  g.strides = p.strides;
  g.dilations = p.dilations;
  g.input = input_spatial;
  const size_t r = p.rank();
  g.pad_begin.assign(p.pads.begin(), p.pads.begin() + static_cast<long>(r));
  g.pad_end.assign(p.pads.begin() + static_cast<long>(r), p.pads.end());
  g.output.assign(r, -1);
  return g;
}

}  // namespace

std::optional<AutoPad> parse_auto_pad(const std::string& s) {
  if (s.empty() || s == "NOTSET") return AutoPad::kNotSet;
  if (s == "SAME_UPPER") return AutoPad::kSameUpper;
  if (s == "SAME_LOWER") return AutoPad::kSameLower;
  if (s == "VALID") return AutoPad::kValid;
  return std::nullopt;
}

const char* auto_pad_name(AutoPad p) {
  switch (p) {
    case AutoPad::kNotSet:
      return "NOTSET";
    case AutoPad::kSameUpper:
      return "SAME_UPPER";
    case AutoPad::kSameLower:
      return "SAME_LOWER";
    case AutoPad::kValid:
      return "VALID";
  }
  return "?";
}

int64_t WindowGeometry::output_size() const {
  int64_t n = 1;
  for (int64_t d : output) {
    if (d < 0) return -1;
    n *= d;
  }
  return n;
}

int64_t WindowGeometry::kernel_size() const {
  int64_t n = 1;
  for (int64_t d : kernel) n *= d;
  return n;
}

Result<WindowParams> read_window_params(const Attributes& attrs, size_t spatial_rank,
                                        const std::vector<int64_t>* kernel_from_weight, bool allow_ceil_mode) {
  WindowParams p;
  if (spatial_rank == 0) return invalid_model("the input needs at least one spatial dim (rank >= 3)");
  if (spatial_rank > 8)
    return invalid_model("spatial rank " + std::to_string(spatial_rank) + " is not supported (at most 8)");
  const std::string pad_text = attrs.get_string("auto_pad", "NOTSET");
  auto auto_pad = parse_auto_pad(pad_text);
  if (!auto_pad)
    return invalid_model("auto_pad '" + pad_text + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
  p.auto_pad = *auto_pad;

  if (attrs.has("kernel_shape")) {
    OPENGE_RETURN_IF_ERROR(read_ints(attrs, "kernel_shape", spatial_rank, 1, 1, &p.kernel));
    if (kernel_from_weight && *kernel_from_weight != p.kernel) {
      bool known = true;
      for (int64_t d : *kernel_from_weight) known = known && d >= 0;
      if (known)
        return invalid_model("kernel_shape " + ints_to_string(p.kernel) + " does not match the weight's spatial dims " +
                             ints_to_string(*kernel_from_weight));
    }
  } else if (kernel_from_weight) {
    if (kernel_from_weight->size() != spatial_rank)
      return invalid_model("the weight has " + std::to_string(kernel_from_weight->size()) +
                           " spatial dims; the input has " + std::to_string(spatial_rank));
    for (int64_t d : *kernel_from_weight)
      if (d > kMaxWindowAttr)
        return invalid_model("weight spatial dims " + ints_to_string(*kernel_from_weight) + " are too large");
    p.kernel = *kernel_from_weight;
    // Unknown weight dims: geometry cannot be resolved; callers check kernel >= 1 before use.
  } else {
    return invalid_model("attribute 'kernel_shape' is required");
  }
  for (int64_t k : p.kernel)
    if (k == 0) return invalid_model("kernel dims " + ints_to_string(p.kernel) + " must be >= 1");

  OPENGE_RETURN_IF_ERROR(read_ints(attrs, "strides", spatial_rank, 1, 1, &p.strides));
  OPENGE_RETURN_IF_ERROR(read_ints(attrs, "dilations", spatial_rank, 1, 1, &p.dilations));
  OPENGE_RETURN_IF_ERROR(read_ints(attrs, "pads", 2 * spatial_rank, 0, 0, &p.pads));
  if (p.auto_pad != AutoPad::kNotSet && attrs.has("pads")) {
    bool all_zero = true;
    for (int64_t v : p.pads) all_zero = all_zero && v == 0;
    // ONNX forbids pads with auto_pad; tolerate all-zero pads (exporters emit them) and ignore them.
    if (!all_zero)
      return invalid_model(std::string("attribute 'pads' cannot be used together with auto_pad ") +
                           auto_pad_name(p.auto_pad));
    p.pads.assign(2 * spatial_rank, 0);
  }
  const int64_t ceil_mode = attrs.get_int("ceil_mode", 0);
  if (ceil_mode != 0 && ceil_mode != 1)
    return invalid_model("ceil_mode must be 0 or 1, got " + std::to_string(ceil_mode));
  if (ceil_mode && !allow_ceil_mode) return invalid_model("ceil_mode is not an attribute of this op");
  p.ceil_mode = ceil_mode == 1;
  return p;
}

Result<WindowGeometry> resolve_window(const WindowParams& p, const std::vector<int64_t>& input_spatial) {
  if (input_spatial.size() != p.rank())
    return invalid_model("input has " + std::to_string(input_spatial.size()) + " spatial dims; the window has " +
                         std::to_string(p.rank()));
  WindowGeometry g = start_geometry(p, input_spatial);
  for (size_t i = 0; i < p.rank(); ++i) {
    const int64_t in = input_spatial[i];
    if (in < 0 || p.kernel[i] < 1) continue;  // unknown: leave output -1
    if (in > (int64_t{1} << 40)) return invalid_model("spatial dim " + std::to_string(in) + " is too large");
    const int64_t s = p.strides[i];
    const int64_t ek = g.effective_kernel(i);  // <= 2^48: no overflow
    int64_t out = 0;
    switch (p.auto_pad) {
      case AutoPad::kSameUpper:
      case AutoPad::kSameLower: {
        out = (in + s - 1) / s;
        const int64_t total = std::max<int64_t>(0, (out - 1) * s + ek - in);
        split_pad(total, p.auto_pad == AutoPad::kSameUpper, &g.pad_begin[i], &g.pad_end[i]);
        break;
      }
      case AutoPad::kValid:
      case AutoPad::kNotSet: {
        const int64_t span = in + g.pad_begin[i] + g.pad_end[i] - ek;
        if (span < 0)
          return invalid_model("spatial dim " + std::to_string(i) + ": the window (effective size " +
                               std::to_string(ek) + ") is larger than the padded input (" + std::to_string(in) +
                               " + pads " + std::to_string(g.pad_begin[i]) + "+" + std::to_string(g.pad_end[i]) + ")");
        out = (p.ceil_mode ? (span + s - 1) / s : span / s) + 1;
        // A window must start inside the input or its begin padding.
        if (p.ceil_mode && (out - 1) * s >= in + g.pad_begin[i]) --out;
        break;
      }
    }
    if (out < 1)
      return invalid_model("spatial dim " + std::to_string(i) + " of size " + std::to_string(in) +
                           " gives an empty output with kernel " + ints_to_string(p.kernel));
    g.output[i] = out;
  }
  return g;
}

Result<WindowGeometry> resolve_transposed_window(const WindowParams& p, const std::vector<int64_t>& input_spatial,
                                                 const std::vector<int64_t>& output_padding,
                                                 const std::vector<int64_t>& output_shape) {
  const size_t r = p.rank();
  if (input_spatial.size() != r)
    return invalid_model("input has " + std::to_string(input_spatial.size()) + " spatial dims; the window has " +
                         std::to_string(r));
  if (!output_padding.empty() && output_padding.size() != r)
    return invalid_model("output_padding " + ints_to_string(output_padding) + " needs " + std::to_string(r) +
                         " entries");
  if (!output_shape.empty() && output_shape.size() != r)
    return invalid_model("output_shape " + ints_to_string(output_shape) + " needs " + std::to_string(r) +
                         " spatial entries");
  WindowGeometry g = start_geometry(p, input_spatial);
  for (size_t i = 0; i < r; ++i) {
    const int64_t s = p.strides[i];
    const int64_t op = output_padding.empty() ? 0 : output_padding[i];
    if (op < 0 || op > kMaxWindowAttr)
      return invalid_model("output_padding " + ints_to_string(output_padding) + " is out of range");
    if (op >= s && op >= p.dilations[i])
      return invalid_model("output_padding " + ints_to_string(output_padding) +
                           " must be smaller than the stride or the dilation of its dim");
    if (!output_shape.empty() && (output_shape[i] < 1 || output_shape[i] > (int64_t{1} << 40)))
      return invalid_model("output_shape " + ints_to_string(output_shape) + " has an entry out of range");
    const int64_t in = input_spatial[i];
    if (in < 0 || p.kernel[i] < 1) {
      if (!output_shape.empty()) g.output[i] = output_shape[i];
      continue;
    }
    if (in > (int64_t{1} << 40)) return invalid_model("spatial dim " + std::to_string(in) + " is too large");
    if (in == 0) return invalid_model("spatial dim " + std::to_string(i) + " of the input is 0");
    const int64_t full = s * (in - 1) + op + g.effective_kernel(i);  // < 2^66? no: s,op <= 2^24, in <= 2^40
    int64_t out = 0;
    if (!output_shape.empty() || p.auto_pad == AutoPad::kSameUpper || p.auto_pad == AutoPad::kSameLower) {
      out = !output_shape.empty() ? output_shape[i] : in * s;
      const int64_t total = full - out;
      if (total >= 0) {
        split_pad(total, p.auto_pad == AutoPad::kSameUpper, &g.pad_begin[i], &g.pad_end[i]);
      } else {
        // A requested output longer than the full result: the extra positions at the end
        // receive no taps (zeros, plus bias), as ONNX's reference and ONNX Runtime do.
        g.pad_begin[i] = 0;
        g.pad_end[i] = total;
      }
    } else {
      if (p.auto_pad == AutoPad::kValid) g.pad_begin[i] = g.pad_end[i] = 0;
      out = full - g.pad_begin[i] - g.pad_end[i];
    }
    if (out < 1)
      return invalid_model("spatial dim " + std::to_string(i) + " gives an empty output (pads " +
                           ints_to_string(p.pads) + " remove everything)");
    g.output[i] = out;
  }
  return g;
}

Status check_output_elements(const Shape& shape) { return check_known_extent(shape, "the output"); }

}  // namespace openge
