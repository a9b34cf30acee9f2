// The strict .npy/.npz reader (lib/icl/io/npy.hpp): valid files in every supported variant read back exactly;
// every malformed case is an ArrayFileError whose one-line message names the file and the fault.
#include "icl/io/npy.hpp"

#include "tests/support/npy_files.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace test_npy {  // named: a unity build compiles several test files as one unit

using namespace icl;
using namespace icl::test;

namespace {

using icl::test::contains;
using icl::test::error_of;

const std::vector<double> kSix = {1.5, -2.25, 3.0, 0.125, -1e300, 7.0};

}  // namespace

TEST_CASE("npy: valid files of every supported variant read back exactly") {
  SUBCASE("float64, C order, version 1.0") {
    const NpyArray a = parse_npy(npy_f8({2, 3}, kSix), "a.npy");
    CHECK(a.shape == std::vector<std::int64_t>{2, 3});
    CHECK(a.data == kSix);
    CHECK(a.dtype == "<f8");
    CHECK(a.shape_text() == "(2, 3)");
  }
  SUBCASE("versions 2.0 and 3.0, double-quoted keys, keys in another order, no trailing comma") {
    for (int major : {2, 3}) {
      const auto bytes = npy_bytes("{\"shape\": (3, 2), \"fortran_order\": False, \"descr\": \"<f8\"}", f8_le(kSix), major);
      const NpyArray a = parse_npy(bytes, "a.npy");
      CHECK(a.shape == std::vector<std::int64_t>{3, 2});
      CHECK(a.data == kSix);
    }
  }
  SUBCASE("float32 widens exactly") {
    const std::vector<double> v = {0.1f, -3.5f, 1e-20f};
    const NpyArray a = parse_npy(npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", f4_le(v)), "a");
    CHECK(a.data == v);
    CHECK(a.shape_text() == "(3,)");
  }
  SUBCASE("big-endian float64") {
    const NpyArray a = parse_npy(npy_bytes("{'descr': '>f8', 'fortran_order': False, 'shape': (6,), }", f8_be(kSix)), "a");
    CHECK(a.data == kSix);
  }
  SUBCASE("Fortran order is returned in C order") {
    // The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]] stored column by column.
    const NpyArray a = parse_npy(
        npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", f8_le({1, 4, 2, 5, 3, 6})), "a");
    CHECK(a.data == std::vector<double>{1, 2, 3, 4, 5, 6});
    // Three dimensions (2, 2, 2): entry [i, j, k] = 100 i + 10 j + k, stored with i fastest.
    std::vector<double> fortran;
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i) fortran.push_back(100 * i + 10 * j + k);
    const NpyArray b = parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2, 2), }", f8_le(fortran)), "b");
    CHECK(b.data == std::vector<double>{0, 1, 10, 11, 100, 101, 110, 111});
  }
  SUBCASE("a scalar (shape ()) and an empty array (a zero dimension)") {
    const NpyArray s = parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (), }", f8_le({4.0})), "s");
    CHECK(s.shape.empty());
    CHECK(s.data == std::vector<double>{4.0});
    const NpyArray e = parse_npy(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 3), }", ""), "e");
    CHECK(e.size() == 0);
  }
}

TEST_CASE("npy: every malformed file is refused with a one-line message naming the fault") {
  const std::string good_dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }";
  const std::string good = npy_bytes(good_dict, f8_le(kSix));
  struct Bad {
    std::string bytes, expect;
  };
  const std::vector<Bad> bad = {
      {"", "empty file"},
      {"hello world, not numpy", "not a .npy file"},
      {good.substr(0, 5), "truncated .npy file"},  // part of the magic only
      {std::string("\x93NUMPZ\x01\x00", 8), "not a .npy file"},
      {good.substr(0, 9), "truncated .npy file"},
      {good.substr(0, 40), "truncated .npy header"},
      {good.substr(0, good.size() - 1), "truncated .npy data"},
      {good.substr(0, good.size() - 48), "truncated .npy data"},
      {good + "x", "1 bytes after the data"},
      {[&] { auto s = good; s[6] = 4; return s; }(), "version 4.0"},
      {[&] { auto s = good; s[7] = 1; return s; }(), "version 1.1"},
      {npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (2, 3), }", f8_le(kSix)), "dtype '<i8'"},
      {npy_bytes("{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", f8_le(kSix)), "dtype '<f2'"},
      {npy_bytes("{'descr': '|O', 'fortran_order': False, 'shape': (2, 3), }", f8_le(kSix)), "dtype '|O'"},
      {npy_bytes("{'descr': '<c16', 'fortran_order': False, 'shape': (3,), }", f8_le(kSix)), "dtype '<c16'"},
      {npy_bytes("{'descr': '<f8', 'shape': (2, 3), }", f8_le(kSix)), "no 'fortran_order'"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, }", f8_le(kSix)), "no 'shape'"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", f8_le(kSix)), "unexpected key 'extra'"},
      {npy_bytes("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", f8_le(kSix)), "appears twice"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': 0, 'shape': (2, 3), }", f8_le(kSix)), "True or False"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': 6, }", f8_le(kSix)), "expected '('"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (6), }", f8_le(kSix)), "trailing comma"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, -3), }", f8_le(kSix)), "non-negative integers"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2.0, 3), }", f8_le(kSix)), "expected ',' or ')'"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999, ), }", ""), "too large"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296), }", ""), "too large"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), } x", f8_le(kSix)), "text after the header"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), ", f8_le(kSix)), "malformed .npy header"},
      {npy_bytes("['descr', '<f8']", f8_le(kSix)), "expected '{'"},
      {npy_bytes("{'descr': '<f8\\x', 'fortran_order': False, 'shape': (2, 3), }", f8_le(kSix)), "escapes"},
      {npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), '\xc3\xa9': 1}", f8_le(kSix)), "non-ASCII"},
  };
  for (const auto& b : bad) {
    INFO("expected: " << b.expect);
    const std::string msg = error_of([&] { parse_npy(b.bytes, "w.npy"); });
    CHECK(contains(msg, "w.npy: "));
    CHECK(contains(msg, b.expect));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

TEST_CASE("npy/npz files: read from disk, stored and deflated members, and broken archives") {
  ScratchDir dir;
  const auto P1 = npy_f8({2, 2}, {1, 2, 3, 4});
  const auto Q1 = npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", f4_le({5, 6, 7, 8}));

  SUBCASE("a .npy file") {
    write_bytes(dir.path / "a.npy", P1);
    CHECK(read_npy((dir.path / "a.npy").string()).data == std::vector<double>{1, 2, 3, 4});
    CHECK(contains(error_of([&] { read_npy((dir.path / "missing.npy").string()); }), "cannot open"));
  }
  for (bool deflate : {false, true}) {
    CAPTURE(deflate);
    const auto path = dir.path / (deflate ? "c.npz" : "s.npz");
    write_zip(path, {{"P1.npy", P1}, {"Q1.npy", Q1}}, deflate);
    const auto arrays = read_npz(path.string());
    REQUIRE(arrays.size() == 2);
    CHECK(arrays[0].first == "P1");
    CHECK(arrays[1].first == "Q1");
    CHECK(arrays[0].second.data == std::vector<double>{1, 2, 3, 4});
    CHECK(arrays[1].second.data == std::vector<double>{5, 6, 7, 8});

    // Truncated archives: the central directory (at the end) is gone, or cut short.
    const std::string bytes = read_bytes(path);
    for (std::size_t keep : {bytes.size() / 2, bytes.size() - 10, std::size_t{30}}) {
      write_bytes(dir.path / "t.npz", bytes.substr(0, keep));
      const std::string msg = error_of([&] { read_npz((dir.path / "t.npz").string()); });
      CHECK(contains(msg, "t.npz: "));
    }
  }
  SUBCASE("a corrupted member (its CRC no longer matches)") {
    write_zip(dir.path / "s.npz", {{"P1.npy", P1}, {"Q1.npy", Q1}}, false);
    std::string bytes = read_bytes(dir.path / "s.npz");
    // Flip one byte of P1's data: stored members keep the .npy bytes verbatim after the local header.
    const auto at = bytes.find(f8_le({1, 2, 3, 4}));
    REQUIRE(at != std::string::npos);
    bytes[at + 3] ^= 0x40;
    write_bytes(dir.path / "x.npz", bytes);
    CHECK(contains(error_of([&] { read_npz((dir.path / "x.npz").string()); }), "corrupt member"));
  }
  SUBCASE("members that are not .npy arrays, a malformed member, not a zip at all") {
    write_zip(dir.path / "m.npz", {{"P1.npy", P1}, {"notes.txt", "hello"}}, false);
    CHECK(contains(error_of([&] { read_npz((dir.path / "m.npz").string()); }), "member 'notes.txt' is not a .npy array"));
    write_zip(dir.path / "b.npz", {{"P1.npy", P1.substr(0, P1.size() - 8)}}, true);
    const std::string msg = error_of([&] { read_npz((dir.path / "b.npz").string()); });
    CHECK(contains(msg, "b.npz: P1.npy: truncated .npy data"));
    write_bytes(dir.path / "n.npz", P1);
    CHECK(contains(error_of([&] { read_npz((dir.path / "n.npz").string()); }), "not a readable .npz"));
    CHECK(contains(error_of([&] { read_npz((dir.path / "none.npz").string()); }), "cannot open"));
  }
}

}  // namespace test_npy
