// Hostile input: hundreds of malformed options files, values and referenced files. None may
// crash; each must come back as problems that name the parameter (or file:line:column) and say why.
#include <gtest/gtest.h>

#include <random>
#include <sys/stat.h>

#include "options/config_files.h"
#include "options/option_table.h"
#include "options_test_util.h"

namespace openge::options::test {
namespace {

const std::string kValidJson = R"({
  "precision_mode": "allow_mix_precision",
  "graph_run_mode": 1,
  "modify_mixlist": "/x/ops_info.json",
  "dump_config": {"enable_dump": true, "dump_path": "/tmp", "dump_step": "0|5|10-20", "dump_mode": "all"},
  "profiling_config": {"enable_profiling": true,
                       "profiling_options": "{\"output\":\"/tmp\",\"training_trace\":\"on\",\"task_trace\":\"on\"}"},
  "stream_max_parallel_num": "DNN_VM_AICPU:10,AIcoreEngine:1",
  "aoe_config": {"aoe_mode": "2"}
})";

const std::string kValidLines =
    "npu.global_options().precision_mode=\"allow_mix_precision\"\n"
    "npu.global_options().dump_config.enable_dump=True\n"
    "npu.global_options().dump_config.dump_path=\"/tmp\"\n"
    "npu.global_options().stream_sync_timeout=600000\n"
    "npu.global_options().profiling_config.profiling_options = '{\"output\":\"/tmp\"}'\n";

// Every problem must be usable by a person: a parameter and a reason.
void expect_precise(const BuildReport& r, const std::string& what) {
  for (const auto& e : r.errors) {
    EXPECT_FALSE(e.parameter.empty()) << what;
    EXPECT_FALSE(e.reason.empty()) << what;
    EXPECT_EQ(e.to_string().rfind("E10001: Value [", 0), 0u) << what;
  }
}

struct Counter {
  int cases = 0, rejected = 0;
  void add(const BuildReport& r, const std::string& what) {
    ++cases;
    rejected += !r.errors.empty();
    expect_precise(r, what);
  }
};

TEST(HostileOptions, MutatedOptionsFilesNeverCrash) {
  TempDir d;
  Counter c;
  std::mt19937 rng(1234);
  for (const std::string* base : {&kValidJson, &kValidLines}) {
    // Every truncation.
    for (size_t cut = 1; cut < base->size(); cut += 5) {
      const std::string f = d.file("t.txt", base->substr(0, cut));
      c.add(build({}, {}, {f}), "truncated at " + std::to_string(cut));
    }
    // Byte flips and insertions.
    for (int i = 0; i < 80; ++i) {
      std::string s = *base;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        const size_t pos = rng() % s.size();
        switch (rng() % 3) {
          case 0:
            s[pos] = static_cast<char>(rng() % 256);
            break;
          case 1:
            s.insert(pos, 1, "{}[]\"',:=#\\\n\0x"[rng() % 15]);
            break;
          default:
            s.erase(pos, 1 + rng() % 3);
            break;
        }
      }
      c.add(build({}, {}, {d.file("m.txt", s)}), "mutation " + std::to_string(i));
    }
  }
  EXPECT_GE(c.cases, 200);
  EXPECT_GE(c.rejected, 150);
}

TEST(HostileOptions, HandMadeBadFiles) {
  TempDir d;
  const std::vector<std::string> kFiles = {
      "{",
      "}",
      "[]",
      "null",
      "42",
      "\"str\"",
      "{\"precision_mode\": }",
      "{\"a\":1,}",
      "{'a': 1}",
      "{\"dump_config\": {\"dump_config\": {\"enable_dump\": true}}}",
      "{\"dump_config\": 5}",
      "{\"dump_config\": {\"nope\": 1}}",
      "{\"precision_mode\": [\"a\"]}",
      "{\"deterministic\": 1e3}",
      "{\"deterministic\": 99999999999999999999999}",
      "{\"precision_mode\": \"\\ud800\"}",
      "npu.global_options()",
      "npu.global_options().",
      "npu.global_options().x",
      "npu.global_options().=1",
      "npu.global_options().a..b=1",
      "npu.global_options().a=",
      "npu.global_options().a='",
      "npu.global_options().a=\"x",
      "npu.global_options().a=True False",
      "npu.global_options().a=0x10",
      "npu.global_options().a=1.5",
      "npu.global_options().a=[1]",
      "npu.global_options().a={}",
      "global_options().a=1",
      ".global_options().a=1",
      "npu..global_options().a=1",
      "1npu.global_options().a=1",
      "a b = 1",
      "= 1",
      "a = 'x' 'y'",
      std::string("\xff\xfe\x00\x01", 4),
      std::string(5000, '{'),
      std::string(5000, '[').append("]"),
      "precision_mode = 'force_fp16'\ngraph_run_mode = 1",
      "deterministic = --1",
      "deterministic = +",
      "a=b=c",
  };
  Counter c;
  for (const std::string& text : kFiles) {
    auto r = build({}, {}, {d.file("h.txt", text)});
    c.add(r, text);
    EXPECT_FALSE(r.errors.empty()) << "accepted: " << text;
  }
  EXPECT_GE(c.cases, 40);
}

TEST(HostileOptions, BadValuesForEveryOption) {
  Counter c;
  const char* kJunk[] = {"", " ", "-", "\t", "None", "null", "∞", "1e9", "0x1", "99999999999999999999", "\n", "a|b"};
  for (const auto& spec : option_table()) {
    if (spec.kind == Kind::kString) continue;  // free text
    for (const char* junk : kJunk) {
      auto r = build({{spec.name, junk}});
      c.add(r, std::string(spec.name) + "=" + junk);
      // Paths accept most text (existence is checked with the files); everything else refuses.
      if (spec.kind != Kind::kFile && spec.kind != Kind::kDir && spec.kind != Kind::kNameList &&
          spec.kind != Kind::kProfilingOptions) {
        EXPECT_FALSE(r.errors.empty()) << spec.name << "=" << junk;
      }
    }
  }
  EXPECT_GE(c.cases, 300);
}

TEST(HostileOptions, HostileProfilingOptions) {
  const char* kBad[] = {"{",
                        "[]",
                        "1",
                        "{\"output\":1.5}",
                        "{\"output\":null}",
                        "{\"output\":{}}",
                        "{\"aic_metrics\":\"Custom:\"}",
                        "{\"aic_metrics\":\"Custom:,,,\"}",
                        "{\"aic_metrics\":\"Custom:0x\"}",
                        "{\"aic_metrics\":\"Custom:0xFFFFFFFFFFFFFFFFFFFF\"}",
                        "{\"storage_limit\":\"99999999999999999999999MB\"}",
                        "{\"storage_limit\":-1}",
                        "{\"dvpp_freq\":-1}",
                        "{\"dvpp_freq\":18446744073709551615}",
                        "{\"host_sys\":\",\"}",
                        "{\"\":\"on\"}",
                        "{\"l2\":\"on\",\"l2\":\"off\",\"l2\":\"x\"}"};
  Counter c;
  for (const char* j : kBad) {
    auto r = build({{"profiling_options", j}});
    c.add(r, j);
    EXPECT_FALSE(r.errors.empty()) << j;
  }
}

TEST(HostileOptions, ReferencedFilesThatAreNotFiles) {
  TempDir d;
  const std::string dir = d.dir("adir");
  const std::string fifo = d.path() + "/fifo";
  ::mkfifo(fifo.c_str(), 0600);
  Counter c;
  for (const char* opt : {"modify_mixlist", "customize_dtypes", "fusion_switch_file", "op_precision_mode",
                          "op_debug_config", "aoe_config.aoe_config_file"}) {
    for (const std::string& path : {dir, d.path() + "/missing", fifo, std::string("/dev/null/x")}) {
      Flags f = {{opt, path}, {"precision_mode", "allow_mix_precision"}};
      auto r = build(f, {}, {}, true);
      c.add(r, std::string(opt) + "=" + path);
      EXPECT_TRUE(has_error(r, opt, path)) << opt << "=" << path << "\n" << dump_errors(r);
    }
  }
  // Options files themselves.
  for (const std::string& path : {dir, d.path() + "/missing", fifo}) {
    auto r = build({}, {}, {path});
    c.add(r, path);
    EXPECT_TRUE(has_error(r, "--options-file", path));
  }
  EXPECT_GE(c.cases, 27);
}

TEST(HostileOptions, MutatedReferencedFilesNeverCrash) {
  // Each parser on mutations of its own sample.
  const std::pair<const char*, std::string> kSamples[] = {
      {"modify_mixlist", R"({"black-list":{"to-remove":["Xlog1py"],"to-add":["Matmul","Cast"]},
                           "white-list":{"to-remove":["Conv2D"],"to-add":["Bias"]}})"},
      {"customize_dtypes",
       "# c\nOp1::InputDtype:float16,int8,OutputDtype:float16,int8\n"
       "OpType::Relu:InputDtype:float16,int8,OutputDtype:float16,int8\n"},
      {"fusion_switch_file",
       R"({"Switch":{"GraphFusion":{"ALL":"off","SoftmaxFusionPass":"on"},"UBFusion":{"A":"on"}}})"},
      {"op_precision_mode", "[ByOpType]\noptype1=high_precision\n[ByNodeName]\nnode1=high_performance\n"},
      {"op_debug_config", "op_debug_config = ccec_O0,ccec_g,oom\n"},
      {"aoe_config.aoe_config_file",
       "{\n\"tune_ops_name\":[\"a\"],\n\"tune_ops_type\":[\"Add\"]\n"
       "\"tune_optimization_level\":\"O1\",\n\"feature\":[\"deeper_opat\"]\n}"},
  };
  TempDir d;
  std::mt19937 rng(99);
  int cases = 0, rejected = 0;
  for (const auto& [opt, sample] : kSamples) {
    for (int i = 0; i < 40; ++i) {
      std::string s = sample;
      for (int e = 0; e < 1 + static_cast<int>(rng() % 3); ++e) {
        const size_t pos = rng() % s.size();
        if (rng() % 2)
          s[pos] = "{}[]\",:=#\n x\\/"[rng() % 14];
        else
          s.erase(pos, 1);
      }
      const std::string f = d.file("ref.cfg", s);
      auto r = build({{opt, f}, {"precision_mode", "allow_mix_precision"}, {"aoe_mode", "2"}}, {}, {}, true);
      ++cases;
      rejected += !r.errors.empty();
      expect_precise(r, std::string(opt) + ": " + s);
      for (const auto& e : r.errors)
        if (e.parameter == opt) {
          EXPECT_NE(e.reason.find(f), std::string::npos) << e.to_string();
        }
    }
  }
  EXPECT_EQ(cases, 240);
  EXPECT_GT(rejected, 100);
  // op_cache.ini never throws either.
  for (int i = 0; i < 50; ++i) {
    std::string s = "[op_compiler_cache]\nascend_max_op_cache_size=500\nascend_remain_cache_size_ratio=80\n";
    s[rng() % s.size()] = "[]=#\n 9-x"[rng() % 10];
    (void)parse_op_cache_ini(s, "op_cache.ini");
  }
}

TEST(HostileOptions, FoldersWithoutPermission) {
  TempDir d;
  // root ignores permission bits; /proc/1 is a folder nobody may write.
  const bool root = ::geteuid() == 0;
  const std::string ro = root ? "/proc/1" : d.dir("ro");
  if (!root) ::chmod(ro.c_str(), 0500);
  auto r = build({{"enable_dump", "True"}, {"dump_path", ro}}, {}, {}, true);
  EXPECT_TRUE(has_error(r, "dump_config.dump_path", "permission")) << dump_errors(r);
  if (root) return;
  const std::string f = d.file("secret.json", "{}");
  ::chmod(f.c_str(), 0000);
  r = build({}, {}, {f});
  EXPECT_TRUE(has_error(r, "--options-file", "cannot be opened"));
}

}  // namespace
}  // namespace openge::options::test
