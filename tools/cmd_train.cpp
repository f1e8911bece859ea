// openge train: trains an ONNX model on .npy data (one file per model input, named after it, and
// labels.npy) and saves it as an ONNX model with its trained initializers.
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli_args.h"
#include "cli_errors.h"
#include "commands.h"
#include "openge/data_parallel.h"
#include "openge/trainer.h"
#include "session_flags.h"
#include "openge/training_data.h"
#include "openge/loss_curve.h"

namespace openge::cli {
namespace fs = std::filesystem;

namespace {

std::vector<FlagSpec> train_flags() {
  std::vector<FlagSpec> flags = {
      {"model", "M.onnx", "the model to train (required)"},
      {"data", "DIR",
       "training data: DIR/<input>.npy per model input and DIR/labels.npy, first axis = samples (required)"},
      {"eval-data", "DIR", "data of the same form to report accuracy on after each epoch (cross_entropy)"},
      {"loss", "LOSS", "cross_entropy (default), mse, or model (the model computes its own scalar loss)"},
      {"loss-output", "NAME", "the model output the loss reads (default: the first)"},
      {"optimizer", "OPT", "sgd (default), momentum, nesterov, adam, adamw or lamb"},
      {"lr", "X", "learning rate (default 0.01)"},
      {"momentum", "X", "momentum of momentum / nesterov (default 0.9)"},
      {"weight-decay", "X", "weight decay (default 0)"},
      {"loss-scale", "S", "auto (default: dynamic under a float16 precision mode), dynamic, none, or a fixed number"},
      {"batch", "N", "samples per step (default 32); under mpirun the global batch, shared among the ranks"},
      {"epochs", "N", "passes over the data (default 1)"},
      {"seed", "N", "seed of the data order and of dropout's masks (default 0)"},
      {"no-shuffle", "", "keep the data in file order"},
      {"save", "OUT.onnx", "write the trained model here"},
      {"checkpoint-dir", "D", "write a checkpoint (weights, optimizer state, step) to D after every epoch"},
      {"resume", "D", "continue from the checkpoint in D: the same steps the uninterrupted run would take"},
      {"split-by-index", "I,J,...",
       "under mpirun: gradient all-reduce buckets ending at these gradient indices "
       "(set_split_strategy_by_idx)"},
      {"split-by-size", "P,Q,...",
       "under mpirun: gradient all-reduce buckets of these percentages of the gradient "
       "bytes (set_split_strategy_by_size; default 96.54,3.46)"},
      {"curve", "PREFIX", "write the loss curve to PREFIX.csv and PREFIX.html (default: OUT.loss beside --save)"},
  };
  for (auto& f : session_flag_specs()) flags.push_back(f);
  return flags;
}

int fail(const Status& s) {
  // Under mpirun the other ranks wait for this one: the job ends with it (MPI_Abort at exit).
  if (distributed::started_by_mpi_launcher()) distributed::mark_job_failed();
  return report_error("train", s);
}

Result<float> get_float(const Args& args, const std::string& name, float fallback) {
  if (!args.has(name)) return fallback;
  const std::string v = args.get(name);
  try {
    size_t used = 0;
    const float f = std::stof(v, &used);
    if (used == v.size() && std::isfinite(f) && f >= 0) return f;
  } catch (const std::exception&) {
  }
  return invalid_argument("--" + name + " must be a non-negative number, got '" + v + "'");
}

// Fraction of samples whose highest score is their label (outputs [N, C], labels [N]).
Result<double> accuracy(Trainer& trainer, const training::Dataset& data, int64_t batch) {
  training::BatchPlan plan;
  plan.batch = batch;
  plan.shuffle = false;
  int64_t right = 0;
  const size_t inputs = trainer.inputs().size();  // the labels come after the model's inputs
  for (const auto& indices : training::epoch_batches(data.size(), plan, 0)) {
    std::vector<Tensor> feed = data.gather(indices);
    const Tensor labels = feed.back();
    feed.resize(inputs);
    auto out = trainer.evaluate(feed);
    if (!out.ok()) return out.status();
    const Tensor& scores = (*out)[0];
    if (scores.rank() != 2 || scores.dtype() != DType::kFloat32 || scores.dim(0) != labels.numel())
      return invalid_argument("accuracy needs scores [N, C] in float32 and one label per sample");
    const std::vector<int64_t> l = labels.to_int64_vector();
    for (int64_t i = 0; i < scores.dim(0); ++i) {
      const float* row = scores.data<float>() + i * scores.dim(1);
      int64_t best = 0;
      for (int64_t c = 1; c < scores.dim(1); ++c)
        if (row[c] > row[best]) best = c;
      right += best == l[static_cast<size_t>(i)];
    }
  }
  return static_cast<double>(right) / static_cast<double>(data.size());
}

}  // namespace

int cmd_train(int argc, char** argv) {
  const std::vector<FlagSpec> flags = train_flags();
  auto args = Args::parse(argc, argv, 2, flags);
  if (!args.ok()) return fail(args.status());
  if (args->has("help")) {
    std::cout << usage(
        "openge train --model M.onnx --data DIR [--loss cross_entropy|mse|model] [--optimizer OPT] "
        "[--lr X] [--batch N] [--epochs N] [--save OUT.onnx]",
        "Trains the model's float initializers on DIR's samples (graph_run_mode=1, the training\n"
        "scenario) and saves the trained model as ONNX. Prints the loss per epoch (and the accuracy on\n"
        "--eval-data) and writes the loss curve as CSV and HTML.",
        flags);
    return 0;
  }
  std::vector<std::string> problems;
  auto note = [&](const Status& s) {
    if (!s.ok()) problems.push_back(s.message());
  };
  if (!args->has("model")) problems.push_back("--model is required");
  if (!args->has("data")) problems.push_back("--data is required");
  auto batch = args->get_int("batch", 32, 1, 1 << 20);
  auto epochs = args->get_int("epochs", 1, 1, 1000000);
  auto seed = args->get_int("seed", 0, 0, 1 << 30);
  auto lr = get_float(*args, "lr", 0.01f);
  auto momentum = get_float(*args, "momentum", 0.9f);
  auto weight_decay = get_float(*args, "weight-decay", 0.0f);
  note(batch.status());
  note(epochs.status());
  note(seed.status());
  note(lr.status());
  note(momentum.status());
  note(weight_decay.status());
  if (!problems.empty()) {
    std::string all;
    for (size_t i = 0; i < problems.size(); ++i) all += (i ? "; " : "") + problems[i];
    return fail(invalid_argument(all));
  }
  CreatedFolder created;
  auto session = session_options_from_flags("train", *args, created);
  if (!session) return 1;

  TrainerOptions options;
  options.session = *session;
  options.loss = args->get("loss", "cross_entropy");
  options.loss_output = args->get("loss-output");
  options.optimizer = args->get("optimizer", "sgd");
  options.learning_rate = *lr;
  options.momentum = *momentum;
  options.weight_decay = *weight_decay;
  options.loss_scale = args->get("loss-scale", "auto");
  options.seed = *seed;  // the data order's and the dropout masks' seed
  if (args->has("split-by-index")) {
    auto split = distributed::parse_split_indices(args->get("split-by-index"));
    if (!split.ok()) return fail(split.status().with_context("--split-by-index"));
    options.split_by_index = *split;
  }
  if (args->has("split-by-size")) {
    auto split = distributed::parse_split_sizes(args->get("split-by-size"));
    if (!split.ok()) return fail(split.status().with_context("--split-by-size"));
    options.split_by_size = *split;
  }
  auto trainer = Trainer::open(args->get("model"), options);
  if (!trainer.ok()) return fail(trainer.status());
  Trainer& t = **trainer;
  created.keep = true;

  std::vector<std::string> names;
  for (const TensorInfo& f : t.feeds()) names.push_back(f.name);
  auto data = training::Dataset::from_npy_dir(args->get("data"), names);
  if (!data.ok()) return fail(data.status());
  std::optional<training::Dataset> eval;
  if (args->has("eval-data") && options.loss != "cross_entropy")
    return fail(invalid_argument("--eval-data reports classification accuracy: it needs --loss cross_entropy"));
  if (args->has("eval-data")) {
    auto e = training::Dataset::from_npy_dir(args->get("eval-data"), names);
    if (!e.ok()) return fail(e.status());
    eval = std::move(e.value());
  }
  const std::string save = args->get("save");
  const std::string curve =
      args->get("curve", save.empty() ? "train.loss" : (fs::path(save).replace_extension("").string() + ".loss"));

  training::BatchPlan plan;
  plan.batch = *batch;
  plan.seed = static_cast<uint64_t>(*seed);
  plan.shuffle = !args->has("no-shuffle");
  training::LossCurve record;
  // Under mpirun every rank trains on its shard of each global batch; rank 0 speaks and writes.
  const int rank = t.rank(), ranks = t.world_size();
  const bool speaks = rank == 0;
  if (*batch < ranks)
    return fail(invalid_argument("--batch " + std::to_string(*batch) + " is the global batch, shared among " +
                                 std::to_string(ranks) + " ranks: give at least one sample per rank"));
  const bool terminal = speaks && isatty(STDERR_FILENO);
  if (speaks)
    std::cout << "training " << args->get("model") << ": " << data->size() << " samples, " << t.trainable().size()
              << " parameters, optimizer " << options.optimizer << ", lr " << options.learning_rate << ", batch "
              << *batch << ", " << *epochs << " epochs"
              << (ranks > 1 ? ", " + std::to_string(ranks) + " ranks (data-parallel)" : std::string()) << "\n";
  const int64_t per_epoch = static_cast<int64_t>(training::epoch_batches(data->size(), plan, 1).size());
  int64_t step = 0, first_epoch = 1, skip = 0;
  if (args->has("resume")) {
    if (Status s = t.load_checkpoint(args->get("resume")); !s.ok()) return fail(s);
    step = t.steps();
    first_epoch = step / per_epoch + 1;
    skip = step % per_epoch;
    if (speaks)
      std::cout << "resumed from " << args->get("resume") << " after step " << step << " (epoch " << first_epoch
                << ", batch " << skip + 1 << ")\n";
  }
  const auto run_start = std::chrono::steady_clock::now();
  for (int64_t epoch = first_epoch; epoch <= *epochs; ++epoch) {
    auto batches = training::epoch_batches(data->size(), plan, epoch);
    if (epoch == first_epoch) batches.erase(batches.begin(), batches.begin() + skip);
    if (ranks > 1) {
      // A last global batch smaller than the rank count would leave a rank without samples.
      if (!batches.empty() && static_cast<int64_t>(batches.back().size()) < ranks) batches.pop_back();
      for (auto& b : batches) b = training::shard_of_batch(b, rank, ranks);
    }
    if (batches.empty()) continue;
    training::Prefetcher prefetch(*data, batches);
    double loss_sum = 0, epoch_seconds = 0;
    int64_t epoch_samples = 0;
    for (size_t b = 0; b < batches.size(); ++b) {
      training::BatchTiming timing;
      auto feed = prefetch.next(&timing);
      t.record_batch_timing(static_cast<int64_t>(batches[b].size()), timing.gather_seconds, timing.wait_seconds,
                            timing.was_ready);
      const auto start = std::chrono::steady_clock::now();
      auto loss = t.step(*feed);
      if (!loss.ok()) return fail(loss.status());
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      epoch_seconds += seconds;
      // Samples of the global batch (every rank's shard): the rates are the job's.
      const int64_t samples = static_cast<int64_t>(batches[b].size()) * ranks;
      epoch_samples += samples;
      loss_sum += *loss;
      record.add_step({epoch, ++step, *loss, static_cast<double>(samples) / std::max(seconds, 1e-9)});
      if (terminal) {
        const double rate = static_cast<double>(epoch_samples) / std::max(epoch_seconds, 1e-9);
        const double left =
            static_cast<double>((*epochs - epoch) * data->size() + (data->size() - epoch_samples)) / rate;
        std::fprintf(stderr, "\repoch %lld/%d step %zu/%zu loss %.4f  %.0f samples/s  ETA %.0f s   ",
                     static_cast<long long>(epoch), *epochs, b + 1, batches.size(), *loss, rate, left);
      }
    }
    if (terminal) std::fprintf(stderr, "\r%80s\r", "");
    training::EpochRecord er{epoch, loss_sum / static_cast<double>(batches.size()), -1};
    if (speaks)
      std::printf("epoch %lld/%d: mean loss %.5f, %.0f samples/s", static_cast<long long>(epoch), *epochs, er.mean_loss,
                  static_cast<double>(epoch_samples) / std::max(epoch_seconds, 1e-9));
    if (eval && speaks) {
      auto acc = accuracy(t, *eval, *batch);
      if (!acc.ok()) return fail(acc.status().with_context("--eval-data"));
      er.accuracy = *acc;
      std::printf(", eval accuracy %.2f %%", 100 * *acc);
    }
    if (speaks) std::printf("\n");
    std::fflush(stdout);
    record.add_epoch(er);
    if (args->has("checkpoint-dir"))
      if (Status s = t.save_checkpoint(args->get("checkpoint-dir")); !s.ok()) return fail(s);
  }
  if (speaks && ranks > 1) {
    std::string split;
    for (int64_t i : t.gradient_split()) split += (split.empty() ? "" : ",") + std::to_string(i);
    std::printf("%d ranks; gradient split by index %s (%zu all-reduce buckets)%s\n", ranks, split.c_str(),
                t.gradient_split().size(),
                t.tuning_gradient_split() ? "; aoe_mode 4 had not measured every candidate split: train longer" : "");
  }
  if (speaks) {
    std::printf("trained %lld steps in %.1f s", static_cast<long long>(step),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - run_start).count());
    if (t.skipped_steps() > 0 || t.loss_scale() != 1.0f)
      std::printf("; loss scale %g, %lld steps skipped for gradient overflow", t.loss_scale(),
                  static_cast<long long>(t.skipped_steps()));
    std::printf("\n");
    if (Status s = record.write_csv(curve + ".csv"); !s.ok()) return fail(s);
    if (Status s = record.write_html(curve + ".html", fs::path(args->get("model")).stem().string()); !s.ok())
      return fail(s);
    std::cout << "loss curve: " << curve << ".csv, " << curve << ".html\n";
  }
  if (!save.empty() && speaks) {
    if (Status s = t.save(save); !s.ok()) return fail(s);
    std::cout << "trained model: " << save << "\n";
  }
  if (const std::string dir = t.profiling_dir(); !dir.empty()) {
    if (Status s = t.finish_profiling(); !s.ok()) return fail(s.with_context("profiling"));
    std::cout << "profiling data: " << dir << " (every step an iteration; report: " << dir
              << "/mindstudio_profiler_output/report.html)\n";
  }
  if (const std::string dir = t.dump_dir(); !dir.empty()) {
    if (Status s = t.flush_dump(); !s.ok()) return fail(s.with_context("dump"));
    std::cout << "dump: " << dir << "\n";
  }
  return 0;
}

}  // namespace openge::cli
