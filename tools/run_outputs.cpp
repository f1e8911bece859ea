#include "run_outputs.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "base/file_modes.h"
#include "frontend/value_proto.h"
#include "io/atomic_file.h"
#include "io/npy.h"

namespace openge::cli {
namespace fs = std::filesystem;
namespace {

struct FormatName {
  const char* name;
  OutputFormat format;
};
constexpr FormatName kFormats[] = {{"NPY", OutputFormat::kNpy}, {"BIN", OutputFormat::kBin}, {"TXT", OutputFormat::kTxt}};

// TXT as msame writes it: one line per innermost row, values separated by spaces.
std::string as_text(const Tensor& t) {
  std::string out;
  const int64_t row = t.rank() == 0 ? 1 : std::max<int64_t>(1, t.shape().back());
  char buf[40];
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype_is_float(t.dtype())) std::snprintf(buf, sizeof buf, "%.9g", t.scalar_as_double(i));
    else std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(t.scalar_as_int(i)));
    out += buf;
    out += (i + 1) % row == 0 ? '\n' : ' ';
  }
  return out;
}

Status write_one(const Tensor& t, const std::string& name, const std::string& base, OutputFormat format,
                 std::vector<std::string>& written) {
  const bool numbers = t.is_tensor() && t.dtype() != DType::kString;
  if (format == OutputFormat::kPbAndNpy) {
    OPENGE_RETURN_IF_ERROR(write_value_pb(t, name, base + ".pb"));
    written.push_back(base + ".pb");
    // .npy holds numbers: a sequence, an optional or strings exist only as .pb.
    if (!numbers) return Status::Ok();
    OPENGE_RETURN_IF_ERROR(write_npy(t, base + ".npy"));
    written.push_back(base + ".npy");
    return Status::Ok();
  }
  if (!numbers)
    return invalid_argument("output '" + name + "' is a " + value_kind_name(t.kind()) + " of " + dtype_name(t.dtype()) +
                            ", which --outfmt cannot hold; leave --outfmt out to write it as .pb");
  std::string path;
  Status s = Status::Ok();
  if (format == OutputFormat::kNpy) {
    path = base + ".npy";
    s = write_npy(t, path);
  } else if (format == OutputFormat::kBin) {
    path = base + ".bin";
    s = write_file_atomically(path, std::string_view(static_cast<const char*>(t.raw()), t.nbytes()));
  } else {
    path = base + ".txt";
    s = write_file_atomically(path, as_text(t));
  }
  OPENGE_RETURN_IF_ERROR(s);
  written.push_back(path);
  return Status::Ok();
}

}  // namespace

Result<OutputFormat> output_format_from_flag(const std::string& text) {
  if (text.empty()) return OutputFormat::kPbAndNpy;
  std::string upper = text;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const auto& f : kFormats)
    if (upper == f.name) return f.format;
  return invalid_argument("--outfmt must be NPY, BIN or TXT, got '" + text + "'");
}

Status prepare_output_folder(const std::string& dir, const std::string& flag, bool& created) {
  std::error_code ec;
  created = !fs::exists(dir, ec);
  if (Status made = make_directories(dir, kFolderMode); !made.ok())
    return io_error(flag + " " + dir + " cannot be created (" + made.message() + "); give a folder you can write to");
  const std::string probe = (fs::path(dir) / (".openge_write_probe." + std::to_string(::getpid()))).string();
  FILE* f = std::fopen(probe.c_str(), "w");
  if (!f) return io_error(flag + " " + dir + " is not writable; give a folder you can write to");
  std::fclose(f);
  fs::remove(probe, ec);
  return Status::Ok();
}

Result<std::vector<std::string>> write_outputs(const Session& session, const std::vector<Tensor>& outputs,
                                               const std::string& dir, OutputFormat format) {
  std::vector<std::string> written;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string base = (fs::path(dir) / ("output_" + std::to_string(i))).string();
    OPENGE_RETURN_IF_ERROR(write_one(outputs[i], session.outputs()[i].name, base, format, written));
  }
  return written;
}

}  // namespace openge::cli
