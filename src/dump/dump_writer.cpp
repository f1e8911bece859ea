#include "dump/dump_writer.h"

#include <filesystem>

#include "base/file_modes.h"
#include "dump/tensor_stats.h"
#include "io/atomic_file.h"

namespace openge::dump {

size_t record_bytes(const DumpRecord& record) {
  size_t bytes = 0;
  for (const auto* list : {&record.inputs, &record.outputs})
    for (const Tensor& t : *list) bytes += t.defined() ? t.nbytes() : 0;
  return bytes;
}

DumpWriter::DumpWriter(size_t max_pending_bytes) : max_pending_bytes_(max_pending_bytes), thread_([this] { loop(); }) {}

DumpWriter::~DumpWriter() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_writer_.notify_all();
  thread_.join();
}

void DumpWriter::submit(DumpJob job) {
  const size_t bytes = record_bytes(job.record);
  std::unique_lock<std::mutex> lock(mutex_);
  // One job larger than the cap still goes through once the queue is empty.
  wake_producers_.wait(lock, [&] { return pending_bytes_ == 0 || pending_bytes_ + bytes <= max_pending_bytes_; });
  pending_bytes_ += bytes;
  queue_.push_back(std::move(job));
  wake_writer_.notify_one();
}

Status DumpWriter::flush() {
  std::unique_lock<std::mutex> lock(mutex_);
  wake_producers_.wait(lock, [&] { return queue_.empty() && in_progress_ == 0; });
  return error_;
}

Status DumpWriter::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

void DumpWriter::loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_writer_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, all written
    DumpJob job = std::move(queue_.front());
    queue_.pop_front();
    ++in_progress_;
    const size_t bytes = record_bytes(job.record);
    const bool failed_before = !error_.ok();
    lock.unlock();
    // After a failure (a full disk) the rest is dropped: the error is reported once.
    Status st = failed_before ? Status::Ok() : write(job);
    job = DumpJob();  // free the tensors before taking the lock again
    lock.lock();
    if (!st.ok() && error_.ok()) error_ = st;
    pending_bytes_ -= bytes;
    --in_progress_;
    wake_producers_.notify_all();
  }
}

Status DumpWriter::make_dirs(const std::string& dir) {
  if (made_dirs_.count(dir)) return Status::Ok();
  OPENGE_RETURN_IF_ERROR(make_dump_directories(dir).with_context("check dump_config.dump_path"));
  made_dirs_.insert(dir);
  return Status::Ok();
}

Status DumpWriter::write(const DumpJob& job) {
  OPENGE_RETURN_IF_ERROR(make_dirs(job.dir));
  const std::string path = (std::filesystem::path(job.dir) / job.file).string();
  if (!job.text.empty()) return write_file_atomically(path, job.text, kPrivateFileMode);
  if (job.stats) return write_file_atomically(path + ".csv", stats_csv(job.record), kPrivateFileMode);
  return write_dump_file(path, job.record);
}

}  // namespace openge::dump
