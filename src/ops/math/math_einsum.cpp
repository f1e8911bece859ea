// Einsum on the reference engine, for any equation: operands are reduced to pairwise
// contractions, each one a permute (strided gather) + reshape + batched matrix product:
//   X[batch, x-only, contracted] · Y[batch, contracted, y-only] -> [batch, x-only, y-only].
// Repeated labels in one term take the diagonal; labels no later term or the output needs
// are summed out early; '...' dims are right-aligned and broadcast like batch dims.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "ops/math/math_common.h"
#include "ops/math/math_gemm.h"
#include "ops/math/math_ops_internal.h"
#include "ops/reduce/reduce_kernels.h"
#include "ops/shape/shape_util.h"

namespace openge {
namespace {

constexpr int kLetterLabels = 52;  // a-z, A-Z; '...' dims get ids from 52 up
constexpr int kMaxLabels = kLetterLabels + 64;

int letter_id(char c) { return c >= 'a' && c <= 'z' ? c - 'a' : (c >= 'A' && c <= 'Z' ? 26 + c - 'A' : -1); }

struct EinsumSpec {
  std::vector<std::vector<int>> operand_labels;  // label id of every axis of every input
  std::vector<int> output_labels;
  std::array<int64_t, kMaxLabels> size{};  // -1: unknown (compile time)
  Shape out_shape;
};

// One term: its letter ids in order, -2 standing for '...'.
Result<std::vector<int>> parse_term(const std::string& term) {
  std::vector<int> ids;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (ellipsis || term.compare(i, 3, "...") != 0) return invalid_argument("malformed '...' in term '" + term + "'");
      ellipsis = true;
      ids.push_back(-2);
      i += 2;
    } else if (letter_id(term[i]) >= 0) {
      ids.push_back(letter_id(term[i]));
    } else {
      return invalid_argument(std::string("unexpected character '") + term[i] + "' in term '" + term + "'");
    }
  }
  return ids;
}

Status merge_size(EinsumSpec& s, int label, int64_t dim, bool broadcastable) {
  int64_t& cur = s.size[static_cast<size_t>(label)];
  if (dim == -1 || cur == dim) return Status::Ok();
  if (cur == -1 || (broadcastable && cur == 1)) {
    cur = dim;
    return Status::Ok();
  }
  if (broadcastable && dim == 1) return Status::Ok();
  return invalid_argument("dimension sizes " + std::to_string(cur) + " and " + std::to_string(dim) +
                          " of one label differ");
}

Result<EinsumSpec> plan_einsum(std::string equation, const std::vector<Shape>& shapes) {
  equation.erase(std::remove(equation.begin(), equation.end(), ' '), equation.end());
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != shapes.size())
    return invalid_argument("the equation has " + std::to_string(terms.size()) + " input terms but the node has " +
                            std::to_string(shapes.size()) + " inputs");
  EinsumSpec s;
  s.size.fill(-1);
  std::vector<std::vector<int>> parsed;
  int64_t ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    auto ids = parse_term(terms[i]);
    if (!ids.ok()) return ids.status();
    const bool has_ellipsis = std::count(ids->begin(), ids->end(), -2) != 0;
    const int64_t letters = static_cast<int64_t>(ids->size()) - (has_ellipsis ? 1 : 0);
    const int64_t rank = static_cast<int64_t>(shapes[i].size());
    if (has_ellipsis ? rank < letters : rank != letters)
      return invalid_argument("term '" + terms[i] + "' does not match input " + std::to_string(i) + " of rank " +
                              std::to_string(rank));
    ellipsis_rank = std::max(ellipsis_rank, has_ellipsis ? rank - letters : 0);
    parsed.push_back(std::move(*ids));
  }
  if (ellipsis_rank > kMaxLabels - kLetterLabels) return invalid_argument("'...' covers too many dimensions");
  for (size_t i = 0; i < parsed.size(); ++i) {
    std::vector<int> labels;
    const int64_t rank = static_cast<int64_t>(shapes[i].size());
    for (int id : parsed[i]) {
      if (id != -2) {
        labels.push_back(id);
        continue;
      }
      const int64_t e = rank - static_cast<int64_t>(parsed[i].size()) + 1;  // this input's '...' dims
      for (int64_t d = ellipsis_rank - e; d < ellipsis_rank; ++d) labels.push_back(kLetterLabels + static_cast<int>(d));
    }
    for (size_t a = 0; a < labels.size(); ++a)
      OPENGE_RETURN_IF_ERROR(merge_size(s, labels[a], shapes[i][a], labels[a] >= kLetterLabels));
    s.operand_labels.push_back(std::move(labels));
  }
  std::array<int, kMaxLabels> uses{};
  for (const auto& labels : s.operand_labels)
    for (int l : labels) ++uses[static_cast<size_t>(l)];
  if (arrow != std::string::npos) {
    auto ids = parse_term(equation.substr(arrow + 2));
    if (!ids.ok()) return ids.status();
    std::array<bool, kMaxLabels> seen{};
    for (int id : *ids) {
      if (id == -2) {
        for (int d = 0; d < ellipsis_rank; ++d) s.output_labels.push_back(kLetterLabels + d);
        continue;
      }
      if (!uses[static_cast<size_t>(id)]) return invalid_argument("output label is not in any input term");
      if (seen[static_cast<size_t>(id)]) return invalid_argument("output repeats a label");
      seen[static_cast<size_t>(id)] = true;
      s.output_labels.push_back(id);
    }
    if (ellipsis_rank > 0 && std::count(ids->begin(), ids->end(), -2) == 0)
      return invalid_argument("the inputs use '...' so the output must too");
  } else {
    // Implicit output: '...' dims, then every letter used exactly once, in ASCII order.
    for (int d = 0; d < ellipsis_rank; ++d) s.output_labels.push_back(kLetterLabels + d);
    for (int k = 0; k < kLetterLabels; ++k) {
      const int id = (k + 26) % kLetterLabels;  // ids 26..51 are 'A'..'Z', which sort first
      if (uses[static_cast<size_t>(id)] == 1) s.output_labels.push_back(id);
    }
  }
  for (int l : s.output_labels) s.out_shape.push_back(s.size[static_cast<size_t>(l)]);
  if (!shape_size_ok(s.out_shape))
    return invalid_argument("output shape " + shape_to_string(s.out_shape) + " is too large");
  return s;
}

Status infer_einsum(InferContext& ctx) {
  const std::string equation = ctx.attrs().get_string("equation", "");
  if (equation.empty()) return ctx.error("attribute equation is required");
  const DType dt = ctx.input_dtype(0);
  if (dt == DType::kBool || !dtype_supported(dt))
    return ctx.error(std::string("inputs must be numeric, got ") + dtype_name(dt));
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
    if (ctx.input_dtype(i) != dt) return ctx.error("inputs must have one dtype");
    if (!ctx.input_shape_known(i)) {
      ctx.set_output_dtype(0, dt);
      return Status::Ok();
    }
    shapes.push_back(ctx.input_shape(i));
  }
  auto spec = plan_einsum(equation, shapes);
  if (!spec.ok()) return ctx.error("equation '" + equation + "': " + spec.status().message());
  ctx.set_output(0, dt, spec->out_shape);
  return Status::Ok();
}

// An intermediate operand: contiguous data in the accumulator type, one label per axis.
template <class Acc>
struct Operand {
  std::vector<Acc> data;
  std::vector<int> labels;
  Shape shape;
};

// Gathers `x` into the axis order `labels` with the given sizes; a label x lacks, or has
// with size 1, is broadcast (stride 0). Repeated labels of x sum their strides (diagonal).
template <class Acc>
Operand<Acc> permute(const Operand<Acc>& x, const std::vector<int>& labels, const std::vector<int64_t>& sizes) {
  const std::vector<int64_t> own = contiguous_strides(x.shape);
  Operand<Acc> out;
  out.labels = labels;
  out.shape = Shape(sizes.begin(), sizes.end());
  std::vector<int64_t> strides(labels.size(), 0);
  for (size_t i = 0; i < labels.size(); ++i)
    for (size_t a = 0; a < x.labels.size(); ++a)
      if (x.labels[a] == labels[i] && x.shape[a] != 1) strides[i] += own[a];
  out.data.resize(static_cast<size_t>(shape_numel(out.shape)));
  // An empty result has nothing to gather (and an empty operand no data to gather from).
  if (!out.data.empty()) gather_strided(x.data.data(), out.shape, strides, out.data.data());
  return out;
}

// Sums out every axis whose label `keep` rejects.
template <class Acc, class Keep>
Operand<Acc> sum_out(Operand<Acc> x, Keep keep) {
  std::vector<int> kept, summed;
  std::vector<int64_t> kept_sizes, summed_sizes;
  for (size_t a = 0; a < x.labels.size(); ++a) {
    const bool k = keep(x.labels[a]);
    (k ? kept : summed).push_back(x.labels[a]);
    (k ? kept_sizes : summed_sizes).push_back(x.shape[a]);
  }
  if (summed.empty()) return x;
  std::vector<int> order = kept;
  order.insert(order.end(), summed.begin(), summed.end());
  std::vector<int64_t> sizes = kept_sizes;
  sizes.insert(sizes.end(), summed_sizes.begin(), summed_sizes.end());
  Operand<Acc> p = permute(x, order, sizes);
  Operand<Acc> out;
  out.labels = kept;
  out.shape = Shape(kept_sizes.begin(), kept_sizes.end());
  out.data.resize(static_cast<size_t>(shape_numel(out.shape)));
  reduce_blocks<SumPolicy<reduce_acc_t<Acc>>>(p.data.data(), out.data.data(), shape_numel(out.shape),
                                              shape_numel(Shape(summed_sizes.begin(), summed_sizes.end())), 1);
  return out;
}

template <class Acc>
int64_t label_size(const Operand<Acc>& x, int label) {
  for (size_t a = 0; a < x.labels.size(); ++a)
    if (x.labels[a] == label) return x.shape[a];
  return 1;
}

bool contains(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// X·Y over their shared labels; shared labels `keep` accepts stay as batch dims.
template <class Acc, class Keep>
Result<Operand<Acc>> contract(const Operand<Acc>& x, const Operand<Acc>& y, Keep keep) {
  std::vector<int> batch, xo, yo, con;
  for (int l : x.labels) (contains(y.labels, l) ? (keep(l) ? batch : con) : xo).push_back(l);
  for (int l : y.labels)
    if (!contains(x.labels, l)) yo.push_back(l);
  auto sizes_of = [&](const std::vector<int>& ls) {
    std::vector<int64_t> s;
    // Broadcast: a size of 1 (or a label the operand lacks) takes the other's, 0 included.
    for (int l : ls) {
      const int64_t a = label_size(x, l), b = label_size(y, l);
      s.push_back(a == 1 ? b : a);
    }
    return s;
  };
  auto numel = [](const std::vector<int64_t>& s) { return shape_numel(Shape(s.begin(), s.end())); };
  const auto bs = sizes_of(batch), xs = sizes_of(xo), ys = sizes_of(yo), cs = sizes_of(con);
  std::vector<int> out_labels = batch;
  out_labels.insert(out_labels.end(), xo.begin(), xo.end());
  out_labels.insert(out_labels.end(), yo.begin(), yo.end());
  std::vector<int64_t> out_sizes = bs;
  out_sizes.insert(out_sizes.end(), xs.begin(), xs.end());
  out_sizes.insert(out_sizes.end(), ys.begin(), ys.end());

  auto concat = [](std::vector<int> a, const std::vector<int>& b, const std::vector<int>& c) {
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c.begin(), c.end());
    return a;
  };
  auto concat_sizes = [](std::vector<int64_t> a, const std::vector<int64_t>& b, const std::vector<int64_t>& c) {
    a.insert(a.end(), b.begin(), b.end());
    a.insert(a.end(), c.begin(), c.end());
    return a;
  };
  // Broadcast '...' dims can make the permuted operands larger than any input: check them too.
  for (const auto& sizes : {out_sizes, concat_sizes(bs, xs, cs), concat_sizes(bs, cs, ys)})
    if (!shape_size_ok(Shape(sizes.begin(), sizes.end())))
      return invalid_argument("an intermediate product is too large");
  const Operand<Acc> xp = permute(x, concat(batch, xo, con), concat_sizes(bs, xs, cs));
  // Y is used as stored when it already is [batch, y-only, contracted] (e.g. the keys in
  // "bhqd,bhkd->bhqk"): the GEMM core reads it transposed instead of a transposing copy here.
  const bool y_transposed = y.labels == concat(batch, yo, con) && y.labels != concat(batch, con, yo);
  const Operand<Acc> yp = y_transposed ? permute(y, concat(batch, yo, con), concat_sizes(bs, ys, cs))
                                       : permute(y, concat(batch, con, yo), concat_sizes(bs, cs, ys));
  const int64_t B = numel(bs), M = numel(xs), N = numel(ys), K = numel(cs);
  std::vector<int64_t> a_off(static_cast<size_t>(B)), b_off(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) {
    a_off[static_cast<size_t>(b)] = b * M * K;
    b_off[static_cast<size_t>(b)] = b * K * N;
  }
  Operand<Acc> out;
  out.labels = out_labels;
  out.shape = Shape(out_sizes.begin(), out_sizes.end());
  out.data.resize(static_cast<size_t>(B * M * N));  // zeros: an empty sum where K is 0
  // A zero-sized dimension: nothing to compute, and the kernel takes no empty operand.
  if (B * M * N > 0 && K > 0)
    batched_gemm<Acc>(B, M, N, K, xp.data.data(), a_off.data(), K, yp.data.data(), b_off.data(), y_transposed ? K : N,
                      y_transposed, out.data.data());
  return out;
}

template <class T>
Status run_einsum(KernelContext& ctx, const EinsumSpec& spec) {
  using Acc = gemm_acc_t<T>;
  const size_t n = ctx.num_inputs();
  std::vector<Operand<Acc>> ops(n);
  for (size_t i = 0; i < n; ++i) {
    const Tensor& t = ctx.input(i);
    ops[i].data.resize(static_cast<size_t>(t.numel()));
    for (int64_t e = 0; e < t.numel(); ++e) ops[i].data[static_cast<size_t>(e)] = to_acc<Acc>(t.data<T>()[e]);
    ops[i].shape = t.shape();
    ops[i].labels = spec.operand_labels[i];
    // Repeated labels in one term: take the diagonal.
    std::vector<int> unique;
    std::vector<int64_t> sizes;
    for (size_t a = 0; a < ops[i].labels.size(); ++a)
      if (!contains(unique, ops[i].labels[a])) {
        unique.push_back(ops[i].labels[a]);
        sizes.push_back(ops[i].shape[a]);
      }
    if (unique.size() != ops[i].labels.size()) ops[i] = permute(ops[i], unique, sizes);
  }
  // needed_after[i]: labels used by inputs after i or by the output.
  auto needed_after = [&](size_t i, int l) {
    if (contains(spec.output_labels, l)) return true;
    for (size_t j = i + 1; j < n; ++j)
      if (contains(ops[j].labels, l)) return true;
    return false;
  };
  Operand<Acc> cur = sum_out(std::move(ops[0]), [&](int l) { return needed_after(0, l); });
  for (size_t i = 1; i < n; ++i) {
    Operand<Acc> next =
        sum_out(std::move(ops[i]), [&](int l) { return needed_after(i, l) || contains(cur.labels, l); });
    auto product = contract(cur, next, [&](int l) { return needed_after(i, l); });
    if (!product.ok()) return product.status();
    cur = std::move(*product);
  }
  cur = sum_out(std::move(cur), [&](int l) { return contains(spec.output_labels, l); });
  std::vector<int64_t> out_sizes(ctx.output(0).shape().begin(), ctx.output(0).shape().end());
  const Operand<Acc> result = permute(cur, spec.output_labels, out_sizes);
  T* y = ctx.output(0).data<T>();
  for (size_t e = 0; e < result.data.size(); ++e) y[e] = from_acc<T>(result.data[e]);
  return Status::Ok();
}

Status einsum_kernel(KernelContext& ctx) {
  const std::string equation = ctx.attrs().get_string("equation", "");
  std::vector<Shape> shapes;
  const DType dt = ctx.input(0).dtype();
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.error("input " + std::to_string(i) + " is missing");
    if (ctx.input(i).dtype() != dt) return ctx.error("inputs must have one dtype");
    shapes.push_back(ctx.input(i).shape());
  }
  auto spec = plan_einsum(equation, shapes);
  if (!spec.ok()) return ctx.error("equation '" + equation + "': " + spec.status().message());
  if (ctx.output(0).shape() != spec->out_shape)
    return ctx.error("output shape does not match equation '" + equation + "'");
  Status status;
  const bool ok = visit_numeric_dtype(dt, [&](auto tag) {
    using T = typename decltype(tag)::type;
    status = run_einsum<T>(ctx, *spec);
  });
  if (!ok) return ctx.error(std::string("unsupported dtype ") + dtype_name(dt));
  if (!status.ok()) return ctx.error("equation '" + equation + "': " + status.message());
  return Status::Ok();
}

}  // namespace

void register_math_einsum_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"Einsum", 1, -1, 1, 1, infer_einsum, einsum_kernel});
}

}  // namespace openge
