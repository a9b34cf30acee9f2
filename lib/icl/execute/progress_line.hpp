// A progress line on a terminal: redrawn in place ("\r"), never wider than the terminal (so it never wraps
// onto a second line), and cleared by overwriting exactly the columns it drew. Where the stream is not a
// terminal (a file, a pipe, a CI log) it writes nothing at all.
#pragma once
#include <cstddef>
#include <cstdio>
#include <string>

namespace icl {

// The terminal's width in columns (ioctl TIOCGWINSZ on `fd`), or 80 where that is unknown (not a terminal, or a
// terminal that reports 0 columns).
std::size_t terminal_columns(int fd);

// `text` cut to at most `columns` characters (UTF-8 code points; continuation bytes do not count).
std::string fit_columns(const std::string& text, std::size_t columns);

class ProgressLine {
public:
  // On stderr: enabled only when stderr is a terminal, at its width.
  ProgressLine();
  // Explicit: `out` (not owned), enabled or not, `width` columns (tests use this).
  ProgressLine(std::FILE* out, bool enabled, std::size_t width);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Draws `text` in place of the previous line: cut to width - 1 columns (the last column is left free: writing
  // there makes some terminals wrap), padded with spaces over what the previous, longer line left.
  void show(const std::string& text);
  // Overwrites exactly what is drawn with spaces and returns the cursor to the line's start; nothing if nothing is.
  void clear();
  bool enabled() const { return enabled_; }
  std::size_t drawn() const { return drawn_; }  // columns on the line now

private:
  std::FILE* out_;
  bool enabled_;
  std::size_t width_;
  std::size_t drawn_ = 0;
};

}  // namespace icl
