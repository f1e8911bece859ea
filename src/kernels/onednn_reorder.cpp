#include "kernels/onednn_reorder.h"

#include "kernels/onednn_common.h"

namespace openge::onednn {
namespace {

using tag = dnnl::memory::format_tag;

using ReorderKernel = SrcDstKernel<dnnl::reorder, DNNL_ARG_FROM, DNNL_ARG_TO>;

}  // namespace

Result<std::unique_ptr<CompiledKernel>> make_transpose_kernel(const KernelRequest& request) {
  if (request.inputs.size() != 1 || request.outputs.size() != 1) return std::unique_ptr<CompiledKernel>();
  const auto xs = static_shape(request.inputs[0]);
  const auto dt = to_dnnl(request.inputs[0].dtype);
  const std::vector<int64_t> perm = request.node.attrs.get_ints("perm");
  if (!xs || !dt || xs->size() != 4) return std::unique_ptr<CompiledKernel>();
  const Shape& x = *xs;
  // Describe both sides with the same logical NCHW dims; only the tags differ.
  dnnl::memory::dims logical;
  tag from, to;
  if (perm == std::vector<int64_t>{0, 2, 3, 1}) {  // NCHW -> NHWC
    logical = to_dims(x);
    from = tag::nchw;
    to = tag::nhwc;
  } else if (perm == std::vector<int64_t>{0, 3, 1, 2}) {  // NHWC -> NCHW
    logical = {x[0], x[3], x[1], x[2]};
    from = tag::nhwc;
    to = tag::nchw;
  } else {
    return std::unique_ptr<CompiledKernel>();
  }
  auto k = std::make_unique<ReorderKernel>();
  k->src_md = dnnl::memory::desc(logical, *dt, from);
  k->dst_md = dnnl::memory::desc(logical, *dt, to);
  auto pd = try_create([&] {
    return dnnl::reorder::primitive_desc(cpu_engine(), k->src_md, cpu_engine(), k->dst_md, make_attr(dnnl::post_ops()));
  });
  if (!pd) return std::unique_ptr<CompiledKernel>();
  k->prim = dnnl::reorder(*pd);
  k->scratchpad_md = pd->scratchpad_desc();
  return std::unique_ptr<CompiledKernel>(std::move(k));
}

}  // namespace openge::onednn
