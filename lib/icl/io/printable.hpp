// Text safe to print on one line: a command line as a shell re-reads it, any string with its control characters
// and invalid UTF-8 escaped (error messages, provenance).
#pragma once
#include <cstddef>
#include <string>

namespace icl {

// The command line as a shell would re-run it: arguments quoted where needed, bytes that are not valid
// UTF-8 (or are control characters) written as \xNN, so the result is always valid UTF-8 on one line.
std::string command_line(int argc, const char* const* argv);

// `s` made safe to print as one line: control characters and bytes that are not valid UTF-8 as \xNN, cut to
// at most `max_bytes` bytes (at a character boundary, ending in "...").
std::string printable_line(const std::string& s, std::size_t max_bytes = 400);

}  // namespace icl
