// Counts the heap allocations of a stretch of code, on every thread (OpenMP workers too): this
// binary replaces malloc, calloc, realloc and the aligned allocators with versions that forward
// to glibc's and, while counting is on, record each call's stack. operator new reaches them
// through libstdc++, oneDNN through its own malloc calls. Built only without sanitizers (they own
// the allocator).
//
// Who allocated: each stack is read from the allocator towards main, up to the first frame in
// this binary (OpenGE's code is linked into it). The library that frame called is the culprit:
// libc or libstdc++ (malloc, operator new, a container) means OpenGE allocated; oneDNN inside
// dnnl_primitive_execute or dnnl_sgemm means oneDNN's own execution did (oneDNN 2.6 builds a
// std::unordered_map of the arguments in every dnnl_primitive_execute, and sgemm its workspace:
// no caller can avoid either through the public API); any other oneDNN entry point means OpenGE
// asked oneDNN for something at run time. libgomp: the OpenMP runtime (a thread team).
#pragma once
#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace openge::alloc_test {

enum class Culprit { kOpenGE, kOneDnnExecute, kOpenMp, kOther };
const char* culprit_name(Culprit c);

struct Allocation {
  int node = -1;  // the node running when it happened (set_current_node), -1: none
  Culprit culprit = Culprit::kOpenGE;
  std::string where;  // the frame in this binary nearest the allocator, demangled
};

// Starts recording (clears what was recorded before).
void start_counting();
// Stops recording and returns the allocations, classified.
std::vector<Allocation> stop_counting();
// What RunObserver callbacks set: the allocations that follow are the node's.
void set_current_node(int node);

}  // namespace openge::alloc_test
