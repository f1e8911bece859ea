// ATC-style offline compile: an ONNX model compiled once into a .oge file that Session::open
// (and `openge run --model M.oge`) then runs without rewriting it again. The file format and
// what is refused when a .oge meets another engine, CPU or option set: docs/ARCHITECTURE.md
// ("Compiled models") and docs/DECISIONS.md.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "openge/session.h"

namespace openge {

struct CompileSummary {
  size_t model_nodes = 0;     // nodes of the ONNX model
  size_t compiled_nodes = 0;  // nodes of the compiled graph (after folding, fusion and precision)
  std::vector<std::pair<std::string, int>> passes_applied;  // fusion pass -> rewrites made
  std::map<std::string, std::string> options;               // the options that shaped the graph
  std::vector<std::pair<std::string, Shape>> input_shapes;  // what it was compiled for
  size_t file_bytes = 0;
  // Debug sections compiled in under NPU_COLLECT_PATH (NPU-8): name -> bytes.
  std::vector<std::pair<std::string, size_t>> debug_sections;
  // The generated kernels built into the file, so that it runs without a C++ compiler: how many,
  // for which x86-64 level; or why a graph with fused nodes carries none ("" otherwise).
  size_t prebuilt_kernels = 0;
  std::string kernel_isa;
  std::string kernels_note;
};

// Loads `model_path` (ONNX), compiles it for `input_shapes` (by input name; an input left out
// takes the model's shape, which must then be fixed) with `options` (precision, fusion ...) up to
// kernel selection, builds the generated kernels of its fused nodes (under the options'
// jit_compile, op_debug_level, op_debug_config and compile cache), and writes the result to
// `output_path` atomically.
Result<CompileSummary> compile_model(const std::string& model_path, const std::string& output_path,
                                     const SessionOptions& options = {},
                                     const std::map<std::string, Shape>& input_shapes = {});

// What a compiled model (.oge) holds besides its graph: the header it was written with.
struct CompiledModelInfo {
  int format_version = 0;
  std::string engine_version;                  // OpenGE's version when written
  std::vector<std::string> cpu_features;       // of the CPU it was compiled on
  std::map<std::string, std::string> options;  // the options that shaped the graph, with their values
  bool fusion_passes = true;                   // SessionOptions.run_passes of the compile
  std::string source_model;                    // file name of the model it was compiled from
  // Debug sections (name -> text) compiled in under NPU_COLLECT_PATH (NPU-8).
  std::map<std::string, std::string> debug;
  size_t nodes = 0;  // nodes of the compiled graph
};

// Reads a .oge (its digest checked first): `openge compile --info`. A truncated, corrupt or
// hostile file is one error naming it.
Result<CompiledModelInfo> read_compiled_model_info(const std::string& path);

// ATC --mode=1: a .oge written as JSON to `json_path` (atomically): its header and its graph
// (every node's name, type, inputs, outputs and attributes' names; every graph input and output
// with dtype and shape).
Status write_compiled_model_json(const std::string& oge_path, const std::string& json_path);

}  // namespace openge
