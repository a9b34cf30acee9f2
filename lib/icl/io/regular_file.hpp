// Files read safely: only a regular file is read (a folder, FIFO, character or block device or socket is refused,
// also behind a symbolic link: a link to /dev/zero is a character device), its size is known before the first byte
// is read and must be at most a limit, and a file that changes size while it is read is refused. Opening never
// blocks (O_NONBLOCK: a FIFO without a writer is refused, not waited on). The weight readers (npy.hpp,
// safetensors.hpp) and the checkpoint loader (learn/checkpoint.hpp) read through it.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

namespace icl {

// One line: the file's name, then what is wrong ("w.npy: not a regular file (a FIFO)").
struct FileReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The largest weight or covariance file read (.npy, .npz, .safetensors; an .npz's members together, uncompressed):
// far above any linear-attention stack the project evaluates (d <= 64: 35 kB per matrix).
inline constexpr std::uint64_t kMaxWeightFileBytes = std::uint64_t{1} << 30;  // 1 GiB

class RegularFile {
public:
  // Opens `path` for reading; FileReadError when it cannot be opened, is not a regular file or is larger than
  // max_bytes. `what` names the kind of file in the size message ("a weight file").
  RegularFile(const std::string& path, std::uint64_t max_bytes, const std::string& what = "a file");
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Exactly `n` bytes from `offset` (FileReadError when the file holds fewer there: it shrank).
  std::string read(std::uint64_t offset, std::uint64_t n) const;
  // The whole file, size() bytes; FileReadError when it is no longer that size.
  std::string read_all() const;

private:
  std::string path_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// RegularFile(path, max_bytes, what).read_all().
std::string read_regular_file(const std::string& path, std::uint64_t max_bytes, const std::string& what = "a file");

}  // namespace icl
