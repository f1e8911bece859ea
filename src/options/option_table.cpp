// The option table. Rows follow the page order of npu.global_options() (spec C.1), then the
// OpenGE additions, then the environment variables of the spec (MISC-18). GE keys come from
// the TF adapter (docs/FORMATS.md, "Options: names and value rules").
#include "options/option_table.h"

#include <algorithm>
#include <limits>

#include "base/size_limit.h"
#include "options/config_files.h"
#include "openge/did_you_mean.h"

namespace openge::options {
namespace {

constexpr int64_t kNoMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

// precision_mode defaults per product (OPT-precision_mode-17/18, AMB-11).
std::string precision_mode_default(const DefaultContext& c) {
  if (c.soc_version == "Ascend910") return "allow_fp32_to_fp16";  // Atlas training series
  if (c.soc_version == "Ascend310P") return c.graph_run_mode == 0 ? "force_fp16" : "allow_fp32_to_fp16";
  return "must_keep_origin_dtype";  // Atlas A2 training series
}

// enable_small_channel: off in training, on (and fixed) in online inference (OPT-enable_small_channel-2/3).
std::string small_channel_default(const DefaultContext& c) { return c.graph_run_mode == 0 ? "1" : "0"; }

// max_tensor_bytes: the size-limit policy's named constant, so the two cannot disagree.
std::string max_tensor_bytes_default(const DefaultContext&) { return std::to_string(kDefaultMaxTensorBytes); }

#define RANGE(a, b) a, b
#define NORANGE kNoMin, kNoMax

// The three effects a row can state (option_table.h, Effect).
#define DOES(what, consumer) Effect::kImplemented, what, consumer
#define NOT_YET(what) Effect::kNotImplemented, what, ""
#define NO_CPU(why) Effect::kNoCpuEffect, why, ""

const OptionSpec kTable[] = {
    // ---- npu.global_options() fields, page order -------------------------------------------
    {"graph_run_mode", "", "ge.graphRunMode", "", Kind::kInt, "0 (online inference) or 1 (training)", RANGE(0, 1), "1",
     nullptr, nullptr,
     DOES(
         "1: a Trainer (openge train, openge.Trainer) trains, with BatchNormalization on the batch's statistics; 0 "
         "refuses a Trainer with what to set (a Session runs inference in either mode). Also decides the defaults of "
         "precision_mode and enable_small_channel (openge options shows them), fixes enable_small_channel at 1 under 0 "
         "(a user value is ignored with a warning), accepts precision_mode=force_fp16 only under 0, and under 1 "
         "refuses profiling's task_trace=on without training_trace=on (src/session/trainer.cpp checks the mode)",
         "src/options/option_builder.cpp"),
     "graph execution mode: 0 online inference, 1 training",
     "enable_small_channel is forced to 1 when 0; precision_mode=force_fp16 needs 0", "OPT-graph_run_mode-1..4"},
    {"deterministic", "", "ge.deterministic", "", Kind::kInt, "0 or 1", RANGE(0, 1), "0", nullptr, nullptr,
     DOES("1: AI Core Conv/MatMul/Gemm/RNN/GRU/LSTM kernels are created and run with a one-thread oneDNN plan, so no "
          "thread count "
          "changes how their sums are cut and ordered (they then use one thread); the reference kernels already reduce "
          "each output on one thread in a fixed order, and so do the gradient kernels of training. Every run and every "
          "--threads gives the same output bits, and a training run the same weights. "
          "0: oneDNN plans for the session's threads (faster at 2+ threads; bits may change with the thread count)",
          "src/compiler/kernel_selection.cpp"),
     "deterministic computation: repeated runs give identical outputs", "", "OPT-deterministic-1..5"},
    {"memory_config.atomic_clean_policy", "atomic_clean_policy", "ge.exec.atomicCleanPolicy", "", Kind::kInt,
     "0 (clean all at once) or 1 (clean each atomic operator separately)", RANGE(0, 1), "0", nullptr, nullptr,
     DOES("the AI CPU kernels that add into their outputs (GatherGrad, MaxPoolGrad, AveragePoolGrad, ConvGrad: "
          "src/ops/atomic_outputs.cpp) leave the clearing to the executor. 0: one MemSet task before the first node "
          "zeroes all their outputs, whose buffers the memory plan then keeps for the whole run; 1: a MemSet task "
          "before each such node zeroes its own outputs (their buffers are reused as usual). Both show in the "
          "profile as MemSet tasks",
          "src/runtime/executable_run.cpp"),
     "how the memory of atomic operators is cleared", "", "OPT-memory_config.atomic_clean_policy-1..3"},
    {"external_weight", "", "ge.externalWeight", "", Kind::kBool, "True or False", NORANGE, "False", nullptr, nullptr,
     DOES("when a session opens the model, every initializer and Constant value of its main graph is written to "
          "tmp_weight_<pid>_<sessionid>/ (ASCEND_WORK_PATH > working directory, folder 0700) and mapped back "
          "read-only, freeing the in-memory copies; a second session of the same model links the first one's files "
          "and shares their pages; the folder is removed when the session closes, when opening fails, at exit and "
          "on SIGINT/SIGTERM. Graph dumps (DUMP_GE_GRAPH) show each such weight as a FileConstant node (domain "
          "openge: file_path, offset, length, dtype, shape) instead of an initializer; the compile folds them into "
          "constants that view the mapped files; the Data Dump (dump_mode output or all) writes a "
          "FileConstant.<weight>_FileConstant file per weight a dumped op reads, once per iteration; the precheck "
          "(openge check) lists every weight as a FileConstant op whose code-0 cause says which bytes go to a file",
          "src/session/external_weights.cpp"),
     "store the weights of Const/Constant nodes in files outside the graph",
     "folder: ASCEND_WORK_PATH > current directory (ENV-28..30, DISC-1)", "OPT-external_weight-1..8 ENV-28..30"},
    {"memory_config.static_memory_policy", "static_memory_policy", "ge.exec.staticMemoryPolicy", "", Kind::kInt,
     "0 (default); 1 and 2 accepted as in CANN", RANGE(0, 2), "0", nullptr, nullptr,
     NO_CPU("OpenGE always plans intermediate memory statically, with reuse"), "static memory allocation policy", "",
     "OPT-memory_config.static_memory_policy-1 AMB-16"},
    {"op_debug_config", "ge.exec.opDebugConfig", "op_debug_config", "", Kind::kFile,
     "path of a .cfg file: op_debug_config = oom,dump_bin,dump_cce,dump_loc,ccec_O0,ccec_g,check_flag", NORANGE, "",
     nullptr, nullptr,
     DOES("the online compiler builds the fused vector kernels into kernel_meta (.so and .json) with these switches: "
          "dump_cce keeps the generated source (.cce), dump_loc a source-line-to-node map (_loc.json), dump_bin the "
          ".so/.json, ccec_O0 / ccec_g compile with -O0 / -g, oom bounds-checks every access (EZ9999 naming the op "
          "and the access), check_flag ends each parallel chunk with a set_flag that the launching thread's wait_flag "
          "waits for, "
          "up to stream_sync_timeout (10 s when unset), failing with CANN's 'Aicore kernel execute failed ... fault "
          "kernel_name=' and 'rtStreamSynchronizeWithTimeout execute failed' messages; the compile cache is bypassed",
          "src/compiler/online_compiler.cpp"),
     "operator debug switches (Global Memory check, kept compile artifacts)",
     "non-empty turns the compile cache off; oom is an error with NPU_COLLECT_PATH",
     "OPT-op_debug_config-1..16 NPU-18..22"},
    {"enable_exception_dump", "", "ge.exec.enable_exception_dump", "", Kind::kInt,
     "0 off, 1 exception dump (L1); 2 lite exception dump (L0) accepted as in CANN", RANGE(0, 2), "0", nullptr, nullptr,
     DOES("when an operator fails during a run (bad data its kernel reports, run-time inference, stream_sync_timeout), "
          "its inputs and outputs are written in the Data Dump file layout to "
          "NPU_COLLECT_PATH > ASCEND_WORK_PATH > working directory + extra-info/data-dump/<device_id> (folders 0700) "
          "and the run fails naming the op and the file; 1 (L1) also logs the op, its engine and each tensor's "
          "dtype, shape and format to the plog, 2 (lite, L0) one line; a kernel with scratch memory (oneDNN's "
          "scratchpad) has it dumped as workspace 0 at both levels",
          "src/dump/exception_dump.cpp"),
     "dump the inputs and outputs of operators that fail", "NPU_COLLECT_PATH turns it on (1) unless it is set",
     "OPT-enable_exception_dump-1..4 NPU-6"},
    {"debug_dir", "", "ge.debugDir", "", Kind::kDir, "directory path", NORANGE, "", nullptr, nullptr,
     DOES("kernel_meta (the debug files of online-compiled kernels under op_debug_level / op_debug_config) goes to "
          "debug_dir/kernel_meta",
          "src/paths/artifact_paths.cpp"),
     "folder for the debug files of operator compilation", "debug_dir > ASCEND_WORK_PATH > working directory",
     "OPT-debug_dir-1..3 ENV-17..23"},
    {"precision_mode", "", "ge.exec.precision_mode", "", Kind::kEnum,
     "allow_fp32_to_fp16|force_fp16|cube_fp16in_fp32out|force_fp32|must_keep_origin_dtype|allow_mix_precision_fp16|"
     "allow_mix_precision|allow_mix_precision_bf16|allow_fp32_to_bf16",
     NORANGE, "", precision_mode_default, nullptr,
     DOES("the precision pass assigns each node its compute dtype from it (cube and vector rules, the SoC's "
          "mixed-precision lists) and inserts Casts where a value changes type",
          "src/precision/precision_mode.cpp"),
     "operator precision mode for the whole network",
     "not with precision_mode_v2; force_fp16 only with graph_run_mode=0; *bf16* only on Ascend910B; "
     "must_keep_origin_dtype makes customize_dtypes ineffective; mixed modes enable modify_mixlist",
     "OPT-precision_mode-1..20 MISC-11"},
    {"precision_mode_v2", "", "ge.exec.precision_mode_v2", "", Kind::kEnum,
     "fp16|origin|cube_fp16in_fp32out|mixed_float16|mixed_bfloat16", NORANGE, "", nullptr, nullptr,
     DOES("the precision pass assigns each node its compute dtype from it, as precision_mode does (and instead of it)",
          "src/precision/precision_mode.cpp"),
     "operator precision mode, new value names", "not with precision_mode; mixed_bfloat16 only on Ascend910B",
     "OPT-precision_mode_v2-1..7 AMB-12"},
    {"modify_mixlist", "", "ge.exec.modify_mixlist", "", Kind::kFile,
     "path of a JSON file with black-list/white-list to-add/to-remove (// comments allowed)", NORANGE, "", nullptr,
     nullptr,
     DOES("in a mixed mode, edits the SoC's white/black/gray lists the precision pass applies",
          "src/precision/precision_pass.cpp"),
     "edit the mixed-precision black/white/gray lists",
     "needs a mixed precision mode (allow_mix_precision*, mixed_float16, mixed_bfloat16)",
     "OPT-modify_mixlist-1..12 AMB-13 DISC-15"},
    {"customize_dtypes", "", "ge.customizeDtypes", "", Kind::kFile,
     "path of a .cfg file: Opname::InputDtype:...,OutputDtype:... or OpType::Type:InputDtype:...", NORANGE, "", nullptr,
     nullptr,
     DOES("per-node (or per-op-type) compute dtypes in the precision pass, node name before op type; ignored with a "
          "warning under must_keep_origin_dtype / origin",
          "src/precision/precision_pass.cpp"),
     "input/output dtypes of individual operators",
     "no effect with precision_mode=must_keep_origin_dtype (or precision_mode_v2=origin); op name beats op type",
     "OPT-customize_dtypes-1..10 DISC-14 AMB-14"},
    {"fusion_switch_file", "", "ge.fusionSwitchFile", "", Kind::kFile,
     "path of a JSON file {\"Switch\":{\"GraphFusion\":{...},\"UBFusion\":{...}}}; characters a-zA-Z0-9_-. and "
     "Chinese in each path component",
     NORANGE, "", nullptr, nullptr,
     DOES("each compile runs only the fusion passes the file leaves on: a pass named under GraphFusion (graph "
          "passes) or UBFusion (UB passes) follows its on/off, \"ALL\" sets every other pass of that kind; "
          "ChannelsLastLayoutPass and TransposeToReshapePass (layout choices) always run, scope fusion passes follow "
          "enable_scope_fusion_passes "
          "instead; each pass switched off is logged (FE, info), "
          "names that match no pass are warned about (the names are CANN's: ConvBatchnormFusionPass, "
          "MatMulBiasAddFusionPass, RequantFusionPass, TbeConvElemwiseFusionPass, ...)",
          "src/passes/pass_selection.cpp"),
     "switch graph/UB fusion rules on or off",
     "the passes that acted are counted per graph in fusion_result.json (ASCEND_WORK_PATH/FE/<pid>/ or ./)",
     "OPT-fusion_switch_file-1..9 ENV-31 DISC-17"},
    {"dump_config.enable_dump", "", "ge.exec.enableDump", "", Kind::kBool, "True or False", NORANGE, "False", nullptr,
     nullptr,
     DOES("each run (an iteration, from 0) writes the selected ops' tensors under <dump_path>/<YYYYmmddHHMMSS>/"
          "<device_id>/<model_name>/<model_id>/<iteration>/{op_type}.{op_name}.{task_id}.{stream_id}."
          "{timestamp}, in CANN's dump file layout, on a background thread; `openge dump convert` makes .npy",
          "src/dump/dump_config.cpp"),
     "Data Dump on/off", "needs dump_path; not together with dump_config.enable_dump_debug",
     "OPT-dump_config.enable_dump-1..4"},
    {"dump_config.dump_path", "", "ge.exec.dumpPath", "", Kind::kDir, "existing directory with read/write permission",
     NORANGE, "", nullptr, nullptr,
     DOES("checked to be a writable folder when a dump is on; the Data Dump and overflow-detection files go "
          "below it in a <YYYYmmddHHMMSS> folder per session, <YYYYmmddHHMMSS>_<pid> when another process made "
          "that second's folder (missing folders created 0700)",
          "src/dump/dump_config.cpp"),
     "folder of Data Dump and overflow-detection output", "required when enable_dump or enable_dump_debug is True",
     "OPT-dump_config.dump_path-1..3"},
    {"dump_config.dump_step", "", "ge.exec.dumpStep", "", Kind::kDumpStep,
     "iterations separated by |, ranges a-b with a<b, at most 100 sets, e.g. 0|5|10-20", NORANGE, "", nullptr, nullptr,
     DOES("only the runs whose index (from 0, ranges inclusive) is listed are dumped", "src/dump/dump_config.cpp"),
     "iterations whose data is dumped (unset: every iteration)", "", "OPT-dump_config.dump_step-1..2 AMB-17"},
    {"dump_config.dump_mode", "", "ge.exec.dumpMode", "", Kind::kEnum, "input|output|all", NORANGE, "output", nullptr,
     nullptr,
     DOES("input: each dump file holds the op's inputs; output: its outputs; all: both", "src/dump/dump_config.cpp"),
     "dump operator inputs, outputs or both", "", "OPT-dump_config.dump_mode-1..2"},
    {"dump_config.dump_data", "", "ge.exec.dumpData", "", Kind::kEnum, "tensor|stats", NORANGE, "tensor", nullptr,
     nullptr,
     DOES("tensor: the tensors; stats: one {file}.csv per op with Max/Min/Avg/L2Norm over finite elements and "
          "NaN/-Inf/+Inf counts per tensor",
          "src/dump/dump_config.cpp"),
     "dump tensors or their statistics", "", "OPT-dump_config.dump_data-1..3"},
    {"dump_config.dump_layer", "", "ge.exec.dumpLayer", "", Kind::kString, "operator names separated by spaces",
     NORANGE, "", nullptr, nullptr,
     DOES("only the named nodes are dumped (a fused node when any node fused into it is named)",
          "src/dump/dump_config.cpp"),
     "operators to dump (unset: all)", "", "OPT-dump_config.dump_layer-1"},
    {"dump_config.enable_dump_debug", "", "ge.exec.enableDumpDebug", "", Kind::kBool, "True or False", NORANGE, "False",
     nullptr, nullptr,
     DOES(
         "every run checks each op's outputs; an op with finite inputs and an Inf/NaN (or float16/bfloat16 max) output "
         "is dumped with its inputs, the first one per iteration is logged, and <dump_path>/<YYYYmmddHHMMSS>/"
         "modify_mixlist.json black-lists the op types that overflowed",
         "src/dump/dump_config.cpp"),
     "overflow detection on/off", "needs dump_path; not together with dump_config.enable_dump",
     "OPT-dump_config.enable_dump_debug-1 AMB-18"},
    {"dump_config.dump_debug_mode", "", "ge.exec.dumpDebugMode", "", Kind::kEnum, "aicore_overflow|atomic_overflow|all",
     NORANGE, "all", nullptr, nullptr,
     DOES(
         "aicore_overflow checks every op; atomic_overflow only the accumulating ops (matmul, convolution, reductions, "
         "averages, normalisations, softmax: the CPU's accumulations, docs/DECISIONS.md); all both",
         "src/dump/dump_config.cpp"),
     "overflow detection mode", "read only when enable_dump_debug is True", "OPT-dump_config.dump_debug_mode-1..4"},
    {"hcom_parallel", "", "ge.hcomParallel", "", Kind::kBool, "True or False", NORANGE, "True", nullptr, nullptr,
     DOES("data-parallel training under mpirun: True starts each gradient bucket's all-reduce on the communication "
          "thread as soon as the backward pass has produced its last gradient, overlapping the rest of the backward "
          "pass; False all-reduces every bucket after the backward pass",
          "src/session/data_parallel.cpp"),
     "run Allreduce in parallel with forward/backward", "", "OPT-hcom_parallel-1..2"},
    {"enable_small_channel", "", "ge.enableSmallChannel", "", Kind::kInt, "0 or 1", RANGE(0, 1), "",
     small_channel_default, nullptr,
     DOES("1: a convolution over at most 4 input channels that reads the network's input (an RGB stem) joins "
          "the layout region after it: in NC1HWC0 it reads the NCHW input as it is, in NHWC through a "
          "transpose of those few channels. 0: it runs in NCHW outside the region and its wide output is "
          "converted into the region's format (one Transpose more). A training graph follows the value (default "
          "0); a Session's inference compile takes 1 unless the user set 0",
          "src/compiler/graph_rewrite.cpp"),
     "small-channel (channel<=4) convolution optimization",
     "graph_run_mode=0 forces 1 and a user value is ignored with a warning", "OPT-enable_small_channel-1..4 AMB-19"},
    {"op_precision_mode", "", "ge.exec.op_precision_mode", "", Kind::kFile,
     "path of an .ini file: [ByOpType]/[ByNodeName] name=high_precision|high_performance|support_out_of_bound_index",
     NORANGE, "", nullptr, nullptr,
     DOES(
         "the precision pass gives each node the mode its [ByNodeName] / [ByOpType] entry names (if the op lists it "
         "in all_ops_impl_mode.ini): high_precision runs libm's erf/tanh/exp in Erf, Tanh, Sigmoid and "
         "Softmax/LogSoftmax, the direct algorithm in 3x3 convolutions and double sums in LayerNormalization, "
         "high_performance the vectorised approximations, oneDNN's Winograd where it pays and its float32 layer "
         "norm (the default); "
         "support_out_of_bound_index changes nothing because the indices of every gather/scatter op are always checked "
         "(an out-of-range one fails the run naming its position and value); it beats op_select_implmode",
         "src/precision/precision_pass.cpp"),
     "high-precision / high-performance mode per operator type or node",
     "beats op_select_implmode and optypelist_for_implmode; [ByNodeName] beats [ByOpType]",
     "OPT-op_precision_mode-1..9 AMB-20"},
    {"stream_max_parallel_num", "", "ge.streamMaxParallelNum", "", Kind::kStreamParallel,
     "ENGINE:N,... with ENGINE DNN_VM_AICPU or AIcoreEngine and N in [1,13]", NORANGE, "", nullptr, nullptr,
     DOES("bounds how many independent branches of each engine's nodes run at once (a branch is a stream: the "
          "calling thread and a second one): 1, and the default of an engine it does not name, runs that engine's "
          "nodes one after the other; 2 or more lets two branches run at once where each pays for the second thread "
          "(OpenGE runs at most two). Unset: OpenGE's own plan, two where they pay",
          "src/compiler/memory_layout.cpp"),
     "parallelism of the AICPU/AICORE engines (NMT networks)", "per-engine default 1",
     "OPT-stream_max_parallel_num-1..4"},
    {"is_tailing_optimization", "", "ge.exec.isTailingOptimization", "", Kind::kBool, "True or False", NORANGE, "False",
     nullptr, nullptr,
     DOES("data-parallel training under mpirun: True runs the optimizer update of each gradient bucket as soon as its "
          "all-reduce ends, while the last buckets' all-reduces are still in flight (not under dynamic loss scaling, "
          "whose overflow check needs every gradient first); False updates after every all-reduce",
          "src/session/data_parallel.cpp"),
     "communication-tail optimization (Bert, distributed training)", "", "OPT-is_tailing_optimization-1..3"},
    {"enable_scope_fusion_passes", "", "ge.exec.enableScopeFusionPasses", "", Kind::kNameList,
     "registered scope fusion rule names separated by ,", NORANGE, "", nullptr, nullptr,
     DOES("each compile runs the General scope fusion pass ScopeLayerNormPass (TensorFlow's moments + batchnorm layer "
          "norm -> LayerNormalization) whatever is set, and a Non-General one (ScopeInstanceNormPass: the same form "
          "over "
          "the spatial axes -> InstanceNormalization) only when the list names it; fusion_switch_file does not reach "
          "them; a name that is no scope pass is warned about (GE) with the closest names and ignored; what they fuse "
          "is "
          "counted under graph_fusion in fusion_result.json",
          "src/passes/pass_selection.cpp"),
     "turn on Non-General scope fusion rules", "General rules are always on", "OPT-enable_scope_fusion_passes-1..4"},
    {"profiling_config.enable_profiling", "", "ge.exec.profilingMode", "PROFILING_MODE", Kind::kBool,
     "True or False (PROFILING_MODE: true/false)", NORANGE, "False", nullptr, nullptr,
     DOES("a Session profiles every run: timeline JSON, summary CSVs and report.html in a PROF_* folder "
          "(docs/PROFILING.md)",
          "src/profiling/profiler_config.cpp"),
     "profiling on/off", "reads profiling_options; needs an output or ASCEND_WORK_PATH",
     "OPT-profiling_config.enable_profiling-1..3 PROF-1"},
    {"profiling_config.profiling_options", "", "ge.exec.profilingOptions", "PROFILING_OPTIONS", Kind::kProfilingOptions,
     "a JSON object with the keys of spec C.3", NORANGE, "", nullptr, nullptr,
     DOES("what profiling collects (task_trace, training_trace, aicpu, runtime_api, msproftx, host_sys ...) and where "
          "it goes (output); keys with no CPU analogue are recorded as such in the info file",
          "src/profiling/profiler_config.cpp"),
     "profiling collection options (JSON)",
     "instr_profiling_freq excludes ten keys; task_trace=on needs training_trace=on in training",
     "OPT-profiling_config.profiling_options-1..2 C.3 PROF-2..4"},
    {"aoe_config.aoe_mode", "", "ge.jobType", "AOE_MODE", Kind::kEnum, "1|2|4", NORANGE, "", nullptr, nullptr,
     DOES("2, operator tuning: each Conv, MatMul, Gemm and pooling node with static shapes is measured on its real "
          "shapes with every implementation the engine has for it (oneDNN direct or Winograd convolution, packed or "
          "plain constant matmul weights, the thread team or one thread) and the fastest is built; the winners go "
          "into the knowledge base aoe_knowledge_base.json of the aoe_data folder, which every later compile reuses "
          "without measuring (hits counted and logged; a corrupt file is logged and rebuilt); the record "
          "aoe_result_opat_*.json (task name, tuning time, model and operator times before and after, hits) goes "
          "to the same folder. 1, subgraph tuning: the model is compiled with all passes and without each fusion "
          "pass that rewrote it (and without the channels-last layout pass, and with NHWC in place of its NC1HWC0 "
          "regions), one at a time, and with aoe_config_file's nonhomo_split the best of those once more with "
          "tapered work splits; the fastest whole run wins, is stored in the knowledge base for this graph (later "
          "compiles make the same choice) and "
          "recorded in aoe_result_sgat_*.json. 4, gradient-split tuning of data-parallel training (a Trainer under "
          "mpirun): the steps after the first measure candidate gradient splits (one bucket, HCCL's default, equal "
          "shares in 2-32 buckets), 3 steps each; the fastest by the ranks' mean median step time is kept, stored "
          "in the knowledge base (later jobs of the same model, ranks and threads take it) and recorded in "
          "aoe_result_gdat_*.json with every candidate's time; a Session refuses 4 (inference has no gradients)",
          "src/aoe/tuned_selection.cpp"),
     "AOE tuning mode: 1 subgraph, 2 operator, 4 gradient split (unset: no tuning)",
     "feature in aoe_config_file: deeper_opat needs 2, nonhomo_split needs 1", "OPT-aoe_config.aoe_mode-1..6 AMB-10"},
    {"aoe_config.work_path", "", "ge.tuningPath", "", Kind::kDir, "existing directory with read/write permission",
     NORANGE, "", nullptr, nullptr,
     DOES("the aoe_data folder: AOE records and the knowledge base are written and read there; it must exist "
          "with read/write permission",
          "src/aoe/tuned_selection.cpp"),
     "AOE work folder",
     "aoe_config.work_path > ASCEND_WORK_PATH/aoe_data > aoe.ini WORK_PATH > working directory (AMB-21, ENV-4)",
     "OPT-aoe_config.work_path-1..3 ENV-2..4 DISC-7"},
    {"aoe_config.aoe_config_file", "", "ge.aoe_config_file", "", Kind::kFile,
     "path of a JSON file: tune_ops_name, tune_ops_type, tune_optimization_level (O1|O2), feature", NORANGE, "",
     nullptr, nullptr,
     DOES("under aoe_mode 2 only the nodes it selects are measured: tune_ops_name by node name (or the name of a "
          "node fused into one), tune_ops_type by op type (Conv also selects FusedConv, MatMul FusedMatMul); "
          "tune_optimization_level O1 doubles the timed runs; feature deeper_opat widens the search: every "
          "candidate is also measured on the whole thread team, which the ordinary search never gives a node the "
          "grain keeps on one thread (each node's candidate counts are logged); feature nonhomo_split makes "
          "aoe_mode 1 also measure the chosen compile with tapered work splits (each parallel loop's chunks "
          "falling linearly in size, largest first, instead of equal ones) and store the faster in the "
          "knowledge base, which later compiles replay",
          "src/aoe/tuned_selection.cpp"),
     "tune only the listed operators", "feature deeper_opat needs aoe_mode 2, nonhomo_split needs 1",
     "OPT-aoe_config.aoe_config_file-1..7 DISC-16"},
    {"op_compiler_cache_mode", "", "ge.op_compiler_cache_mode", "", Kind::kEnum, "enable|disable|force", NORANGE,
     "enable", nullptr, nullptr,
     DOES("every kernel the online compiler builds (the fused vector kernels, see jit_compile) goes through the "
          "operator compile cache, keyed by a SHA-256 of its source, compiler and version, flags, CPU features and "
          "soc_version. enable: a valid entry is loaded without running the compiler; a missing or damaged one is "
          "compiled and stored (.so and manifest, written atomically under a file lock, so processes can share the "
          "folder; each miss is logged with its reason). force: each kernel of the compile is compiled again and its "
          "entry replaced; other entries stay. disable: kernels are compiled into a private temporary folder and the "
          "cache folder is never touched. Not used at all while op_debug_level != 0 or op_debug_config is set",
          "src/compiler/op_cache.cpp"),
     "operator compile disk cache mode", "ignored (cache off) when op_debug_level != 0 or op_debug_config is set",
     "OPT-op_compiler_cache_mode-1..15 MISC-7"},
    {"op_compiler_cache_dir", "", "ge.op_compiler_cache_dir", "", Kind::kDir,
     "directory; characters a-zA-Z0-9_-. and Chinese in each path component", NORANGE, "", nullptr, nullptr,
     DOES("the operator compile cache of online-compiled kernels is <dir>/kernel_cache/<soc_version> (created when "
          "the first kernel is stored; never with op_compiler_cache_mode=disable), instead of ASCEND_CACHE_PATH or "
          "$HOME/atc_data",
          "src/paths/artifact_paths.cpp"),
     "operator compile cache folder", "op_compiler_cache_dir > ASCEND_CACHE_PATH/kernel_cache_<host> > $HOME/atc_data",
     "OPT-op_compiler_cache_dir-1..5 DISC-6"},
    {"stream_sync_timeout", "", "stream_sync_timeout", "", Kind::kTimeoutMs,
     "-1 (no timeout) or a positive number of ms", NORANGE, "-1", nullptr, nullptr,
     DOES("a run still going after this many ms fails, checked after every operator: the error names the operator "
          "that was running, and enable_exception_dump dumps it; -1 never times out",
          "src/compiler/pipeline.cpp"),
     "stream synchronization timeout (ms)", "should exceed HCCL_EXEC_TIMEOUT in cluster training",
     "OPT-stream_sync_timeout-1..3 MISC-17 AMB-33"},
    {"event_sync_timeout", "", "event_sync_timeout", "", Kind::kTimeoutMs, "-1 (no timeout) or a positive number of ms",
     NORANGE, "-1", nullptr, nullptr,
     DOES("data-parallel training: bounds each wait of a training step for the communication thread (a gradient "
          "bucket's or the loss's all-reduce); past it the step fails naming the operation and the job ends; -1 "
          "waits without limit (HCCL_EXEC_TIMEOUT still bounds the collective itself)",
          "src/session/data_parallel.cpp"),
     "event synchronization timeout (ms)", "", "OPT-event_sync_timeout-1..2 MISC-17"},
    {"jit_compile", "", "ge.jit_compile", "", Kind::kEnum, "auto|true|false", NORANGE, "auto", nullptr, nullptr,
     DOES("true: the vector-op groups of TbeEltwiseFusionPass get kernels generated as C++ and built with the system "
          "compiler (CXX), through the operator compile cache (op_compiler_cache_mode); false: they run the prebuilt "
          "reference kernels, no compiler runs; auto (the default): online for a static-shape model, prebuilt when a "
          "graph input has a symbolic dimension",
          "src/compiler/online_compiler.cpp"),
     "prefer online compilation of operators", "NPU_COLLECT_PATH forces online compilation (AMB-27)",
     "OPT-jit_compile-1..4 NPU-14"},
    {"op_select_implmode", "", "ge.opSelectImplmode", "", Kind::kEnum,
     "high_precision|high_performance|high_precision_for_all|high_performance_for_all", NORANGE, "", nullptr,
     "op_precision_mode",
     DOES("the precision pass gives every node whose op lists the mode in all_ops_impl_mode.ini (or only the types of "
          "optypelist_for_implmode) that mode: high_precision runs libm's erf/tanh/exp in Erf, Tanh, Sigmoid and "
          "Softmax/LogSoftmax, the direct algorithm in 3x3 convolutions and double sums in LayerNormalization, "
          "high_performance the vectorised approximations, oneDNN's Winograd where it pays and its float32 layer "
          "norm (the default)",
          "src/precision/precision_pass.cpp"),
     "high-precision or high-performance implementations",
     "overridden by op_precision_mode; narrowed by optypelist_for_implmode", "OPT-op_select_implmode-1..5"},
    {"optypelist_for_implmode", "", "ge.optypelistForImplmode", "", Kind::kTypeList, "Pooling|SoftmaxV2|LRN|ROIAlign",
     NORANGE, "", nullptr, "op_precision_mode",
     DOES("narrows op_select_implmode to these op types (Pooling = the pools, SoftmaxV2 = Softmax, ROIAlign = "
          "RoiAlign); "
          "of them only Softmax has a distinct high_precision kernel today",
          "src/precision/precision_pass.cpp"),
     "operator types that use op_select_implmode", "needs op_select_implmode; overridden by op_precision_mode",
     "OPT-optypelist_for_implmode-1..4 AMB-20"},
    {"variable_format_optimize", "", "ge.exec.variable_acc", "", Kind::kBool, "True or False", NORANGE, "", nullptr, "",
     DOES("True: a Trainer holds each convolution weight read only by convolutions, and its optimizer state, in the "
          "layout oneDNN's forward convolution prefers (e.g. OIhw16i16o) between steps; converted to OIHW only when "
          "read out, saved or checkpointed. Unset or False: plain OIHW, reordered at every convolution",
          "src/session/trainer_weight_formats.cpp"),
     "variable format optimization", "", "OPT-variable_format_optimize-1..3"},
    {"op_debug_level", "", "ge.opDebugLevel", "", Kind::kInt, "0..4", RANGE(0, 4), "", nullptr, "op_debug_config",
     DOES("non-zero: the online compiler builds into kernel_meta and keeps .so/.json; 1 and 2 also the generated "
          "source (.cce) and _loc.json, 2 compiles with -O0 -g, 4 also the source and _compute.json; the compile "
          "cache is bypassed",
          "src/compiler/online_compiler.cpp"),
     "operator debug level", "non-zero turns the compile cache off and lets debug_dir apply",
     "OPT-op_debug_level-1..11"},
    {"graph_memory_max_size", "", "ge.graphMemoryMaxSize", "", Kind::kString, "any (no effect)", NORANGE, "", nullptr,
     "", NO_CPU("deprecated in CANN too; OpenGE plans memory from the network's actual use, there is no pool to size"),
     "historical network memory size", "", "OPT-graph_memory_max_size-1 MISC-1"},
    {"variable_memory_max_size", "", "ge.variableMemoryMaxSize", "", Kind::kString, "any (no effect)", NORANGE, "",
     nullptr, "",
     NO_CPU("deprecated in CANN too; OpenGE plans memory from the network's actual use, there is no pool to size"),
     "historical variable memory size", "", "OPT-variable_memory_max_size-1 MISC-1"},
    // ---- OpenGE additions -------------------------------------------------------------------
    {"soc_version", "", "ge.socVersion", "", Kind::kString,
     "Ascend910|Ascend910B|Ascend310P, or a profile added under ASCEND_OPP_PATH", NORANGE, kDefaultSoc, nullptr,
     nullptr,
     DOES("selects the SoC profile the precision pass loads (opp/ or ASCEND_OPP_PATH), decides the default of "
          "precision_mode and which bf16 / L2Cache / instr_profiling_freq settings are accepted",
          "src/options/option_builder.cpp"),
     "SoC profile: Ascend910 (Atlas training), Ascend910B (Atlas A2 training), Ascend310P (Atlas inference)",
     "decides the precision_mode default; bf16 modes, L2Cache and instr_profiling_freq need Ascend910B", "MISC-11"},
    {"device_id", "", "ge.exec.deviceId", "ASCEND_DEVICE_ID", Kind::kInt, "0..63", RANGE(0, 63), "0", nullptr, nullptr,
     DOES("names the profiling output (the device_<id> folder, the <id> in file names and the device column), the "
          "graph dump folder ${pid}_${device_id}, the exception dump's and Data Dump's <device_id> folder",
          "src/profiling/profiler_config.cpp"),
     "logical device id", "", "AMB-23"},
    {"max_tensor_bytes", "", "", "OPENGE_MAX_TENSOR_BYTES", Kind::kInt, "bytes, >= 1", RANGE(1, kNoMax), "",
     max_tensor_bytes_default, nullptr,
     DOES("the largest single tensor a session allocates (initializers, folded constants, inferred and run-time "
          "shapes); a larger one is refused with an error naming the node, the shape and the limit",
          "src/session/session.cpp"),
     "size limit of one tensor allocation (base/size_limit.h)", "", ""},
    {"compiled_shape_cache_size", "", "", "", Kind::kInt, "input-shape sets, >= 1", RANGE(1, kNoMax), "8", nullptr,
     nullptr,
     DOES("how many input-shape sets keep their compiled graph in a session; a run with a new shape set beyond "
          "that drops the least recently used one (compiled again if it comes back)",
          "src/session/session.cpp"),
     "size of a session's per-shape compiled-graph cache (LRU)", "", ""},
    {"threading_grain_cycles", "", "", "OPENGE_THREADING_GRAIN_CYCLES", Kind::kInt, "estimated cycles, 0 or >= 1",
     RANGE(0, kNoMax), "0", nullptr, nullptr,
     DOES(
         "at 2 or more threads, nodes whose estimated work is below this many cycles run on the calling thread "
         "alone, the others on the thread team, and two independent branches of such nodes run at once on two threads "
         "when each holds at least this much work; 0: from what a team fork/join costs on this machine, calibrated "
         "once per machine and thread count and kept in the operator compile cache folder "
         "(thread_calibration_<threads>.txt; about 65,000 cycles on an idle 2-core AMD EPYC; 72,000 when the "
         "cache is disabled), so every start plans alike; a fixed value pins it (and a small graph's compile then does "
         "not time the team against one thread)",
         "src/compiler/pipeline.cpp"),
     "the threading grain (src/compiler/op_grain.h)", "", ""},
    // ---- environment variables (MISC-18) ------------------------------------------------------
    {"ASCEND_WORK_PATH", "", "", "ASCEND_WORK_PATH", Kind::kDir, "directory path", NORANGE, "", nullptr, nullptr,
     DOES("the root of the artifacts' own folders, each made when first written: profiling data in profiling_data "
          "(when profiling_options has no output), logs in log, the error trace in atrace, graph dumps in "
          "${pid}_${device_id} (below DUMP_GRAPH_PATH and NPU_COLLECT_PATH), the precheck report check_result.json "
          "(below check_report), exception dumps in extra-info/data-dump (below NPU_COLLECT_PATH), external weights in "
          "tmp_weight_<pid>_<sessionid>, kernel_meta of debug compiles (below debug_dir), the fusion result in "
          "FE/${pid}/fusion_result.json, AOE records and knowledge base in aoe_data (below aoe_config.work_path); "
          "openge paths shows each chain",
          "src/paths/artifact_paths.cpp"),
     "work path: root of logs, dumps, profiling data, kernel_meta ...", "", "ENV-1..35"},
    {"NPU_COLLECT_PATH", "", "", "NPU_COLLECT_PATH", Kind::kDir, "directory path (created, needs rwx)", NORANGE, "",
     nullptr, nullptr,
     DOES("graph dumps (DUMP_GE_GRAPH) go to NPU_COLLECT_PATH/${pid}_${device_id} unless DUMP_GRAPH_PATH is set; it "
          "switches enable_exception_dump on (1, L1) unless that is set, and exception dumps go to "
          "NPU_COLLECT_PATH/extra-info/data-dump/<device_id> (created 0700); it forces online compilation of the fused "
          "vector kernels whatever jit_compile says (AMB-27), and each compile writes a copy of every such kernel's "
          "binary (.so, CANN's .o) and its .json to NPU_COLLECT_PATH/op_compile (NPU-15; the compile cache is still "
          "used, its entries stay where they are); openge compile embeds debug sections in the .oge, which grows: the "
          "compile's record (each compiled node with the model nodes it came from and its precision rule) and each "
          "fused kernel's C++ source with its source-line-to-node map (NPU-8; openge compile --info shows them)",
          "src/paths/artifact_paths.cpp"),
     "fault-information folder for problem reproduction", "turns enable_exception_dump on; oom is not allowed",
     "NPU-1..23"},
    {"ASCEND_PROCESS_LOG_PATH", "", "", "ASCEND_PROCESS_LOG_PATH", Kind::kDir, "directory path", NORANGE, "", nullptr,
     nullptr,
     DOES("the log folder: plog-<pid>_<timestamp>.log files go to ASCEND_PROCESS_LOG_PATH/debug/plog, above "
          "ASCEND_WORK_PATH/log and $HOME/ascend/log",
          "src/paths/artifact_paths.cpp"),
     "log folder, above ASCEND_WORK_PATH/log", "", "ENV-6 AMB-30"},
    {"ASCEND_GLOBAL_LOG_LEVEL", "", "", "ASCEND_GLOBAL_LOG_LEVEL", Kind::kInt,
     "0 debug, 1 info, 2 warning, 3 error, 4 none", RANGE(0, 4), "3", nullptr, nullptr,
     DOES("records at this level and above go to the log file (compile decisions and kernel choices at info, "
          "precision warnings at warning, every error at error); 4 writes none. The atrace ring keeps every level",
          "src/logging/log.cpp"),
     "log level of the application log", "", "ENV-5..6"},
    {"ASCEND_SLOG_PRINT_TO_STDOUT", "", "", "ASCEND_SLOG_PRINT_TO_STDOUT", Kind::kInt, "0 files, 1 screen", RANGE(0, 1),
     "0", nullptr, nullptr,
     DOES("1 prints the log records on stdout instead of writing the log file", "src/logging/log.cpp"),
     "print the log on the screen instead of files", "", "ENV-5..6"},
    {"ASCEND_CACHE_PATH", "", "", "ASCEND_CACHE_PATH", Kind::kDir, "directory path", NORANGE, "", nullptr, nullptr,
     DOES("unless op_compiler_cache_dir is set, the operator compile cache of online-compiled kernels is "
          "ASCEND_CACHE_PATH/kernel_cache_<host>/<soc_version> instead of $HOME/atc_data/kernel_cache_<host>/"
          "<soc_version> (created when the first kernel is stored)",
          "src/paths/artifact_paths.cpp"),
     "cache folder", "", "OPT-op_compiler_cache_dir-5 NPU-15"},
    {"ASCEND_OPP_PATH", "", "", "ASCEND_OPP_PATH", Kind::kDir,
     "an opp folder: built-in/op_impl/ai_core/tbe/config/<soc>/aic-<soc>-ops-info*.json per SoC", NORANGE, "", nullptr,
     nullptr,
     DOES("the precision pass loads the soc_version profile and all_ops_impl_mode.ini from this folder instead of "
          "the installed (or source) opp/; profiles added there can be selected with soc_version",
          "src/precision/precision_pass.cpp"),
     "operator package (opp) folder: SoC profiles and implementation modes",
     "replaces the installed opp/ (it must hold every profile soc_version may name)", "MISC-20 OPT-modify_mixlist-9"},
    {"ASCEND_TOOLKIT_HOME", "", "", "ASCEND_TOOLKIT_HOME", Kind::kDir,
     "CANN's ${install_path}/latest (set_env.sh sets it)", NORANGE, "", nullptr, nullptr,
     DOES("its tools/aoe/conf/aoe.ini is read when present: WORK_PATH is the AOE folder (records and knowledge base) "
          "when neither aoe_config.work_path nor ASCEND_WORK_PATH is set, RUN_LOOP the timed runs of each AOE "
          "measurement (O1 doubles them); TUNING_PARALLEL_NUM is checked (1..64) and changes nothing; a malformed "
          "aoe.ini is an error naming its line",
          "src/aoe/tuned_selection.cpp"),
     "CANN toolkit folder: where aoe.ini is read",
     "aoe_config.work_path > ASCEND_WORK_PATH/aoe_data > aoe.ini WORK_PATH > working directory", "ENV-4 MISC-20"},
    {"ASCEND_MAX_OP_CACHE_SIZE", "", "", "ASCEND_MAX_OP_CACHE_SIZE", Kind::kInt, "MB, >= 1",
     RANGE(1, kMaxOpCacheSizeMb), "", nullptr, nullptr,
     DOES("when the cache folder has no valid op_cache.ini: after each kernel it stores, the compile cache ages its "
          "SoC folder once it is over this many MB, removing entries unused for 30 minutes, least recently used "
          "first, down to ASCEND_REMAIN_CACHE_SIZE_RATIO of it; a missing op_cache.ini is written with the limits "
          "in effect",
          "src/paths/artifact_paths.cpp"),
     "compile cache disk limit per chip (MB)", "op_cache.ini > this > 500", "OPT-op_compiler_cache_mode-14..15 AMB-31"},
    {"ASCEND_REMAIN_CACHE_SIZE_RATIO", "", "", "ASCEND_REMAIN_CACHE_SIZE_RATIO", Kind::kInt, "percent in [1,100]",
     RANGE(1, 100), "", nullptr, nullptr,
     DOES("when the cache folder has no valid op_cache.ini: the share of the size limit the compile cache keeps "
          "when it ages its SoC folder (entries unused for 30 minutes go, least recently used first)",
          "src/paths/artifact_paths.cpp"),
     "share of the compile cache kept when full (%)", "op_cache.ini > this > 50", "OPT-op_compiler_cache_mode-14..15"},
    {"DUMP_GE_GRAPH", "", "", "DUMP_GE_GRAPH", Kind::kInt, "1 (full), 2 (no weights), 3 (simplified)", RANGE(1, 3), "",
     nullptr, nullptr,
     DOES("each compile writes its graph after every stage (load, infer-shape, each fusion pass group, prune, "
          "precision, build) as ge_onnx_<index>_graph_<id>_<stage>.onnx and .pbtxt (text, never the weights' bytes): 1 "
          "with weights, 2 weights without data, 3 nodes and edges only",
          "src/graph_dump/graph_dumper.cpp"),
     "graph dump switch", "", "ENV-24"},
    {"DUMP_GRAPH_LEVEL", "", "", "DUMP_GRAPH_LEVEL", Kind::kInt,
     "1 all graphs, 2 all but subgraphs, 3 last graph, 4 first graph", RANGE(1, 4), "2", nullptr, nullptr,
     DOES("which compile stages DUMP_GE_GRAPH writes: 1 and 2 every stage (GE's level 2 skips partition, subgraph "
          "and AI CPU stages, which OpenGE does not have), 3 the built graph only, 4 the loaded graph only",
          "src/graph_dump/graph_dumper.cpp"),
     "graph dump level", "read only with DUMP_GE_GRAPH", "ENV-24"},
    {"DUMP_GRAPH_PATH", "", "", "DUMP_GRAPH_PATH", Kind::kDir, "directory path", NORANGE, "", nullptr, nullptr,
     DOES("graph dumps go to this folder, above NPU_COLLECT_PATH and ASCEND_WORK_PATH (created when missing)",
          "src/paths/artifact_paths.cpp"),
     "graph dump folder", "DUMP_GRAPH_PATH > ASCEND_WORK_PATH > working directory", "ENV-25"},
    {"CXX", "", "", "CXX", Kind::kString, "a C++17 compiler: program name or path", NORANGE, "", nullptr, nullptr,
     DOES("the compiler that builds online-compiled kernels (g++ when unset); its --version and flags are recorded "
          "in kernel_meta",
          "src/compiler/online_compiler.cpp"),
     "C++ compiler of online compilation", "g++ when unset", ""},
    {"HCCL_EXEC_TIMEOUT", "", "", "HCCL_EXEC_TIMEOUT", Kind::kInt, "seconds in [0,17340]", RANGE(0, 17340), "", nullptr,
     nullptr,
     DOES("data-parallel training: a collective (gradient bucket all-reduce, barrier) still unfinished this many "
          "seconds after it started ends the job through MPI_Abort with one line naming the operation, its bucket "
          "and step and the ranks that never arrived; unset: 1836 s; 0: no limit",
          "src/session/data_parallel.cpp"),
     "collective communication timeout (s)", "stream_sync_timeout should exceed it", "OPT-stream_sync_timeout-3"},
    {"HCCL_CONNECT_TIMEOUT", "", "", "HCCL_CONNECT_TIMEOUT", Kind::kInt, "seconds in [120,7200]", RANGE(120, 7200), "",
     nullptr, nullptr,
     DOES("data-parallel training: bounds the set-up collectives (rank 0's initial weights broadcast to every rank); "
          "past it the job ends naming the ranks that never arrived; unset: 120 s",
          "src/session/data_parallel.cpp"),
     "collective communication set-up timeout (s)", "", ""},
};

std::string_view leaf_of(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

bool has_word(std::string_view list, std::string_view word) {
  size_t i = 0;
  while (i < list.size()) {
    size_t j = list.find(' ', i);
    if (j == std::string_view::npos) j = list.size();
    if (list.substr(i, j - i) == word) return true;
    i = j + 1;
  }
  return false;
}

}  // namespace

std::span<const OptionSpec> option_table() { return kTable; }

const OptionSpec* find_option(std::string_view name) {
  if (name.empty()) return nullptr;
  for (const auto& s : kTable)
    if (name == s.name || (*s.ge_key && name == s.ge_key) || has_word(s.aliases, name)) return &s;
  // Leaf names ("enable_dump"), as the TF adapter flattens groups (docs/FORMATS.md, "Options: names and value rules").
  for (const auto& s : kTable)
    if (std::string_view(s.name).find('.') != std::string_view::npos && leaf_of(s.name) == name) return &s;
  return nullptr;
}

std::string default_for(const OptionSpec& spec, const DefaultContext& ctx) {
  return spec.default_fn ? spec.default_fn(ctx) : std::string(spec.default_value);
}

std::vector<std::string> all_option_names() {
  std::vector<std::string> names;
  for (const auto& s : kTable) {
    names.emplace_back(s.name);
    if (*s.ge_key && s.ge_key != std::string_view(s.name)) names.emplace_back(s.ge_key);
    std::string_view a = s.aliases;
    size_t i = 0;
    while (i < a.size()) {
      size_t j = a.find(' ', i);
      if (j == std::string_view::npos) j = a.size();
      names.emplace_back(a.substr(i, j - i));
      i = j + 1;
    }
  }
  return names;
}

std::vector<std::string> suggest_names(std::string_view name) {
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  for (const auto& s : kTable) {
    // Compare with the full name and with its leaf, so "dump_mod" finds dump_config.dump_mode.
    const size_t d = std::min(edit_distance(name, s.name), edit_distance(name, leaf_of(s.name)));
    if (d <= limit) scored.emplace_back(d, s.name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
  return out;
}

const char* effect_label(Effect e) {
  switch (e) {
    case Effect::kImplemented:
      return "implemented";
    case Effect::kNotImplemented:
      return "accepted, not implemented yet";
    case Effect::kNoCpuEffect:
      return "no effect on CPU";
  }
  return "?";
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kBool:
      return "bool";
    case Kind::kInt:
      return "int";
    case Kind::kEnum:
      return "enum";
    case Kind::kString:
      return "string";
    case Kind::kFile:
      return "file path";
    case Kind::kDir:
      return "directory path";
    case Kind::kStreamParallel:
      return "engine list";
    case Kind::kDumpStep:
      return "step list";
    case Kind::kProfilingOptions:
      return "JSON string";
    case Kind::kTimeoutMs:
      return "int (ms)";
    case Kind::kTypeList:
      return "type list";
    case Kind::kNameList:
      return "name list";
  }
  return "?";
}

// Ascend910B and its variants (Ascend910B1..B4 as CANN names them, profiles users add) are A2.
bool soc_is_a2(std::string_view soc) { return soc.rfind("Ascend910B", 0) == 0; }

bool soc_is_built_in(std::string_view soc) { return soc == "Ascend910" || soc == "Ascend910B" || soc == "Ascend310P"; }

}  // namespace openge::options
