#include "base/trusted_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace openge {
namespace fs = std::filesystem;
namespace {

std::string octal(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

bool trusted_owner(uid_t uid) { return uid == ::geteuid() || uid == 0; }

// `subject` says what the path is ("compiled kernel /c/x.so", "folder /c above compile cache folder /c/k").
Status untrusted(const std::string& subject, const std::string& why, const std::string& fix) {
  return io_error(subject + " is not trusted: " + why + "; " + fix);
}

Status check_owner_and_mode(const struct stat& st, const std::string& subject, const std::string& path, bool folder) {
  if (!trusted_owner(st.st_uid))
    return untrusted(
        subject,
        "it is owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " + std::to_string(::geteuid()) +
            ") or root",
        "remove it, or run 'chown " + std::to_string(::geteuid()) + " " + path + "' if its content is yours");
  const bool others_write = (st.st_mode & (S_IWGRP | S_IWOTH)) != 0;
  if (others_write && !(folder && (st.st_mode & S_ISVTX)))
    return untrusted(subject, "it is writable by group or others (mode " + octal(st.st_mode) + ")",
                     "run 'chmod go-w " + path + "'");
  return Status::Ok();
}

}  // namespace

Status check_trusted_folder(const std::string& dir, const std::string& what) {
  std::error_code ec;
  fs::path p = fs::absolute(fs::path(dir), ec).lexically_normal();
  if (ec) return io_error(dir + ": cannot resolve the folder: " + ec.message());
  if (!p.has_filename() && p != p.root_path()) p = p.parent_path();  // "a/b/" names "a/b"
  const std::string named = p.string();
  for (bool first = true;; first = false) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) return io_error(p.string() + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) return io_error(p.string() + ": is not a folder");
    // The folder itself is named as what it is; a folder above it as the one that exposes it.
    const std::string subject = first ? what + " " + named : "folder " + p.string() + " above " + what + " " + named;
    OPENGE_RETURN_IF_ERROR(check_owner_and_mode(st, subject, p.string(), /*folder=*/true));
    if (p == p.parent_path()) break;
    p = p.parent_path();
  }
  return Status::Ok();
}

Status check_trusted_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return io_error(path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return untrusted(what + " " + path, S_ISLNK(st.st_mode) ? "it is a symbolic link" : "it is not a regular file",
                     "remove it (it is rebuilt)");
  OPENGE_RETURN_IF_ERROR(check_owner_and_mode(st, what + " " + path, path, /*folder=*/false));
  std::error_code ec;
  const fs::path folder = fs::absolute(fs::path(path), ec).parent_path();
  if (ec) return io_error(path + ": cannot resolve the folder: " + ec.message());
  return check_trusted_folder(folder.string(), what + "'s folder");
}

}  // namespace openge
