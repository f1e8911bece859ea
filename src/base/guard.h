// Exceptions stop at the API boundary. OpenGE reports errors as values, but some failures
// arrive as exceptions: std::bad_alloc from `new`, std::length_error from a std::vector asked for
// an absurd size, TensorSizeError from the Tensor constructor (base/size_limit.h),
// BadResultAccess, dnnl::error from oneDNN, google::protobuf::FatalException from protobuf.
// guard_exceptions runs a function returning Status or Result<T> and turns any exception that
// escapes it into an error Status whose message starts with `what`, so the process never
// terminates on a hostile model. Used around Session::open/run, compiler::compile and each
// node's inference and kernel (where the message can name the node).
#pragma once
#include <exception>
#include <string>
#include <type_traits>
#include <utility>

#include "openge/status.h"

namespace openge {

// The Status for the exception `e`, its message prefixed with `what` ("" for none).
Status status_from_exception(std::exception_ptr e, const std::string& what) noexcept;

// `what` is a string or a callable returning one; a callable is only called on an exception, so
// hot paths (one node of a run) pay nothing for building the label.
template <class Fn, class What>
auto guard_exceptions(Fn&& fn, What&& what) -> decltype(fn()) {
  try {
    return fn();
  } catch (...) {
    if constexpr (std::is_invocable_v<What>)
      return status_from_exception(std::current_exception(), what());
    else
      return status_from_exception(std::current_exception(), std::string(what));
  }
}

}  // namespace openge
