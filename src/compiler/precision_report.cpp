#include "compiler/precision_report.h"

#include <map>
#include <nlohmann/json.hpp>

#include "compiler/compile_report.h"
#include "runtime/executable.h"

namespace openge {

std::vector<PrecisionRecord> precision_records(const Executable& exe, const CompileReport& report) {
  std::map<std::string, Engine> engines;
  for (const CompiledNode& n : exe.nodes()) engines[n.node.name] = n.engine;
  auto name = [](DType t) { return t == DType::kUndefined ? std::string() : std::string(dtype_name(t)); };
  std::vector<PrecisionRecord> records;
  for (const precision::PrecisionDecision& d : report.precision_decisions) {
    auto engine = engines.find(d.node_name);
    records.push_back({d.node_name, d.op_type, d.ascend_type, name(d.original), name(d.input_dtype),
                       name(d.output_dtype), engine == engines.end() ? "folded" : engine_name(engine->second), d.rule,
                       d.impl_mode, d.impl_rule});
  }
  return records;
}

std::string precision_report_json(const std::vector<PrecisionRecord>& records,
                                  const std::vector<std::string>& warnings) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const PrecisionRecord& r : records)
    nodes.push_back({{"node", r.node},
                     {"op_type", r.op_type},
                     {"ascend_type", r.ascend_type},
                     {"original_dtype", r.original_dtype},
                     {"input_dtype", r.input_dtype},
                     {"output_dtype", r.output_dtype},
                     {"engine", r.engine},
                     {"rule", r.rule},
                     {"impl_mode", r.impl_mode},
                     {"impl_rule", r.impl_rule}});
  return nlohmann::json{{"nodes", nodes}, {"warnings", warnings}}.dump(2) + "\n";
}

}  // namespace openge
