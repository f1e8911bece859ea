#include "distributed/world.h"

#include <dlfcn.h>
#include <mpi.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <thread>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace openge::distributed {
namespace {

std::atomic<bool> g_failed{false};
std::once_flag g_init_once;
Status g_init_status;
World g_world;

void finalize_at_exit() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (g_failed.load()) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Finalize();
}

bool parse_int(const char* text, int& out) {
  if (!text || !*text) return false;
  char* end = nullptr;
  const long v = std::strtol(text, &end, 10);
  if (*end != '\0' || v < 0 || v > (1 << 30)) return false;
  out = static_cast<int>(v);
  return true;
}

void initialise() {
  // Open MPI loads its transports as plugins that resolve libmpi's symbols globally; a process
  // that loaded libmpi as a dependency of a module opened with RTLD_LOCAL (the Python binding)
  // has them hidden, so promote the already-loaded library to global scope first.
  for (const char* name : {"libmpi.so.40", "libmpi.so"})
    if (dlopen(name, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD)) break;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    g_init_status = unsupported(
        "MPI_Init_thread failed: check that mpirun started this process and that Open MPI "
        "(Debian's openmpi-bin) is installed on every host");
    return;
  }
  std::atexit(finalize_at_exit);
  if (provided < MPI_THREAD_MULTIPLE) {
    g_init_status = unsupported(
        "this MPI library does not support MPI_THREAD_MULTIPLE, which the communication "
        "thread of data-parallel training needs; use Open MPI from Debian's openmpi-bin");
    return;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_world.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_world.size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_world.rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &g_world.local_rank);
  MPI_Comm_size(local, &g_world.local_size);
  MPI_Comm_free(&local);
  g_init_status = check_rank_environment(g_world, std::getenv("RANK_ID"), std::getenv("RANK_SIZE"));
}

}  // namespace

bool started_by_mpi_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

Status check_rank_environment(const World& world, const char* rank_id, const char* rank_size) {
  int id = 0, size = 0;
  if (rank_id && !parse_int(rank_id, id))
    return invalid_argument("RANK_ID must be a rank number, got '" + std::string(rank_id) + "'");
  if (rank_size && !parse_int(rank_size, size))
    return invalid_argument("RANK_SIZE must be a number of ranks, got '" + std::string(rank_size) + "'");
  if (rank_size && size != world.size)
    return invalid_argument("RANK_SIZE=" + std::string(rank_size) + " but mpirun started " +
                            std::to_string(world.size) +
                            " ranks: unset RANK_SIZE (MPI gives the size) or make it agree with -np");
  if (rank_id && id != world.rank)
    return invalid_argument("RANK_ID=" + std::string(rank_id) + " but MPI made this process rank " +
                            std::to_string(world.rank) +
                            ": unset RANK_ID (MPI gives each rank its id) or set it per rank "
                            "to OMPI_COMM_WORLD_RANK");
  return Status::Ok();
}

Result<World> join_world() {
  if (!started_by_mpi_launcher()) return World{};
  std::call_once(g_init_once, initialise);
  if (!g_init_status.ok()) return g_init_status;
  return g_world;
}

void mark_job_failed() { g_failed.store(true); }
bool job_failed() { return g_failed.load(); }

void abort_job(const World& world, const std::string& message) {
  g_failed.store(true);
  std::fprintf(stderr, "openge rank %d/%d: %s\n", world.rank, world.size, message.c_str());
  std::fflush(stderr);
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
  std::_Exit(1);
}

struct SetupDeadline::State {
  std::mutex mutex;
  std::condition_variable disarmed;
  bool done = false;
  std::thread thread;
};

SetupDeadline::SetupDeadline(int64_t timeout_ms) {
  if (!started_by_mpi_launcher()) return;
  state_ = std::make_unique<State>();
  State* s = state_.get();
  s->thread = std::thread([s, timeout_ms] {
    std::unique_lock<std::mutex> lock(s->mutex);
    if (s->disarmed.wait_for(lock, std::chrono::milliseconds(timeout_ms), [s] { return s->done; })) return;
    // The rank as the launcher numbered it: MPI may not have said yet.
    World w;
    for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
      if (const char* r = std::getenv(v); r && parse_int(r, w.rank)) break;
    if (const char* n = std::getenv("OMPI_COMM_WORLD_SIZE")) parse_int(n, w.size);
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g s", static_cast<double>(timeout_ms) / 1000.0);
    abort_job(w, std::string("the data-parallel set-up (MPI joining the ranks, rank 0's initial weights) did not "
                             "complete within HCCL_CONNECT_TIMEOUT (") +
                     limit + "): a rank did not start, or stopped; the job is aborted");
  });
}

void SetupDeadline::disarm() {
  if (!state_) return;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->done = true;
  }
  state_->disarmed.notify_all();
  if (state_->thread.joinable()) state_->thread.join();
}

SetupDeadline::~SetupDeadline() { disarm(); }

}  // namespace openge::distributed
