#include "distributed/communicator.h"

#include <mpi.h>
#include <sched.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <climits>

namespace openge::distributed {
namespace {

constexpr int kArrivalTag = 7001;
// MPI counts are ints: larger buffers go as several operations of at most this many elements.
constexpr int64_t kMaxChunk = int64_t{1} << 30;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void pause_us(int64_t us) {
  timespec ts{0, static_cast<long>(us * 1000)};
  nanosleep(&ts, nullptr);
}

std::string seconds_text(int64_t ms) {
  char b[32];
  std::snprintf(b, sizeof b, "%g s", static_cast<double>(ms) / 1000.0);
  return b;
}

}  // namespace

struct Communicator::MpiState {
  MPI_Comm collectives = MPI_COMM_NULL;  // the operations themselves
  MPI_Comm arrivals = MPI_COMM_NULL;     // the arrival messages, apart so they never match a collective's
};

Communicator::Communicator(const World& world, Timeouts timeouts)
    : world_(world), timeouts_(timeouts), mpi_(std::make_unique<MpiState>()) {
  MPI_Comm_dup(MPI_COMM_WORLD, &mpi_->collectives);
  MPI_Comm_dup(MPI_COMM_WORLD, &mpi_->arrivals);
  thread_ = std::thread([this] { run(); });
}

Communicator::~Communicator() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    // A failed rank with operations in flight would wait for them up to HCCL_EXEC_TIMEOUT: end
    // the job now (its error was reported where it happened).
    if (job_failed() && !queue_.empty())
      abort_job(world_, "this rank failed with " + std::to_string(queue_.size()) +
                            " collective operation(s) in flight; ending the job");
    stop_ = true;
  }
  posted_.notify_all();
  thread_.join();
  MPI_Comm_free(&mpi_->collectives);
  MPI_Comm_free(&mpi_->arrivals);
}

Communicator::Ticket Communicator::post(Operation op) {
  std::lock_guard<std::mutex> lock(mutex_);
  op.ticket = next_ticket_++;
  const Ticket t = op.ticket;
  queue_.push_back(std::move(op));
  posted_.notify_one();
  return t;
}

Communicator::Ticket Communicator::post_allreduce(float* data, int64_t count, std::string what, int bucket,
                                                  int64_t step) {
  Operation op;
  op.kind = Kind::kAllReduceFloat;
  op.data = data;
  op.count = count;
  op.event = {"allReduce", std::move(what), bucket, step, count * 4, 0, 0, "MPI_Iallreduce(sum, float32)"};
  return post(std::move(op));
}

Communicator::Ticket Communicator::post_allreduce(int64_t* data, int64_t count, std::string what, int64_t step) {
  Operation op;
  op.kind = Kind::kAllReduceInt64;
  op.data = data;
  op.count = count;
  op.event = {"allReduce", std::move(what), -1, step, count * 8, 0, 0, "MPI_Iallreduce(sum, int64)"};
  return post(std::move(op));
}

Communicator::Ticket Communicator::post_broadcast(void* data, int64_t bytes, int root, std::string what) {
  Operation op;
  op.kind = Kind::kBroadcast;
  op.data = data;
  op.count = bytes;
  op.root = root;
  op.setup = true;
  op.event = {"broadcast", std::move(what), -1, 0, bytes, 0, 0, "MPI_Ibcast(root " + std::to_string(root) + ")"};
  return post(std::move(op));
}

Communicator::Ticket Communicator::post_barrier(std::string what, int64_t step) {
  Operation op;
  op.kind = Kind::kBarrier;
  op.event = {"barrier", std::move(what), -1, step, 0, 0, 0, "MPI_Ibarrier"};
  return post(std::move(op));
}

Status Communicator::wait(Ticket ticket) {
  std::unique_lock<std::mutex> lock(mutex_);
  auto done = [&] { return completed_through_ >= ticket; };
  if (timeouts_.event_ms < 0) {
    completed_.wait(lock, done);
    return Status::Ok();
  }
  if (completed_.wait_for(lock, std::chrono::milliseconds(timeouts_.event_ms), done)) return Status::Ok();
  std::string what = "operation " + std::to_string(ticket);
  for (const Operation& op : queue_)
    if (op.ticket == ticket)
      what = op.event.name + " of " + op.event.what + " (step " + std::to_string(op.event.step) + ")";
  return resource_exhausted("event_sync_timeout: the training step waited " + seconds_text(timeouts_.event_ms) +
                            " for the communication thread to finish the " + what +
                            "; raise event_sync_timeout (ms, -1 waits without limit) if the network is slow");
}

Status Communicator::wait_all() {
  Ticket last;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last = next_ticket_ - 1;
  }
  return wait(last);
}

std::vector<CollectiveEvent> Communicator::take_events() {
  std::lock_guard<std::mutex> lock(mutex_);
  return std::exchange(events_, {});
}

void Communicator::run() {
  for (;;) {
    Operation op;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      posted_.wait(lock, [&] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, nothing left
      op = queue_.front();
    }
    execute(op);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.pop_front();
      completed_through_ = op.ticket;
      events_.push_back(std::move(op.event));
    }
    completed_.notify_all();
  }
}

void Communicator::execute(Operation& op) {
  const int rank = world_.rank, size = world_.size;
  op.event.start_ns = now_ns();
  // Arrival: tell every peer this rank reached the operation, and listen for theirs.
  std::vector<int64_t> arrived(static_cast<size_t>(size), -1);
  std::vector<MPI_Request> sends, receives(static_cast<size_t>(size), MPI_REQUEST_NULL);
  const int64_t token = op.ticket;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    sends.emplace_back();
    MPI_Isend(&token, 1, MPI_INT64_T, peer, kArrivalTag, mpi_->arrivals, &sends.back());
    MPI_Irecv(&arrived[static_cast<size_t>(peer)], 1, MPI_INT64_T, peer, kArrivalTag, mpi_->arrivals,
              &receives[static_cast<size_t>(peer)]);
  }
  // The operation, in chunks MPI's int counts can hold.
  std::vector<MPI_Request> parts;
  auto chunks = [&](int64_t elements, int64_t element_bytes, auto&& start) {
    for (int64_t off = 0; off == 0 || off < elements; off += kMaxChunk) {
      parts.emplace_back();
      start(static_cast<char*>(op.data) + off * element_bytes, static_cast<int>(std::min(kMaxChunk, elements - off)),
            &parts.back());
    }
  };
  switch (op.kind) {
    case Kind::kAllReduceFloat:
      chunks(op.count, 4, [&](void* p, int n, MPI_Request* r) {
        MPI_Iallreduce(MPI_IN_PLACE, p, n, MPI_FLOAT, MPI_SUM, mpi_->collectives, r);
      });
      break;
    case Kind::kAllReduceInt64:
      chunks(op.count, 8, [&](void* p, int n, MPI_Request* r) {
        MPI_Iallreduce(MPI_IN_PLACE, p, n, MPI_INT64_T, MPI_SUM, mpi_->collectives, r);
      });
      break;
    case Kind::kBroadcast:
      chunks(op.count, 1,
             [&](void* p, int n, MPI_Request* r) { MPI_Ibcast(p, n, MPI_BYTE, op.root, mpi_->collectives, r); });
      break;
    case Kind::kBarrier:
      parts.emplace_back();
      MPI_Ibarrier(mpi_->collectives, &parts.back());
      break;
  }
  const int64_t limit_ms = op.setup ? timeouts_.connect_ms : timeouts_.exec_ms;
  const int64_t deadline = op.event.start_ns + limit_ms * 1000000;
  // MPI's non-blocking collectives advance only inside MPI calls, one message fragment per call
  // or so: the thread tests without sleeping while data moves, yielding the core to the compute
  // threads between tests; it sleeps only while nothing has moved for a while (a peer still
  // computing), so an idle wait costs little CPU.
  int idle_tests = 0;
  for (;;) {
    int done = 0;
    MPI_Testall(static_cast<int>(parts.size()), parts.data(), &done, MPI_STATUSES_IGNORE);
    int tokens_done = 0;
    MPI_Testall(static_cast<int>(receives.size()), receives.data(), &tokens_done, MPI_STATUSES_IGNORE);
    if (done && tokens_done) break;
    if (now_ns() > deadline) {
      // Which peers never said they arrived (a finished receive became MPI_REQUEST_NULL).
      std::string missing;
      for (int peer = 0; peer < size; ++peer) {
        if (peer == rank) continue;
        int got = 0;
        MPI_Test(&receives[static_cast<size_t>(peer)], &got, MPI_STATUS_IGNORE);
        if (!got) missing += (missing.empty() ? "" : ", ") + std::to_string(peer);
      }
      const std::string limit =
          std::string(op.setup ? "HCCL_CONNECT_TIMEOUT" : "HCCL_EXEC_TIMEOUT") + " (" + seconds_text(limit_ms) + ")";
      abort_job(world_, op.event.name + " of " + op.event.what + " (step " + std::to_string(op.event.step) + ", " +
                            std::to_string(op.event.bytes) + " bytes) did not complete within " + limit + ": " +
                            (missing.empty() ? std::string("every rank arrived, but the operation did not finish "
                                                           "(a rank stopped inside it, or the network failed)")
                                             : "rank(s) " + missing + " never arrived") +
                            "; the job is aborted");
    }
    if (++idle_tests < 2000) {
      sched_yield();
    } else {
      pause_us(50);
    }
  }
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  op.event.end_ns = now_ns();
}

}  // namespace openge::distributed
