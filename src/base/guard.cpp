#include "base/guard.h"

#include <new>
#include <stdexcept>

#include "base/size_limit.h"

namespace openge {
namespace {

Status classify(std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const TensorSizeError& x) {
    return x.status();
  } catch (const BadResultAccess& x) {
    return internal_error(x.what());
  } catch (const std::bad_alloc&) {
    return resource_exhausted("out of memory (std::bad_alloc)");
  } catch (const std::length_error& x) {
    return resource_exhausted(std::string("a size is too large (std::length_error: ") + x.what() + ")");
  } catch (const std::overflow_error& x) {
    return resource_exhausted(std::string("arithmetic overflow (") + x.what() + ")");
  } catch (const std::exception& x) {
    // dnnl::error, google::protobuf::FatalException and the standard library's other errors.
    return internal_error(std::string("unexpected exception: ") + x.what());
  } catch (...) {
    return internal_error("unexpected exception of unknown type");
  }
}

}  // namespace

Status status_from_exception(std::exception_ptr e, const std::string& what) noexcept {
  try {
    Status s = classify(e);
    return what.empty() ? s : s.with_context(what);
  } catch (...) {
    // Building the message itself failed (out of memory): a Status with a literal still works.
    return Status(StatusCode::kResourceExhausted, "out of memory");  // fits the small-string buffer: no allocation
  }
}

}  // namespace openge
