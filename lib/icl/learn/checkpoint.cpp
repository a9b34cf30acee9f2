#include "icl/learn/checkpoint.hpp"

#include "icl/execute/executor.hpp"
#include "icl/execute/precision.hpp"
#include "icl/execute/ranks.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace icl::learn {

namespace {

CheckpointSettings g_settings;

constexpr char kMagic[8] = {'I', 'C', 'L', 'C', 'K', 'P', 'T', '1'};

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

struct Reader {
  const std::string& buf;
  const std::string& file;
  std::size_t at = 0;
  [[noreturn]] void damaged() const {
    throw std::runtime_error("checkpoint file '" + file + "' is damaged (truncated or not a checkpoint); remove it");
  }
  std::uint64_t u64() {
    if (at + 8 > buf.size()) damaged();
    std::uint64_t v;
    std::memcpy(&v, buf.data() + at, 8);
    at += 8;
    return v;
  }
  std::uint64_t count() {
    const std::uint64_t n = u64();
    if (n > buf.size()) damaged();  // no count can exceed the file's bytes
    return n;
  }
  long long i64() { return static_cast<long long>(u64()); }
  double f64() { return std::bit_cast<double>(u64()); }
  std::string str() {
    const std::uint64_t n = count();
    if (at + n > buf.size()) damaged();
    std::string s = buf.substr(at, n);
    at += n;
    return s;
  }
  Eigen::VectorXd vec() {
    Eigen::VectorXd v(static_cast<Eigen::Index>(count()));
    for (Eigen::Index i = 0; i < v.size(); ++i) v[i] = f64();
    return v;
  }
  std::vector<double> dvec() {
    std::vector<double> v(count());
    for (double& x : v) x = f64();
    return v;
  }
  TrainCurve curve() {
    TrainCurve c;
    c.step.resize(count());
    for (int& s : c.step) s = static_cast<int>(i64());
    c.train_loss = dvec();
    c.test_loss = dvec();
    c.grad_norm = dvec();
    c.extra_names.resize(count());
    for (auto& n : c.extra_names) n = str();
    c.extra.resize(count());
    for (auto& e : c.extra) e = dvec();
    return c;
  }
};

std::string path_of(std::uint64_t key, const char* kind) {
  return (std::filesystem::path(g_settings.dir) / fmt::format("train-{:016x}.{}", key, kind)).string();
}

std::optional<std::string> read_whole(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The file's body after its magic and key (nothing if it does not exist).
std::optional<Reader> open(const std::string& path, std::uint64_t key, std::string& holder) {
  auto text = read_whole(path);
  if (!text) return std::nullopt;
  holder = std::move(*text);
  Reader r{holder, path};
  if (holder.size() < 16 || std::memcmp(holder.data(), kMagic, 8) != 0) r.damaged();
  r.at = 8;
  if (r.u64() != key) r.damaged();
  return r;
}

// Whole or not at all: a temporary file next to it, flushed, then renamed over it.
void write(const std::string& path, std::uint64_t key, const Writer& body) {
  if (rank_comm().rank != 0) return;  // under MPI every rank holds the same state: rank 0 writes it
  Writer k;
  k.u64(key);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f.write(kMagic, 8);
    f.write(k.buf.data(), static_cast<std::streamsize>(k.buf.size()));
    f.write(body.buf.data(), static_cast<std::streamsize>(body.buf.size()));
    f.flush();
    if (!f) throw std::runtime_error("cannot write the checkpoint file '" + tmp + "'");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw std::runtime_error("cannot write the checkpoint file '" + path + "': " + ec.message());
}

}  // namespace

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
  if (execute::default_backend() != execute::Backend::cpu || execute::default_precision() != execute::Precision::f64)
    h.str(std::string(execute::default_backend() == execute::Backend::cpu ? "cpu" : "portable") + "/" +
          execute::to_string(execute::default_precision()));
  return h.h;
}

std::optional<TrainResult> load_finished(std::uint64_t key) {
  if (g_settings.dir.empty()) return std::nullopt;
  std::string holder;
  auto r = open(path_of(key, "done"), key, holder);
  if (!r) return std::nullopt;
  TrainResult res;
  res.status = static_cast<TrainStatus>(r->u64());
  res.reason = r->str();
  res.theta = r->vec();
  res.steps_done = static_cast<int>(r->i64());
  res.final_train_loss = r->f64();
  res.final_test_loss = r->f64();
  res.seconds = r->f64();
  res.ranks = static_cast<int>(r->i64());
  res.curve = r->curve();
  if (r->at != holder.size()) r->damaged();
  return res;
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
  std::string holder;
  auto r = open(path_of(key, "state"), key, holder);
  if (!r) return std::nullopt;
  TrainState s;
  s.t = static_cast<int>(r->i64());
  s.theta = r->vec();
  s.good = r->vec();
  s.adam_m = r->vec();
  s.adam_v = r->vec();
  s.adam_t = static_cast<long>(r->i64());
  s.window = r->f64();
  s.gnorm = r->f64();
  s.last_loss = r->f64();
  s.seconds = r->f64();
  s.window_n = static_cast<int>(r->i64());
  s.ranks = static_cast<int>(r->i64());
  s.curve = r->curve();
  if (r->at != holder.size()) r->damaged();
  return s;
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
