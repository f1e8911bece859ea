#include "session/external_weights.h"

#include <fcntl.h>
#include <malloc.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>

#include "base/file_backed_memory.h"
#include "base/mapped_file.h"
#include "base/temp_folder_guard.h"
#include "logging/log.h"
#include "ops/generator/file_constant.h"
#include "options/option_set.h"
#include "paths/artifact_paths.h"
#include "base/file_modes.h"
#include "io/stale_temporaries.h"

namespace openge {

namespace {
namespace fs = std::filesystem;

std::atomic<long> g_next_session_id{0};

// The mappings alive in this process, by size: a new session links a file whose bytes are equal
// instead of writing its own copy, so that both map the same page-cache pages.
std::mutex g_live_mutex;
std::multimap<size_t, std::weak_ptr<const MappedFile>> g_live;

Status write_whole_file(const std::string& path, const void* data, size_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) return io_error(path + ": cannot create: " + std::strerror(errno));
  if (Status moded = set_mode(fd, path, kPrivateFileMode); !moded.ok()) {
    ::close(fd);
    return moded;
  }
  const char* p = static_cast<const char*>(data);
  size_t left = size;
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = n < 0 ? std::strerror(errno) : "no space written";
      ::close(fd);
      return io_error(path + ": cannot write: " + why);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::close(fd) != 0) return io_error(path + ": cannot write: " + std::strerror(errno));
  return Status::Ok();
}

// Hard-links a live file of another session holding exactly these bytes to `path`.
bool link_equal_file(const Tensor& t, const std::string& path) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  auto range = g_live.equal_range(t.nbytes());
  for (auto it = range.first; it != range.second; ++it) {
    auto other = it->second.lock();
    if (other && std::memcmp(other->data(), t.raw(), t.nbytes()) == 0 &&
        ::link(other->path().c_str(), path.c_str()) == 0)
      return true;
  }
  return false;
}

void publish(const std::shared_ptr<const MappedFile>& mapping) {
  std::lock_guard<std::mutex> lock(g_live_mutex);
  for (auto it = g_live.begin(); it != g_live.end();) it = it->second.expired() ? g_live.erase(it) : std::next(it);
  g_live.emplace(mapping->size(), mapping);
}

// A tensor of plain bytes worth a file (strings hold pointers; an empty tensor has nothing).
bool externalizable(const Tensor& t) { return t.defined() && t.dtype() != DType::kString && t.nbytes() > 0; }

// Every weight of the main graph: initializers and the values of Constant nodes.
std::vector<Tensor*> weights_of(Graph& graph) {
  std::vector<Tensor*> out;
  for (Value& v : graph.values)
    if (v.producer < 0 && v.constant && externalizable(*v.constant)) out.push_back(&*v.constant);
  for (Node& node : graph.nodes) {
    const Attribute* a = node.op_type == "Constant" ? node.attrs.find("value") : nullptr;
    // The attribute lives in the (mutable) node; find() only hands out const access.
    if (a && a->kind == Attribute::Kind::kTensor && externalizable(a->t)) out.push_back(const_cast<Tensor*>(&a->t));
  }
  return out;
}

// The folder's content names, known before anything is written (TempFolderGuard).
std::string file_name(size_t k) { return "weight_" + std::to_string(k) + ".bin"; }

Status make_folder(const paths::ResolvedPath& resolved) {
  std::error_code ec;
  const fs::path folder(resolved.path);
  OPENGE_RETURN_IF_ERROR(make_directories(folder.parent_path().string(), kFolderMode));
  // Folders of processes killed with SIGKILL (no handler ran) are no one's: removed here. A
  // folder of this very name is a leftover of an earlier process that had this pid.
  remove_dead_prefixed_folders(folder.parent_path().string(), "tmp_weight_");
  if (fs::exists(folder, ec)) fs::remove_all(folder, ec);
  if (::mkdir(folder.c_str(), kPrivateFolderMode) != 0)
    return io_error(folder.string() + ": cannot create the folder: " + std::strerror(errno));
  return set_mode(folder.string(), kPrivateFolderMode);
}

// Every weight (initializer) that now views one of `mappings` gets a FileConstant node naming
// its file (OPT-external_weight-5): the graph says where the weight lives, and compiling folds the
// node back into a constant that views the same mapping. The nodes go first, so the order stays
// topological; the value keeps its constant, as a folded node's output does.
void produce_by_file_constants(Graph& graph, const std::vector<std::shared_ptr<const MappedFile>>& mappings) {
  std::map<const void*, const MappedFile*> by_data;
  for (const auto& m : mappings) by_data[m->data()] = m.get();
  std::vector<Node> nodes;
  for (size_t v = 0; v < graph.values.size(); ++v) {
    Value& value = graph.values[v];
    if (value.producer >= 0 || !value.constant || !value.constant->defined()) continue;
    auto it = by_data.find(value.constant->raw());
    if (it == by_data.end()) continue;
    const Tensor& t = *value.constant;
    Node node;
    node.name = value.name + "_FileConstant";
    node.op_type = kFileConstantOp;
    node.domain = kFileConstantDomain;
    node.outputs = {static_cast<int>(v)};
    node.attrs = file_constant_attributes(it->second->path(), 0, t.nbytes(), t.dtype(), t.shape());
    nodes.push_back(std::move(node));
  }
  const int shift = static_cast<int>(nodes.size());
  for (Value& value : graph.values)
    if (value.producer >= 0) value.producer += shift;
  for (int n = 0; n < shift; ++n)
    graph.values[static_cast<size_t>(nodes[static_cast<size_t>(n)].outputs[0])].producer = n;
  for (Node& node : graph.nodes) nodes.push_back(std::move(node));
  graph.nodes = std::move(nodes);
}

}  // namespace

const std::string& ExternalWeights::folder() const { return guard_->folder(); }

ExternalWeights::~ExternalWeights() {
  for (const auto& m : mappings_) unregister_file_backed(m->data());
}

Result<std::unique_ptr<ExternalWeights>> ExternalWeights::externalize(Graph& graph, const options::OptionSet& options,
                                                                      bool as_file_constants) {
  if (!options.get_bool("external_weight")) return std::unique_ptr<ExternalWeights>();
  const std::vector<Tensor*> weights = weights_of(graph);
  paths::RunIds ids = paths::RunIds::current();
  ids.session_id = std::to_string(g_next_session_id.fetch_add(1));
  const paths::ResolvedPath resolved = paths::resolve_artifact(paths::ArtifactKind::kExternalWeights, options, ids);
  const std::string context = "external_weight (" + resolved.rule + ")";
  std::vector<std::string> names;
  for (size_t k = 0; k < weights.size(); ++k) names.push_back(file_name(k));
  std::unique_ptr<ExternalWeights> out(new ExternalWeights());
  // Guarded before it exists: a signal at any later moment removes whatever was made.
  out->guard_ = std::make_unique<TempFolderGuard>(resolved.path, names);
  OPENGE_RETURN_IF_ERROR(make_folder(resolved).with_context(context));
  std::vector<Tensor> views;
  size_t bytes = 0;
  for (size_t k = 0; k < weights.size(); ++k) {
    const Tensor& t = *weights[k];
    const std::string path = resolved.path + "/" + names[k];
    if (link_equal_file(t, path))
      ++out->linked_;
    else
      OPENGE_RETURN_IF_ERROR(write_whole_file(path, t.raw(), t.nbytes()).with_context(context));
    auto mapping = MappedFile::open(path);
    if (!mapping.ok()) return mapping.status().with_context(context);
    if ((*mapping)->size() != t.nbytes())
      return io_error(path + ": holds " + std::to_string((*mapping)->size()) + " bytes, " + std::to_string(t.nbytes()) +
                      " were written")
          .with_context(context);
    // Mapped read-only: a constant is never written, and a write would fault rather than corrupt.
    views.push_back(Tensor::borrow(t.dtype(), t.shape(), const_cast<void*>((*mapping)->data())));
    out->mappings_.push_back(std::move(mapping.value()));
    bytes += t.nbytes();
  }
  // All written and mapped: the graph now reads the files (the loader's heap copies go).
  for (size_t k = 0; k < weights.size(); ++k) *weights[k] = std::move(views[k]);
  if (as_file_constants) produce_by_file_constants(graph, out->mappings_);
  // The copies were below glibc's mmap threshold once it has grown: freed into the heap, they
  // would stay resident. Give the free pages back to the system.
  ::malloc_trim(0);
  for (const auto& m : out->mappings_) {
    publish(m);
    // Graph dumps name these weights as FileConstant nodes (OPT-external_weight-5).
    register_file_backed(m->data(), m->size(), m->path());
  }
  OPENGE_LOG_INFO("GE", "external_weight: " + std::to_string(weights.size()) + " weights (" + std::to_string(bytes) +
                            " bytes) in " + resolved.path + ", " + std::to_string(out->linked_) +
                            " of them linked to another session's files (" + resolved.rule + ")");
  return out;
}

}  // namespace openge
