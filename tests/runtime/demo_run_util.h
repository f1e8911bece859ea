// Opening and running the bundled demo model with a configuration built from an environment map,
// for the tests of what a run writes (logs, graph dumps, precheck reports, work-path folders).
#pragma once
#include <memory>
#include <string>

#include "openge/session.h"
#include "options/options_test_util.h"

namespace openge::test {

inline const std::string kDemoModel = std::string(OPENGE_SOURCE_DIR) + "/models/demo.onnx";

// The validated options of `env` (and `flags`) as if the session started in `cwd`.
inline std::shared_ptr<const options::OptionSet> options_from(const options::EnvMap& env, const std::string& cwd,
                                                              const options::test::Flags& flags = {}) {
  auto r = options::test::build(flags, env, {}, true, cwd);
  EXPECT_TRUE(r.errors.empty()) << options::test::dump_errors(r);
  return r.options ? std::make_shared<const options::OptionSet>(std::move(*r.options)) : nullptr;
}

// Opens the demo model and runs it once on zeros; `bad_input` gives every input an extra dimension,
// so the run fails.
inline Status run_demo_with(const std::shared_ptr<const options::OptionSet>& config, bool bad_input = false) {
  if (!config) return invalid_argument("the options are invalid");
  SessionOptions so;
  so.config = config;
  so.num_threads = 1;
  auto session = Session::open(kDemoModel, so);
  if (!session.ok()) return session.status();
  std::vector<Tensor> inputs;
  for (const auto& info : (*session)->inputs()) {
    Shape shape = info.shape;
    for (auto& d : shape) d = d < 0 ? 1 : d;
    if (bad_input) shape.push_back(3);
    inputs.emplace_back(info.dtype, shape);
  }
  auto out = (*session)->run(inputs);
  return out.ok() ? Status::Ok() : out.status();
}

inline Status run_demo_with(const options::EnvMap& env, const std::string& cwd, bool bad_input = false) {
  return run_demo_with(options_from(env, cwd), bad_input);
}

}  // namespace openge::test
