#include "icl/io/printable.hpp"

#include <fmt/format.h>

#include <cctype>
#include <string>
#include <vector>

namespace icl {

namespace {

// Length of the valid UTF-8 sequence starting at s[i] (1..4), or 0 if it is not one.
std::size_t utf8_length(const std::string& s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  unsigned min = 0;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) len = 2, min = 0x80;
  else if (c >= 0xe0 && c <= 0xef) len = 3, min = 0x800;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, min = 0x10000;
  else return 0;
  if (i + len > s.size()) return 0;
  unsigned cp = c & (0x7f >> len);
  for (std::size_t k = 1; k < len; ++k) {
    const auto cc = static_cast<unsigned char>(s[i + k]);
    if ((cc & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (cc & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

bool shell_safe(unsigned char c) {
  return std::isalnum(c) || std::string("-_./=,:+@%").find(static_cast<char>(c)) != std::string::npos;
}

// One argument as bash reads it back: bare where safe, '...' otherwise, $'...' (with \xNN escapes) where it
// holds control characters or bytes that are not valid UTF-8.
std::string quote_argument(const std::string& a) {
  bool bare = !a.empty(), escape = false;
  for (std::size_t i = 0; i < a.size();) {
    const std::size_t len = utf8_length(a, i);
    const auto c = static_cast<unsigned char>(a[i]);
    if (len == 0 || c < 0x20 || c == 0x7f) escape = true;
    else if (len > 1 || !shell_safe(c)) bare = false;
    i += len ? len : 1;
  }
  if (bare && !escape) return a;
  std::string s = escape ? "$'" : "'";
  for (std::size_t i = 0; i < a.size();) {
    const std::size_t len = utf8_length(a, i);
    const auto c = static_cast<unsigned char>(a[i]);
    if (escape && (len == 0 || c < 0x20 || c == 0x7f)) {
      s += fmt::format("\\x{:02x}", c);
      ++i;
      continue;
    }
    if (c == '\'' ) s += escape ? "\\'" : "'\\''";
    else if (c == '\\' && escape) s += "\\\\";
    else s.append(a, i, len);
    i += len;
  }
  return s + "'";
}

}  // namespace

std::string command_line(int argc, const char* const* argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += quote_argument(argv[i] ? argv[i] : "");
  }
  return s;
}

std::string printable_line(const std::string& s, std::size_t max_bytes) {
  std::vector<std::string> pieces;  // one character each, escaped where needed
  std::size_t total = 0;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t len = utf8_length(s, i);
    const auto c = static_cast<unsigned char>(s[i]);
    pieces.push_back((len == 0 || c < 0x20 || c == 0x7f) ? fmt::format("\\x{:02x}", c) : s.substr(i, len));
    total += pieces.back().size();
    i += len ? len : 1;
  }
  const bool cut = total > max_bytes;
  const std::size_t room = cut ? (max_bytes > 3 ? max_bytes - 3 : 0) : max_bytes;
  std::string r;
  for (const auto& p : pieces) {
    if (r.size() + p.size() > room) break;
    r += p;
  }
  return cut ? r + "..." : r;
}

}  // namespace icl
