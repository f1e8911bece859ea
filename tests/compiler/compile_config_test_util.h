// A compile's configuration resolved from an option set as a Session resolves it when it opens
// (session/compile_config_resolver.h), for tests that call the compile pipeline directly.
#pragma once
#include <gtest/gtest.h>

#include <memory>

#include "compiler/compile_config.h"
#include "options/option_set.h"
#include "session/compile_config_resolver.h"

namespace openge::test {

// A configuration that does not resolve fails the test and gives null.
inline std::shared_ptr<const compiler::CompileConfig> compile_config(const options::OptionSet& options) {
  auto c = resolve_compile_config(options);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? c.value() : nullptr;
}

// Null options: null (every default).
inline std::shared_ptr<const compiler::CompileConfig> compile_config(
    const std::shared_ptr<const options::OptionSet>& options) {
  return options ? compile_config(*options) : nullptr;
}

}  // namespace openge::test
