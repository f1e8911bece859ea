// The operator compile cache (OPT-op_compiler_cache_mode-*, OPT-op_compiler_cache_dir-*, DISC-6):
// shared objects of online-compiled kernels kept on disk, keyed by a digest of everything that
// changes the binary, so a second compile of the same kernel is a file lookup.
//
// Layout under the compile-cache folder (paths::ArtifactKind::kCompileCache:
// op_compiler_cache_dir/kernel_cache > ASCEND_CACHE_PATH/kernel_cache_<host> > $HOME/atc_data/...):
//   op_cache.ini                 size limits (written with the limits in effect when missing)
//   .op_cache.lock               flock: exclusive around publish and aging, shared around lookup
//   <soc_version>/<digest>.so    the shared object
//   <soc_version>/<digest>.json  its manifest: key digest, kernel name, size and SHA-256 of the .so
// An entry counts only when its manifest matches its .so; anything else (missing, truncated,
// corrupt, half-written by a killed process) is a logged miss and is rebuilt. Entries are written
// to temporary names and renamed, the .so first and the manifest last, so readers never see half
// an entry. Size limits and aging: op_cache.ini > ASCEND_MAX_OP_CACHE_SIZE /
// ASCEND_REMAIN_CACHE_SIZE_RATIO > 500 MB / 50 %, per SoC folder (docs/DECISIONS.md).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "openge/status.h"

namespace openge::options {
class OptionSet;
}

namespace openge::compiler {

// Everything that changes the binary; the cache key is a digest of all of it.
struct KernelKey {
  std::string kernel_name;         // e.g. "te_fused_add_relu_3f2a" (also the base name of files)
  std::string source;              // the generated C++ source
  std::string compiler;            // resolved compiler path (CXX, default g++)
  std::string compiler_version;    // `<compiler> --version` first line
  std::vector<std::string> flags;  // compile flags, in order
  std::string cpu_features;        // e.g. "avx2 avx512f ..." (what -march=native would select)
  std::string soc_version;         // options' soc_version
  std::string digest() const;      // hex SHA-256 of all of the above (each field length-prefixed)
};

struct CacheOutcome {
  std::string so_path;      // the shared object to dlopen
  bool hit = false;         // served from the cache without compiling
  std::string miss_reason;  // why it was compiled ("not in cache", "entry truncated", "mode force", ...)
};

enum class CacheMode { kEnable, kDisable, kForce };

// What aging keeps (OPT-op_compiler_cache_mode-10..15, docs/FORMATS.md, "Compile cache").
struct CacheLimits {
  int64_t max_bytes = int64_t{500} << 20;
  int remain_ratio_percent = 50;
  int64_t unused_seconds = 30 * 60;  // only entries unused this long are aged
  std::string rule;                  // which source decided (op_cache.ini, environment, default)
};

// What the options say about the cache, read without touching the disk: the online compiler
// reads it at every compile that builds online and opens the cache only when a kernel needs it.
struct CacheSettings {
  CacheMode mode = CacheMode::kEnable;
  std::string root;       // the kernel_cache folder ("" in disable)
  std::string root_rule;  // which option or variable chose it
  std::string soc_version;
  CacheLimits limits;
  std::vector<std::string> warnings;  // an op_cache.ini that is not used, and why
};

class OpCache {
 public:
  // op_compiler_cache_mode, op_compiler_cache_dir > ASCEND_CACHE_PATH > $HOME/atc_data, the size
  // limits (op_cache.ini > ASCEND_MAX_OP_CACHE_SIZE / ASCEND_REMAIN_CACHE_SIZE_RATIO) and
  // soc_version; reads only (disable reads no folder option).
  static Result<CacheSettings> settings_from_options(const options::OptionSet& options);
  // In enable/force the cache folder is created (or checked) here, so a folder that cannot be used
  // is one error naming the option that chose it; disable touches nothing.
  static Result<OpCache> open(const CacheSettings& settings);
  static Result<OpCache> from_options(const options::OptionSet& options);  // open(settings_from_options())
  // For tests and tools: a cache at `root` (the kernel_cache folder itself).
  static Result<OpCache> at(const std::string& root, CacheMode mode, const std::string& soc_version,
                            const CacheLimits& limits);

  // `build(out_path)` writes the shared object to out_path (a temporary name the cache chose);
  // the cache verifies it and makes it visible atomically. In mode disable the cache dir is never
  // touched: the build goes to a private temporary folder that lives as long as the process.
  // A failed build leaves nothing behind and returns its Status.
  // The returned so_path (enable/force) is the cache's own file, shared with other processes:
  // dlopen it right away (a hit refreshes its last use, so aging leaves it alone for 30 minutes)
  // and never delete or change it. In disable it is this process's file, free to delete once loaded.
  Result<CacheOutcome> get_or_build(const KernelKey& key,
                                    const std::function<Status(const std::string& out_path)>& build);

  CacheMode mode() const { return mode_; }
  const std::string& root() const { return root_; }        // kernel_cache folder ("" in disable)
  const std::string& soc_dir() const { return soc_dir_; }  // root/<soc_version>
  const CacheLimits& limits() const { return limits_; }

  // Ages entries of this SoC folder (the cache calls it after each publish): when the folder is
  // over max_bytes, entries unused for limits.unused_seconds go, least recently used first, until
  // it is at remain_ratio_percent of max_bytes. Also removes temporary files of dead writers.
  // Returns the number of entries removed.
  Result<int> age_entries() const;

 private:
  struct Shared;  // state shared by copies (entries force has rebuilt through this cache object)
  CacheMode mode_ = CacheMode::kEnable;
  std::string root_, soc_dir_;
  CacheLimits limits_;
  std::shared_ptr<Shared> shared_;

  Result<CacheOutcome> build_private(const KernelKey& key, const std::string& digest,
                                     const std::function<Status(const std::string&)>& build) const;
  Result<CacheOutcome> build_and_publish(const KernelKey& key, const std::string& digest, const std::string& reason,
                                         const std::function<Status(const std::string&)>& build) const;
};

// A shared object given as bytes (a kernel a compiled model carries, compiler/prebuilt_kernels.h),
// written under a unique name into the folder of this process where mode disable builds; the
// caller dlopens it and then removes it. Bytes that are not an ELF file are refused.
Result<std::string> write_private_shared_object(const std::string& kernel_name, std::string_view bytes);

}  // namespace openge::compiler
