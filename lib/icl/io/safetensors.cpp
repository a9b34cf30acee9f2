#include "icl/io/safetensors.hpp"

#include "icl/io/regular_file.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>

namespace icl {

namespace {

constexpr std::uint64_t kMaxHeader = 100'000'000;  // the reference implementation's limit (100 MB)

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw ArrayFileError(fmt::format("{}: {}", name, what));
}

// A name from the file, quoted and safe to print on one line (control and non-ASCII bytes as \xNN), cut at 80.
std::string shown(const std::string& s) {
  std::string out = "'";
  for (std::size_t i = 0; i < s.size() && i < 80; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c >= 0x7f || c == '\'' || c == '\\')
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  if (s.size() > 80) out += "...";
  return out + "'";
}

double from_half(std::uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0)
    v = std::ldexp(static_cast<double>(frac), -24);  // subnormal (or zero)
  else if (exp == 31)
    v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else
    v = std::ldexp(static_cast<double>(frac | 0x400), exp - 25);
  return sign ? -v : v;
}

double from_bfloat16(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::size_t item_size(const std::string& dtype) {
  if (dtype == "F64") return 8;
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  return 0;
}

// Little-endian bytes to a native value.
template <class T>
T load_le(const char* p) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big) std::reverse(b, b + sizeof(T));
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

std::uint64_t unsigned_entry(const nlohmann::ordered_json& v, const std::string& name, const std::string& what) {
  if (!v.is_number_unsigned()) fail(name, fmt::format("{} must hold non-negative integers, not {}", what, v.dump()));
  return v.get<std::uint64_t>();
}

struct Entry {
  std::string key;
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;
};

// The file's layout from its first bytes (`bytes`: at least min(total, 8 + the header length) of them), checked
// against its `total` size: every tensor's place in the byte buffer, before any of the buffer is read.
struct SafetensorsLayout {
  std::uint64_t header_bytes = 0;
  std::vector<Entry> entries;
  std::map<std::string, std::string> metadata;
};

// The header length the first 8 bytes give (0 when there are fewer).
std::uint64_t header_length(std::string_view bytes) { return bytes.size() < 8 ? 0 : load_le<std::uint64_t>(bytes.data()); }

SafetensorsLayout safetensors_layout(std::string_view bytes, std::uint64_t total, const std::string& name) {
  if (total == 0) fail(name, "empty file");
  if (total < 8)
    fail(name, fmt::format("truncated .safetensors file ({} bytes; the 8-byte header length is missing)", total));
  const std::uint64_t n = load_le<std::uint64_t>(bytes.data());
  if (n > kMaxHeader)
    fail(name, fmt::format("not a .safetensors file: header length {} is over the format's limit of 100 MB", n));
  if (n > total - 8)
    fail(name, fmt::format("truncated .safetensors header ({} bytes announced, {} present)", n, total - 8));
  const std::string_view header = bytes.substr(8, n);
  if (header.empty() || header[0] != '{')
    fail(name, "malformed .safetensors header: it must begin with '{' (the format's rule)");
  // JSON text holds no raw NUL, and the format pads with spaces only (nlohmann's parser would stop at a NUL and take
  // what precedes it).
  if (const auto nul = header.find('\0'); nul != std::string_view::npos)
    fail(name, fmt::format("malformed .safetensors header: a NUL byte at offset {} (the format pads with spaces)", 8 + nul));

  // Duplicate keys are refused at every level (nlohmann keeps the last one silently).
  std::vector<std::set<std::string>> keys;
  using Json = nlohmann::ordered_json;  // the header's order
  Json::parser_callback_t cb = [&](int, Json::parse_event_t ev, Json& parsed) {
    using E = Json::parse_event_t;
    if (ev == E::object_start) keys.emplace_back();
    if (ev == E::object_end && !keys.empty()) keys.pop_back();
    if (ev == E::key && !keys.empty()) {
      const std::string k = parsed.get<std::string>();
      if (!keys.back().insert(k).second) fail(name, fmt::format("malformed .safetensors header: key {} appears twice", shown(k)));
    }
    return true;
  };
  Json h;
  try {
    h = Json::parse(header.begin(), header.end(), cb);
  } catch (const nlohmann::json::exception& e) {
    std::string msg = e.what();
    if (const auto close = msg.find("] "); msg.rfind("[json.exception", 0) == 0 && close != std::string::npos)
      msg = msg.substr(close + 2);
    fail(name, "malformed .safetensors header: " + msg);
  }
  if (!h.is_object()) fail(name, "malformed .safetensors header: not a JSON object");

  SafetensorsLayout out;
  out.header_bytes = n;
  std::vector<Entry>& entries = out.entries;
  for (auto it = h.begin(); it != h.end(); ++it) {
    const std::string& key = it.key();
    const Json& v = it.value();
    if (key == "__metadata__") {
      if (!v.is_object()) fail(name, "__metadata__ must be an object of strings");
      for (auto m = v.begin(); m != v.end(); ++m) {
        if (!m.value().is_string())
          fail(name, fmt::format("__metadata__ value of {} is not a string (the format allows strings only)", shown(m.key())));
        out.metadata[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    const std::string t = "tensor " + shown(key);
    if (!v.is_object()) fail(name, fmt::format("{}: expected an object with dtype, shape and data_offsets", t));
    for (auto f = v.begin(); f != v.end(); ++f)
      if (f.key() != "dtype" && f.key() != "shape" && f.key() != "data_offsets")
        fail(name, fmt::format("{}: unexpected field {} (only dtype, shape, data_offsets)", t, shown(f.key())));
    for (const char* f : {"dtype", "shape", "data_offsets"})
      if (!v.contains(f)) fail(name, fmt::format("{}: no {}", t, f));
    Entry e;
    e.key = key;
    if (!v["dtype"].is_string()) fail(name, fmt::format("{}: dtype is not a string", t));
    e.dtype = v["dtype"].get<std::string>();
    if (item_size(e.dtype) == 0)
      fail(name, fmt::format("{}: dtype {} is not F64, F32, F16 or BF16", t, shown(e.dtype)));
    if (!v["shape"].is_array()) fail(name, fmt::format("{}: shape is not a list", t));
    std::uint64_t count = 1;
    for (const auto& s : v["shape"]) {
      const std::uint64_t dim = unsigned_entry(s, name, t + ": shape");
      if (dim > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ||
          (dim != 0 && count > std::numeric_limits<std::uint64_t>::max() / dim))
        fail(name, fmt::format("{}: shape {} is too large", t, v["shape"].dump()));
      count *= dim;
      e.shape.push_back(static_cast<std::int64_t>(dim));
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2) fail(name, fmt::format("{}: data_offsets is not [BEGIN, END]", t));
    e.begin = unsigned_entry(off[0], name, t + ": data_offsets");
    e.end = unsigned_entry(off[1], name, t + ": data_offsets");
    if (e.end < e.begin) fail(name, fmt::format("{}: data_offsets [{}, {}] end before they begin", t, e.begin, e.end));
    const std::size_t item = item_size(e.dtype);
    const std::uint64_t need = count <= std::numeric_limits<std::uint64_t>::max() / item ? count * item : 0;
    if (need == 0 && count != 0) fail(name, fmt::format("{}: shape {} is too large", t, v["shape"].dump()));
    if (e.end - e.begin != need)
      fail(name, fmt::format("{}: shape {} of {} needs {} bytes, data_offsets [{}, {}] hold {}", t, v["shape"].dump(),
                             e.dtype, need, e.begin, e.end, e.end - e.begin));
    entries.push_back(std::move(e));
  }

  // The byte buffer: entirely indexed, no holes, no overlaps.
  const std::uint64_t buffer = total - 8 - n;
  std::vector<const Entry*> order;
  for (const auto& e : entries) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(),
                   [](const Entry* a, const Entry* b) { return a->begin != b->begin ? a->begin < b->begin : a->end < b->end; });
  std::uint64_t at = 0;
  const Entry* prev = nullptr;
  for (const Entry* e : order) {
    if (e->end > buffer)
      fail(name, fmt::format("tensor {}: data_offsets [{}, {}] run past the end of the data ({} bytes): truncated file?",
                             shown(e->key), e->begin, e->end, buffer));
    if (e->begin < at)
      fail(name, fmt::format("tensor {} (bytes [{}, {})) overlaps tensor {} (bytes [{}, {}))", shown(e->key), e->begin,
                             e->end, shown(prev->key), prev->begin, prev->end));
    if (e->begin > at)
      fail(name, fmt::format("{} unindexed bytes before tensor {} (bytes [{}, {})): the format allows no holes",
                             e->begin - at, shown(e->key), e->begin, e->end));
    at = e->end;
    if (e->end > e->begin) prev = e;
  }
  if (at != buffer)
    fail(name, fmt::format("{} bytes after the last tensor's data ({} of {} bytes indexed): the format allows none",
                           buffer - at, at, buffer));

  return out;
}

}  // namespace

SafetensorsFile parse_safetensors(std::string_view bytes, const std::string& name) {
  const SafetensorsLayout layout = safetensors_layout(bytes, bytes.size(), name);
  SafetensorsFile out;
  out.metadata = layout.metadata;
  const char* data = bytes.data() + 8 + layout.header_bytes;
  for (const auto& e : layout.entries) {
    NpyArray a;
    a.shape = e.shape;
    a.dtype = e.dtype;
    const std::size_t item = item_size(e.dtype);
    const std::size_t count = static_cast<std::size_t>((e.end - e.begin) / item);
    a.data.resize(count);
    const char* p = data + e.begin;
    for (std::size_t i = 0; i < count; ++i, p += item) {
      if (item == 8)
        a.data[i] = load_le<double>(p);
      else if (item == 4)
        a.data[i] = load_le<float>(p);
      else if (e.dtype == "F16")
        a.data[i] = from_half(load_le<std::uint16_t>(p));
      else
        a.data[i] = from_bfloat16(load_le<std::uint16_t>(p));
    }
    out.tensors.emplace_back(e.key, std::move(a));
  }
  return out;
}

SafetensorsFile read_safetensors(const std::string& path) {
  try {
    const RegularFile f(path, kMaxWeightFileBytes, "a weight file");
    // The header first, checked against the file's size (every tensor's bytes in place); the data only then.
    const std::string head = f.read(0, std::min<std::uint64_t>(f.size(), 8));
    const std::uint64_t n = header_length(head);
    const bool whole_header = head.size() == 8 && n <= kMaxHeader && n <= f.size() - 8;
    (void)safetensors_layout(whole_header ? f.read(0, 8 + n) : head, f.size(), path);  // refuses a bad length unread
    return parse_safetensors(f.read_all(), path);
  } catch (const FileReadError& e) {
    throw ArrayFileError(e.what());
  }
}

}  // namespace icl
