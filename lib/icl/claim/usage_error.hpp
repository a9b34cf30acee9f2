// Bad input to a claim, a run or a command: the caller prints its message as one line on stderr and exits with
// status 2, having written nothing (the command line, cli/engine.hpp), or raises it (the Python module). Thrown by
// every layer that checks what it is given (a claim's parameters, a claim of one's own, the engine's options).
#pragma once
#include <stdexcept>

namespace icl {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace icl
