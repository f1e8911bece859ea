// Where a matmul's packed constant weights start in memory, chosen by measurement.
//
// oneDNN 2.6's gemm:jit (the f32 matmul on AVX2) takes a different path depending on the
// weights' address: with 32-byte aligned weights it reads them in place, otherwise it packs
// them per call. Which is faster depends on the shape — 128x768x3072 (BERT's FFN-in) runs 1.7x
// faster packed, 128x768x2304 10 % slower (bench/RESULTS.md). So the first time a process
// compiles a matmul of a given shape, both placements are timed once and the faster one is
// kept for every later matmul of that shape. Both paths give bit-identical results (tested), so
// the choice never changes an output.
#pragma once
#include <cstddef>
#include <memory>
#include <string>

#include <dnnl.hpp>

namespace openge::onednn {

// Constant weights copied (reordered) from `data` laid out as `src_md` into a buffer with the
// layout `dst_md`, starting `offset` bytes past a 64-byte boundary. `storage` keeps it alive.
struct PlacedWeights {
  std::shared_ptr<void> storage;
  dnnl::memory memory;
};
PlacedWeights place_weights(const dnnl::memory::desc& src_md, const void* data, const dnnl::memory::desc& dst_md,
                            size_t offset);

// The weights of `prim` (a matmul whose DNNL_ARG_WEIGHTS has the plain layout `w_md`), placed
// where the primitive runs fastest for this shape. `key` names the shape and attributes; the
// choice is measured once per key and process.
PlacedWeights place_weights_measured(const dnnl::matmul& prim, const dnnl::matmul::primitive_desc& pd,
                                     const dnnl::memory::desc& w_src_md, const void* data, const std::string& key);

}  // namespace openge::onednn
