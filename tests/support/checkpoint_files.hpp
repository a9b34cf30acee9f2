// Helpers of the checkpoint tests (tests/learn/test_checkpoint*.cpp): a fresh checkpoint folder switched on for the
// test's scope, and a file's bytes read and written whole.
#pragma once
#include "icl/learn/checkpoint.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <ios>
#include <sstream>
#include <string>
#include <system_error>
#include <unistd.h>

namespace icl::test {

// A new empty folder under the temp directory, made the checkpoint folder (every 300 s) while it lives; removed
// with what it holds at the end of the scope.
struct CheckpointFolder {
  std::filesystem::path path;
  CheckpointFolder() {
    std::string t = (std::filesystem::temp_directory_path() / "icl-ckpt-XXXXXX").string();
    REQUIRE(::mkdtemp(t.data()) != nullptr);
    path = t;
    learn::set_checkpoints({path.string(), 300});
  }
  ~CheckpointFolder() {
    learn::set_checkpoints({});
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  CheckpointFolder(const CheckpointFolder&) = delete;
  CheckpointFolder& operator=(const CheckpointFolder&) = delete;
};

inline std::string bytes_of(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

inline void put(const std::filesystem::path& p, const std::string& b) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f.write(b.data(), static_cast<std::streamsize>(b.size()));
}

}  // namespace icl::test
