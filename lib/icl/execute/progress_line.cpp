#include "icl/execute/progress_line.hpp"

#include "icl/execute/thread_pool.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

namespace icl {

std::size_t terminal_columns(int fd) {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

namespace {
std::size_t columns_of(const std::string& text) {
  std::size_t n = 0;
  for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}
}  // namespace

std::string fit_columns(const std::string& text, std::size_t columns) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 && n++ == columns) return text.substr(0, i);
  return text;
}

ProgressLine::ProgressLine() : ProgressLine(stderr, ::isatty(2) == 1, terminal_columns(2)) {}

ProgressLine::ProgressLine(std::FILE* out, bool enabled, std::size_t width)
    : out_(out), enabled_(enabled && out != nullptr), width_(width) {}

ProgressLine::~ProgressLine() { clear(); }

void ProgressLine::show(const std::string& text) {
  // Once a stop is requested (Ctrl-C), the command's one line says so where the progress line was: nothing is
  // drawn over or after it.
  if (!enabled_ || execute::cancel_requested()) return;
  std::string line;
  for (char c : text) line += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;  // one line
  line = fit_columns(line, width_ > 1 ? width_ - 1 : 0);
  const std::size_t cols = columns_of(line);
  if (cols < drawn_) line.append(drawn_ - cols, ' ');
  std::fprintf(out_, "\r%s", line.c_str());
  std::fflush(out_);
  drawn_ = cols;  // what shows now: the text (the padding after it only blanked the previous line's rest)
}

void ProgressLine::clear() {
  if (!enabled_ || drawn_ == 0 || execute::cancel_requested()) return;
  std::fprintf(out_, "\r%s\r", std::string(drawn_, ' ').c_str());
  std::fflush(out_);
  drawn_ = 0;
}

}  // namespace icl
