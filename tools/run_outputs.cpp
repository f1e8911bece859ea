#include "run_outputs.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "openge/tensor_files.h"
#include "openge/files.h"

namespace openge::cli {
namespace fs = std::filesystem;
namespace {

struct FormatName {
  const char* name;
  OutputFormat format;
};
constexpr FormatName kFormats[] = {
    {"NPY", OutputFormat::kNpy}, {"BIN", OutputFormat::kBin}, {"TXT", OutputFormat::kTxt}};

// TXT as msame writes it: one line per innermost row, values separated by spaces.
std::string as_text(const Tensor& t) {
  std::string out;
  const int64_t row = t.rank() == 0 ? 1 : std::max<int64_t>(1, t.shape().back());
  char buf[40];
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype_is_float(t.dtype()))
      std::snprintf(buf, sizeof buf, "%.9g", t.scalar_as_double(i));
    else
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(t.scalar_as_int(i)));
    out += buf;
    out += (i + 1) % row == 0 ? '\n' : ' ';
  }
  return out;
}

// Writes one output's files as "<final name><pending>" and adds each final name to `written`
// (before writing, so that a failure can discard what was begun).
Status write_one(const Tensor& t, const std::string& name, const std::string& base, OutputFormat format,
                 const std::string& pending, std::vector<std::string>& written) {
  const bool numbers = t.is_tensor() && t.dtype() != DType::kString;
  if (format == OutputFormat::kPbAndNpy) {
    written.push_back(base + ".pb");
    OPENGE_RETURN_IF_ERROR(write_value_pb(t, name, written.back() + pending));
    // .npy holds numbers: a sequence, an optional or strings exist only as .pb.
    if (!numbers) return Status::Ok();
    written.push_back(base + ".npy");
    return write_npy(t, written.back() + pending);
  }
  if (!numbers)
    return invalid_argument("output '" + name + "' is a " + value_kind_name(t.kind()) + " of " + dtype_name(t.dtype()) +
                            ", which --outfmt cannot hold; leave --outfmt out to write it as .pb");
  if (format == OutputFormat::kNpy) {
    written.push_back(base + ".npy");
    return write_npy(t, written.back() + pending);
  }
  if (format == OutputFormat::kBin) {
    written.push_back(base + ".bin");
    return write_file_atomically(written.back() + pending,
                                 std::string_view(static_cast<const char*>(t.raw()), t.nbytes()));
  }
  written.push_back(base + ".txt");
  return write_file_atomically(written.back() + pending, as_text(t));
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

// The outputs are published as a set: each file is written to "<name>.tmp.<pid>" first, and all
// are renamed into place while this process holds an flock on the folder, so processes writing
// into the same folder never leave a file of one run beside a file of another. A killed run's
// temporaries are removed by the next write into the folder (io/stale_temporaries.h).
Result<std::vector<std::string>> write_outputs(const Session& session, const std::vector<Tensor>& outputs,
                                               const std::string& dir, OutputFormat format) {
  const std::string pending = ".tmp." + std::to_string(::getpid());
  std::vector<std::string> written;
  auto discard = [&] {
    for (const std::string& f : written) ::unlink((f + pending).c_str());
  };
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string base = (fs::path(dir) / ("output_" + std::to_string(i))).string();
    if (Status s = write_one(outputs[i], session.outputs()[i].name, base, format, pending, written); !s.ok())
      return discard(), s;
  }
  const int folder = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder < 0 || ::flock(folder, LOCK_EX) != 0) {
    const Status s = io_error("--outputs " + dir + ": cannot lock the folder: " + std::strerror(errno));
    if (folder >= 0) ::close(folder);
    return discard(), s;
  }
  Status published = Status::Ok();
  for (const std::string& f : written)
    if (published.ok() && ::rename((f + pending).c_str(), f.c_str()) != 0)
      published = io_error("--outputs: cannot rename " + f + pending + " to " + f + ": " + std::strerror(errno));
  ::close(folder);  // releases the flock
  if (!published.ok()) return discard(), published;
  return written;
}

}  // namespace openge::cli
