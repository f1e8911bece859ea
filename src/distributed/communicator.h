// The collectives of a data-parallel job, made by one communication thread per process so that
// the compute threads never wait inside MPI: the trainer posts an operation (an in-place sum
// all-reduce of a gradient bucket, a broadcast of the initial weights, a barrier) and goes on;
// the thread runs the operations in posting order with MPI's non-blocking collectives and polls
// them to completion. Every rank posts the same operations in the same order.
//
// Nothing hangs: an operation that has not completed HCCL_EXEC_TIMEOUT seconds after it started
// (HCCL_CONNECT_TIMEOUT for the set-up ones) ends the job through MPI_Abort with one line naming
// the operation, its bucket and step, and the ranks that never arrived at it. To name them, each
// rank tells every other one, on a communicator of its own, that it reached an operation before
// it joins it (a message of 8 bytes per pair and operation).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "distributed/world.h"
#include "openge/status.h"

namespace openge::distributed {

// What the profile records of one collective (hccl_*.json, the communication lane).
struct CollectiveEvent {
  std::string name;  // "allReduce", "broadcast", "barrier"
  std::string what;  // e.g. "gradient bucket 2"
  int bucket = -1;   // -1: not a gradient bucket
  int64_t step = 0;
  int64_t bytes = 0;
  int64_t start_ns = 0;  // steady clock: when the communication thread started it
  int64_t end_ns = 0;
  std::string algorithm;  // how MPI was asked to do it
};

struct Timeouts {
  int64_t exec_ms = 1836 * 1000;    // HCCL_EXEC_TIMEOUT (CANN's default, 1836 s)
  int64_t connect_ms = 120 * 1000;  // HCCL_CONNECT_TIMEOUT (CANN's default, 120 s)
  int64_t event_ms = -1;            // event_sync_timeout: a wait of the compute side for the thread (-1: none)
};

class Communicator {
 public:
  Communicator(const World& world, Timeouts timeouts);
  ~Communicator();  // waits for the posted operations, then stops the thread
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  using Ticket = int64_t;
  // In-place sum of `count` floats over every rank. `data` must stay valid until wait() returns.
  Ticket post_allreduce(float* data, int64_t count, std::string what, int bucket, int64_t step);
  // In-place sum of `count` 64-bit integers.
  Ticket post_allreduce(int64_t* data, int64_t count, std::string what, int64_t step);
  // `bytes` bytes from rank `root` to every rank (set-up: bounded by the connect timeout).
  Ticket post_broadcast(void* data, int64_t bytes, int root, std::string what);
  Ticket post_barrier(std::string what, int64_t step);

  // Waits for an operation (and every one posted before it). event_sync_timeout bounds the wait:
  // past it the error names the operation.
  Status wait(Ticket ticket);
  // Every posted operation.
  Status wait_all();

  // The events of the operations completed since the last call.
  std::vector<CollectiveEvent> take_events();
  const World& world() const { return world_; }
  const Timeouts& timeouts() const { return timeouts_; }

 private:
  enum class Kind { kAllReduceFloat, kAllReduceInt64, kBroadcast, kBarrier };
  struct Operation {
    Ticket ticket = 0;
    Kind kind = Kind::kBarrier;
    void* data = nullptr;
    int64_t count = 0;  // elements (bytes for a broadcast)
    int root = 0;
    bool setup = false;  // bounded by the connect timeout
    CollectiveEvent event;
  };
  Ticket post(Operation op);
  void run();
  void execute(Operation& op);

  World world_;
  Timeouts timeouts_;
  struct MpiState;
  std::unique_ptr<MpiState> mpi_;
  std::mutex mutex_;
  std::condition_variable posted_, completed_;
  std::deque<Operation> queue_;
  Ticket next_ticket_ = 1;
  Ticket completed_through_ = 0;
  std::vector<CollectiveEvent> events_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace openge::distributed
