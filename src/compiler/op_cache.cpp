#include "compiler/op_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>

#include "compiler/op_cache_entry.h"
#include "base/file_modes.h"
#include "base/sha256.h"
#include "base/trusted_path.h"
#include "io/file_lock.h"
#include "logging/log.h"
#include "options/option_set.h"
#include "paths/artifact_paths.h"

namespace openge::compiler {
namespace fs = std::filesystem;
namespace {

constexpr char kModule[] = "TEFUSION";  // CANN's operator-compile log module
constexpr char kLockName[] = ".op_cache.lock";
constexpr char kIniName[] = "op_cache.ini";

struct ModeName {
  CacheMode mode;
  const char* name;
};
constexpr ModeName kModes[] = {
    {CacheMode::kEnable, "enable"}, {CacheMode::kDisable, "disable"}, {CacheMode::kForce, "force"}};

std::string join(const std::string& dir, const std::string& name) { return (fs::path(dir) / name).string(); }

// Temporary names carry the writer's host and pid, so aging can tell a live writer's file from
// one a killed writer left behind (age_entries, op_cache_aging.cpp).
std::string temp_stem(const std::string& digest) {
  static std::atomic<uint64_t> seq{0};
  return ".tmp." + paths::RunIds::current().host_id + "." + std::to_string(::getpid()) + "." +
         std::to_string(seq.fetch_add(1)) + "." + digest.substr(0, 16);
}

// Mode disable builds here: a folder of this process, removed when it exits (never by a forked
// child, whose exit must not delete its parent's kernels).
class PrivateBuildDir {
 public:
  static Result<std::string> path() {
    static PrivateBuildDir dir;
    if (dir.path_.empty())
      return io_error("cannot create a private folder for kernels compiled without the cache: " + dir.error_);
    return dir.path_;
  }

 private:
  PrivateBuildDir() : owner_(::getpid()) {
    std::error_code ec;
    std::string pattern = (fs::temp_directory_path(ec) / "openge_kernels_XXXXXX").string();
    if (ec) pattern = "/tmp/openge_kernels_XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr)
      path_ = pattern;
    else
      error_ = pattern + ": " + std::strerror(errno);
  }
  ~PrivateBuildDir() {
    std::error_code ec;
    if (!path_.empty() && ::getpid() == owner_) fs::remove_all(path_, ec);
  }
  pid_t owner_;
  std::string path_, error_;
};

bool looks_like_shared_object(const std::string& path) {
  char magic[4] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(magic, 4) && std::memcmp(magic,
                                          "\x7f"
                                          "ELF",
                                          4) == 0;
}

// The build callback is the compiler helper's code: an exception from it is its error, not a crash.
Status run_build(const std::function<Status(const std::string&)>& build, const std::string& out) {
  try {
    return build(out);
  } catch (const std::exception& e) {
    return internal_error(std::string("kernel build threw: ") + e.what());
  }
}

}  // namespace

Result<std::string> write_private_shared_object(const std::string& kernel_name, std::string_view bytes) {
  auto dir = PrivateBuildDir::path();
  if (!dir.ok()) return dir.status();
  if (bytes.size() < 4 || bytes.substr(0, 4) !=
                              "\x7f"
                              "ELF")
    return invalid_model("the prebuilt kernel " + kernel_name + " is not a shared object");
  // temp_stem's sequence number makes the name unique in the process (a binary loaded twice is
  // two files: dlopen would otherwise hand back the first by its name).
  const std::string out = join(*dir, temp_stem(sha256_hex(std::string(bytes))).substr(1) + ".so");
  OPENGE_RETURN_IF_ERROR(write_new_file(out, std::string(bytes)));
  OPENGE_RETURN_IF_ERROR(set_mode(out, kSharedObjectMode));
  return out;
}

namespace {

// op_cache.ini is generated after a compile when missing (OPT-op_compiler_cache_mode-10), with the
// limits in effect; link() never replaces a file another user created meanwhile.
void write_ini_if_missing(const std::string& root, const CacheLimits& l) {
  const std::string ini = join(root, kIniName);
  std::error_code ec;
  if (fs::exists(ini, ec)) return;
  const std::string tmp = join(root, temp_stem("op_cache_ini") + ".ini");
  const std::string text =
      "# Operator compile cache size limits of this folder (CANN's op_cache.ini).\n"
      "# Written by OpenGE with the limits in effect; this file wins over ASCEND_MAX_OP_CACHE_SIZE /\n"
      "# ASCEND_REMAIN_CACHE_SIZE_RATIO. Sizes in MB; the ratio is the share of the limit kept when aging.\n"
      "[op_compiler_cache]\n"
      "ascend_max_op_cache_size=" +
      std::to_string(l.max_bytes >> 20) + "\n" +
      "ascend_remain_cache_size_ratio=" + std::to_string(l.remain_ratio_percent) + "\n";
  if (write_new_file(tmp, text).ok()) {
    if (::link(tmp.c_str(), ini.c_str()) != 0 && errno != EEXIST)
      OPENGE_LOG_WARNING(kModule, "cannot write " + ini + ": " + std::strerror(errno));
    ::unlink(tmp.c_str());
  }
}

}  // namespace

std::string KernelKey::digest() const {
  // Each field length-prefixed and tagged, so no two different keys serialise alike.
  std::string text;
  auto add = [&text](const char* tag, const std::string& v) {
    text += tag;
    text += ':' + std::to_string(v.size()) + ':';
    text += v;
    text += '\n';
  };
  add("kernel_name", kernel_name);
  add("source", source);
  add("compiler", compiler);
  add("compiler_version", compiler_version);
  add("flags", std::to_string(flags.size()));
  for (const auto& f : flags) add("flag", f);
  add("cpu_features", cpu_features);
  add("soc_version", soc_version);
  return sha256_hex(text);
}

// Digests force has rebuilt through this cache object. The online compiler opens one per graph
// compile, so force rebuilds each kernel once per compile (page 002: force refreshes the cache at
// every compile, hence its advice to switch back to enable; docs/DECISIONS.md), and a kernel asked
// for twice within one compile is built once.
struct OpCache::Shared {
  std::mutex mutex;
  std::set<std::string> rebuilt;
  bool rebuilt_already(const std::string& d) {
    std::lock_guard<std::mutex> g(mutex);
    return rebuilt.count(d) != 0;
  }
  void mark_rebuilt(const std::string& d) {
    std::lock_guard<std::mutex> g(mutex);
    rebuilt.insert(d);
  }
};

Result<CacheSettings> OpCache::settings_from_options(const options::OptionSet& o) {
  CacheSettings s;
  const std::string text = o.get("op_compiler_cache_mode");
  bool known = text.empty();  // OPT-op_compiler_cache_mode-1: enable
  for (const auto& m : kModes)
    if (text == m.name) s.mode = m.mode, known = true;
  if (!known) return invalid_argument("op_compiler_cache_mode: '" + text + "' is not one of enable, disable, force");
  if (s.mode == CacheMode::kDisable) return s;
  // The folder: op_compiler_cache_dir/kernel_cache > ASCEND_CACHE_PATH/kernel_cache_<host> >
  // $HOME/atc_data/kernel_cache_<host>; the limits: its op_cache.ini > ASCEND_MAX_OP_CACHE_SIZE /
  // ASCEND_REMAIN_CACHE_SIZE_RATIO > 500 MB / 50 % (both chains live in src/paths/artifact_paths.cpp).
  const auto resolved = paths::resolve_artifact(paths::ArtifactKind::kCompileCache, o, paths::RunIds::current());
  s.root = resolved.path;
  s.root_rule = resolved.rule;
  s.soc_version = o.soc_version();
  auto sizes = paths::resolve_op_cache_limits(o, resolved.path);
  s.limits.max_bytes = sizes.max_size_mb << 20;
  s.limits.remain_ratio_percent = sizes.remain_ratio_percent;
  s.limits.rule = sizes.rule;
  s.warnings = std::move(sizes.warnings);
  return s;
}

Result<OpCache> OpCache::open(const CacheSettings& s) {
  if (s.mode == CacheMode::kDisable) return at("", s.mode, "", s.limits);
  OPENGE_RETURN_IF_ERROR(paths::prepare_artifact_directory(
      paths::ResolvedPath{paths::ArtifactKind::kCompileCache, s.root, false, s.root_rule, ""}));
  for (const auto& w : s.warnings) OPENGE_LOG_WARNING(kModule, w);
  auto cache = at(s.root, s.mode, s.soc_version, s.limits);
  if (!cache.ok()) return cache.status().with_context("op_compiler_cache_dir (" + s.root_rule + ")");
  return cache;
}

Result<OpCache> OpCache::from_options(const options::OptionSet& o) {
  auto settings = settings_from_options(o);
  if (!settings.ok()) return settings.status();
  return open(*settings);
}

Result<OpCache> OpCache::at(const std::string& root, CacheMode mode, const std::string& soc_version,
                            const CacheLimits& limits) {
  OpCache c;
  c.mode_ = mode;
  c.limits_ = limits;
  c.shared_ = std::make_shared<Shared>();
  if (mode == CacheMode::kDisable) return c;
  // Limits apply per chip (docs/FORMATS.md, "Compile cache"): one folder per SoC below the cache folder.
  const std::string soc =
      soc_version.empty() || soc_version.find('/') != std::string::npos ? "default_soc" : soc_version;
  c.root_ = root;
  c.soc_dir_ = join(root, soc);
  Status made = make_directories(c.soc_dir_, kFolderMode);
  if (!made.ok() || ::access(c.soc_dir_.c_str(), R_OK | W_OK | X_OK) != 0)
    return io_error("compile cache folder " + c.soc_dir_ + " cannot be created or written" +
                    (made.ok() ? "" : ": " + made.message()) +
                    "; choose another op_compiler_cache_dir or set op_compiler_cache_mode=disable");
  // Its shared objects are loaded into this process: another user must not be able to plant one.
  OPENGE_RETURN_IF_ERROR(check_trusted_folder(c.soc_dir_, "compile cache folder"));
  return c;
}

Result<CacheOutcome> OpCache::get_or_build(const KernelKey& key,
                                           const std::function<Status(const std::string& out_path)>& build) {
  const std::string digest = key.digest();
  if (mode_ == CacheMode::kDisable) return build_private(key, digest, build);
  const std::string so = join(soc_dir_, digest + ".so"), manifest = join(soc_dir_, digest + ".json");
  std::string reason;
  if (mode_ == CacheMode::kForce && !shared_->rebuilt_already(digest)) {
    reason = "mode force";  // OPT-op_compiler_cache_mode-4: recompiled and re-cached
  } else {
    {
      auto lock = FileLock::acquire(join(root_, kLockName), /*exclusive=*/false);
      if (!lock.ok()) return lock.status();
      // An entry another user could have written is refused, never loaded nor silently replaced.
      for (const std::string* file : {&so, &manifest}) {
        struct stat st {};
        if (::lstat(file->c_str(), &st) == 0) OPENGE_RETURN_IF_ERROR(check_trusted_file(*file, "compile cache entry"));
      }
      reason = check_entry(so, manifest, digest);
      // The last use, for aging; touched under the lock, so no aging pass removes the entry
      // between this check and the caller's dlopen.
      if (reason.empty()) ::utimensat(AT_FDCWD, manifest.c_str(), nullptr, 0);
    }
    if (reason.empty()) {
      OPENGE_LOG_DEBUG(kModule, "compile cache hit: kernel " + key.kernel_name + " from " + so);
      return CacheOutcome{so, true, ""};
    }
    if (reason != "not in cache")
      OPENGE_LOG_WARNING(kModule, "compile cache entry " + so + " of kernel " + key.kernel_name +
                                      " cannot be used: " + reason + "; it is recompiled and replaced");
  }
  OPENGE_LOG_INFO(kModule, "compile cache miss: kernel " + key.kernel_name + " (" + digest.substr(0, 16) +
                               ") is compiled: " + reason);
  return build_and_publish(key, digest, reason, build);
}

Result<CacheOutcome> OpCache::build_private(const KernelKey& key, const std::string& digest,
                                            const std::function<Status(const std::string&)>& build) const {
  auto dir = PrivateBuildDir::path();
  if (!dir.ok()) return dir.status();
  const std::string out = join(*dir, temp_stem(digest).substr(1) + ".so");
  OPENGE_LOG_INFO(kModule, "compile cache off (op_compiler_cache_mode=disable): kernel " + key.kernel_name +
                               " is compiled into " + out);
  Status st = run_build(build, out);
  std::error_code ec;
  if (st.ok() && !looks_like_shared_object(out))
    st = internal_error("the build of kernel " + key.kernel_name + " wrote no shared object to " + out);
  if (st.ok()) st = set_mode(out, kSharedObjectMode);
  if (!st.ok()) {
    fs::remove(out, ec);
    return st.with_context("compiling kernel " + key.kernel_name);
  }
  return CacheOutcome{out, false, "mode disable"};
}

Result<CacheOutcome> OpCache::build_and_publish(const KernelKey& key, const std::string& digest,
                                                const std::string& reason,
                                                const std::function<Status(const std::string&)>& build) const {
  const std::string stem = join(soc_dir_, temp_stem(digest));
  const std::string tmp_so = stem + ".so", tmp_manifest = stem + ".json";
  auto discard = [&] {
    ::unlink(tmp_so.c_str());
    ::unlink(tmp_manifest.c_str());
  };
  Status st = run_build(build, tmp_so);
  if (!st.ok()) {
    discard();
    return st.with_context("compiling kernel " + key.kernel_name);
  }
  auto file = sha256_file(tmp_so);
  // Whatever the builder's umask gave it: no other user may write what this process loads.
  if (file.ok() && looks_like_shared_object(tmp_so) && !set_mode(tmp_so, kSharedObjectMode).ok())
    file = io_error("cannot set the mode of " + tmp_so);
  if (!file.ok() || !looks_like_shared_object(tmp_so)) {
    discard();
    return internal_error("the build of kernel " + key.kernel_name + " wrote no shared object to " + tmp_so);
  }
  st = write_new_file(tmp_manifest, manifest_text({digest, key.kernel_name, file->size, file->sha256}));
  if (!st.ok()) {
    discard();
    return st.with_context("compile cache entry of kernel " + key.kernel_name);
  }
  const std::string so = join(soc_dir_, digest + ".so"), manifest = join(soc_dir_, digest + ".json");
  {
    // Shared object first, manifest last: until the manifest lands, readers see a miss.
    auto lock = FileLock::acquire(join(root_, kLockName), /*exclusive=*/true);
    if (!lock.ok()) {
      discard();
      return lock.status();
    }
    if (::rename(tmp_so.c_str(), so.c_str()) != 0 || ::rename(tmp_manifest.c_str(), manifest.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      discard();
      return io_error("cannot store kernel " + key.kernel_name + " in the compile cache " + soc_dir_ + ": " + why);
    }
  }
  if (mode_ == CacheMode::kForce) shared_->mark_rebuilt(digest);
  write_ini_if_missing(root_, limits_);
  auto aged = age_entries();
  if (!aged.ok()) OPENGE_LOG_WARNING(kModule, "compile cache aging: " + aged.status().message());
  return CacheOutcome{so, false, reason};
}

}  // namespace openge::compiler
