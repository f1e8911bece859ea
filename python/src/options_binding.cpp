// The options surface: the option table as data, one assignment checked alone, a whole
// configuration built (values, sources, warnings, every problem) and the artifact paths it
// leads to. Python values cross as text plus their type; every check is C++'s.
#include <pybind11/stl.h>

#include "binding.h"
#include "openge/acl_json.h"
#include "openge/options.h"
#include "openge/profiling_chains.h"

namespace openge::python {
namespace {

using namespace openge::options;

// A Python value as the option API takes it: its type and its text (repr for other types).
std::pair<ApiType, std::string> api_value(py::handle v) {
  if (PyBool_Check(v.ptr())) return {ApiType::kBool, v.ptr() == Py_True ? "True" : "False"};
  if (PyLong_Check(v.ptr())) return {ApiType::kInt, py::str(v)};
  if (PyUnicode_Check(v.ptr())) return {ApiType::kText, v.cast<std::string>()};
  return {ApiType::kOther, py::repr(v)};
}

// "" as None: what the engine leaves unset.
py::object text_or_none(const std::string& s) { return s.empty() ? py::object(py::none()) : py::object(py::str(s)); }

py::dict spec_dict(const OptionInfo& s) {
  py::dict d;
  d["name"] = s.name;
  d["aliases"] = s.aliases;
  d["ge_key"] = s.ge_key;
  d["env_var"] = s.env_var;
  d["kind"] = s.kind;
  py::list types;
  for (const auto& t : s.api_types) types.append(t);
  d["types"] = types;
  d["allowed"] = s.allowed;
  d["choices"] = s.choices;  // `allowed` is "a|b|c"
  if (s.range)
    d["range"] = py::make_tuple(s.range->first, s.range->second);
  else
    d["range"] = py::none();
  d["default"] = s.default_value;
  d["default_depends_on_scenario"] = s.default_depends_on_scenario;
  d["default_text"] = s.default_text;  // as `openge options --explain` prints it
  d["deprecated_by"] = s.deprecated_by ? py::object(py::str(*s.deprecated_by)) : py::object(py::none());
  d["status"] = s.effect_label;  // implemented / accepted, not implemented yet / no effect on CPU
  d["effect"] = s.effect_note;
  d["consumer"] = s.consumer;
  d["description"] = s.description;
  d["interactions"] = s.interactions;
  d["spec_ids"] = s.spec_ids;
  d["environment_only"] = s.environment_only;
  return d;
}

using Assignments = std::vector<std::tuple<std::string, std::string, std::string>>;

OptionInputs inputs_of(const Assignments& assignments, const std::vector<std::string>& option_files, bool check_files,
                       bool check_rules = true) {
  OptionInputs in;
  in.check_rules = check_rules;
  for (const auto& [name, value, origin] : assignments) in.flags.push_back({name, value, origin});
  in.option_files = option_files;
  in.env = capture_process_environment();
  in.check_files = check_files;
  return in;
}

py::dict values_dict(const OptionSet& set) {
  py::dict values;
  for (const auto& v : option_settings(set))
    values[text(v.name)] = py::make_tuple(text(v.value), v.source, text(v.origin));
  return values;
}

py::dict build(const Assignments& assignments, const std::vector<std::string>& option_files, bool check_files,
               bool check_rules) {
  const Configuration r = build_configuration(inputs_of(assignments, option_files, check_files, check_rules));
  py::dict out;
  out["values"] = r.options ? py::object(values_dict(*r.options)) : py::object(py::none());
  py::list warnings, errs;
  for (const auto& w : r.warnings) warnings.append(text(w));
  for (const auto& e : r.errors) errs.append(text(e.to_string()));
  out["warnings"] = warnings;
  out["errors"] = errs;
  return out;
}

py::dict paths(const Assignments& assignments, const std::vector<std::string>& option_files) {
  auto set = build_session_config(inputs_of(assignments, option_files, true));
  if (!set.ok()) raise(errors().option_error, set.status().message());
  py::dict out;
  for (const auto& r : artifact_paths(**set)) {
    py::dict d;
    d["path"] = r.path.empty() ? py::object(py::none()) : py::object(text(r.path));
    d["is_file"] = r.is_file;
    d["rule"] = text(r.rule);
    d["chain"] = text(r.chain);
    // As `openge paths` says "written: ...": the writer, or None when nothing writes it yet.
    d["written_by"] = text_or_none(r.written_by);
    d["written_only"] = text_or_none(r.written_only);
    out[r.kind.c_str()] = d;
  }
  const CompileCacheSize limits = compile_cache_size(**set);
  py::dict c;
  c["max_size_mb"] = limits.max_size_mb;
  c["remain_ratio_percent"] = limits.remain_ratio_percent;
  c["rule"] = limits.rule;
  c["warnings"] = limits.warnings;
  c["mode"] = limits.mode;
  c["folder"] = limits.soc_folder;
  c["applied"] = limits.applied;
  out["compile_cache_size"] = c;
  return out;
}

}  // namespace

void bind_options(py::module_& m) {
  m.def(
      "option_table",
      [] {
        py::list rows;
        for (const auto& s : option_infos()) rows.append(spec_dict(s));
        return rows;
      },
      "Every row of the C++ option table, in table order, as dicts.");
  m.def(
      "find_option",
      [](const std::string& name) -> py::object {
        const std::optional<OptionInfo> s = option_info(name);
        return s ? py::object(py::str(s->name)) : py::object(py::none());
      },
      py::arg("name"),
      "The canonical name of an option given by dotted name, alias, GE key or leaf name; None if unknown.");
  m.def(
      "check_option",
      [](const std::string& name, py::handle value, const std::string& origin) {
        const auto [type, text] = api_value(value);
        const auto c = check_assignment(name, type, text, origin);
        if (!c.ok()) raise(errors().option_error, c.status().message());
        return py::make_tuple(c->first, c->second);
      },
      py::arg("name"), py::arg("value"), py::arg("origin"),
      "Checks one assignment alone; returns (canonical name, canonical text) or raises OptionError (E10001).");
  m.def("build_options", &build, py::arg("assignments"), py::arg("option_files"), py::arg("check_files"),
        py::arg("check_rules") = true,
        "Builds a configuration from (name, text, origin) assignments, option files and the process environment "
        "(check_rules=False: values and sources without the rules between options): "
        "{'values': {name: (value, source, origin)} or None, 'warnings': [...], 'errors': ['E10001: ...']}.");
  m.def(
      "read_acl_json",
      [](const std::string& path, const std::string& executable_dir) {
        auto r = read_acl_json(path, capture_process_environment(), executable_dir);
        if (!r.ok()) raise(errors().option_error, r.status().message());
        py::list assignments;
        for (const auto& a : r->assignments) assignments.append(py::make_tuple(a.name, a.value, a.origin));
        return py::make_tuple(assignments, r->notes, r->profiling_folder, r->profiling_rule);
      },
      py::arg("path"), py::arg("executable_dir"),
      "acl.json read as aclInit does: ([(name, text, origin)], notes, profiling folder, rule); OptionError if bad.");
  m.def(
      "trace_handler_folder",
      [](const std::string& handler_dir) {
        const auto c = profiling::trace_handler_folder(handler_dir, capture_process_environment());
        return py::make_tuple(c.path, c.rule);
      },
      py::arg("handler_dir"), "The trace handler's chain: (folder, rule) for its folder ('' = none given).");
  m.def("resolve_paths", &paths, py::arg("assignments"), py::arg("option_files"),
        "Where every artifact goes for a configuration, with the rule that decided it.");
}

}  // namespace openge::python
