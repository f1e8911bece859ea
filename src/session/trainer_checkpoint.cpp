// Trainer checkpoints (include/openge/trainer.h): DIR/checkpoint.json names every tensor file;
// parameters as param_<i>.npy, running statistics as state_<i>.npy, optimizer buffers as
// optimizer_<i>.npy. The folder is written as DIR.tmp.<pid> and renamed, so a reader never sees
// half a checkpoint.
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/atomic_file.h"
#include "io/npy.h"
#include "distributed/world.h"
#include "session/trainer_impl.h"
#include "base/file_modes.h"
#include "base/path_util.h"
#include "io/stale_temporaries.h"

namespace openge {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kCheckpointVersion = 1;

Status write_tensors(const fs::path& dir, const char* prefix, const std::vector<Tensor>& tensors, json& list) {
  for (size_t i = 0; i < tensors.size(); ++i) {
    const std::string file = std::string(prefix) + "_" + std::to_string(i) + ".npy";
    OPENGE_RETURN_IF_ERROR(write_npy(tensors[i], (dir / file).string()));
    list.push_back(file);
  }
  return Status::Ok();
}

// Reads the files `list` names into `into` (same count, dtypes and shapes), copying in place.
Status read_tensors(const fs::path& dir, const json& list, std::vector<Tensor>& into, const char* what) {
  if (!list.is_array() || list.size() != into.size())
    return invalid_argument("checkpoint " + dir.string() + " holds " +
                            std::to_string(list.is_array() ? list.size() : 0) + " " + what + ", this trainer has " +
                            std::to_string(into.size()));
  for (size_t i = 0; i < into.size(); ++i) {
    const std::string file = list[i].get<std::string>();
    if (file.find('/') != std::string::npos || file.find("..") != std::string::npos)
      return invalid_argument("checkpoint " + dir.string() + ": bad file name '" + file + "'");
    auto t = read_npy((dir / file).string());
    if (!t.ok()) return t.status();
    if (t->dtype() != into[i].dtype() || t->shape() != into[i].shape())
      return invalid_argument("checkpoint " + dir.string() + ": " + file + " is " + dtype_name(t->dtype()) + " " +
                              shape_to_string(t->shape()) + ", expected " + dtype_name(into[i].dtype()) + " " +
                              shape_to_string(into[i].shape()));
    std::memcpy(into[i].raw(), t->raw(), into[i].nbytes());
  }
  return Status::Ok();
}

}  // namespace

Status Trainer::save_checkpoint(const std::string& dir) const {
  const Impl& im = *impl_;
  // Under mpirun: every rank has finished its step before rank 0 writes, and none goes on before
  // the checkpoint is in place (every rank holds the same parameters and optimizer state).
  if (im.data_parallel) {
    OPENGE_RETURN_IF_ERROR(im.data_parallel->barrier("checkpoint " + dir));
    Status written = im.world.rank == 0 ? write_checkpoint(dir) : Status::Ok();
    OPENGE_RETURN_IF_ERROR(im.data_parallel->barrier("checkpoint " + dir + " in place"));
    if (!written.ok()) distributed::mark_job_failed();
    return written;
  }
  return write_checkpoint(dir);
}

Status Trainer::write_checkpoint(const std::string& dir) const {
  const Impl& im = *impl_;
  const fs::path target(dir);
  const fs::path tmp = target.string() + ".tmp." + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(tmp, ec);
  // What a killed save left beside it (".tmp.<pid>" of a process that is gone).
  remove_dead_temporaries(target.parent_path().string());
  OPENGE_RETURN_IF_ERROR(make_directories(tmp.string(), kFolderMode).with_context("checkpoint " + dir));
  json manifest;
  manifest["format"] = "openge-checkpoint";
  manifest["version"] = kCheckpointVersion;
  manifest["model"] = im.source;
  manifest["optimizer"] = training::optimizer_name(im.optimizer->config().kind);
  manifest["learning_rate"] = im.optimizer->config().lr;
  manifest["steps"] = im.optimizer->steps();
  manifest["loss_scale"] = im.scaler.scale;
  manifest["loss_scale_good_steps"] = im.scaler.good_steps;
  manifest["skipped_steps"] = im.scaler.skipped;
  manifest["trainable"] = im.trainable;
  manifest["state"] = im.state_names;
  manifest["param_files"] = json::array();
  manifest["state_files"] = json::array();
  manifest["optimizer_files"] = json::array();
  // In the plain layout (variable_format_optimize holds some in oneDNN's between steps).
  auto params = im.plain_params();
  auto opt_state = im.plain_optimizer_state();
  Status s = !params.ok() ? params.status() : opt_state.status();
  if (s.ok()) s = write_tensors(tmp, "param", *params, manifest["param_files"]);
  if (s.ok()) s = write_tensors(tmp, "state", im.state, manifest["state_files"]);
  if (s.ok()) s = write_tensors(tmp, "optimizer", *opt_state, manifest["optimizer_files"]);
  if (s.ok()) s = write_file_atomically((tmp / "checkpoint.json").string(), manifest.dump(2) + "\n");
  if (!s.ok()) {
    fs::remove_all(tmp, ec);
    return s.with_context("checkpoint " + dir);
  }
  // Replace an older checkpoint whole, in one step: the two folders are exchanged atomically
  // (a process killed at any moment leaves the old or the new checkpoint under the name, never
  // none) and the old one, now under the temporary's name, removed; a killed run's is removed by
  // the next save. Where the file system cannot exchange, the old one is moved aside first.
  if (fs::exists(target, ec) && ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
    fs::remove_all(tmp, ec);
    return Status::Ok();
  }
  const fs::path old = target.string() + ".old." + std::to_string(::getpid());
  const bool had_old = fs::exists(target);
  if (had_old) fs::rename(target, old, ec);
  if (!ec) fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    return io_error("checkpoint " + dir + ": cannot move it into place: " + ec.message());
  }
  if (had_old) fs::remove_all(old, ec);
  return Status::Ok();
}

Status Trainer::load_checkpoint(const std::string& dir) {
  Impl& im = *impl_;
  const fs::path folder(dir);
  // The manifest names the tensors and the step (a few kB); a FIFO or an oversized file is not one.
  constexpr uintmax_t kMaxManifestBytes = 16 << 20;
  std::error_code ec;
  if (fs::exists(folder / "checkpoint.json", ec)) {
    const std::string manifest_path = (folder / "checkpoint.json").string();
    OPENGE_RETURN_IF_ERROR(require_regular_file(manifest_path, "checkpoint manifest"));
    if (const uintmax_t size = fs::file_size(manifest_path, ec); !ec && size > kMaxManifestBytes)
      return invalid_argument("checkpoint " + dir + ": checkpoint.json is " + std::to_string(size) +
                              " bytes, over the 16 MiB a checkpoint manifest may have (not an OpenGE checkpoint)");
  }
  std::ifstream in(folder / "checkpoint.json");
  if (!in)
    return invalid_argument("checkpoint " + dir +
                            ": no checkpoint.json (write one with save_checkpoint / --checkpoint-dir)");
  json manifest = json::parse(in, nullptr, false);
  if (manifest.is_discarded() || manifest.value("format", "") != "openge-checkpoint")
    return invalid_argument("checkpoint " + dir + ": checkpoint.json is not an OpenGE checkpoint");
  if (manifest.value("version", 0) != kCheckpointVersion)
    return invalid_argument("checkpoint " + dir + ": format version " + std::to_string(manifest.value("version", 0)) +
                            ", this engine reads " + std::to_string(kCheckpointVersion));
  const std::string optimizer = manifest.value("optimizer", "");
  if (optimizer != training::optimizer_name(im.optimizer->config().kind))
    return invalid_argument("checkpoint " + dir + " was written by optimizer " + optimizer + ", this trainer uses " +
                            training::optimizer_name(im.optimizer->config().kind));
  if (manifest.value("trainable", std::vector<std::string>{}) != im.trainable)
    return invalid_argument("checkpoint " + dir + " trains other parameters than this trainer (another model?)");
  const int64_t steps = manifest.value("steps", int64_t{0});
  // The optimizer's buffers exist once it has stepped: sized like the parameters, per kind.
  std::vector<Tensor> opt_state;
  for (const Tensor& p : im.params)
    for (size_t k = 0; k < im.optimizer->state_per_param(); ++k) opt_state.emplace_back(p.dtype(), p.shape());
  if (steps == 0) opt_state.clear();
  std::vector<Tensor> params = im.params, state = im.state;
  for (Tensor& t : params) t = Tensor(t.dtype(), t.shape());
  for (Tensor& t : state) t = Tensor(t.dtype(), t.shape());
  OPENGE_RETURN_IF_ERROR(read_tensors(folder, manifest["param_files"], params, "parameters"));
  OPENGE_RETURN_IF_ERROR(read_tensors(folder, manifest["state_files"], state, "running statistics"));
  OPENGE_RETURN_IF_ERROR(read_tensors(folder, manifest["optimizer_files"], opt_state, "optimizer buffers"));
  // Into the layouts the steps hold them in (variable_format_optimize).
  OPENGE_RETURN_IF_ERROR(im.convert_held(params, 1, false));
  OPENGE_RETURN_IF_ERROR(im.convert_held(opt_state, im.optimizer->state_per_param(), false));
  // Nothing changes until every file has been read.
  for (size_t i = 0; i < params.size(); ++i) std::memcpy(im.params[i].raw(), params[i].raw(), params[i].nbytes());
  for (size_t i = 0; i < state.size(); ++i) std::memcpy(im.state[i].raw(), state[i].raw(), state[i].nbytes());
  im.optimizer->restore(steps, std::move(opt_state));
  im.optimizer->set_learning_rate(manifest.value("learning_rate", im.optimizer->config().lr));
  im.scaler.scale = manifest.value("loss_scale", im.scaler.scale);
  im.scaler.good_steps = manifest.value("loss_scale_good_steps", int64_t{0});
  im.scaler.skipped = manifest.value("skipped_steps", int64_t{0});
  return Status::Ok();
}

}  // namespace openge
