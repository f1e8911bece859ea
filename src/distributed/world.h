// The processes of a data-parallel job. Open MPI is the distributed engine: `mpirun -np N openge
// train …` (or `mpirun -np N python3 script.py`) starts the ranks, on one host or on the hosts
// of a hostfile, and MPI says which rank each process is. A process that no launcher started is
// a world of one and never touches MPI.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "openge/status.h"
#include "openge/data_parallel.h"  // started_by_mpi_launcher, mark_job_failed

namespace openge::distributed {

struct World {
  int rank = 0;        // MPI_COMM_WORLD rank
  int size = 1;        // ranks in the job
  int local_rank = 0;  // rank among the ranks of this host: the device_id of CANN's rank table
  int local_size = 1;
  bool data_parallel() const { return size > 1; }
};

// The world of this process: a world of one unless an MPI launcher started it, in which case MPI
// is initialised (once per process, with MPI_THREAD_MULTIPLE: the communication thread makes the
// collective calls) and finalised at exit. CANN's RANK_ID / RANK_SIZE, when set, must agree with
// MPI's rank and size.
Result<World> join_world();

// The agreement check of join_world, on given values (null: the variable is unset).
Status check_rank_environment(const World& world, const char* rank_id, const char* rank_size);

// Ends the whole job after a failure that leaves the other ranks waiting in a collective: prints
// `message` on stderr (one line, with the rank) and calls MPI_Abort, which makes the launcher
// stop every rank (before MPI is initialised: exits, which the launcher notices). Never returns.
[[noreturn]] void abort_job(const World& world, const std::string& message);

// Bounds the set-up of a data-parallel job (MPI joining the ranks, the communicators, rank 0's
// weights reaching every rank): MPI's blocking set-up calls have no timeout of their own, so a
// thread waits HCCL_CONNECT_TIMEOUT for disarm() and otherwise ends the job with one line saying
// what did not happen. Does nothing in a process no MPI launcher started.
class SetupDeadline {
 public:
  explicit SetupDeadline(int64_t timeout_ms);
  ~SetupDeadline();
  void disarm();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

bool job_failed();

}  // namespace openge::distributed
