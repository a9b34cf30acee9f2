// Helpers for the weight-file tests: the bytes of .npy files (valid, or malformed on purpose), .npz archives
// written with libzip (stored or deflated members), and a scratch folder.
#pragma once

#include "icl/io/npy.hpp"

#include <doctest/doctest.h>
#include <zip.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace icl::test {

// .npy bytes around a header dict (written as given) and raw data; the header is padded with spaces and a
// newline to a multiple of 64 bytes, as NumPy writes it. major: format version 1, 2 or 3.
inline std::string npy_bytes(const std::string& dict, const std::string& data, int major = 1) {
  const std::size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string s = "\x93NUMPY";
  s += static_cast<char>(major);
  s += '\0';
  const std::size_t len = header.size();
  s += static_cast<char>(len & 0xff);
  s += static_cast<char>((len >> 8) & 0xff);
  if (major != 1) {
    s += static_cast<char>((len >> 16) & 0xff);
    s += static_cast<char>((len >> 24) & 0xff);
  }
  return s + header + data;
}

// Little-endian float64 / float32 data, and big-endian float64.
inline std::string f8_le(const std::vector<double>& v) {
  std::string s(v.size() * 8, '\0');
  if (!v.empty()) std::memcpy(s.data(), v.data(), s.size());  // an empty vector's data() may be null
  return s;
}
inline std::string f4_le(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    const float f = static_cast<float>(x);
    char b[4];
    std::memcpy(b, &f, 4);
    s.append(b, 4);
  }
  return s;
}
inline std::string f8_be(const std::vector<double>& v) {
  std::string s = f8_le(v);
  for (std::size_t i = 0; i < s.size(); i += 8) std::reverse(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(i) + 8);
  return s;
}

inline std::string shape_tuple(const std::vector<std::int64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

// A valid float64 C-order .npy of the given shape and row-major values.
inline std::string npy_f8(const std::vector<std::int64_t>& shape, const std::vector<double>& v) {
  return npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': " + shape_tuple(shape) + ", }", f8_le(v));
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw std::runtime_error("cannot write " + p.string());
}

inline std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// .safetensors bytes: the 8-byte little-endian length of `header` (written as given), the header, the data.
inline std::string safetensors_bytes(const std::string& header, const std::string& data) {
  std::string s(8, '\0');
  std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i, n >>= 8) s[static_cast<std::size_t>(i)] = static_cast<char>(n & 0xff);
  return s + header + data;
}

// A valid .safetensors file of F64 (or F32, f4 = true) tensors, laid out in order, with a __metadata__ entry.
struct SafeTensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<double> values;
  bool f4 = false;
};
inline std::string safetensors_file(const std::vector<SafeTensor>& tensors) {
  std::string header = "{\"__metadata__\": {\"format\": \"pt\"}", data;
  for (const auto& t : tensors) {
    const std::string bytes = t.f4 ? f4_le(t.values) : f8_le(t.values);
    std::string shape = "[";
    for (std::size_t i = 0; i < t.shape.size(); ++i) shape += (i ? ", " : "") + std::to_string(t.shape[i]);
    header += ", \"" + t.name + "\": {\"dtype\": \"" + (t.f4 ? "F32" : "F64") + "\", \"shape\": " + shape +
              "], \"data_offsets\": [" + std::to_string(data.size()) + ", " + std::to_string(data.size() + bytes.size()) +
              "]}";
    data += bytes;
  }
  header += "}";
  while (header.size() % 8) header += ' ';  // padded with spaces, as the reference writer aligns the data
  return safetensors_bytes(header, data);
}

// A zip archive (an .npz when the members are .npy bytes) written with libzip.
inline void write_zip(const std::filesystem::path& p, const std::vector<std::pair<std::string, std::string>>& members,
                      bool deflate) {
  int err = 0;
  zip_t* z = zip_open(p.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &err);
  if (!z) throw std::runtime_error("zip_open failed");
  for (const auto& [name, bytes] : members) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    const zip_int64_t i = src ? zip_file_add(z, name.c_str(), src, ZIP_FL_OVERWRITE) : -1;
    if (i < 0 || zip_set_file_compression(z, static_cast<zip_uint64_t>(i), deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0) != 0) {
      zip_discard(z);
      throw std::runtime_error("zip_file_add failed");
    }
  }
  if (zip_close(z) != 0) throw std::runtime_error("zip_close failed");
}

struct ScratchDir {
  std::filesystem::path path;
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "icl-npy-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

// The message of the ArrayFileError thrown by f, or "" (with a failed check) if none was thrown.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ArrayFileError& e) {
    return e.what();
  }
  FAIL_CHECK("no ArrayFileError");
  return "";
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace icl::test
