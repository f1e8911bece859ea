#include "aoe/knowledge_base.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/file_lock.h"
#include "base/sha256.h"
#include "base/trusted_path.h"
#include "io/atomic_file.h"
#include "base/cpu_features.h"
#include "ops/generator/file_constant.h"

namespace openge::aoe {
namespace {

using json = nlohmann::json;
constexpr const char* kFormat = "openge.aoe_knowledge_base";
constexpr int kVersion = 1;
// Largest knowledge base read (docs/DECISIONS.md, "size limits of readers").
constexpr uint64_t kMaxKnowledgeBaseBytes = uint64_t{256} << 20;

std::string float_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// Attribute values as text; "_"-prefixed attributes are the engine's records (not the op's
// meaning) and graphs never reach a tunable op.
std::string attribute_text(const Attribute& a) {
  std::string out;
  switch (a.kind) {
    case Attribute::Kind::kFloat:
      return float_text(a.f);
    case Attribute::Kind::kInt:
      return std::to_string(a.i);
    case Attribute::Kind::kString:
      return "'" + a.s + "'";
    case Attribute::Kind::kFloats:
      for (float f : a.floats) out += float_text(f) + " ";
      return "[" + out + "]";
    case Attribute::Kind::kInts:
      for (int64_t i : a.ints) out += std::to_string(i) + " ";
      return "[" + out + "]";
    case Attribute::Kind::kStrings:
      for (const auto& s : a.strings) out += "'" + s + "' ";
      return "[" + out + "]";
    case Attribute::Kind::kTensor:
      return std::string("tensor ") + dtype_name(a.t.dtype()) + shape_to_string(a.t.shape()) +
             " sha256:" + sha256_hex(std::string_view(static_cast<const char*>(a.t.raw()), a.t.nbytes()));
    default:
      return "?";
  }
}

std::string value_text(const ValueInfo& v) {
  if (v.dtype == DType::kUndefined) return "none";
  return std::string(dtype_name(v.dtype)) + (v.shape_known ? shape_to_string(v.shape) : "[?]") + (v.value ? "c" : "");
}

std::string entries_digest(const json& entries) { return "sha256:" + sha256_hex(entries.dump()); }

}  // namespace

const std::string& platform_id() {
  static const std::string id = [] {
    std::string features;
    for (const auto& f : cpu_features()) features += f + " ";
    const dnnl_version_t* v = dnnl_version();
    return "cpu " + sha256_hex(features).substr(0, 16) + " onednn " + std::to_string(v->major) + "." +
           std::to_string(v->minor) + "." + std::to_string(v->patch);
  }();
  return id;
}

std::string knowledge_key(const KernelRequest& request, int threads) {
  std::string key = request.node.op_type + " in";
  for (const auto& in : request.inputs) key += " " + value_text(in);
  key += " out";
  for (const auto& out : request.outputs) key += " " + value_text(out);
  key += " attrs";
  for (const auto& [name, a] : request.node.attrs.all())
    if (!name.starts_with("_")) key += " " + name + "=" + attribute_text(a);
  if (request.deterministic) key += " deterministic";
  return key + " threads " + std::to_string(threads) + " " + platform_id();
}

std::string gradient_split_key(const std::vector<std::string>& params, const std::vector<int64_t>& elements, int ranks,
                               int threads) {
  std::string text;
  for (size_t i = 0; i < params.size() && i < elements.size(); ++i)
    text += params[i] + " " + std::to_string(elements[i]) + "\n";
  return std::string(kGradientSplitEntry) + " sha256:" + sha256_hex(text) + " ranks " + std::to_string(ranks) +
         " threads " + std::to_string(threads) + " " + platform_id();
}

namespace {
// external_weight's FileConstant nodes name a folder of this process and session: the weight's
// dtype, shape and length are the graph's structure, the file's name is not.
bool names_temporary_file(const Node& node, const std::string& attribute) {
  return node.op_type == kFileConstantOp && attribute == "file_path";
}
}  // namespace

std::string subgraph_key(const Graph& graph, int threads) {
  // Values are named by index: names differ between exports of one model.
  std::string text;
  for (int in : graph.inputs) text += "input " + std::to_string(in) + "\n";
  for (int out : graph.outputs) text += "output " + std::to_string(out) + "\n";
  for (size_t v = 0; v < graph.values.size(); ++v) {
    const Value& value = graph.values[v];
    text += "value " + std::to_string(v) + " " + dtype_name(value.dtype) +
            (value.shape ? shape_to_string(*value.shape) : "[?]") + (value.constant ? "c" : "") + "\n";
  }
  for (const Node& node : graph.nodes) {
    text += node.domain + "::" + node.op_type + " in";
    for (int in : node.inputs) text += " " + std::to_string(in);
    text += " out";
    for (int out : node.outputs) text += " " + std::to_string(out);
    for (const auto& [name, a] : node.attrs.all())
      if (!name.starts_with("_") && a.kind != Attribute::Kind::kGraph && !names_temporary_file(node, name))
        text += " " + name + "=" + attribute_text(a);
    text += "\n";
  }
  return std::string(kSubgraphEntry) + " sha256:" + sha256_hex(text) + " threads " + std::to_string(threads) + " " +
         platform_id();
}

KnowledgeBase KnowledgeBase::load(const std::string& path) {
  KnowledgeBase kb;
  kb.path_ = path;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return kb;
  kb.existed_ = true;
  // Its entries choose the kernels this process runs: only a file no other user could write.
  if (Status trusted = check_trusted_file(path, "AOE knowledge base"); !trusted.ok()) {
    kb.problem_ = trusted.message();
    return kb;
  }
  // Its entries are a line each (~300 bytes): a base of a million kernels is far under the limit,
  // and a file over it (or /dev/zero behind a link the trust check let through) is not read.
  if (const auto size = std::filesystem::file_size(path, ec); ec || size > kMaxKnowledgeBaseBytes) {
    kb.problem_ = ec ? "its size cannot be read: " + ec.message()
                     : "it is " + std::to_string(size) + " bytes, over the " +
                           std::to_string(kMaxKnowledgeBaseBytes >> 20) +
                           " MiB a knowledge base may have (move it aside; tuning writes a new one)";
    return kb;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in.good() && !in.eof()) {
    kb.problem_ = "it cannot be read";
    return kb;
  }
  const json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    kb.problem_ = "it is not valid JSON (truncated or damaged)";
    return kb;
  }
  if (doc.value("format", "") != kFormat || !doc.contains("version") || doc["version"] != kVersion) {
    kb.problem_ =
        std::string("it is not a knowledge base of format '") + kFormat + "' version " + std::to_string(kVersion);
    return kb;
  }
  const auto entries = doc.find("entries");
  if (entries == doc.end() || !entries->is_object() || doc.value("digest", "") != entries_digest(*entries)) {
    kb.problem_ = "its digest does not match its entries (edited or damaged)";
    return kb;
  }
  for (const auto& [key, e] : entries->items()) {
    KnowledgeEntry entry;
    std::optional<KernelVariant> variant;
    if (e.is_object() && e.contains("variant") && e["variant"].is_string())
      variant = parse_kernel_variant(e["variant"].get<std::string>());
    // A gradient split has no kernel variant: its bucket ends instead.
    const bool split = e.is_object() && e.value("op_type", "") == kGradientSplitEntry;
    if (split) {
      bool ints = e.contains("split_by_idx") && e["split_by_idx"].is_array() && !e["split_by_idx"].empty();
      if (ints)
        for (const json& i : e["split_by_idx"]) ints = ints && i.is_number_integer();
      if (!ints) {
        kb.problem_ = "entry '" + key + "' is a gradient split without a split_by_idx list of gradient indices";
        kb.entries_.clear();
        return kb;
      }
      for (const json& i : e["split_by_idx"]) entry.split_by_index.push_back(i.get<int64_t>());
      variant = KernelVariant{};
    }
    if (!variant || !e.contains("op_type") || !e["op_type"].is_string() || !e.contains("default_us") ||
        !e["default_us"].is_number() || !e.contains("tuned_us") || !e["tuned_us"].is_number()) {
      kb.problem_ = "entry '" + key + "' is not an op_type / variant / default_us / tuned_us record";
      kb.entries_.clear();
      return kb;
    }
    if (e.contains("passes_off")) {
      const json& off = e["passes_off"];
      bool strings = off.is_array();
      for (const json& p : off) strings = strings && p.is_string();
      if (!strings) {
        kb.problem_ = "entry '" + key + "' has a passes_off that is not a list of pass names";
        kb.entries_.clear();
        return kb;
      }
      for (const json& p : off) entry.passes_off.push_back(p.get<std::string>());
    }
    entry.op_type = e["op_type"].get<std::string>();
    entry.variant = *variant;
    entry.default_us = e["default_us"].get<double>();
    entry.tuned_us = e["tuned_us"].get<double>();
    kb.entries_.emplace(key, entry);
  }
  return kb;
}

const KnowledgeEntry* KnowledgeBase::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : &it->second;
}

std::string KnowledgeBase::serialize(const std::map<std::string, KnowledgeEntry>& entries) {
  json e = json::object();
  for (const auto& [key, entry] : entries) {
    e[key] = {{"op_type", entry.op_type}, {"default_us", entry.default_us}, {"tuned_us", entry.tuned_us}};
    if (entry.op_type == kGradientSplitEntry)
      e[key]["split_by_idx"] = entry.split_by_index;
    else
      e[key]["variant"] = to_string(entry.variant);
    if (!entry.passes_off.empty()) e[key]["passes_off"] = entry.passes_off;
  }
  json doc = {{"format", kFormat}, {"version", kVersion}, {"entries", e}, {"digest", entries_digest(e)}};
  return doc.dump(1) + "\n";
}

Status KnowledgeBase::save() const {
  auto lock = FileLock::acquire(path_ + ".lock", /*exclusive=*/true);
  if (!lock.ok()) return lock.status().with_context("AOE knowledge base " + path_);
  // Entries another tuning process saved since this one loaded stay; this run's results win.
  std::map<std::string, KnowledgeEntry> merged = load(path_).entries_;
  for (const auto& [key, entry] : entries_) merged[key] = entry;
  return write_file_atomically(path_, serialize(merged)).with_context("AOE knowledge base");
}

}  // namespace openge::aoe
