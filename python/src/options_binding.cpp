// The options surface: the option table as data, one assignment checked alone, a whole
// configuration built (values, sources, warnings, every problem) and the artifact paths it
// leads to. Python values cross as text plus their type; every check is C++'s.
#include <pybind11/stl.h>

#include "binding.h"
#include "options/option_api.h"
#include "options/option_builder.h"
#include "options/option_table.h"
#include "options/option_text.h"
#include "paths/artifact_paths.h"

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

py::object text_or_none(const char* s) { return s ? py::object(py::str(s)) : py::object(py::none()); }

py::dict spec_dict(const OptionSpec& s) {
  py::dict d;
  d["name"] = s.name;
  d["aliases"] = s.aliases;
  d["ge_key"] = s.ge_key;
  d["env_var"] = s.env_var;
  d["kind"] = kind_name(s.kind);
  py::list types;
  for (ApiType t : accepted_api_types(s)) types.append(api_type_name(t));
  d["types"] = types;
  d["allowed"] = s.allowed;
  d["choices"] = s.kind == Kind::kEnum || s.kind == Kind::kTypeList;  // `allowed` is "a|b|c"
  if (s.kind == Kind::kInt)
    d["range"] = py::make_tuple(s.min, s.max);
  else
    d["range"] = py::none();
  d["default"] = default_for(s, DefaultContext{1, kDefaultSoc});
  d["default_depends_on_scenario"] = s.default_fn != nullptr;
  d["default_text"] = default_text(s);  // as `openge options --explain` prints it
  d["deprecated_by"] = text_or_none(s.deprecated_by);
  d["status"] = effect_label(s.status);  // implemented / accepted, not implemented yet / no effect on CPU
  d["effect"] = s.effect;
  d["consumer"] = s.consumer;
  d["description"] = s.description;
  d["interactions"] = s.interactions;
  d["spec_ids"] = s.spec_ids;
  d["environment_only"] = *s.env_var && std::string_view(s.env_var) == s.name;
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
  for (const auto& [name, v] : set.values())
    values[text(name)] = py::make_tuple(text(v.value), source_name(v.source), text(v.origin));
  return values;
}

py::dict build(const Assignments& assignments, const std::vector<std::string>& option_files, bool check_files,
               bool check_rules) {
  const BuildReport r = build_options(inputs_of(assignments, option_files, check_files, check_rules));
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
  auto set = build_option_set(inputs_of(assignments, option_files, true));
  if (!set.ok()) raise(errors().option_error, set.status().message());
  const auto ids = paths::RunIds::current();
  py::dict out;
  for (const auto& r : paths::resolve_all_artifacts(*set, ids)) {
    py::dict d;
    d["path"] = r.path.empty() ? py::object(py::none()) : py::object(text(r.path));
    d["is_file"] = r.is_file;
    d["rule"] = text(r.rule);
    d["chain"] = text(r.chain);
    // As `openge paths` says "written: ...": the writer, or None when nothing writes it yet.
    d["written_by"] = text_or_none(paths::artifact_writer(r.kind));
    d["written_only"] = text_or_none(paths::artifact_written_only(r.kind));
    out[paths::artifact_name(r.kind)] = d;
  }
  const auto cache = paths::resolve_artifact(paths::ArtifactKind::kCompileCache, *set, ids);
  const auto limits = paths::resolve_op_cache_limits(*set, cache.path);
  py::dict c;
  c["max_size_mb"] = limits.max_size_mb;
  c["remain_ratio_percent"] = limits.remain_ratio_percent;
  c["rule"] = limits.rule;
  c["warnings"] = limits.warnings;
  c["mode"] = limits.mode;
  c["folder"] = limits.soc_folder;
  c["applied"] = paths::artifact_writer(paths::ArtifactKind::kCompileCache) != nullptr;
  out["compile_cache_size"] = c;
  return out;
}

}  // namespace

void bind_options(py::module_& m) {
  m.def(
      "option_table",
      [] {
        py::list rows;
        for (const auto& s : option_table()) rows.append(spec_dict(s));
        return rows;
      },
      "Every row of the C++ option table, in table order, as dicts.");
  m.def(
      "find_option",
      [](const std::string& name) -> py::object {
        const OptionSpec* s = find_option(name);
        return s ? py::object(py::str(s->name)) : py::object(py::none());
      },
      py::arg("name"),
      "The canonical name of an option given by dotted name, alias, GE key or leaf name; None if unknown.");
  m.def(
      "check_option",
      [](const std::string& name, py::handle value, const std::string& origin) {
        const auto [type, text] = api_value(value);
        const CheckedOption c = check_single_option(name, type, text, origin);
        if (c.problem) raise(errors().option_error, c.problem->to_string());
        return py::make_tuple(c.spec->name, c.value);
      },
      py::arg("name"), py::arg("value"), py::arg("origin"),
      "Checks one assignment alone; returns (canonical name, canonical text) or raises OptionError (E10001).");
  m.def("build_options", &build, py::arg("assignments"), py::arg("option_files"), py::arg("check_files"),
        py::arg("check_rules") = true,
        "Builds a configuration from (name, text, origin) assignments, option files and the process environment "
        "(check_rules=False: values and sources without the rules between options): "
        "{'values': {name: (value, source, origin)} or None, 'warnings': [...], 'errors': ['E10001: ...']}.");
  m.def("resolve_paths", &paths, py::arg("assignments"), py::arg("option_files"),
        "Where every artifact goes for a configuration, with the rule that decided it.");
}

}  // namespace openge::python
