#include "icl/io/npy.hpp"

#include "icl/io/regular_file.hpp"

#include <fmt/format.h>
#include <zip.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <memory>
#include <set>

namespace icl {

std::string NpyArray::shape_text() const {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += fmt::format("{}{}", i ? ", " : "", shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw ArrayFileError(fmt::format("{}: {}", name, what));
}

// NumPy writes headers of a few hundred bytes (and reads at most 10000 by default).
constexpr std::size_t kMaxNpyHeader = 1 << 20;

// The header's Python dict literal, e.g. {'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(std::string_view s, const std::string& name) : s_(s), name_(name) {}

  void parse(std::string& descr, bool& fortran, std::vector<std::int64_t>& shape) {
    std::set<std::string> seen;
    skip_space();
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      const std::string key = string_literal();
      if (!seen.insert(key).second) bad(fmt::format("key '{}' appears twice", key));
      skip_space();
      expect(':');
      skip_space();
      if (key == "descr")
        descr = string_literal();
      else if (key == "fortran_order")
        fortran = boolean();
      else if (key == "shape")
        shape = tuple();
      else
        bad(fmt::format("unexpected key '{}' (only 'descr', 'fortran_order', 'shape')", key));
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() != '}') bad("expected ',' or '}'");
    }
    ++pos_;  // '}'
    for (; pos_ < s_.size(); ++pos_)
      if (s_[pos_] != ' ' && s_[pos_] != '\n') bad("text after the header dict");
    for (const char* k : {"descr", "fortran_order", "shape"})
      if (!seen.count(k)) bad(fmt::format("the header has no '{}'", k));
  }

private:
  [[noreturn]] void bad(const std::string& what) const { fail(name_, "malformed .npy header: " + what); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    if (peek() != c) bad(fmt::format("expected '{}'", c));
    ++pos_;
  }
  std::string string_literal() {
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    const std::size_t start = ++pos_;
    while (pos_ < s_.size() && s_[pos_] != q) {
      if (s_[pos_] == '\\') bad("escapes in strings are not supported");
      ++pos_;
    }
    if (pos_ >= s_.size()) bad("unterminated string");
    return std::string(s_.substr(start, pos_++ - start));
  }
  bool boolean() {
    if (s_.substr(pos_, 4) == "True") return pos_ += 4, true;
    if (s_.substr(pos_, 5) == "False") return pos_ += 5, false;
    bad("fortran_order must be True or False");
  }
  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> v;
    bool trailing_comma = false;
    while (true) {
      skip_space();
      if (peek() == ')') break;
      if (peek() < '0' || peek() > '9') bad("shape must be a tuple of non-negative integers");
      std::int64_t x = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (x > (std::numeric_limits<std::int64_t>::max() - 9) / 10) bad("a dimension is too large");
        x = 10 * x + (s_[pos_++] - '0');
      }
      v.push_back(x);
      skip_space();
      trailing_comma = peek() == ',';
      if (trailing_comma) {
        ++pos_;
        continue;
      }
      if (peek() != ')') bad("expected ',' or ')' in the shape");
    }
    ++pos_;
    if (v.size() == 1 && !trailing_comma) bad("a one-element shape needs a trailing comma, e.g. (5,)");
    return v;
  }

  std::string_view s_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

std::uint32_t little_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// The weight file opened through RegularFile (regular_file.hpp), its errors as ArrayFileError.
template <class F>
auto with_file(const std::string& path, F&& f) {
  try {
    const RegularFile file(path, kMaxWeightFileBytes, "a weight file");
    return f(file);
  } catch (const FileReadError& e) {
    throw ArrayFileError(e.what());
  }
}

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
struct ZipFileCloser {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};

// What the header says, checked against the file's `total` size; `bytes` holds the file's first bytes, at least
// min(total, the header's end) of them (read_npy reads only those before checking).
struct NpyLayout {
  NpyArray array;  // shape and dtype (no data yet)
  bool fortran = false;
  std::size_t data_start = 0, count = 0, item = 0;
};

// The header's end (magic, version, length, header) where the first bytes say it, else 0.
std::size_t npy_header_end(std::string_view bytes) {
  static constexpr char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 6) != 0) return 0;
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const int major = u[6];
  if (major < 1 || major > 3) return 0;
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) return 0;
  return 8 + len_bytes + little_endian(u + 8, static_cast<int>(len_bytes));
}

NpyLayout npy_layout(std::string_view bytes, std::uint64_t total, const std::string& name) {
  static constexpr char kMagic[] = "\x93NUMPY";
  // (bytes holds the whole file where it is shorter than 12 bytes)
  if (total == 0) fail(name, "empty file");
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 6) != 0) {
    if (bytes.size() < 8 && std::memcmp(bytes.data(), kMagic, std::min<std::size_t>(6, bytes.size())) == 0)
      fail(name, fmt::format("truncated .npy file ({} bytes)", bytes.size()));
    fail(name, "not a .npy file (no \\x93NUMPY magic)");
  }
  const auto* u = reinterpret_cast<const unsigned char*>(bytes.data());
  const int major = u[6], minor = u[7];
  if (major < 1 || major > 3 || minor != 0) fail(name, fmt::format(".npy format version {}.{} is not 1.0, 2.0 or 3.0", major, minor));
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (total < 8 + len_bytes) fail(name, fmt::format("truncated .npy file ({} bytes)", total));
  const std::size_t header_len = little_endian(u + 8, static_cast<int>(len_bytes));
  if (header_len > kMaxNpyHeader)
    fail(name, fmt::format("the .npy header is {} bytes long, more than the {} read", header_len, kMaxNpyHeader));
  NpyLayout l;
  l.data_start = 8 + len_bytes + header_len;
  if (total < l.data_start)
    fail(name, fmt::format("truncated .npy header ({} header bytes announced, {} present)", header_len,
                           total - 8 - len_bytes));
  const std::string_view header = bytes.substr(8 + len_bytes, header_len);
  for (char c : header)
    if (static_cast<unsigned char>(c) >= 0x80 || (c < ' ' && c != '\n' && c != '\t'))
      fail(name, "malformed .npy header: non-ASCII or control characters");

  NpyArray& a = l.array;
  HeaderParser(header, name).parse(a.dtype, l.fortran, a.shape);

  if (a.dtype == "<f8" || a.dtype == ">f8")
    l.item = 8;
  else if (a.dtype == "<f4" || a.dtype == ">f4")
    l.item = 4;
  else
    fail(name, fmt::format("dtype '{}' is not float32 or float64 (<f4, <f8, >f4, >f8)", a.dtype));

  const std::uint64_t available = total - l.data_start;
  std::size_t count = 1;
  for (std::int64_t s : a.shape) {
    if (s != 0 && count > std::numeric_limits<std::size_t>::max() / static_cast<std::size_t>(s))
      fail(name, fmt::format("shape {} is too large", a.shape_text()));
    count *= static_cast<std::size_t>(s);
  }
  const std::size_t item = l.item;
  if (count > available / item)
    fail(name, fmt::format("truncated .npy data: shape {} of {} needs {} bytes, {} present", a.shape_text(), a.dtype,
                           count <= std::numeric_limits<std::size_t>::max() / item ? fmt::format("{}", count * item)
                                                                                  : std::string("more than 2^64"),
                           available));
  if (count * item < available)
    fail(name, fmt::format("{} bytes after the data of shape {} ({} expected)", available - count * item,
                           a.shape_text(), count * item));
  l.count = count;
  return l;
}

}  // namespace

NpyArray parse_npy(std::string_view bytes, const std::string& name) {
  NpyLayout l = npy_layout(bytes, bytes.size(), name);
  NpyArray& a = l.array;
  const std::size_t count = l.count, item = l.item, data_start = l.data_start;
  const bool fortran = l.fortran;
  const bool big_endian = a.dtype[0] == '>';

  const bool swap = big_endian != (std::endian::native == std::endian::big);
  std::vector<double> raw(count);
  const char* p = bytes.data() + data_start;
  for (std::size_t i = 0; i < count; ++i, p += item) {
    unsigned char b[8];
    std::memcpy(b, p, item);
    if (swap) std::reverse(b, b + item);
    if (item == 8) {
      double v;
      std::memcpy(&v, b, 8);
      raw[i] = v;
    } else {
      float v;
      std::memcpy(&v, b, 4);
      raw[i] = v;
    }
  }
  if (!fortran || a.shape.size() < 2) {
    a.data = std::move(raw);
    return std::move(l.array);
  }
  // Fortran order: the first index varies fastest. Reorder to C order.
  a.data.resize(count);
  const std::size_t k = a.shape.size();
  std::vector<std::size_t> idx(k, 0);
  for (std::size_t c = 0; c < count; ++c) {
    std::size_t f = 0, stride = 1;
    for (std::size_t j = 0; j < k; ++j) {
      f += idx[j] * stride;
      stride *= static_cast<std::size_t>(a.shape[j]);
    }
    a.data[c] = raw[f];
    for (std::size_t j = k; j-- > 0;) {  // advance the C-order multi-index (last index fastest)
      if (++idx[j] < static_cast<std::size_t>(a.shape[j])) break;
      idx[j] = 0;
    }
  }
  return std::move(l.array);
}

NpyArray read_npy(const std::string& path) {
  return with_file(path, [&](const RegularFile& f) {
    // The header first, checked against the file's size; the data only then.
    const std::string head = f.read(0, std::min<std::uint64_t>(f.size(), 12));
    std::size_t end = npy_header_end(head);  // 0 where the first bytes do not say (npy_layout then refuses them)
    end = std::min<std::size_t>(end, 12 + kMaxNpyHeader);  // a longer header is refused before it is read
    (void)npy_layout(end > head.size() ? f.read(0, std::min<std::uint64_t>(f.size(), end)) : head, f.size(), path);
    return parse_npy(f.read_all(), path);
  });
}

std::vector<std::pair<std::string, NpyArray>> read_npz(const std::string& path) {
  // Read whole (a regular file, within the limit), then opened by libzip from memory: libzip never opens the path.
  const std::string archive = with_file(path, [](const RegularFile& f) { return f.read_all(); });
  zip_error_t zerr;
  zip_error_init(&zerr);
  zip_source_t* src = zip_source_buffer_create(archive.data(), archive.size(), 0, &zerr);
  if (!src) {
    const std::string msg = zip_error_strerror(&zerr);
    zip_error_fini(&zerr);
    fail(path, "not a readable .npz (zip) archive: " + msg);
  }
  std::unique_ptr<zip_t, ZipCloser> z(zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &zerr));
  if (!z) {
    zip_source_free(src);
    const std::string msg = zip_error_strerror(&zerr);
    zip_error_fini(&zerr);
    fail(path, "not a readable .npz (zip) archive: " + msg);
  }
  zip_error_fini(&zerr);
  const zip_int64_t n = zip_get_num_entries(z.get(), 0);
  if (n < 0) fail(path, "not a readable .npz (zip) archive");
  std::vector<std::pair<std::string, NpyArray>> out;
  std::set<std::string> names;
  std::uint64_t unpacked = 0;  // the members' sizes so far, within the weight files' limit
  for (zip_int64_t i = 0; i < n; ++i) {
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z.get(), static_cast<zip_uint64_t>(i), 0, &st) != 0 || !(st.valid & ZIP_STAT_NAME) ||
        !(st.valid & ZIP_STAT_SIZE))
      fail(path, fmt::format("member {} of the archive cannot be read: {}", i, zip_strerror(z.get())));
    const std::string member = st.name;
    const std::string label = path + ": " + member;
    if (member.size() < 5 || member.compare(member.size() - 4, 4, ".npy") != 0)
      fail(path, fmt::format("member '{}' is not a .npy array", member));
    if (st.size > kMaxWeightFileBytes - unpacked)
      fail(label, fmt::format("member of {} bytes: the archive's members hold more than the {} bytes a weight file "
                              "may have",
                              st.size, kMaxWeightFileBytes));
    unpacked += st.size;
    std::unique_ptr<zip_file_t, ZipFileCloser> f(zip_fopen_index(z.get(), static_cast<zip_uint64_t>(i), 0));
    if (!f) fail(label, std::string("cannot open the member: ") + zip_strerror(z.get()));
    std::string buf(st.size, '\0');
    const zip_int64_t got = st.size ? zip_fread(f.get(), buf.data(), st.size) : 0;
    if (got < 0) fail(label, std::string("corrupt member: ") + zip_file_strerror(f.get()));
    if (static_cast<zip_uint64_t>(got) != st.size)
      fail(label, fmt::format("truncated member ({} of {} bytes)", got, st.size));
    char extra;
    const zip_int64_t more = zip_fread(f.get(), &extra, 1);  // reaching the end makes libzip check the CRC
    if (more < 0) fail(label, std::string("corrupt member: ") + zip_file_strerror(f.get()));
    if (more > 0) fail(label, "member longer than its recorded size");
    std::string key = member.substr(0, member.size() - 4);
    if (!names.insert(key).second) fail(path, fmt::format("array '{}' appears twice", key));
    out.emplace_back(std::move(key), parse_npy(buf, label));
  }
  return out;
}

}  // namespace icl
