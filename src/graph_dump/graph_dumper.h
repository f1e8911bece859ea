// Graph dumps of a compile (DUMP_GE_GRAPH, DUMP_GRAPH_LEVEL, ENV-24/25, docs/FORMATS.md, "Graph dumps"):
// one dump per compile stage, as GE names them, into DUMP_GRAPH_PATH >
// NPU_COLLECT_PATH/${pid}_${device_id} > ASCEND_WORK_PATH/${pid}_${device_id} > the working
// directory (docs/DECISIONS.md, AMB-41). Each dump is two files with GE's file-name pattern and
// one index: ge_onnx_<index>_graph_<graph id>_<stage>.onnx (binary ONNX) and .pbtxt (the same
// model as protobuf text, without the weights' bytes).
//
// The compile pipeline (compiler/pipeline.cpp) makes one GraphDumper and calls dump() after each stage; without
// DUMP_GE_GRAPH a call only logs the stage (debug level, and the atrace ring).
#pragma once
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "paths/artifact_paths.h"

namespace openge::options {
class OptionSet;
}

namespace openge::graph_dump {

// The compile stages, by GE's suffixes (DUMP_GRAPH_LEVEL 3 keeps only "Build", 4 only "PreRunBegin").
inline constexpr std::string_view kAfterLoad = "PreRunBegin";
inline constexpr std::string_view kAfterInferShape = "PreRunAfterInferShape";
inline constexpr std::string_view kAfterPrune = "PreRunAfterPrune";
inline constexpr std::string_view kAfterPrecision = "PreRunAfterPrecision";
inline constexpr std::string_view kFinal = "Build";
// After a group of fusion passes of one kind: "PreRunAfterGraphFusion", "PreRunAfterUbFusion".
std::string after_fusion_group(std::string_view pass_kind);

// The folder this process writes its graph dumps into, given the folder the path rules chose.
// Dump files are numbered per process (ge_onnx_00000000_...), and DUMP_GRAPH_PATH and the working
// folder carry no process in their path, so two processes dumping into one folder would overwrite
// each other's files. The first process to dump into a folder claims it for its lifetime and
// writes there, as CANN does; a process that finds the folder claimed by another live process
// writes into `<folder>/<pid>_<device_id>` (the layout of the ASCEND_WORK_PATH tier). The claim is
// a bound abstract Unix socket named after the folder: no file in the folder, released by the
// kernel when its holder exits or dies.
Result<std::string> claim_dump_folder(const std::string& folder, int device_id);

// What the options say about graph dumps, resolved when the session opens.
struct GraphDumpSettings {
  int detail = 0;                                                                 // DUMP_GE_GRAPH; 0 = off
  int level = 2;                                                                  // DUMP_GRAPH_LEVEL
  paths::ResolvedPath where{paths::ArtifactKind::kGraphDump, "", false, "", ""};  // resolved when on
  int device_id = 0;
};
GraphDumpSettings graph_dump_settings(const options::OptionSet& options);

class GraphDumper {
 public:
  explicit GraphDumper(const GraphDumpSettings* settings);  // null settings: never dumps
  bool active() const { return detail_ != 0; }
  // This compile's graph id, numbered per process whether dumps are on or not: the dump file
  // names and fusion_result.json's session_and_graph_id_0_<id> use the same number.
  int graph_id() const { return graph_id_; }
  // Writes the graph of `stage` when DUMP_GRAPH_LEVEL keeps it; a folder or file that cannot be
  // written is an error naming it.
  Status dump(const Graph& graph, std::string_view stage);
  // Writes `contents` beside the dumps as ge_onnx_<index>_graph_<graph id>_<name> (the same folder
  // chain, atomically), whatever DUMP_GRAPH_LEVEL keeps: the precision report of the compile.
  Status write_beside(std::string_view name, std::string_view contents);

 private:
  bool level_keeps(std::string_view stage) const;
  // The dump folder (prepared) joined with "ge_onnx_<next index>_graph_<graph id>_".
  Result<std::string> next_file_stem();

  paths::ResolvedPath where_{paths::ArtifactKind::kGraphDump, "", false, "", ""};
  int device_id_ = 0;
  int detail_ = 0;  // DUMP_GE_GRAPH; 0 = off
  int level_ = 2;   // DUMP_GRAPH_LEVEL
  int graph_id_ = 0;
};

}  // namespace openge::graph_dump
