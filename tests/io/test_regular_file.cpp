// Weight files are read safely (lib/icl/io/regular_file.hpp): only regular files, a byte limit, the header checked
// against the file's size before the data is read. A link to /dev/zero, a FIFO and a folder are refused at once with
// one line naming the file (before: a link to /dev/zero was read until the kernel killed the process, a FIFO waited
// forever, a folder was "empty file"); a NUL-padded .safetensors header is refused (the format pads with spaces).
#include "icl/io/regular_file.hpp"
#include "icl/io/safetensors.hpp"
#include "icl/model/attention_weights.hpp"

#include "tests/support/npy_files.hpp"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace test_regular_file {  // named: a unity build compiles several test files as one unit

using namespace icl;
using namespace icl::test;

namespace {

namespace fs = std::filesystem;

// Every reader of weight files, on `path`: each must refuse it with a message holding `says`.
void every_reader_refuses(const fs::path& path, const std::string& says) {
  const std::string p = path.string();
  const std::vector<std::pair<const char*, std::function<void()>>> readers = {
      {"read_npy", [&] { (void)read_npy(p); }},
      {"read_npz", [&] { (void)read_npz(p); }},
      {"read_safetensors", [&] { (void)read_safetensors(p); }},
      {"read_lsa_stack", [&] { (void)read_lsa_stack(p); }},
  };
  for (const auto& [name, read] : readers) {
    INFO(name << " on " << p);
    const auto t0 = std::chrono::steady_clock::now();
    const std::string m = error_of(read);
    CHECK(contains(m, says));
    CHECK(contains(m, p));
    CHECK(m.find('\n') == std::string::npos);
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
  }
}

}  // namespace

TEST_CASE("weight files: a folder, a FIFO and a link to /dev/zero are refused at once, by every reader") {
  ScratchDir dir;
  for (const char* ext : {".npy", ".npz", ".safetensors"}) {
    const fs::path folder = dir.path / (std::string("folder") + ext);
    fs::create_directory(folder);
    every_reader_refuses(folder, "not a regular file (a folder)");
    const fs::path fifo = dir.path / (std::string("fifo") + ext);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    every_reader_refuses(fifo, "not a regular file (a FIFO)");
    const fs::path zero = dir.path / (std::string("zero") + ext);
    fs::create_symlink("/dev/zero", zero);
    every_reader_refuses(zero, "not a regular file (a character device)");
  }
  const std::string missing = error_of([&] { (void)read_npy((dir.path / "none.npy").string()); });
  CHECK(contains(missing, "cannot open the file"));
}

TEST_CASE("weight files: a file over the byte limit is refused before it is read") {
  ScratchDir dir;
  for (const char* name : {"big.npy", "big.npz", "big.safetensors"}) {
    const fs::path p = dir.path / name;
    write_bytes(p, "x");
    fs::resize_file(p, kMaxWeightFileBytes + 1);  // sparse: no disk, and never read
    every_reader_refuses(p, "more than the 1073741824 bytes a weight file may have");
  }
}

TEST_CASE("weight files: the sizes the header gives are checked against the file's before the data is read") {
  ScratchDir dir;
  // A valid .npy header of shape (4,) followed by 512 MiB (sparse): refused from the header and the size alone.
  const fs::path npy = dir.path / "long.npy";
  write_bytes(npy, npy_f8({4}, {1, 2, 3, 4}));
  fs::resize_file(npy, std::uintmax_t{1} << 29);
  CHECK(contains(error_of([&] { (void)read_npy(npy.string()); }), "bytes after the data of shape (4,)"));
  // A header announcing more data than the file holds.
  write_bytes(npy, npy_f8({1000000}, {1, 2}));
  CHECK(contains(error_of([&] { (void)read_npy(npy.string()); }), "truncated .npy data: shape (1000000,)"));
  // A .npy header length beyond any NumPy writes.
  std::string huge = npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", f8_le({1}), 2);
  huge[8] = huge[9] = huge[10] = '\xff';
  huge[11] = '\x0f';
  write_bytes(npy, huge);
  CHECK(contains(error_of([&] { (void)read_npy(npy.string()); }), "more than the 1048576 read"));
  // .safetensors: a tensor whose offsets run past the end of the file, and 512 MiB after the last tensor.
  const fs::path st = dir.path / "w.safetensors";
  write_bytes(st, safetensors_bytes(R"({"P1":{"dtype":"F64","shape":[1000],"data_offsets":[0,8000]}})", f8_le({1})));
  CHECK(contains(error_of([&] { (void)read_safetensors(st.string()); }), "run past the end of the data"));
  write_bytes(st, safetensors_bytes(R"({"P1":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", f8_le({1})));
  fs::resize_file(st, std::uintmax_t{1} << 29);
  CHECK(contains(error_of([&] { (void)read_safetensors(st.string()); }), "bytes after the last tensor's data"));
  // Read whole, valid files still read.
  write_bytes(npy, npy_f8({2}, {1.5, 2.5}));
  CHECK(read_npy(npy.string()).data == std::vector<double>{1.5, 2.5});
  write_bytes(st, safetensors_bytes(R"({"P1":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}}   )", f8_le({0.5})));
  CHECK(read_safetensors(st.string()).tensors.at(0).second.data == std::vector<double>{0.5});
}

TEST_CASE("safetensors: a header padded with NUL bytes is refused; padded with spaces it is read") {
  const std::string header = R"({"P1":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})";
  const std::string nul = error_of([&] { (void)parse_safetensors(safetensors_bytes(header + std::string(6, '\0'), f8_le({1})), "n.safetensors"); });
  CHECK(contains(nul, "n.safetensors: malformed .safetensors header: a NUL byte"));
  const std::string inside = error_of([&] {
    (void)parse_safetensors(safetensors_bytes(std::string(R"({"P1":{"dtype":"F64","sh)") + '\0' + "ape\":[1]}}", f8_le({1})),
                            "m.safetensors");
  });
  CHECK(contains(inside, "a NUL byte"));
  CHECK(parse_safetensors(safetensors_bytes(header + "      ", f8_le({1})), "s.safetensors").tensors.size() == 1);
}

TEST_CASE("regular files: the reader's own guarantees") {
  ScratchDir dir;
  const fs::path p = dir.path / "f.bin";
  write_bytes(p, "0123456789");
  const RegularFile f(p.string(), 10);
  CHECK(f.size() == 10);
  CHECK(f.read(2, 3) == "234");
  CHECK(f.read_all() == "0123456789");
  write_bytes(p, "0123");  // shrank after it was opened
  CHECK_THROWS_AS((void)f.read_all(), FileReadError);
  CHECK_THROWS_AS(RegularFile(p.string(), 3), FileReadError);  // over the limit
  write_bytes(p, "0123456789ab");
  const RegularFile g(p.string(), 100);
  write_bytes(p, "0123456789abcdef");  // grew after it was opened
  CHECK_THROWS_AS((void)g.read_all(), FileReadError);
}

}  // namespace test_regular_file
