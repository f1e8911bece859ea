// Errors are values: every fallible call returns a Status (or Result<T>) that says what went
// wrong and names the file, node, op or option it concerns, so callers can report it verbatim.
// Both are [[nodiscard]]: an ignored Status is an ignored error.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

namespace openge {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad user input: options, shapes, attribute values
  kInvalidModel,       // the model file is corrupt, hostile or inconsistent
  kUnsupported,        // valid ONNX that OpenGE does not implement (yet)
  kIoError,            // file system trouble
  kInternal,           // a bug in OpenGE
  kResourceExhausted,  // a tensor over the size limit (base/size_limit.h), or out of memory
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Adds context ("while loading model.onnx: ...") in front of the message.
  Status with_context(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status invalid_model(std::string m) { return {StatusCode::kInvalidModel, std::move(m)}; }
inline Status unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
inline Status io_error(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status resource_exhausted(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }

// Thrown by Result::value() (and * / ->) on an error: reading a value that is not there is a
// bug in the caller, and it must fail loudly in every build type, with the error it ignored.
// The Session boundary turns it into an internal error like any other exception.
class BadResultAccess : public std::logic_error {
 public:
  explicit BadResultAccess(const std::string& message)
      : std::logic_error("Result::value() called on an error: " + message) {}
};

// A value or the Status explaining why there is none.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}
  Result(Status status) : status_(std::move(status)) {
    // An ok Status carries no value: keep the error invariant (!ok() has a message).
    if (status_.ok()) status_ = Status(StatusCode::kInternal, "a Result was built from an ok Status without a value");
  }
  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& value() & { return checked(); }
  const T& value() const& { return checked(); }
  T&& value() && { return std::move(checked()); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }
  T& operator*() { return checked(); }
  const T& operator*() const { return checked(); }

 private:
  T& checked() {
    if (!value_) throw BadResultAccess(status_.message());
    return *value_;
  }
  const T& checked() const {
    if (!value_) throw BadResultAccess(status_.message());
    return *value_;
  }

  std::optional<T> value_;
  Status status_;
};

}  // namespace openge

#define OPENGE_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::openge::Status _openge_status = (expr);        \
    if (!_openge_status.ok()) return _openge_status; \
  } while (0)
