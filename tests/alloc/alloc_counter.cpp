#include "alloc_counter.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

// glibc's own allocator entry points, which the replacements below forward to.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* p, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
}

namespace openge::alloc_test {
namespace {

constexpr int kFrames = 40;
constexpr size_t kMaxRecords = size_t{1} << 14;

struct Record {
  int node;
  int depth;
  void* frames[kFrames];
};

Record g_records[kMaxRecords];
std::atomic<bool> g_counting{false};
std::atomic<size_t> g_next{0};
std::atomic<int> g_node{-1};
thread_local bool t_inside = false;  // backtrace() may allocate itself

// Frames 0 and 1 of a record are this function and the replaced allocator.
__attribute__((noinline)) void record() {
  if (!g_counting.load(std::memory_order_relaxed) || t_inside) return;
  t_inside = true;
  const size_t i = g_next.fetch_add(1, std::memory_order_relaxed);
  if (i < kMaxRecords) {
    Record& r = g_records[i];
    r.node = g_node.load(std::memory_order_relaxed);
    r.depth = backtrace(r.frames, kFrames);
  }
  t_inside = false;
}

bool in_library(const Dl_info& info, const char* name) { return info.dli_fname && std::strstr(info.dli_fname, name); }

std::string demangled(const char* name) {
  if (!name) return "?";
  int status = 0;
  char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  std::string out = status == 0 && d ? d : name;
  std::free(d);
  return out;
}

Allocation classify(const Record& r) {
  Dl_info self{};
  dladdr(reinterpret_cast<void*>(&start_counting), &self);
  Allocation a;
  a.node = r.node;
  const int first = 2;
  int own = -1;
  Dl_info info{};
  for (int k = first; k < r.depth; ++k) {
    if (dladdr(r.frames[k], &info) && info.dli_fbase == self.dli_fbase) {
      own = k;
      break;
    }
  }
  // The library called last before the allocator was reached: the callee of this binary's
  // nearest frame, or (a thread of a runtime, no frame of ours) the frame above the allocator.
  const int callee = own > first ? own - 1 : own < 0 ? first : -1;
  if (own >= 0) {
    // A function of this binary that dladdr cannot name (internal linkage) is given as its
    // offset in the binary, for `addr2line -f -C -e openge_alloc_tests OFFSET`.
    dladdr(r.frames[own], &info);
    char offset[32];
    std::snprintf(offset, sizeof offset, "0x%zx",
                  static_cast<size_t>(static_cast<char*>(r.frames[own]) - static_cast<char*>(info.dli_fbase)));
    a.where = info.dli_sname ? demangled(info.dli_sname) : std::string("offset ") + offset;
  }
  if (callee < 0 || callee >= r.depth) return a;  // this binary called the allocator itself
  Dl_info lib{};
  if (!dladdr(r.frames[callee], &lib)) {
    a.culprit = Culprit::kOther;
    return a;
  }
  if (in_library(lib, "libdnnl")) {
    // Only oneDNN's own execution (a primitive's, or a GEMM call's) is its business; anything
    // else (creating memory objects, primitives …) OpenGE asked for.
    static constexpr const char* kExecuting[] = {"dnnl_primitive_execute", "dnnl_stream_wait", "dnnl_sgemm"};
    bool executing = own < 0;
    for (const char* name : kExecuting)
      executing = executing || (lib.dli_sname && std::strcmp(lib.dli_sname, name) == 0);
    a.culprit = executing ? Culprit::kOneDnnExecute : Culprit::kOpenGE;
  } else if (in_library(lib, "libgomp")) {
    a.culprit = Culprit::kOpenMp;
  } else if (in_library(lib, "libc.so") || in_library(lib, "libstdc++") || in_library(lib, "libgcc")) {
    a.culprit = own >= 0 ? Culprit::kOpenGE : Culprit::kOther;
  } else {
    a.culprit = Culprit::kOther;
  }
  if (own < 0) a.where = std::string(lib.dli_fname ? lib.dli_fname : "?") + ": " + demangled(lib.dli_sname);
  return a;
}

}  // namespace

const char* culprit_name(Culprit c) {
  switch (c) {
    case Culprit::kOpenGE:
      return "OpenGE";
    case Culprit::kOneDnnExecute:
      return "oneDNN internal";
    case Culprit::kOpenMp:
      return "OpenMP runtime";
    case Culprit::kOther:
      return "other";
  }
  return "?";
}

void start_counting() {
  void* warm[4];
  backtrace(warm, 4);  // its first call loads the unwinder (and allocates)
  g_next.store(0);
  g_node.store(-1);
  g_counting.store(true);
}

std::vector<Allocation> stop_counting() {
  g_counting.store(false);
  const size_t n = std::min(g_next.load(), kMaxRecords);
  std::vector<Allocation> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) out.push_back(classify(g_records[i]));
  return out;
}

void set_current_node(int node) { g_node.store(node, std::memory_order_relaxed); }

}  // namespace openge::alloc_test

// The replaced allocator: glibc's, plus a record while counting. free() is glibc's own.
extern "C" {

void* malloc(size_t size) {
  openge::alloc_test::record();
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  openge::alloc_test::record();
  return __libc_calloc(count, size);
}

void* realloc(void* p, size_t size) {
  openge::alloc_test::record();
  return __libc_realloc(p, size);
}

void* memalign(size_t alignment, size_t size) {
  openge::alloc_test::record();
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  openge::alloc_test::record();
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
  openge::alloc_test::record();
  void* p = __libc_memalign(alignment, size);
  if (!p && size) return ENOMEM;
  *out = p;
  return 0;
}

}  // extern "C"
