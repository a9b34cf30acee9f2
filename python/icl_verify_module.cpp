// The Python module `icl_verify` (pybind11): the claims, `eval` of trained weights, and building blocks, with
// NumPy arrays in and out. Built into build/python/ where pybind11 and Python are found (CMakeLists.txt).
//
//   import icl_verify as iv
//   iv.list_claims()                                  # [{'id', 'title', 'implemented'}, ...]
//   iv.run("acds.thm1", quick=True, seed=1, d=2, n=[2, 20])   # the JSON report as a dict
//   iv.eval_weights(allparam, task="linear", n=20)    # allparam: (L, H, 2, d, d); or {"P1": .., "Q1": .., ...}
//   iv.lsa_layer(Z, P, Q), iv.bilinear_layer(Z, W0, W1), iv.forward(Z, weights)
//   iv.exact_loss(P, Q, n, sigma=...), iv.mc_loss(weights, n, sigma=..., samples=...), iv.optimal_gamma(sigma, n)
//   iv.test_covariance(d, kind), iv.sample_prompt(d, n, seed=1, index=0, sigma=None)
// Bad input (an unknown claim, a malformed weight array, a d that does not match) raises ValueError with the
// same one-line message the command line prints.
#include "icl/cli/engine.hpp"
#include "icl/cli/eval.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/model/attention_weights.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/layers/network.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "icl/report/quantities.hpp"

#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

namespace py = pybind11;
using namespace icl;

namespace {

py::object to_python(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null: return py::none();
    case nlohmann::ordered_json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::ordered_json::value_t::number_integer: return py::int_(j.get<long long>());
    case nlohmann::ordered_json::value_t::number_unsigned: return py::int_(j.get<unsigned long long>());
    case nlohmann::ordered_json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::ordered_json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::ordered_json::value_t::array: {
      py::list l;
      for (const auto& e : j) l.append(to_python(e));
      return l;
    }
    case nlohmann::ordered_json::value_t::object: {
      py::dict d;
      for (auto it = j.begin(); it != j.end(); ++it) d[py::str(it.key())] = to_python(it.value());
      return d;
    }
    default: throw std::runtime_error("icl_verify: unexpected JSON value");
  }
}

// A NumPy array of real numbers as an NpyArray (C order, float64); anything else is a ValueError.
NpyArray to_npy(const py::handle& obj, const std::string& name) {
  py::array raw = py::array::ensure(obj);
  if (!raw) throw py::value_error(fmt::format("{}: not an array", name));
  const char kind = raw.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw py::value_error(fmt::format("{}: dtype {} is not a real number type", name, std::string(py::str(raw.dtype()))));
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(raw);
  NpyArray r;
  r.dtype = std::string(py::str(raw.dtype()));
  for (py::ssize_t k = 0; k < a.ndim(); ++k) r.shape.push_back(a.shape(k));
  r.data.assign(a.data(), a.data() + a.size());
  return r;
}

// weights: an allparam array (L, H, 2, d, d) or a dict {"P1": .., "Q1": .., ...}.
LsaStack to_stack(const py::object& weights) {
  try {
    if (py::isinstance<py::dict>(weights)) {
      std::vector<std::pair<std::string, NpyArray>> arrays;
      for (auto item : weights.cast<py::dict>()) {
        const std::string key = py::str(item.first);
        arrays.emplace_back(key, to_npy(item.second, "weights[" + key + "]"));
      }
      return lsa_stack_from_named(arrays, "weights");
    }
    return lsa_stack_from_allparam(to_npy(weights, "weights"), "weights");
  } catch (const ArrayFileError& e) {
    throw py::value_error(e.what());
  }
}

// keyword parameters as --set strings: a number or a sequence of numbers.
std::vector<std::string> sets_from(const py::kwargs& params) {
  std::vector<std::string> sets;
  for (auto item : params) {
    const std::string key = py::str(item.first);
    std::vector<double> values;
    if (py::isinstance<py::str>(item.second))
      throw py::value_error(fmt::format("parameter {}: expected a number or a list of numbers", key));
    if (py::isinstance<py::sequence>(item.second) || py::isinstance<py::array>(item.second)) {
      for (auto v : item.second) values.push_back(v.cast<double>());
    } else {
      values.push_back(item.second.cast<double>());
    }
    if (values.empty()) throw py::value_error(fmt::format("parameter {}: no values", key));
    std::string s = key + "=";
    for (std::size_t i = 0; i < values.size(); ++i) s += fmt::format("{}{:.17g}", i ? "," : "", values[i]);
    sets.push_back(s);
  }
  return sets;
}

GaussianIclModel task_model(const std::string& task, const Eigen::MatrixXd& sigma, double noise) {
  if (task != "linear" && task != "quadratic") throw py::value_error("task must be 'linear' or 'quadratic'");
  if (noise < 0) throw py::value_error("noise must be >= 0");
  const int d = static_cast<int>(sigma.rows());
  if (d < 1 || sigma.cols() != d) throw py::value_error("sigma must be a square (d, d) matrix");
  Eigen::LLT<Eigen::MatrixXd> llt(sigma);
  if (!sigma.allFinite() || !sigma.isApprox(sigma.transpose()) || llt.info() != Eigen::Success)
    throw py::value_error("sigma must be symmetric positive definite");
  GaussianIclModel m = GaussianIclModel::from_task(
      task == "linear" ? PolynomialTask::linear(d) : PolynomialTask::quadratic(d), sigma);
  m.noise_sd = noise;
  return m;
}

Eigen::MatrixXd sigma_or_identity(const std::optional<Eigen::MatrixXd>& sigma, int d) {
  return sigma ? *sigma : Eigen::MatrixXd::Identity(d, d);
}

void check_prompt(const Eigen::MatrixXd& Z) {
  if (Z.rows() < 2 || Z.cols() < 2) throw py::value_error("Z must have at least 2 rows and 2 columns");
}

}  // namespace

PYBIND11_MODULE(icl_verify, m) {
  m.doc() = "icl-verify: checks the claims of in-context-learning theory papers (see README.md, docs/api.md)";

  m.def(
      "list_claims",
      [] {
        py::list l;
        for (const auto& e : claim_catalogue()) {
          py::dict d;
          d["id"] = e.id;
          d["title"] = e.title;
          d["implemented"] = find_claim(e.id) != nullptr;
          l.append(d);
        }
        return l;
      },
      "Every catalogued claim: a list of {'id', 'title', 'implemented'}.");

  m.def(
      "run",
      [](const std::string& claim, bool quick, std::uint64_t seed, std::optional<long long> samples,
         std::optional<int> threads, double alpha, const py::kwargs& params) {
        if (claim == "all") throw py::value_error("run: name one claim (a list comes from list_claims())");
        RunOptions o;
        o.claims = {claim};
        o.quick = quick;
        o.seed = seed;
        o.samples = samples;
        o.threads = threads ? *threads : 0;
        if (threads && *threads < 1) throw py::value_error("threads must be >= 1");
        o.alpha = alpha;
        o.sets = sets_from(params);
        nlohmann::ordered_json r;
        try {
          const auto plan = plan_run(o);
          py::gil_scoped_release release;
          r = run_claim(plan.at(0), o);
        } catch (const UsageError& e) {
          throw py::value_error(e.what());
        }
        return to_python(r);
      },
      py::arg("claim"), py::arg("quick") = false, py::arg("seed") = 1, py::arg("samples") = py::none(),
      py::arg("threads") = py::none(), py::arg("alpha") = 0.01,
      "Verify one claim; keyword parameters set its grid (a number or a list), e.g. run('sja.thm2', d=[1, 2]).\n"
      "Returns the JSON report (docs/reports.md) as a dict.");

  m.def(
      "eval_weights",
      [](const py::object& weights, const std::string& task, std::optional<Eigen::MatrixXd> sigma, bool quick,
         std::uint64_t seed, std::optional<long long> samples, std::optional<int> threads, double alpha,
         const py::kwargs& params) {
        const LsaStack w = to_stack(weights);
        EvalOptions o;
        o.task = task;
        o.quick = quick;
        o.seed = seed;
        o.samples = samples;
        if (threads && *threads < 1) throw py::value_error("threads must be >= 1");
        o.threads = threads ? *threads : 0;
        o.alpha = alpha;
        o.sets = sets_from(params);
        nlohmann::ordered_json r;
        try {
          py::gil_scoped_release release;
          r = evaluate_weights(w, o, sigma);
        } catch (const UsageError& e) {
          throw py::value_error(e.what());
        }
        return to_python(r);
      },
      py::arg("weights"), py::arg("task") = "linear", py::arg("sigma") = py::none(), py::arg("quick") = false,
      py::arg("seed") = 1, py::arg("samples") = py::none(), py::arg("threads") = py::none(), py::arg("alpha") = 0.01,
      "The `icl-verify eval` report (a dict) of trained weights: an allparam array (L, H, 2, d, d) of the acds\n"
      "authors' code, or a dict {'P1': .., 'Q1': .., ...} of full (d+1, d+1) matrices. Keyword parameters n, d, cov,\n"
      "noise (a number or a list); sigma: a (d, d) covariance instead of cov.");

  m.def(
      "lsa_layer",
      [](Eigen::MatrixXd Z, const Eigen::MatrixXd& P, const Eigen::MatrixXd& Q, bool masked, double scale) {
        check_prompt(Z);
        ForwardWorkspace ws;
        LinearSelfAttention{P, Q, masked, scale}.apply(Z, ws);
        return Z;
      },
      py::arg("Z"), py::arg("P"), py::arg("Q"), py::arg("masked") = true, py::arg("scale") = 0.0,
      "One linear self-attention layer: Z + scale P Z M (Z^T Q Z), M = diag(I_n, 0) when masked; scale 0 means 1/n.");

  m.def(
      "bilinear_layer",
      [](Eigen::MatrixXd Z, const Eigen::MatrixXd& W0, const Eigen::MatrixXd& W1) {
        check_prompt(Z);
        ForwardWorkspace ws;
        BilinearLayer{W0, W1}.apply(Z, ws);
        return Z;
      },
      py::arg("Z"), py::arg("W0"), py::arg("W1"),
      "The sja bilinear feed-forward layer: Z + (diag(W0, 0) Z) * (diag(W1, 0) Z) (the label row unchanged).");

  m.def(
      "forward",
      [](Eigen::MatrixXd Z, const py::object& weights) {
        check_prompt(Z);
        const LsaStack w = to_stack(weights);
        if (Z.rows() != w.d + 1) throw py::value_error(fmt::format("Z has {} rows, the weights need d + 1 = {}", Z.rows(), w.d + 1));
        ForwardWorkspace ws;
        w.transformer().forward(Z, ws);
        return Z;
      },
      py::arg("Z"), py::arg("weights"),
      "The forward pass of trained weights (allparam array or dict of P1, Q1, ...) on a prompt Z ((d+1) x (n+1),\n"
      "rows x and y, the query last with label 0). The prediction is -Z[d, n].");

  m.def(
      "exact_loss",
      [](const Eigen::MatrixXd& P, const Eigen::MatrixXd& Q, int n, std::optional<Eigen::MatrixXd> sigma,
         const std::string& task, double noise) {
        if (n < 1) throw py::value_error("n must be >= 1");
        const int d = static_cast<int>(P.rows()) - 1;
        if (d < 1 || P.cols() != d + 1 || Q.rows() != d + 1 || Q.cols() != d + 1)
          throw py::value_error("P and Q must be (d+1, d+1) with d >= 1");
        const GaussianIclModel model = task_model(task, sigma_or_identity(sigma, d), noise);
        if (model.d != d) throw py::value_error("sigma must be (d, d) for (d+1, d+1) weights");
        py::gil_scoped_release release;
        const SingleLayerMoments mo = single_layer_moments(model, identity_features(d));
        return single_layer_loss(mo, single_layer_coefficients({LinearSelfAttention{P, Q}}, d, n), n);
      },
      py::arg("P"), py::arg("Q"), py::arg("n"), py::arg("sigma") = py::none(), py::arg("task") = "linear",
      py::arg("noise") = 0.0,
      "The exact loss E[(Z[d, n] + y_q)^2] of one masked LSA layer (full P, Q in the acds/sja convention) on the\n"
      "linear or quadratic task, x ~ N(0, sigma) (default I), w ~ N(0, I), label noise sd `noise`.");

  m.def(
      "optimal_gamma",
      [](const Eigen::MatrixXd& sigma, int n, const std::string& task, double noise) {
        if (n < 1) throw py::value_error("n must be >= 1");
        const GaussianIclModel model = task_model(task, sigma, noise);
        py::gil_scoped_release release;
        const FeatureMoments fm = model_feature_moments(model, identity_features(model.d));
        return optimal_sparse_gamma(fm, n);
      },
      py::arg("sigma"), py::arg("n"), py::arg("task") = "linear", py::arg("noise") = 0.0,
      "The exact optimum Gamma* of a sparse layer (P = e e^T, Q = diag(Gamma, 0)); for the linear task without\n"
      "noise it is acds Theorem 1's -U diag(1/((n+1)/n lam_i + tr/n)) U^T.");

  m.def(
      "mc_loss",
      [](const py::object& weights, int n, std::optional<Eigen::MatrixXd> sigma, const std::string& task, double noise,
         long long samples, std::uint64_t seed, std::optional<int> threads, double confidence) {
        const LsaStack w = to_stack(weights);
        if (n < 1) throw py::value_error("n must be >= 1");
        if (samples < 1) throw py::value_error("samples must be >= 1");
        if (!(confidence > 0 && confidence < 1)) throw py::value_error("confidence must be in (0, 1)");
        if (threads && *threads < 1) throw py::value_error("threads must be >= 1");
        const GaussianIclModel model = task_model(task, sigma_or_identity(sigma, w.d), noise);
        if (model.d != w.d) throw py::value_error("sigma must be (d, d) for the weights' d");
        Estimate e;
        {
          py::gil_scoped_release release;
          const Transformer t = w.transformer();
          const PromptShape shape = acds_shape(w.d, n);
          MonteCarlo mc(1, threads ? *threads : default_thread_count());
          mc.extend_to(static_cast<std::uint64_t>(samples),
                       [&] { return ModelPromptWorker(t, model, shape, seed, stable_hash("python/mc_loss"), +1.0); });
          e = make_estimate(mc.total(), 0, confidence);
        }
        return to_python(quantity_mc(e));  // the report's Monte Carlo quantity, as a dict
      },
      py::arg("weights"), py::arg("n"), py::arg("sigma") = py::none(), py::arg("task") = "linear",
      py::arg("noise") = 0.0, py::arg("samples") = 100000, py::arg("seed") = 1, py::arg("threads") = py::none(),
      py::arg("confidence") = 0.99,
      "Monte Carlo estimate of the loss of trained weights through the forward pass (samples rounded up to 256):\n"
      "{'mean', 'stderr', 'ci_low', 'ci_high', 'samples', 'confidence'}; same seed, same numbers for any threads.");

  m.def(
      "test_covariance",
      [](int d, int kind) {
        if (d < 1 || kind < 0 || kind > 3) throw py::value_error("d >= 1 and kind in 0..3");
        return test_covariance(d, kind);
      },
      py::arg("d"), py::arg("kind"),
      "The project's test covariances: 0 isotropic, 1 diagonal, 2 rotated, 3 rotated with condition number 100.");

  m.def(
      "sample_prompt",
      [](int d, int n, std::uint64_t seed, std::uint64_t index, std::optional<Eigen::MatrixXd> sigma,
         const std::string& task) {
        if (d < 1 || n < 1) throw py::value_error("d, n >= 1");
        const GaussianIclModel model = task_model(task, sigma_or_identity(sigma, d), 0.0);
        if (model.d != d) throw py::value_error("sigma must be (d, d)");
        const Transformer none;
        const PromptShape shape = acds_shape(d, n);
        ModelPromptWorker w(none, model, shape, seed, stable_hash("python/sample_prompt"));
        w.draw(index);
        Eigen::MatrixXd Z(shape.rows(), shape.cols());
        embed(shape, w.inputs(), w.labels(), Z);
        return py::make_tuple(Z, w.labels()[n]);
      },
      py::arg("d"), py::arg("n"), py::arg("seed") = 1, py::arg("index") = 0, py::arg("sigma") = py::none(),
      py::arg("task") = "linear",
      "Prompt `index` of stream `seed`: (Z, y_q), Z the acds embedding ((d+1) x (n+1), the query's label 0).");
}
