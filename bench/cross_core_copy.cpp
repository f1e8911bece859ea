// Whether this machine's cores share a cache, as a node split over an OpenMP team sees it: a copy
// of 1.5 MB in 256-byte blocks (a channels-last Concat of two 55x55x64 float tensors), timed at 1
// and 2 threads, with the calling thread reading the whole result after each copy as the next node
// would. Where the cores share a cache the 2-thread copy takes about half the time; where they do
// not, every line the worker wrote travels back (bench/RESULTS.md, "cores without a shared cache").
//
//   ninja -C build openge_cross_core_copy && build/openge_cross_core_copy
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  constexpr size_t kHalf = 1548800 / 2;
  constexpr int kRows = 3025, kBlock = 256, kRounds = 2000;
  std::vector<char> a(kHalf, 1), b(kHalf, 2), out(2 * kHalf), consumer(2 * kHalf);
  for (bool consumer_reads : {false, true})
    for (int threads : {1, 2}) {
      std::vector<double> us;
      for (int it = 0; it < kRounds; ++it) {
        const auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for num_threads(threads) schedule(static)
        for (int r = 0; r < kRows; ++r) {
          std::memcpy(out.data() + r * 2 * kBlock, a.data() + r * kBlock, kBlock);
          std::memcpy(out.data() + r * 2 * kBlock + kBlock, b.data() + r * kBlock, kBlock);
        }
        us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
        if (consumer_reads) std::memcpy(consumer.data(), out.data(), out.size());
      }
      std::nth_element(us.begin(), us.begin() + kRounds / 2, us.end());
      std::printf("consumer reads the result: %-3s threads %d: median %.1f us\n", consumer_reads ? "yes" : "no",
                  threads, us[kRounds / 2]);
    }
}
