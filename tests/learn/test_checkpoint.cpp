// learn/checkpoint.hpp: a damaged checkpoint file is never used. Every single-bit flip of a saved state and of a
// saved result, every truncation and extensions of several lengths are refused with a message naming the file, and
// the undamaged file loads back exactly. (Before the checksum, 11 of 11 flips after the header loaded silently and
// changed a claim's verdicts; a truncated file named itself '' or failed as "out of memory".)
#include "icl/learn/checkpoint.hpp"
#include "tests/support/checkpoint_files.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

namespace icl::learn {
namespace test_checkpoint {  // named: a unity build compiles several test files as one unit
namespace {

namespace fs = std::filesystem;

using Folder = icl::test::CheckpointFolder;
using icl::test::bytes_of;
using icl::test::put;

TrainCurve some_curve() {
  TrainCurve c;
  c.step = {0, 10, 20};
  c.train_loss = {3.5, 2.25, 1.125};
  c.test_loss = {3.75, 2.5, 1.25};
  c.grad_norm = {0.5, 0.25, 0.125};
  c.extra_names = {"dist_A1"};
  c.extra = {{1.0, 0.5, 0.25}};
  return c;
}

TrainState some_state() {
  TrainState s;
  s.t = 20;
  s.theta = Eigen::VectorXd::LinSpaced(5, -1.0, 1.0);
  s.good = s.theta * 0.5;
  s.adam_m = Eigen::VectorXd::Constant(5, 0.01);
  s.adam_v = Eigen::VectorXd::Constant(5, 0.02);
  s.adam_t = 20;
  s.window = 1.5;
  s.gnorm = 0.125;
  s.last_loss = 1.0625;
  s.seconds = 12.5;
  s.window_n = 3;
  s.ranks = 1;
  s.curve = some_curve();
  return s;
}

TrainResult some_result() {
  TrainResult r;
  r.status = TrainStatus::finished;
  r.reason = "done";
  r.theta = Eigen::VectorXd::LinSpaced(5, 0.5, 2.5);
  r.steps_done = 20;
  r.final_train_loss = 1.125;
  r.final_test_loss = 1.25;
  r.seconds = 12.5;
  r.ranks = 1;
  r.curve = some_curve();
  return r;
}

// Loading the damaged bytes `b` (written over the file) must throw, naming the file; counts the ones that did not.
template <class Load>
int refused(const fs::path& file, const std::string& b, Load load, const std::string& what) {
  put(file, b);
  try {
    (void)load();
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    if (msg.find(file.string()) == std::string::npos || msg.find('\n') != std::string::npos) {
      FAIL_CHECK(what << ": the message does not name the file on one line: " << msg);
      return 1;
    }
    return 0;
  }
  FAIL_CHECK(what << ": loaded without an error");
  return 1;
}

template <class Load>
void every_fault(const fs::path& file, Load load) {
  const std::string good = bytes_of(file);
  REQUIRE(good.size() > 100);
  int missed = 0;
  for (std::size_t i = 0; i < good.size(); ++i)
    for (int bit = 0; bit < 8; ++bit) {
      std::string b = good;
      b[i] = static_cast<char>(b[i] ^ (1 << bit));
      missed += refused(file, b, load, "bit " + std::to_string(bit) + " of byte " + std::to_string(i) + " flipped");
    }
  for (std::size_t n = 0; n < good.size(); ++n)
    missed += refused(file, good.substr(0, n), load, "truncated to " + std::to_string(n) + " bytes");
  for (const std::string& tail : {std::string(1, '\0'), std::string("x"), std::string(8, '\0'), std::string(4096, 'A'),
                                  good.substr(good.size() - 8)})
    missed += refused(file, good + tail, load, "extended by " + std::to_string(tail.size()) + " bytes");
  // A field's count (after the 16-byte header and the key: the step, then theta's length) raised to a huge value.
  for (std::size_t at = 24; at + 8 <= good.size(); at += 8) {
    std::string b = good;
    for (std::size_t k = 0; k < 8; ++k) b[at + k] = static_cast<char>(0xff);
    missed += refused(file, b, load, "8 bytes at " + std::to_string(at) + " set to 0xff");
  }
  CHECK_MESSAGE(missed == 0, missed << " damaged versions of " << file.filename().string() << " were not refused");
  put(file, good);  // the undamaged file still loads
}

}  // namespace

TEST_CASE("checkpoint: a saved state with any bit flipped, truncated or extended is refused, naming the file") {
  Folder dir;
  const std::uint64_t key = 0x0123456789abcdefull;
  const TrainState s = some_state();
  save_state(key, s);
  const fs::path file = dir.path / "train-0123456789abcdef.state";
  REQUIRE(fs::is_regular_file(file));
  every_fault(file, [&] { return load_state(key); });
  const auto back = load_state(key);
  REQUIRE(back.has_value());
  CHECK(back->t == s.t);
  CHECK(back->theta == s.theta);
  CHECK(back->adam_v == s.adam_v);
  CHECK(back->curve.test_loss == s.curve.test_loss);
  CHECK(back->seconds == s.seconds);
}

TEST_CASE("checkpoint: a saved result with any bit flipped, truncated or extended is refused, naming the file") {
  Folder dir;
  const std::uint64_t key = 0xfedcba9876543210ull;
  const TrainResult r = some_result();
  save_finished(key, r);
  const fs::path file = dir.path / "train-fedcba9876543210.done";
  REQUIRE(fs::is_regular_file(file));
  every_fault(file, [&] { return load_finished(key); });
  const auto back = load_finished(key);
  REQUIRE(back.has_value());
  CHECK(back->theta == r.theta);
  CHECK(back->reason == r.reason);
  CHECK(back->final_test_loss == r.final_test_loss);
  CHECK(back->curve.extra == r.curve.extra);
}

TEST_CASE("checkpoint: a file moved to another run's name, or not a regular file, is refused") {
  Folder dir;
  save_state(1, some_state());
  fs::rename(dir.path / "train-0000000000000001.state", dir.path / "train-0000000000000002.state");
  CHECK_THROWS_AS(load_state(2), std::runtime_error);
  fs::remove(dir.path / "train-0000000000000002.state");
  fs::create_directory(dir.path / "train-0000000000000003.done");
  CHECK_THROWS_AS(load_finished(3), std::runtime_error);
  CHECK_FALSE(load_state(4).has_value());  // none saved: nothing, no error
}

}  // namespace test_checkpoint
}  // namespace icl::learn
