#include "icl/cli/output_folder.hpp"

#include "icl/cli/engine.hpp"
#include "icl/report/provenance.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <stdexcept>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace icl {

namespace fs = std::filesystem;

namespace {

std::string shown(const std::string& s) { return printable_line(s, 60); }

// The process ID the holder wrote into the lock file ("" when none can be read).
std::string holder_of(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return "";
  std::string s(buf, static_cast<std::size_t>(n));
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char c : s)
    if (c < '0' || c > '9') return "";
  return s;
}

// Writes all of `content` to `fd`; false (errno set) when it cannot.
bool write_all(int fd, const std::string& content) {
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

FolderLock::FolderLock(const std::string& dir, const std::string& option) : path_((fs::path(dir) / kLockFileName).string()) {
  // Open, lock, and make sure the file locked is still the one at the path (a holder that released it removes it;
  // locking the removed file would hold nothing).
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
      throw std::runtime_error(fmt::format("cannot make the lock file '{}' ({})", path_, std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int e = errno;
      const std::string pid = holder_of(fd);
      ::close(fd);
      if (e == EWOULDBLOCK)
        throw UsageError(fmt::format("{} '{}' is in use by another icl-verify run{}; wait for it to end, or write to "
                                     "another folder",
                                     option, shown(dir), pid.empty() ? "" : " (process " + pid + ")"));
      throw std::runtime_error(fmt::format("cannot lock '{}' ({})", path_, std::strerror(e)));
    }
    struct stat held {}, now {};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      const std::string pid = fmt::format("{}\n", ::getpid());
      if (::ftruncate(fd, 0) != 0 || !write_all(fd, pid)) {
        // The lock holds without the process ID in it; only the message of a second run is poorer.
      }
      fd_ = fd;
      return;
    }
    ::close(fd);  // removed or replaced meanwhile: take the new one
  }
  throw std::runtime_error(fmt::format("cannot lock '{}' (it keeps being replaced)", path_));
}

FolderLock::~FolderLock() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // still held: nobody else can have taken this file
  ::close(fd_);
}

StagedFiles::StagedFiles(std::string dir)
    : dir_(std::move(dir)), staging_((fs::path(dir_) / fmt::format(".icl-verify-staging.{}", ::getpid())).string()) {
  // The folder is held, so no other run is staging here: a staging folder found is what a killed run left.
  std::error_code ec;
  std::vector<fs::path> stale;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().starts_with(".icl-verify-staging.")) stale.push_back(it->path());
  for (const auto& p : stale) fs::remove_all(p, ec);
}

StagedFiles::~StagedFiles() {
  std::error_code ec;
  if (!committed_) fs::remove_all(staging_, ec);
}

void StagedFiles::add(const std::string& name, const std::string& content) {
  const std::string target = (fs::path(dir_) / name).string();
  const auto failed = [&](int e) {
    return WriteError(fmt::format("cannot write '{}' ({}); none of the run's report files was written", target,
                                  std::strerror(e)));
  };
  if (names_.empty()) {
    std::error_code ec;
    if (!fs::create_directory(staging_, ec) && ec) throw failed(ec.value());
  }
  const std::string path = (fs::path(staging_) / name).string();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw failed(errno);
  if (!write_all(fd, content)) {
    const int e = errno;
    ::close(fd);
    throw failed(e);
  }
  if (::close(fd) != 0) throw failed(errno);
  for (const auto& n : names_)
    if (n == name) return;
  names_.push_back(name);
}

std::string StagedFiles::staged_path(const std::string& name) const { return (fs::path(staging_) / name).string(); }

std::atomic<bool>& commit_started() {
  static std::atomic<bool> started{false};
  return started;
}

void StagedFiles::commit() {
  commit_started().store(true);
  for (const auto& name : names_) {
    std::error_code ec;
    fs::rename(fs::path(staging_) / name, fs::path(dir_) / name, ec);
    if (ec)
      throw WriteError(fmt::format("cannot move '{}' into '{}' ({})", name, dir_, ec.message()));
  }
  committed_ = true;
  std::error_code ec;
  fs::remove_all(staging_, ec);
}

}  // namespace icl
