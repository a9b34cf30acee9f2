#include "icl/io/regular_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace icl {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw FileReadError(fmt::format("{}: {}", path, what));
}

const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a folder";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

}  // namespace

RegularFile::RegularFile(const std::string& path, std::uint64_t max_bytes, const std::string& what) : path_(path) {
  if (path.find('\0') != std::string::npos) fail(path, "NUL in the file name");
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) fail(path, fmt::format("cannot open the file ({})", std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    fail(path, fmt::format("cannot read the file ({})", std::strerror(e)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    fail(path, fmt::format("not a regular file ({}); only regular files are read", kind_of(st.st_mode)));
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  if (size_ > max_bytes) {
    ::close(fd_);
    fd_ = -1;
    fail(path, fmt::format("{} bytes, more than the {} bytes {} may have", size_, max_bytes, what));
  }
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string RegularFile::read(std::uint64_t offset, std::uint64_t n) const {
  std::string out(static_cast<std::size_t>(n), '\0');
  std::uint64_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, out.data() + got, static_cast<std::size_t>(n - got), static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(path_, fmt::format("read error ({})", std::strerror(errno)));
    }
    if (r == 0) fail(path_, fmt::format("the file shrank while it was read ({} bytes expected)", size_));
    got += static_cast<std::uint64_t>(r);
  }
  return out;
}

std::string RegularFile::read_all() const {
  std::string out = read(0, size_);
  char extra;
  ssize_t r;
  do {
    r = ::pread(fd_, &extra, 1, static_cast<off_t>(size_));
  } while (r < 0 && errno == EINTR);
  if (r > 0) fail(path_, fmt::format("the file grew while it was read (from {} bytes)", size_));
  return out;
}

std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, const std::string& what) {
  return RegularFile(path, max_bytes, what).read_all();
}

}  // namespace icl
