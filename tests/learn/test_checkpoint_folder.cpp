// learn/checkpoint.hpp, verify_checkpoint_folder and the file format: a folder is checked whole before a run uses
// any of it (so a run never resumes some training runs and then meets a damaged file); the format carries its
// version, its length and a CRC-32 of everything before it.
#include "icl/learn/checkpoint.hpp"
#include "tests/support/checkpoint_files.hpp"

#include <boost/crc.hpp>
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace icl::learn {
namespace test_checkpoint_folder {  // named: a unity build compiles several test files as one unit
namespace {

namespace fs = std::filesystem;

using Folder = icl::test::CheckpointFolder;
using icl::test::bytes_of;
using icl::test::put;

TrainState small_state() {
  TrainState s;
  s.t = 3;
  s.theta = s.good = s.adam_m = s.adam_v = Eigen::VectorXd::Constant(3, 0.25);
  s.curve.step = {0};
  s.curve.train_loss = s.curve.test_loss = s.curve.grad_norm = {1.0};
  return s;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("checkpoint format: version, length and CRC-32 of everything before it") {
  Folder dir;
  save_state(0x42, small_state());
  const std::string b = bytes_of(dir.path / "train-0000000000000042.state");
  REQUIRE(b.size() > 28);
  CHECK(b.substr(0, 8) == "ICLCKPT2");
  std::uint64_t length, key;
  std::memcpy(&length, b.data() + 8, 8);
  std::memcpy(&key, b.data() + 16, 8);
  CHECK(length == b.size() - 20);
  CHECK(key == 0x42);
  boost::crc_32_type crc;
  crc.process_bytes(b.data(), b.size() - 4);
  std::uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[b.size() - 4 + i])) << (8 * i);
  CHECK(stored == crc.checksum());
  CHECK(checkpoint_file_bytes(0x42, b.substr(24, b.size() - 28)) == b);
  CHECK(checked_checkpoint_body(b, "x", 0x42) == b.substr(24, b.size() - 28));
}

TEST_CASE("checkpoint folder: every file is checked before any is used") {
  Folder dir;
  CHECK_NOTHROW(verify_checkpoint_folder(dir.path.string()));  // empty
  CHECK_NOTHROW(verify_checkpoint_folder((dir.path / "none").string()));  // missing: holds none
  save_state(1, small_state());
  TrainResult r;
  r.theta = Eigen::VectorXd::Ones(2);
  save_finished(2, r);
  put(dir.path / "run.json", "{}\n");
  put(dir.path / "train-0000000000000003.state.tmp", "half");  // a crash's temporary file: not used, not checked
  CHECK_NOTHROW(verify_checkpoint_folder(dir.path.string()));

  const fs::path f = dir.path / "train-0000000000000002.done";
  const std::string good = bytes_of(f);
  std::string flipped = good;
  flipped[good.size() / 2] = static_cast<char>(flipped[good.size() / 2] ^ 0x10);
  put(f, flipped);
  std::string m = message_of([&] { verify_checkpoint_folder(dir.path.string()); });
  CHECK(m.find(f.string()) != std::string::npos);
  CHECK(m.find("checksum") != std::string::npos);
  put(f, good + "x");
  m = message_of([&] { verify_checkpoint_folder(dir.path.string()); });
  CHECK(m.find("truncated or extended") != std::string::npos);
  put(f, good.substr(0, good.size() - 1));
  CHECK(!message_of([&] { verify_checkpoint_folder(dir.path.string()); }).empty());
  std::string v1 = good;
  v1[7] = '1';  // a file of format version 1 (no checksum)
  put(f, v1);
  m = message_of([&] { verify_checkpoint_folder(dir.path.string()); });
  CHECK(m.find("format version 1") != std::string::npos);
  put(f, good);
  CHECK_NOTHROW(verify_checkpoint_folder(dir.path.string()));

  // A file under another run's name; a folder, a FIFO and a link to /dev/zero where a file should be.
  fs::copy_file(f, dir.path / "train-0000000000000009.done");
  m = message_of([&] { verify_checkpoint_folder(dir.path.string()); });
  CHECK(m.find("train-0000000000000009.done") != std::string::npos);
  fs::remove(dir.path / "train-0000000000000009.done");
  fs::create_directory(dir.path / "train-000000000000000a.state");
  m = message_of([&] { verify_checkpoint_folder(dir.path.string()); });
  CHECK(m.find("a folder") != std::string::npos);
  fs::remove(dir.path / "train-000000000000000a.state");
  REQUIRE(::mkfifo((dir.path / "train-000000000000000b.state").c_str(), 0600) == 0);
  m = message_of([&] { verify_checkpoint_folder(dir.path.string()); });
  CHECK(m.find("a FIFO") != std::string::npos);
  fs::remove(dir.path / "train-000000000000000b.state");
  fs::create_symlink("/dev/zero", dir.path / "train-000000000000000c.state");
  m = message_of([&] { verify_checkpoint_folder(dir.path.string()); });
  CHECK(m.find("a character device") != std::string::npos);
  fs::remove(dir.path / "train-000000000000000c.state");
  put(dir.path / "train-xyz.state", "x");
  CHECK(!message_of([&] { verify_checkpoint_folder(dir.path.string()); }).empty());
}

}  // namespace test_checkpoint_folder
}  // namespace icl::learn
