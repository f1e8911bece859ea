// TfIdfVectorizer (opset 9): counts the n-grams of a pool in each row of integer or string
// tokens, with skips, and weighs the counts (TF, IDF, TFIDF).
//
// The pool (pool_int64s or pool_strings) holds the n-grams back to back, grouped by length:
// ngram_counts[i] is where the (i+1)-grams start. The k-th n-gram of the pool (counting over all
// lengths) lands in output column ngram_indexes[k]; the output has max(ngram_indexes) + 1
// columns. Only lengths in [min_gram_length, max_gram_length] are counted. An n-gram of length
// n >= 2 with skip distance d (1 .. max_skip_count + 1) is the tokens at s, s + d, ...,
// s + (n - 1) d; every start s and distance d where it fits counts once. Unigrams do not depend
// on the distance, so they are counted at d = 1 only. Weights (IDF, TFIDF) are indexed by output
// column, as ONNX Runtime indexes them (with the identity ngram_indexes of every exporter this is
// also the spec's "i-th n-gram of the pool").
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "base/parallel.h"
#include "ops/op_registry.h"

namespace openge {
namespace {

enum class Weighting { kTF, kIDF, kTFIDF };

struct NgramTable {
  Weighting weighting = Weighting::kTF;
  int64_t min_n = 1, max_n = 1, max_skip = 0;
  bool strings = false;                            // pool_strings (else pool_int64s)
  std::map<std::string, int64_t> string_ids;       // pool_strings token -> id (ids of int pools: the values)
  std::map<std::vector<int64_t>, int64_t> column;  // n-gram (token ids) -> output column
  std::vector<float> weights;
  int64_t columns = 0;  // max(ngram_indexes) + 1
};

Status read_table(const Attributes& attrs, const std::string& label, NgramTable* t) {
  auto fail = [&](const std::string& what) { return invalid_model(label + ": " + what); };
  const std::string mode = attrs.get_string("mode", "");
  static const std::pair<const char*, Weighting> kModes[] = {
      {"TF", Weighting::kTF}, {"IDF", Weighting::kIDF}, {"TFIDF", Weighting::kTFIDF}};
  bool known = false;
  for (const auto& [name, w] : kModes)
    if (mode == name) {
      t->weighting = w;
      known = true;
    }
  if (!known) return fail("attribute mode must be TF, IDF or TFIDF, got '" + mode + "'");
  t->min_n = attrs.get_int("min_gram_length", 0);
  t->max_n = attrs.get_int("max_gram_length", 0);
  t->max_skip = attrs.get_int("max_skip_count", 0);
  if (t->min_n < 1 || t->max_n < t->min_n)
    return fail("min_gram_length and max_gram_length must satisfy 1 <= min <= max, got " + std::to_string(t->min_n) +
                " and " + std::to_string(t->max_n));
  if (t->max_skip < 0) return fail("max_skip_count must be >= 0, got " + std::to_string(t->max_skip));

  const std::vector<int64_t> pool_ints = attrs.get_ints("pool_int64s");
  const Attribute* pool_strings = attrs.find("pool_strings");
  const size_t n_strings = pool_strings ? pool_strings->strings.size() : 0;
  if ((pool_ints.empty()) == (n_strings == 0))
    return fail("exactly one of pool_int64s and pool_strings must hold the n-gram pool");
  t->strings = n_strings > 0;
  std::vector<int64_t> pool = pool_ints;
  if (t->strings) {
    pool.clear();
    for (const std::string& s : pool_strings->strings) {
      pool.push_back(t->string_ids.emplace(s, static_cast<int64_t>(t->string_ids.size())).first->second);
    }
  }

  const std::vector<int64_t> counts = attrs.get_ints("ngram_counts");
  const std::vector<int64_t> indexes = attrs.get_ints("ngram_indexes");
  if (indexes.empty()) return fail("attribute ngram_indexes is empty");
  for (int64_t c : indexes)
    if (c < 0) return fail("ngram_indexes holds a negative column " + std::to_string(c));
  t->columns = *std::max_element(indexes.begin(), indexes.end()) + 1;
  const int64_t pool_size = static_cast<int64_t>(pool.size());
  size_t ngram = 0;  // position in the pool's n-gram order, over all lengths
  for (size_t i = 0; i < counts.size(); ++i) {
    const int64_t n = static_cast<int64_t>(i) + 1;
    const int64_t begin = counts[i], end = i + 1 < counts.size() ? counts[i + 1] : pool_size;
    if (begin < 0 || end < begin || end > pool_size)
      return fail("ngram_counts must be non-decreasing offsets into the pool of " + std::to_string(pool_size) +
                  " entries, got " + std::to_string(begin) + " for " + std::to_string(n) + "-grams");
    if ((end - begin) % n != 0)
      return fail("the " + std::to_string(n) + "-grams take " + std::to_string(end - begin) +
                  " pool entries, not a multiple of " + std::to_string(n));
    for (int64_t at = begin; at < end; at += n, ++ngram) {
      if (ngram >= indexes.size())
        return fail("ngram_indexes has " + std::to_string(indexes.size()) +
                    " entries, fewer than the n-grams in the pool");
      if (n < t->min_n || n > t->max_n) continue;
      // A repeated n-gram keeps its first column (ONNX Runtime's rule).
      t->column.emplace(std::vector<int64_t>(pool.begin() + at, pool.begin() + at + n), indexes[ngram]);
    }
  }
  t->weights = attrs.get_floats("weights");
  if (!t->weights.empty() && static_cast<int64_t>(t->weights.size()) < t->columns)
    return fail("weights has " + std::to_string(t->weights.size()) + " entries for " + std::to_string(t->columns) +
                " output columns");
  return Status::Ok();
}

Status tfidf_infer(InferContext& ctx) {
  const std::string label = ctx.node().op_type + " '" + ctx.node().name + "'";
  NgramTable table;
  OPENGE_RETURN_IF_ERROR(read_table(ctx.attrs(), label, &table));
  const DType t = ctx.input_dtype(0);
  if (t != DType::kString && t != DType::kInt32 && t != DType::kInt64)
    return ctx.error(std::string("input 0 must be string, int32 or int64, got ") + dtype_name(t));
  if ((t == DType::kString) != table.strings)
    return ctx.error(std::string("a ") + dtype_name(t) + " input needs the pool in " +
                     (t == DType::kString ? "pool_strings" : "pool_int64s"));
  if (!ctx.input_shape_known(0)) {
    ctx.set_output_dtype(0, DType::kFloat32);
    return Status::Ok();
  }
  const Shape& in = ctx.input_shape(0);
  if (in.size() == 1)
    ctx.set_output(0, DType::kFloat32, {table.columns});
  else if (in.size() == 2)
    ctx.set_output(0, DType::kFloat32, {in[0], table.columns});
  else
    return ctx.error("input 0 must have shape [C] or [N, C], got " + shape_to_string(in));
  return Status::Ok();
}

// The tokens as ids: integer values as they are, strings as their pool id (-1: not in the pool).
std::vector<int64_t> token_ids(const Tensor& x, const NgramTable& table) {
  std::vector<int64_t> ids(static_cast<size_t>(x.numel()));
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (x.dtype() == DType::kString) {
      auto it = table.string_ids.find(x.data<std::string>()[i]);
      ids[static_cast<size_t>(i)] = it == table.string_ids.end() ? -1 : it->second;
    } else {
      ids[static_cast<size_t>(i)] = x.dtype() == DType::kInt32 ? x.data<int32_t>()[i] : x.data<int64_t>()[i];
    }
  }
  return ids;
}

// Adds one to out[column] for every pool n-gram found in `row` (length `len`).
void count_row(const int64_t* row, int64_t len, const NgramTable& table, float* out) {
  std::vector<int64_t> gram;
  // Distances past the row cannot fit a 2-gram: a hostile max_skip_count costs nothing.
  const int64_t max_distance = std::min(table.max_skip, std::max<int64_t>(len - 1, 0)) + 1;
  for (int64_t d = 1; d <= max_distance; ++d) {
    const int64_t first_n = d == 1 ? table.min_n : std::max<int64_t>(table.min_n, 2);
    for (int64_t s = 0; s < len; ++s) {
      gram.clear();
      for (int64_t n = 1, at = s; n <= table.max_n && at < len; ++n, at += d) {
        gram.push_back(row[at]);
        if (n < first_n) continue;
        auto it = table.column.find(gram);
        if (it != table.column.end()) out[it->second] += 1.0f;
      }
    }
  }
}

Status tfidf_kernel(KernelContext& ctx) {
  const std::string label = ctx.node().op_type + " '" + ctx.node().name + "'";
  NgramTable table;
  OPENGE_RETURN_IF_ERROR(read_table(ctx.attrs(), label, &table));
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  const int64_t rows = x.shape().size() == 2 ? x.dim(0) : 1;
  const int64_t len = x.shape().empty() ? 1 : x.shape().back();
  const std::vector<int64_t> ids = token_ids(x, table);
  float* out = y.data<float>();
  std::fill(out, out + y.numel(), 0.0f);
  parallel_for(rows, len * 64, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      float* o = out + r * table.columns;
      count_row(ids.data() + r * len, len, table, o);
      for (int64_t c = 0; c < table.columns; ++c) {
        const float w = table.weights.empty() ? 1.0f : table.weights[static_cast<size_t>(c)];
        if (table.weighting == Weighting::kIDF)
          o[c] = o[c] > 0 ? w : 0.0f;
        else if (table.weighting == Weighting::kTFIDF)
          o[c] *= w;
      }
    }
  });
  return Status::Ok();
}

}  // namespace

void register_tfidf_ops(std::vector<OpSchema>& table) {
  table.push_back(OpSchema{"TfIdfVectorizer", 1, 1, 1, 1, tfidf_infer, tfidf_kernel});
}

}  // namespace openge
