// The strict .safetensors reader (lib/icl/io/safetensors.hpp): files written here byte by byte. Valid files of
// every supported dtype read back exactly (F16 and BF16 from hand-computed bit patterns); every inconsistency the
// format's README rules out is an ArrayFileError whose one-line message names the file and the fault.
#include "icl/io/safetensors.hpp"

#include "tests/support/npy_files.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace test_safetensors {  // named: a unity build compiles several test files as one unit

using namespace icl;
using namespace icl::test;

namespace {

using icl::test::contains;
using icl::test::error_of;

std::string u16_le(const std::vector<std::uint16_t>& v) {
  std::string s;
  for (auto x : v) {
    s += static_cast<char>(x & 0xff);
    s += static_cast<char>(x >> 8);
  }
  return s;
}

}  // namespace

TEST_CASE("safetensors: valid files read back exactly, in header order, with metadata") {
  const std::vector<double> six = {1.5, -2.25, 3.0, 0.125, -1e300, 7.0};
  const std::string bytes = safetensors_file({{"w", {2, 3}, six}, {"a.b", {}, {0.5}, true}, {"empty", {0, 3}, {}}});
  const SafetensorsFile f = parse_safetensors(bytes, "w.safetensors");
  REQUIRE(f.tensors.size() == 3);
  CHECK(f.tensors[0].first == "w");  // header order, not alphabetical
  CHECK(f.tensors[0].second.shape == std::vector<std::int64_t>{2, 3});
  CHECK(f.tensors[0].second.data == six);
  CHECK(f.tensors[0].second.dtype == "F64");
  CHECK(f.tensors[1].first == "a.b");
  CHECK(f.tensors[1].second.shape.empty());  // a scalar
  CHECK(f.tensors[1].second.data == std::vector<double>{0.5});
  CHECK(f.tensors[1].second.dtype == "F32");
  CHECK(f.tensors[2].second.shape == std::vector<std::int64_t>{0, 3});
  CHECK(f.tensors[2].second.data.empty());
  CHECK(f.metadata.at("format") == "pt");

  // F16: 1, -2, 0.5, the smallest subnormal 2^-24, the largest finite 65504, inf. BF16: 1, -2.5, 2^-126.
  const std::string h = u16_le({0x3C00, 0xC000, 0x3800, 0x0001, 0x7BFF, 0x7C00});
  const std::string b = u16_le({0x3F80, 0xC020, 0x0080});
  const std::string header = R"({"h":{"dtype":"F16","shape":[6],"data_offsets":[0,12]},"b":{"dtype":"BF16","shape":[3],"data_offsets":[12,18]}})";
  const SafetensorsFile g = parse_safetensors(safetensors_bytes(header, h + b), "h.safetensors");
  REQUIRE(g.tensors.size() == 2);
  const auto& hv = g.tensors[0].second.data;
  CHECK(hv[0] == 1.0);
  CHECK(hv[1] == -2.0);
  CHECK(hv[2] == 0.5);
  CHECK(hv[3] == std::ldexp(1.0, -24));
  CHECK(hv[4] == 65504.0);
  CHECK(hv[5] == std::numeric_limits<double>::infinity());
  CHECK(g.tensors[1].second.data == std::vector<double>{1.0, -2.5, std::ldexp(1.0, -126)});

  // Tensors stored in another order than the header lists them; no tensors at all.
  const std::string swapped = R"({"late":{"dtype":"F64","shape":[1],"data_offsets":[8,16]},"early":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})";
  const SafetensorsFile s = parse_safetensors(safetensors_bytes(swapped, f8_le({1.0, 2.0})), "s.safetensors");
  CHECK(s.tensors[0].second.data == std::vector<double>{2.0});
  CHECK(s.tensors[1].second.data == std::vector<double>{1.0});
  CHECK(parse_safetensors(safetensors_bytes("{}  ", ""), "e.safetensors").tensors.empty());

  ScratchDir dir;
  write_bytes(dir.path / "w.safetensors", bytes);
  CHECK(read_safetensors((dir.path / "w.safetensors").string()).tensors.size() == 3);
  CHECK(contains(error_of([&] { read_safetensors((dir.path / "none.safetensors").string()); }), "cannot open the file"));
}

TEST_CASE("safetensors: every inconsistency is one line naming the file and the fault") {
  const std::string one = R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})";
  const std::string two = f8_le({1.0, 2.0});
  const std::string valid = safetensors_bytes(one, two);
  std::string huge(8, '\xff');
  huge[7] = '\x7f';
  struct Bad {
    std::string bytes, expect;
  };
  const auto st = [](const std::string& header, const std::string& data) { return safetensors_bytes(header, data); };
  const std::vector<Bad> bad = {
      {"", "empty file"},
      {std::string("\x10\0\0", 3), "truncated .safetensors file (3 bytes"},
      {valid.substr(0, 30), "truncated .safetensors header"},
      {huge + "{}", "over the format's limit of 100 MB"},
      {st(" " + one, two), "must begin with '{'"},
      {st("[1, 2]", ""), "must begin with '{'"},
      {st(R"({"w":{"dtype":"F64",)", ""), "malformed .safetensors header: parse error"},
      {st(one + "x", two), "malformed .safetensors header"},
      {st("{\"w\":{\"dtype\":\"F64\",\"shape\":[0],\"data_offsets\":[0,0]},\"\xff\":1}", ""), "malformed .safetensors header"},
      {st(R"({"w":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"w":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}})", two),
       "key 'w' appears twice"},
      {st(R"({"w":{"dtype":"F64","dtype":"F64","shape":[2],"data_offsets":[0,16]}})", two), "key 'dtype' appears twice"},
      {st(R"({"w":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", two), "tensor 'w': dtype 'I64' is not F64, F32, F16 or BF16"},
      {st(R"({"w":{"dtype":"F64","shape":[-2],"data_offsets":[0,16]}})", two), "shape must hold non-negative integers, not -2"},
      {st(R"({"w":{"dtype":"F64","shape":[2.0],"data_offsets":[0,16]}})", two), "shape must hold non-negative integers"},
      {st(R"({"w":{"dtype":"F64","shape":2,"data_offsets":[0,16]}})", two), "shape is not a list"},
      {st(R"({"w":{"dtype":"F64","shape":[2]}})", two), "tensor 'w': no data_offsets"},
      {st(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16],"strides":[1]}})", two), "unexpected field 'strides'"},
      {st(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0]}})", two), "data_offsets is not [BEGIN, END]"},
      {st(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[16,0]}})", two), "end before they begin"},
      {st(R"({"w":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})", two), "shape [2] of F64 needs 16 bytes, data_offsets [0, 8] hold 8"},
      {st(R"({"w":{"dtype":"F64","shape":[4611686018427387904,4],"data_offsets":[0,16]}})", two), "is too large"},
      {st(one, two.substr(0, 12)), "run past the end of the data (12 bytes)"},
      {st(one, two + "x"), "1 bytes after the last tensor's data"},
      {st(R"({"a":{"dtype":"F64","shape":[2],"data_offsets":[0,16]},"b":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}})", two),
       "tensor 'b' (bytes [8, 16)) overlaps tensor 'a' (bytes [0, 16))"},
      {st(R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"b":{"dtype":"F64","shape":[1],"data_offsets":[16,24]}})",
          two + two.substr(0, 8)),
       "8 unindexed bytes before tensor 'b'"},
      {st(R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[8,16]}})", two), "8 unindexed bytes before tensor 'a'"},
      {st(R"({"__metadata__":{"v":1},"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})", two),
       "__metadata__ value of 'v' is not a string"},
      {st(R"({"__metadata__":[],"w":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}})", two), "__metadata__ must be an object"},
      {st(R"({"w":[1,2]})", two), "tensor 'w': expected an object"},
      {st(R"({"a\nb":{"dtype":"F64","shape":[2],"data_offsets":[0,8]}})", two), "tensor 'a\\x0ab'"},
  };
  for (const auto& b : bad) {
    INFO("expected: " << b.expect);
    const std::string msg = error_of([&] { parse_safetensors(b.bytes, "w.safetensors"); });
    CHECK(msg.rfind("w.safetensors: ", 0) == 0);
    CHECK(contains(msg, b.expect));
    CHECK(msg.find('\n') == std::string::npos);
  }
}

}  // namespace test_safetensors
