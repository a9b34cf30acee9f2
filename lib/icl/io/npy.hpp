// NumPy array files, read strictly: `.npy` (format versions 1.0, 2.0, 3.0; float32 or float64, either byte
// order, C or Fortran order) and `.npz` (a zip archive of `.npy` members, stored or deflated, as np.savez and
// np.savez_compressed write it; the archive is read with libzip, which checks every member's CRC).
//
// Debian 12 has no C++ reader of .npz (xtensor reads .npy only), so the .npy part is a small parser of the
// format NumPy documents (numpy.lib.format): magic "\x93NUMPY", version, header length, a Python dict literal
// with exactly the keys 'descr', 'fortran_order' and 'shape', then exactly prod(shape) items. Anything else
// (a short or long file, another dtype, a malformed header, an object array) is an ArrayFileError whose
// message is one line naming the file and what is wrong.
//
// Files are read through regular_file.hpp: only a regular file (a folder, FIFO or device is refused, also behind a
// link), of at most kMaxWeightFileBytes; read_npy reads the header first and checks the size it implies against the
// file's before it reads the data. An .npz is read whole (within that limit) and opened from memory; its members'
// sizes, from the archive's directory, must together stay within the same limit before any is unpacked.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace icl {

struct ArrayFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct NpyArray {
  std::vector<std::int64_t> shape;
  std::vector<double> data;  // row-major (C order), whatever the file's order; float32 widened exactly
  std::string dtype;         // the file's descr, e.g. "<f4"
  std::size_t size() const { return data.size(); }
  std::string shape_text() const;  // "(1, 1, 2, 5, 5)", as NumPy prints it
};

// `name` prefixes error messages (e.g. the file name, or "weights.npz: P1.npy").
NpyArray parse_npy(std::string_view bytes, const std::string& name);
NpyArray read_npy(const std::string& path);
// The members of an .npz archive in archive order, named without the ".npy" suffix.
std::vector<std::pair<std::string, NpyArray>> read_npz(const std::string& path);

}  // namespace icl
