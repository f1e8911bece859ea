// Pattern-matching and rewriting helpers shared by the fusion passes.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "passes/pass.h"

namespace openge::passes {

// The node that produces value `v`, or nullptr.
const Node* producer(const Graph& g, int v);
// True when `v` is a graph output.
bool is_graph_output(const Graph& g, int v);
// The single node reading `v` when there is exactly one reader and `v` is not a graph output
// (so the value can disappear inside a fused node); -1 otherwise.
int sole_consumer(const Graph& g, const std::vector<std::vector<int>>& consumers, int v);
// True when `v`'s shape is inferred and every dimension known (no -1).
bool has_static_shape(const Value& v);
// A constant's data, or nullptr.
const Tensor* constant_of(const Graph& g, int v);
// A one-element float constant's value.
std::optional<double> scalar_constant(const Graph& g, int v);
// True when node's op is `op` in the default domain (or `op` in the openge domain for fused ops).
bool is_op(const Node& n, const char* op);
// True when `v` holds a value within 1e-4 (relative) of `want`: exporters round constants
// such as sqrt(2) and 1/sqrt(2) differently.
bool near_value(std::optional<double> v, double want);
// The other input of a two-input node, given one; -1 if `v` is not one of its inputs.
int other_input(const Node& n, int v);
// The sole reader of `v` (sole_consumer) when it is a default-domain `op` node; -1 otherwise.
int sole_reader_op(const Graph& g, const std::vector<std::vector<int>>& consumers, int v, const char* op);

// Adds a value holding `t` (an initializer-like constant) and returns its index.
int add_constant(Graph& g, const std::string& name, Tensor t);
// Adds an intermediate value with the given dtype/shape and returns its index.
int add_intermediate(Graph& g, const std::string& name, DType dtype, Shape shape);

// Flags node `absorbed` dead because its work now happens in node `into`, and records it among
// the original nodes `into` stands for.
void absorb_node(Graph& g, int into, int absorbed, std::vector<bool>& dead);

// Removes the nodes flagged in `dead` and renumbers producers.
void erase_nodes(Graph& g, const std::vector<bool>& dead);

// Makes every node that reads value `from` read `to` instead.
void replace_uses(Graph& g, int from, int to);

// Sets an int or float attribute on a node a pass rewrites.
void set_int_attr(Node& n, const std::string& name, int64_t v);
void set_float_attr(Node& n, const std::string& name, float v);

// Makes node `n` the producer of value `v` at output slot `slot`.
void set_output(Graph& g, int n, size_t slot, int v);

// One pattern a fusion pass found: its nodes (the one that becomes the fused node first), the
// value the fused node produces, and the rewrite of that node (false: leave the pattern alone).
struct PatternMatch {
  std::vector<int> nodes;
  int output = -1;
  std::function<bool(Graph& g, Node& into)> rewrite;
};
using PatternFinder = std::function<std::optional<PatternMatch>(
    const Graph& g, const std::vector<std::vector<int>>& consumers, int node)>;
// The loop of the passes that find a pattern from one anchor node: for every default-domain node
// with op `anchor`, in order, `find` looks for a pattern there; one that overlaps a pattern fused
// before is skipped; the rewrite turns its first node into the fused node, which then writes
// `output`, and the other nodes are absorbed into it and removed. Counts matches and rewrites.
Result<PassResult> fuse_anchored_patterns(Graph& g, const char* anchor, const PatternFinder& find);

}  // namespace openge::passes

namespace openge::passes {

// Turns a Conv (or MatMul) node into FusedConv (FusedMatMul) with no epilogue yet; a node that
// is already fused is left as it is.
void make_fused(Node& n);
// The epilogue already on a fused node (kNone for plain ops).
// True for a Conv / FusedConv whose weights are computed at run time (a training graph's
// weights are inputs): oneDNN's fused convolution packs constant weights, so such a convolution
// keeps its activation and residual Add apart and runs on the run-time-weight kernel.
bool conv_weights_at_run_time(const Graph& g, const Node& n);
bool has_activation(const Node& n);
bool has_residual(const Node& n);
// Fuses `add` (add_node = producer's output x + other) into the fused producer as its residual
// input (slot 3), which then writes the Add's output. False, graph untouched, when x and other
// differ in shape or dtype (the sum post-op adds element by element, without broadcasting).
bool fuse_residual_add(Graph& g, int producer_node, int x, int other, int add_node);

}  // namespace openge::passes

#include "ops/fused/fused_ops.h"

namespace openge::passes {

// `n` as a fusable activation on its input 0 (Relu, LeakyRelu, Clip with constant bounds,
// Sigmoid, Tanh, HardSigmoid, HardSwish), or nullopt.
std::optional<FusedActivation> match_activation(const Graph& g, const Node& n, int64_t opset);

// A self-gated activation written as two nodes, Mul(x, Gate(x)): Swish (SiLU) with a Sigmoid
// gate, HardSwish with a HardSigmoid(alpha 1/6, beta 0.5) gate, as exporters write them.
struct GatedActivation {
  int x = -1;          // the value both nodes read
  int gate_node = -1;  // the Sigmoid / HardSigmoid node, read only by the Mul
  FusedActivation act;
};
// `mul` (a node index) as the end of such a pair, or nullopt.
std::optional<GatedActivation> match_gated_activation(const Graph& g, const std::vector<std::vector<int>>& consumers,
                                                      int mul);

// A producer of `v` that can take an activation: one of `ops` with no activation yet, `v` read
// only by node `reader`, not channels_last. Returns its node index or -1.
int fusable_producer(const Graph& g, const std::vector<std::vector<int>>& consumers, int v, int reader,
                     std::initializer_list<const char*> ops);

// What a fuse_adds callback found for one input of an Add.
constexpr int kNoMatch = -1;            // the pattern is not there
constexpr int kMatchedNotApplied = -2;  // the pattern is there but cannot be rewritten
// The scaffold of the passes that fold an Add into the node producing one of its inputs: for
// every default-domain two-input Add and each of its inputs `x` (the other being `other`),
// `fuse(consumers, dead, add, x, other)` rewrites the graph and returns the index of the node
// that now does the Add's work (the Add is absorbed into it), or kNoMatch / kMatchedNotApplied.
using AddFuser = std::function<int(const std::vector<std::vector<int>>& consumers, const std::vector<bool>& dead,
                                   int add, int x, int other)>;
Result<PassResult> fuse_adds(Graph& g, const AddFuser& fuse);

// Add(x, other) with `other` of x's exact shape folded into x's producer (one of `ops`) as its
// residual input: TbeConvDoubleInFusionPass and TbeBatchMatmulElementWiseFusionPass.
Result<PassResult> fuse_residual_adds(Graph& g, std::initializer_list<const char*> ops);

}  // namespace openge::passes
