#include "icl/learn/checkpoint.hpp"

#include "icl/execute/executor.hpp"
#include "icl/execute/label_row.hpp"
#include "icl/execute/precision.hpp"
#include "icl/execute/ranks.hpp"
#include "icl/io/regular_file.hpp"

#include <boost/crc.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

namespace icl::learn {

namespace {

CheckpointSettings g_settings;

constexpr char kMagic[7] = {'I', 'C', 'L', 'C', 'K', 'P', 'T'};  // then the version digit
constexpr char kVersion = '2';
constexpr std::size_t kHeaderBytes = 16;  // magic and version, length
constexpr std::size_t kCrcBytes = 4;

std::uint32_t crc32_of(std::string_view bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), bytes.size());
  return crc.checksum();
}

// FNV-1a over the bytes fed to it.
struct Hash {
  std::uint64_t h = 1469598103934665603ull;
  void bytes(const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      h ^= b[i];
      h *= 1099511628211ull;
    }
  }
  void u64(std::uint64_t v) { bytes(&v, sizeof v); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
};

struct Writer {
  std::string buf;
  void u64(std::uint64_t v) { buf.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void i64(long long v) { u64(static_cast<std::uint64_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void str(const std::string& s) {
    u64(s.size());
    buf += s;
  }
  void vec(const Eigen::VectorXd& v) {
    u64(static_cast<std::uint64_t>(v.size()));
    for (Eigen::Index i = 0; i < v.size(); ++i) f64(v[i]);
  }
  void dvec(const std::vector<double>& v) {
    u64(v.size());
    for (double x : v) f64(x);
  }
  void curve(const TrainCurve& c) {
    u64(c.step.size());
    for (int s : c.step) i64(s);
    dvec(c.train_loss);
    dvec(c.test_loss);
    dvec(c.grad_norm);
    u64(c.extra_names.size());
    for (const auto& n : c.extra_names) str(n);
    u64(c.extra.size());
    for (const auto& e : c.extra) dvec(e);
  }
};

// Reads a body that checked_checkpoint_body has accepted; a field that runs past the end (which the checksum makes
// a bug, not a damaged file) is still refused, naming the file.
struct Reader {
  std::string_view buf;
  std::string file;
  std::size_t at = 0;
  [[noreturn]] void damaged() const {
    throw CheckpointError(fmt::format("checkpoint file '{}' is damaged (its fields do not fit its length); remove it",
                                      file));
  }
  std::uint64_t u64() {
    if (buf.size() - at < 8) damaged();
    std::uint64_t v;
    std::memcpy(&v, buf.data() + at, 8);
    at += 8;
    return v;
  }
  // A count of items of `item_bytes` each: no more than the bytes left can hold.
  std::uint64_t count(std::size_t item_bytes) {
    const std::uint64_t n = u64();
    if (n > (buf.size() - at) / std::max<std::size_t>(item_bytes, 1)) damaged();
    return n;
  }
  long long i64() { return static_cast<long long>(u64()); }
  double f64() { return std::bit_cast<double>(u64()); }
  std::string str() {
    const std::uint64_t n = count(1);
    std::string s(buf.substr(at, n));
    at += n;
    return s;
  }
  Eigen::VectorXd vec() {
    Eigen::VectorXd v(static_cast<Eigen::Index>(count(8)));
    for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = f64();
    return v;
  }
  std::vector<double> dvec() {
    std::vector<double> v(count(8));
    for (double& x : v) x = f64();
    return v;
  }
  TrainCurve curve() {
    TrainCurve c;
    c.step.resize(count(8));
    for (int& s : c.step) s = static_cast<int>(i64());
    c.train_loss = dvec();
    c.test_loss = dvec();
    c.grad_norm = dvec();
    c.extra_names.resize(count(8));
    for (auto& n : c.extra_names) n = str();
    c.extra.resize(count(8));
    for (auto& e : c.extra) e = dvec();
    return c;
  }
  void end() const {
    if (at != buf.size()) damaged();
  }
};

// The fields in the order save_finished and save_state write them; the whole body, nothing after it.
TrainResult read_finished(Reader& r) {
  TrainResult res;
  res.status = static_cast<TrainStatus>(r.u64());
  res.reason = r.str();
  res.theta = r.vec();
  res.steps_done = static_cast<int>(r.i64());
  res.final_train_loss = r.f64();
  res.final_test_loss = r.f64();
  res.seconds = r.f64();
  res.ranks = static_cast<int>(r.i64());
  res.curve = r.curve();
  r.end();
  return res;
}

TrainState read_state(Reader& r) {
  TrainState s;
  s.t = static_cast<int>(r.i64());
  s.theta = r.vec();
  s.good = r.vec();
  s.adam_m = r.vec();
  s.adam_v = r.vec();
  s.adam_t = static_cast<long>(r.i64());
  s.window = r.f64();
  s.gnorm = r.f64();
  s.last_loss = r.f64();
  s.seconds = r.f64();
  s.window_n = static_cast<int>(r.i64());
  s.ranks = static_cast<int>(r.i64());
  s.curve = r.curve();
  r.end();
  return s;
}

// Far above any state the claims train (the largest, GPT-2 stacks, are a few MB).
constexpr std::uint64_t kMaxCheckpointBytes = std::uint64_t{1} << 34;

std::string path_of(std::uint64_t key, const char* kind) {
  return (std::filesystem::path(g_settings.dir) / fmt::format("train-{:016x}.{}", key, kind)).string();
}

// The file's checked body (nothing if it does not exist).
std::optional<std::string> load_body(const std::string& path, std::uint64_t key) {
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(path, ec))) return std::nullopt;
  std::string bytes;
  try {
    bytes = read_regular_file(path, kMaxCheckpointBytes, "a checkpoint file");
  } catch (const FileReadError& e) {
    throw CheckpointError(fmt::format("checkpoint file {}; remove it", e.what()));
  }
  return checked_checkpoint_body(bytes, path, key);
}

// Whole or not at all: a temporary file next to it, flushed, then renamed over it.
void write(const std::string& path, std::uint64_t key, const Writer& body) {
  if (rank_comm().rank != 0) return;  // under MPI every rank holds the same state: rank 0 writes it
  const std::string bytes = checkpoint_file_bytes(key, body.buf);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
      f.close();
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw std::runtime_error("cannot write the checkpoint file '" + tmp + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write the checkpoint file '" + path + "': " + ec.message());
}

}  // namespace

std::string checkpoint_file_bytes(std::uint64_t key, const std::string& body) {
  std::string out(kMagic, sizeof kMagic);
  out += kVersion;
  Writer w;
  w.u64(8 + body.size());  // the key and the body
  w.u64(key);
  out += w.buf;
  out += body;
  const std::uint32_t crc = crc32_of(out);
  for (int i = 0; i < 4; ++i) out += static_cast<char>((crc >> (8 * i)) & 0xff);
  return out;
}

std::string checked_checkpoint_body(const std::string& bytes, const std::string& path, std::uint64_t key) {
  const auto refuse = [&](const std::string& why) {
    return CheckpointError(fmt::format("checkpoint file '{}' {}; remove it (its training run then starts afresh)", path, why));
  };
  const std::size_t n = bytes.size();
  if (n < sizeof kMagic + 1 || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw refuse(n == 0 ? "is empty" : "is not an icl-verify checkpoint (no ICLCKPT magic)");
  if (bytes[7] != kVersion)
    throw refuse(bytes[7] >= '0' && bytes[7] <= '9'
                     ? fmt::format("has format version {}; this icl-verify reads version {} (with a checksum) only",
                                   bytes[7], kVersion)
                     : fmt::format("is not an icl-verify checkpoint (version byte 0x{:02x})",
                                   static_cast<unsigned char>(bytes[7])));
  if (n < kHeaderBytes + 8 + kCrcBytes) throw refuse(fmt::format("is truncated ({} bytes)", n));
  std::uint64_t length;
  std::memcpy(&length, bytes.data() + 8, 8);
  if (length != n - kHeaderBytes - kCrcBytes)
    throw refuse(fmt::format("is damaged: its header gives {} bytes of content, the file holds {} (truncated or "
                             "extended)",
                             length, n - kHeaderBytes - kCrcBytes));
  std::uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[n - 4 + i])) << (8 * i);
  const std::uint32_t crc = crc32_of(std::string_view(bytes).substr(0, n - kCrcBytes));
  if (crc != stored) throw refuse(fmt::format("is damaged: checksum {:08x}, expected {:08x}", crc, stored));
  std::uint64_t k;
  std::memcpy(&k, bytes.data() + kHeaderBytes, 8);
  if (k != key) throw refuse(fmt::format("holds training run {:016x}, not {:016x} (renamed or copied?)", k, key));
  return bytes.substr(kHeaderBytes + 8, n - kHeaderBytes - 8 - kCrcBytes);
}

void verify_checkpoint_folder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) files.push_back(it->path());
  if (ec) throw CheckpointError(fmt::format("checkpoint folder '{}' cannot be read ({})", dir, ec.message()));
  std::sort(files.begin(), files.end());
  for (const auto& p : files) {
    const std::string name = p.filename().string();
    const bool state = name.ends_with(".state"), done = name.ends_with(".done");
    if (!name.starts_with("train-") || !(state || done)) continue;  // run.json, temporary files of a crash
    const std::string hex = name.substr(6, name.size() - 6 - (state ? 6 : 5));
    std::uint64_t key = 0;
    const bool hex_ok = hex.size() == 16 && std::all_of(hex.begin(), hex.end(), [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    });
    if (!hex_ok)
      throw CheckpointError(fmt::format("checkpoint file '{}' is not named train-<16 hex digits>.state or .done; remove it",
                                        p.string()));
    key = std::stoull(hex, nullptr, 16);
    std::string bytes;
    try {
      bytes = read_regular_file(p.string(), kMaxCheckpointBytes, "a checkpoint file");
    } catch (const FileReadError& e) {
      throw CheckpointError(fmt::format("checkpoint file {}; remove it", e.what()));
    }
    const std::string body = checked_checkpoint_body(bytes, p.string(), key);
    Reader r{body, p.string()};  // the fields fit the length, as the loaders will read them
    if (state)
      (void)read_state(r);
    else
      (void)read_finished(r);
  }
}

void set_checkpoints(CheckpointSettings s) { g_settings = std::move(s); }
const CheckpointSettings& checkpoints() { return g_settings; }

std::atomic<bool>& stop_requested() {
  static std::atomic<bool> flag{false};
  return flag;
}

std::uint64_t training_key(const Parameterisation& params, const Eigen::VectorXd& theta0, const PromptSource& source,
                           LossSpec loss, const TrainConfig& c) {
  Hash h;
  h.str(c.optimizer);
  for (double v : {c.learning_rate, c.beta1, c.beta2, c.epsilon, c.clip, c.lr_decay, c.max_weight, loss.sign, loss.factor})
    h.f64(v);
  for (std::uint64_t v : {c.batch, c.test_batch, c.seed, c.purpose}) h.u64(v);
  for (int v : {c.steps, c.resample_every, c.lr_decay_every, c.lbfgs_history, c.eval_every, c.curve_points,
                params.size(), source.rows, source.cols})
    h.u64(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  h.str(c.label);
  for (const auto& n : c.observe_names) h.str(n);
  h.u64(static_cast<std::uint64_t>(theta0.size()));
  for (Eigen::Index i = 0; i < theta0.size(); ++i) h.f64(theta0[i]);
  // The arithmetic: the cpu backend's in float64 (the key as it always was), or the portable code's (the portable
  // and cuda backends give the same numbers) in its precision; a run saved by one is not resumed by another.
  // The cpu backend's label-row kernels (execute/label_row.hpp) round otherwise than the layers: a stack they run is
  // keyed apart, so that neither arithmetic resumes a run the other saved (every other stack keeps its key).
  if (execute::default_backend() != execute::Backend::cpu || execute::default_precision() != execute::Precision::f64) {
    h.str(std::string(execute::default_backend() == execute::Backend::cpu ? "cpu" : "portable") + "/" +
          execute::to_string(execute::default_precision()));
  } else if (execute::label_row_enabled() && execute::LabelRowStack::recognise(params, source)) {
    h.str("cpu/label-row");
  }
  return h.h;
}

std::optional<TrainResult> load_finished(std::uint64_t key) {
  if (g_settings.dir.empty()) return std::nullopt;
  const std::string path = path_of(key, "done");
  const auto body = load_body(path, key);
  if (!body) return std::nullopt;
  Reader r{*body, path};
  return read_finished(r);
}

void save_finished(std::uint64_t key, const TrainResult& res) {
  if (g_settings.dir.empty()) return;
  Writer w;
  w.u64(static_cast<std::uint64_t>(res.status));
  w.str(res.reason);
  w.vec(res.theta);
  w.i64(res.steps_done);
  w.f64(res.final_train_loss);
  w.f64(res.final_test_loss);
  w.f64(res.seconds);
  w.i64(res.ranks);
  w.curve(res.curve);
  write(path_of(key, "done"), key, w);
  std::error_code ec;
  if (rank_comm().rank == 0) std::filesystem::remove(path_of(key, "state"), ec);  // the finished result replaces it
}

std::optional<TrainState> load_state(std::uint64_t key) {
  if (g_settings.dir.empty()) return std::nullopt;
  const std::string path = path_of(key, "state");
  const auto body = load_body(path, key);
  if (!body) return std::nullopt;
  Reader r{*body, path};
  return read_state(r);
}

void save_state(std::uint64_t key, const TrainState& s) {
  if (g_settings.dir.empty()) return;
  Writer w;
  w.i64(s.t);
  w.vec(s.theta);
  w.vec(s.good);
  w.vec(s.adam_m);
  w.vec(s.adam_v);
  w.i64(s.adam_t);
  w.f64(s.window);
  w.f64(s.gnorm);
  w.f64(s.last_loss);
  w.f64(s.seconds);
  w.i64(s.window_n);
  w.i64(s.ranks);
  w.curve(s.curve);
  write(path_of(key, "state"), key, w);
}

}  // namespace icl::learn
