// The Python module `icl_verify` (pybind11): the claims, `eval` of trained weights, and building blocks, with
// NumPy arrays in and out. Built into build/python/ where pybind11 and Python are found (CMakeLists.txt).
//
//   import icl_verify as iv
//   iv.list_claims()                                  # [{'id', 'title', 'implemented'}, ...]
//   iv.run("acds.thm1", quick=True, seed=1, d=2, n=[2, 20])   # the JSON report as a dict
//   iv.eval_weights(allparam, task="linear", n=20)    # allparam: (L, H, 2, d, d); or {"P1": .., "Q1": .., ...},
//                                                     # a state_dict, or a file (.npy, .npz, .safetensors)
//   iv.read_arrays("w.safetensors")                   # {name: array} of a .npy, .npz or .safetensors file
//   iv.lsa_layer(Z, P, Q), iv.bilinear_layer(Z, W0, W1), iv.forward(Z, weights)
//   iv.exact_loss(P, Q, n, sigma=...), iv.mc_loss(weights, n, sigma=..., samples=...), iv.optimal_gamma(sigma, n)
//   iv.test_covariance(d, kind), iv.sample_prompt(d, n, seed=1, index=0, sigma=None)
// Bad input (an unknown claim, a malformed weight array, a d that does not match) raises ValueError with the
// same one-line message the command line prints. Every argument is taken as a Python object and checked as the
// command line checks it (below, "Arguments"): numbers finite and within eval's ranges (d, n, noise; exact
// integration up to d = 12 linear, 3 quadratic), seed, samples and threads by the rules of --seed, --samples,
// --threads, matrices finite, weights floating-point (an integer array is refused, as an integer .npy file is), so
// that no call raises a TypeError listing signatures or takes a value the command line refuses.
#include "icl/claim/kinds/trained.hpp"
#include "icl/cli/check.hpp"
#include "icl/cli/engine.hpp"
#include "icl/cli/eval.hpp"
#include "icl/exact/feature_moments.hpp"
#include "icl/execute/executor.hpp"
#include "icl/execute/precision.hpp"
#include "icl/execute/thread_pool.hpp"
#include "icl/exact/optimal_attention.hpp"
#include "icl/io/safetensors.hpp"
#include "icl/model/attention_weights.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/task_law.hpp"
#include "icl/layers/network.hpp"
#include "icl/learn/checkpoint.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/verdict/over_trials.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/montecarlo/statistics.hpp"
#include "icl/report/paper.hpp"
#include "icl/report/provenance.hpp"
#include "icl/verdict/quantities.hpp"

#include <fmt/format.h>
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
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

// An array-like as an array: a NumPy array, anything with __array__ (np.asarray), or a PyTorch tensor (on any
// device, with or without grad: .detach().cpu().numpy(); bfloat16 widened with .float() first).
py::object as_array_like(const py::handle& obj) {
  if (py::isinstance<py::array>(obj)) return py::reinterpret_borrow<py::object>(obj);
  if (py::hasattr(obj, "detach") && py::hasattr(obj, "cpu")) {
    py::object t = obj.attr("detach")().attr("cpu")();
    if (py::hasattr(t, "dtype") && std::string(py::str(t.attr("dtype"))).find("bfloat16") != std::string::npos &&
        py::hasattr(t, "float"))
      t = t.attr("float")();
    if (py::hasattr(t, "numpy")) return t.attr("numpy")();
  }
  return py::reinterpret_borrow<py::object>(obj);
}

// A NumPy array of floating-point numbers as an NpyArray (C order, float64); anything else is a ValueError. Integer
// arrays are refused as weights, as the command line refuses an integer .npy or .safetensors file.
NpyArray to_npy(const py::handle& obj, const std::string& name) {
  py::array raw = py::array::ensure(as_array_like(obj));
  if (!raw) throw py::value_error(fmt::format("{}: not an array", name));
  const char kind = raw.dtype().kind();
  if (kind == 'i' || kind == 'u')
    throw py::value_error(fmt::format("{}: dtype {} is not a floating-point type: weights are float64, float32, float16 "
                                      "or bfloat16, as the command line reads them",
                                      name, std::string(py::str(raw.dtype()))));
  if (kind != 'f')
    throw py::value_error(fmt::format("{}: dtype {} is not a real number type", name, std::string(py::str(raw.dtype()))));
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(raw);
  NpyArray r;
  r.dtype = std::string(py::str(raw.dtype()));
  for (py::ssize_t k = 0; k < a.ndim(); ++k) r.shape.push_back(a.shape(k));
  r.data.assign(a.data(), a.data() + a.size());
  return r;
}

bool is_path(const py::handle& obj) {
  return py::isinstance<py::str>(obj) || py::hasattr(obj, "__fspath__");
}

// ---- Arguments, validated as the command line validates them: one ValueError with its one-line message (never a
// TypeError listing signatures, never a value taken that the command line refuses).

std::string type_name(const py::handle& v) { return py::str(py::type::of(v).attr("__name__")); }

bool is_real_like(const py::handle& v) {
  if (py::isinstance<py::bool_>(v) || py::isinstance<py::array>(v)) return false;
  if (py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v)) return true;
  if (!py::hasattr(v, "dtype")) return false;  // NumPy scalars: np.float32(1), np.int64(2)
  const std::string kind = py::str(v.attr("dtype").attr("kind"));
  return kind == "f" || kind == "i" || kind == "u";
}

// A number's text for the command line's parsers: an integer's digits, a float in the shortest form that reads back
// ("100000", "1e+20", "0.5", "nan").
std::string number_text(const py::handle& v, const std::string& name) {
  if (!is_real_like(v)) throw py::value_error(fmt::format("{}: expected a number, got {}", name, type_name(v)));
  const std::string kind = py::hasattr(v, "dtype") ? std::string(py::str(v.attr("dtype").attr("kind"))) : "";
  if (py::isinstance<py::int_>(v) || kind == "i" || kind == "u") return py::str(py::int_(py::reinterpret_borrow<py::object>(v)));
  return fmt::format("{}", v.cast<double>());
}

double real(const py::handle& v, const std::string& name) {
  if (!is_real_like(v)) throw py::value_error(fmt::format("{}: expected a number, got {}", name, type_name(v)));
  try {
    return py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
  } catch (const py::error_already_set&) {  // an int beyond float range
    throw py::value_error(fmt::format("{}: {} is out of range", name, printable_line(py::str(v), 60)));
  }
}

// The command line's whole-number options (engine.hpp: parse_seed, parse_samples, parse_threads).
template <class Parse>
auto whole(const py::handle& v, const std::string& name, Parse parse) {
  try {
    return parse(number_text(v, name));
  } catch (const UsageError& e) {
    throw py::value_error(e.what());
  }
}
std::uint64_t seed_arg(const py::handle& v) { return whole(v, "seed", parse_seed); }
std::optional<long long> samples_arg(const py::handle& v) {
  if (v.is_none()) return std::nullopt;
  return static_cast<long long>(whole(v, "samples", parse_samples));
}
std::optional<int> threads_arg(const py::handle& v) {
  if (v.is_none()) return std::nullopt;
  return whole(v, "threads", parse_threads);
}

// An integer parameter of eval (d, n, cov) or a value in its range, as `--set` checks it.
int int_param(const py::handle& v, const std::string& owner, const ParamSpec& spec) {
  const double x = real(v, spec.name);
  try {
    check_param_value(owner, spec, x);
  } catch (const UsageError& e) {
    throw py::value_error(e.what());
  }
  return static_cast<int>(x);
}
double real_param(const py::handle& v, const std::string& owner, const ParamSpec& spec) {
  const double x = real(v, spec.name);
  try {
    check_param_value(owner, spec, x);
  } catch (const UsageError& e) {
    throw py::value_error(e.what());
  }
  return x;
}

std::string text(const py::handle& v, const std::string& name) {
  if (!py::isinstance<py::str>(v)) throw py::value_error(fmt::format("{}: expected a string, got {}", name, type_name(v)));
  return py::str(v);
}

bool flag(const py::handle& v, const std::string& name) {
  if (!py::isinstance<py::bool_>(v) && !(py::hasattr(v, "dtype") && !py::isinstance<py::array>(v) &&
                                         std::string(py::str(v.attr("dtype").attr("kind"))) == "b"))
    throw py::value_error(fmt::format("{}: expected True or False, got {}", name, type_name(v)));
  return v.cast<bool>();
}

// A matrix argument: a 2-D array of real numbers (integers refused for weights, as in to_npy), every entry finite;
// at most `max_rows` x `max_cols`.
Eigen::MatrixXd matrix(const py::handle& obj, const std::string& name, bool weights, long long max_rows, long long max_cols) {
  py::array raw = py::array::ensure(as_array_like(obj));
  if (!raw) throw py::value_error(fmt::format("{}: not an array", name));
  const char kind = raw.dtype().kind();
  if (weights && (kind == 'i' || kind == 'u'))
    throw py::value_error(fmt::format("{}: dtype {} is not a floating-point type: weights are float64, float32, float16 "
                                      "or bfloat16, as the command line reads them",
                                      name, std::string(py::str(raw.dtype()))));
  if (kind != 'f' && kind != 'i' && kind != 'u')
    throw py::value_error(fmt::format("{}: dtype {} is not a real number type", name, std::string(py::str(raw.dtype()))));
  if (raw.ndim() != 2) {
    std::string shape;
    for (py::ssize_t k = 0; k < raw.ndim(); ++k) shape += fmt::format("{}{}", k ? ", " : "", raw.shape(k));
    throw py::value_error(fmt::format("{}: expected a matrix (2 dimensions), got shape ({}{})", name, shape,
                                      raw.ndim() == 1 ? "," : ""));
  }
  if (raw.shape(0) > max_rows || raw.shape(1) > max_cols)
    throw py::value_error(fmt::format("{}: {} x {} is larger than {} x {}", name, raw.shape(0), raw.shape(1), max_rows,
                                      max_cols));
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(raw);
  Eigen::MatrixXd m(a.shape(0), a.shape(1));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) {
      const double x = a.data()[i * m.cols() + j];
      if (!std::isfinite(x))
        throw py::value_error(fmt::format("{} has a non-finite entry ({}) at [{}, {}]", name, x, i, j));
      m(i, j) = x;
    }
  return m;
}

// A vector argument: a 1-D array of real numbers, every entry finite, at most `max_size` of them.
Eigen::VectorXd vector_arg(const py::handle& obj, const std::string& name, long long max_size) {
  py::array raw = py::array::ensure(as_array_like(obj));
  if (!raw || raw.ndim() != 1) throw py::value_error(fmt::format("{}: expected a vector of numbers", name));
  return matrix(raw.attr("reshape")(1, -1), name, false, 1, max_size).row(0).transpose();
}

// A covariance (d x d, d <= eval's limit) checked as `eval --sigma` checks one; nothing for None.
std::optional<Eigen::MatrixXd> covariance_arg(const py::handle& obj, int d) {
  if (obj.is_none()) return std::nullopt;
  const Eigen::MatrixXd s = matrix(obj, "sigma", false, kEvalMaxD, kEvalMaxD);
  try {
    check_covariance(s, d < 0 ? static_cast<int>(s.rows()) : d, "sigma");
  } catch (const UsageError& e) {
    throw py::value_error(e.what());
  }
  return s;
}

// A mapping of names to arrays: a dict (a state_dict is an OrderedDict), or anything with keys() and
// __getitem__ that is not itself an array.
bool is_mapping(const py::handle& obj) {
  if (py::isinstance<py::dict>(obj)) return true;
  return py::hasattr(obj, "keys") && py::hasattr(obj, "__getitem__") && !py::hasattr(obj, "__array__") &&
         !py::hasattr(obj, "detach");
}

std::vector<std::pair<std::string, NpyArray>> mapping_arrays(const py::handle& obj) {
  std::vector<std::pair<std::string, NpyArray>> arrays;
  for (auto key : obj.attr("keys")()) {
    if (!py::isinstance<py::str>(key))
      throw py::value_error(fmt::format("weights: key {} is not a string", std::string(py::repr(key))));
    const std::string k = py::str(key);
    arrays.emplace_back(k, to_npy(obj.attr("__getitem__")(key), "weights[" + k + "]"));
  }
  return arrays;
}

// weights: an allparam array (L, H, 2, d, d); a mapping of names to arrays or tensors (a state_dict, by the key
// mapping of attention_weights.hpp: `allparam` alone, or P1, Q1, P2, Q2, ...); or a file name (.npy, .npz,
// .safetensors).
// A network of the library's layers from Python (check(layout=...)): a list of layer dicts, each with its "kind":
//   {"kind": "lsa", "P": P, "Q": Q, "masked": True, "scale": 0.0}      linear self-attention (D x D; scale 0: 1/n)
//   {"kind": "lsa", "heads": [(P, Q), ...], "masked": True, "scale": 0.0}   several heads, their updates summed
//   {"kind": "bilinear", "W0": W0, "W1": W1}                            sja's GLU without activation ((D-1) x (D-1))
//   {"kind": "softmax", "V": V, "K": K, "activation": "softmax", "causal": True}   xlssc's attention (D x D)
// on the layout: "acds" (D = d + 1, yhat = -Z[d, n]), "zfb" (D = d + 1, yhat = +Z[d, n]), "unstructured" (xlssc's
// E_2: D = d + 1, 2n + 1 tokens (x_i, 0), (0, y_i), ..., (x_q, 0), yhat = +Z[d, 2n]) or "sja" (a leading 1,
// then x, then zero feature rows up to D - 1, then the label; D read off the layers, yhat = -Z[D-1, n]).
NetworkModel to_network(const py::object& layers, const std::string& layout, int d, int n, const std::string& at) {
  const std::string where = "the model at " + at;
  if (!py::isinstance<py::list>(layers) && !py::isinstance<py::tuple>(layers))
    throw py::value_error(fmt::format("{}: with layout='{}' the model returns a list of layer dicts "
                                      "({{'kind': 'lsa' | 'bilinear' | 'softmax', ...}}), got {}",
                                      where, layout, type_name(layers)));
  const py::sequence seq = py::reinterpret_borrow<py::sequence>(layers);
  if (seq.size() == 0) throw py::value_error(where + ": no layers");
  // The prompt's rows: d + 1 on the acds and zfb layouts; on sja's, read off the first layer's weights.
  long long D = layout == "sja" ? -1 : d + 1;
  NetworkModel m;
  std::string words;
  auto get = [&](const py::dict& L, const char* key, const std::string& name) {
    if (!L.contains(key)) throw py::value_error(fmt::format("{}: {} needs '{}'", where, name, key));
    return py::reinterpret_borrow<py::object>(L[key]);
  };
  auto square = [&](const py::object& v, const std::string& name, long long rows) {
    const Eigen::MatrixXd M = matrix(v, name, true, kEvalMaxD + 2, kEvalMaxD + 2);
    if (M.rows() != M.cols()) throw py::value_error(fmt::format("{}: {} is {} x {}, not square", where, name, M.rows(), M.cols()));
    if (rows >= 0 && M.rows() != rows)
      throw py::value_error(fmt::format("{}: {} is {} x {}; the {} layout's prompt needs {} x {}", where, name, M.rows(),
                                        M.cols(), layout, rows, rows));
    return M;
  };
  for (std::size_t l = 0; l < seq.size(); ++l) {
    const std::string name = fmt::format("layer {}", l + 1);
    if (!py::isinstance<py::dict>(seq[l]))
      throw py::value_error(fmt::format("{}: {} is {}, not a dict with 'kind'", where, name, type_name(seq[l])));
    const py::dict L = py::reinterpret_borrow<py::dict>(seq[l]);
    const std::string kind = text(get(L, "kind", name), name + " kind");
    std::set<std::string> allowed;
    std::string piece;
    if (kind == "lsa") {
      allowed = {"kind", "P", "Q", "heads", "masked", "scale"};
      const bool masked = L.contains("masked") ? flag(L["masked"], name + " masked") : true;
      const double scale = L.contains("scale") ? real(L["scale"], name + " scale") : 0.0;
      if (!std::isfinite(scale)) throw py::value_error(fmt::format("{}: {} scale is not finite", where, name));
      std::vector<LinearSelfAttention> heads;
      if (L.contains("heads")) {
        if (L.contains("P") || L.contains("Q")) throw py::value_error(fmt::format("{}: {} gives heads and P, Q", where, name));
        const py::sequence hs = py::reinterpret_borrow<py::sequence>(L["heads"]);
        for (std::size_t h = 0; h < hs.size(); ++h) {
          const py::sequence pq = py::reinterpret_borrow<py::sequence>(hs[h]);
          if (pq.size() != 2) throw py::value_error(fmt::format("{}: {} head {} is not a pair (P, Q)", where, name, h + 1));
          const Eigen::MatrixXd P = square(pq[0], fmt::format("{} head {} P", name, h + 1), D);
          if (D < 0) D = P.rows();
          heads.push_back({P, square(pq[1], fmt::format("{} head {} Q", name, h + 1), D), masked, scale});
        }
        if (heads.empty()) throw py::value_error(fmt::format("{}: {} has no heads", where, name));
      } else {
        const Eigen::MatrixXd P = square(get(L, "P", name), name + " P", D);
        if (D < 0) D = P.rows();
        heads.push_back({P, square(get(L, "Q", name), name + " Q", D), masked, scale});
      }
      if (heads.size() == 1)
        m.net.add(layers::LayerPtr(heads[0]));
      else
        m.net.add(layers::LayerPtr(LinearAttentionHeads{heads}));
      piece = fmt::format("lsa ({}{}{})", masked ? "masked" : "unmasked",
                          heads.size() > 1 ? fmt::format(", {} heads", heads.size()) : "",
                          scale != 0 ? fmt::format(", scale {:g}", scale) : "");
    } else if (kind == "bilinear") {
      allowed = {"kind", "W0", "W1"};
      const Eigen::MatrixXd W0 = square(get(L, "W0", name), name + " W0", D < 0 ? -1 : D - 1);
      if (D < 0) D = W0.rows() + 1;
      m.net.add(layers::LayerPtr(BilinearLayer{W0, square(get(L, "W1", name), name + " W1", D - 1)}));
      piece = "bilinear";
    } else if (kind == "softmax") {
      allowed = {"kind", "V", "K", "activation", "causal"};
      icl::SoftmaxAttention a;
      a.V = square(get(L, "V", name), name + " V", D);
      if (D < 0) D = a.V.rows();
      a.K = square(get(L, "K", name), name + " K", D);
      const std::string act = L.contains("activation") ? text(L["activation"], name + " activation") : "softmax";
      if (act != "softmax" && act != "linear")
        throw py::value_error(fmt::format("{}: {} activation '{}' is not 'softmax' or 'linear'", where, name, act));
      a.activation = act == "linear" ? icl::SoftmaxAttention::Activation::linear : icl::SoftmaxAttention::Activation::softmax;
      a.causal = L.contains("causal") ? flag(L["causal"], name + " causal") : true;
      m.net.add(layers::LayerPtr(a));
      piece = fmt::format("{} attention{}", act, a.causal ? " (causal)" : "");
    } else {
      throw py::value_error(fmt::format("{}: {} kind '{}' is not one the library runs from Python: 'lsa' (masked or "
                                        "not, heads, scale), 'bilinear', 'softmax' (activation 'softmax' or 'linear')",
                                        where, name, printable_line(kind, 40)));
    }
    for (const auto& kv : L) {
      const std::string key = py::str(kv.first);
      if (!allowed.count(key))
        throw py::value_error(fmt::format("{}: {} ({}) has no entry '{}'", where, name, kind, printable_line(key, 40)));
    }
    words += (words.empty() ? "" : ", ") + piece;
  }
  if (layout == "unstructured") {
    m.shape = unstructured_shape(d, n);
    m.sign = -1.0;  // xlssc: yhat = +Z[d, 2n] approximates y
  } else if (layout == "sja") {
    if (D < d + 2)
      throw py::value_error(fmt::format("{}: the sja layout needs at least d + 2 = {} rows (a 1, x, the label); the "
                                        "layers are {} x {}",
                                        where, d + 2, D, D));
    m.shape = sja_shape(d, static_cast<int>(D - 1), n);
  } else {
    m.shape = layout == "zfb" ? zfb_shape(d, n) : acds_shape(d, n);
    m.sign = layout == "zfb" ? -1.0 : +1.0;
  }
  m.net.rows = static_cast<int>(D);
  m.what = fmt::format("{}, on the {} layout ({} x {} prompts)", words, layout, D, m.shape.cols());
  return m;
}

LsaStack to_stack(const py::object& weights, const NameMap& names = {}) {
  try {
    if (is_path(weights)) {
      const std::string path = py::str(py::module_::import("os").attr("fspath")(weights));
      return read_lsa_stack(path, names);
    }
    if (is_mapping(weights)) return lsa_stack_from_arrays(mapping_arrays(weights), "weights", names);
    if (!names.empty())
      throw py::value_error("names: the weights are one array (allparam); names map the arrays of a state dict, a "
                            "mapping or a .npz / .safetensors file");
    return lsa_stack_from_allparam(to_npy(weights, "weights"), "weights");
  } catch (const ArrayFileError& e) {
    throw py::value_error(e.what());
  }
}

py::array to_numpy(const NpyArray& a) {
  std::vector<py::ssize_t> shape(a.shape.begin(), a.shape.end());
  py::array_t<double> out(shape);
  std::copy(a.data.begin(), a.data.end(), out.mutable_data());
  return out;
}

// names: None, or a dict {canonical name: the array's own name} ({"P1": "attn.P", "Q1": "attn.Q"}), in order.
NameMap names_arg(const py::handle& obj) {
  NameMap names;
  if (obj.is_none()) return names;
  if (!py::isinstance<py::dict>(obj))
    throw py::value_error(fmt::format("names: expected a dict such as {{'P1': 'attn.P', 'Q1': 'attn.Q'}}, got {}",
                                      type_name(obj)));
  for (auto item : py::reinterpret_borrow<py::dict>(obj)) {
    if (!py::isinstance<py::str>(item.first) || !py::isinstance<py::str>(item.second))
      throw py::value_error(fmt::format("names: every entry maps a name (allparam, P1, Q1, ...) to the array's own name "
                                        "(strings); got {}: {}",
                                        std::string(py::repr(item.first)), std::string(py::repr(item.second))));
    names.emplace_back(py::str(item.first), py::str(item.second));
  }
  if (names.empty()) throw py::value_error("names: empty (give None, or at least one entry such as {'P1': 'attn.P'})");
  return names;
}

// keyword parameters as --set strings: a number or a sequence of numbers, each written so that --set reads it back
// exactly (and refuses what it refuses: nan, inf).
std::vector<std::string> sets_from(const py::kwargs& params) {
  std::vector<std::string> sets;
  for (auto item : params) {
    const std::string key = py::str(item.first);
    std::vector<std::string> values;
    const auto add = [&](const py::handle& v) {
      if (!is_real_like(v)) throw py::value_error(fmt::format("parameter {}: expected a number or a list of numbers", key));
      const std::string kind = py::hasattr(v, "dtype") ? std::string(py::str(v.attr("dtype").attr("kind"))) : "";
      values.push_back(py::isinstance<py::int_>(v) || kind == "i" || kind == "u" ? number_text(v, key)
                                                                                 : fmt::format("{:.17g}", v.cast<double>()));
    };
    if (py::isinstance<py::str>(item.second) || py::isinstance<py::bytes>(item.second))
      throw py::value_error(fmt::format("parameter {}: expected a number or a list of numbers", key));
    if (py::isinstance<py::sequence>(item.second) || py::isinstance<py::array>(item.second)) {
      for (auto v : item.second) add(v);
    } else {
      add(item.second);
    }
    if (values.empty()) throw py::value_error(fmt::format("parameter {}: no values", key));
    std::string s = key + "=";
    for (std::size_t i = 0; i < values.size(); ++i) s += (i ? "," : "") + values[i];
    sets.push_back(s);
  }
  return sets;
}

// A task's name, linear or quadratic.
// A task: a name model/tasks.hpp reads ("linear", "quadratic", "degree3", "monomials:2,0;1,1"), or a list of
// monomials, each a tuple of the d exponents ([(2, 0), (1, 1)]: y = w1 x1^2 + w2 x1 x2).
std::string task_arg(const py::handle& v, const std::string& owner) {
  std::string task;
  if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
    task = "monomials:";
    bool first = true;
    for (const auto& m : py::reinterpret_borrow<py::sequence>(v)) {
      if (!py::isinstance<py::list>(m) && !py::isinstance<py::tuple>(m))
        throw py::value_error(fmt::format("{}: task: each monomial is a tuple of exponents, got {}", owner, type_name(m)));
      task += first ? "" : ";";
      first = false;
      bool first_e = true;
      for (const auto& e : py::reinterpret_borrow<py::sequence>(m)) {
        if (!py::isinstance<py::int_>(e))
          throw py::value_error(fmt::format("{}: task: an exponent is {}, not a whole number", owner, type_name(e)));
        task += (first_e ? "" : ",") + std::to_string(e.cast<long long>());
        first_e = false;
      }
    }
  } else {
    task = text(v, "task");
  }
  std::string why;
  if (named_task_degree(task, why) < 0) throw py::value_error(fmt::format("{}: {}", owner, why));
  return task;
}

// The task's model: `task` (task_arg), `noise` as eval's --set noise, sigma d x d (checked before), and with w_cov
// (a matrix, or "inverse" for Sigma^-1) the linear task under w ~ N(0, w_cov) (model/task_law.hpp).
GaussianIclModel task_model(const std::string& owner, const std::string& task, const Eigen::MatrixXd& sigma,
                            const py::handle& noise_arg, const py::handle& w_cov = py::none()) {
  const double noise = real_param(noise_arg, owner, eval_param("noise"));
  std::optional<Eigen::MatrixXd> sw;
  if (py::isinstance<py::str>(w_cov)) {
    if (std::string(py::str(w_cov)) != "inverse")
      throw py::value_error(fmt::format("{}: w_cov '{}': a (d, d) matrix or 'inverse' (Sigma^-1)", owner,
                                        printable_line(py::str(w_cov), 40)));
    sw = inverse_law(sigma);
  } else if (!w_cov.is_none()) {
    sw = matrix(w_cov, "w_cov", false, kEvalMaxD, kEvalMaxD);
    try {
      check_covariance(*sw, static_cast<int>(sigma.rows()), "w_cov");
    } catch (const UsageError& e) {
      throw py::value_error(fmt::format("{}: {}", owner, e.what()));
    }
  }
  try {
    return task_law_model(task, sigma, sw ? &*sw : nullptr, noise);
  } catch (const std::invalid_argument& e) {
    throw py::value_error(fmt::format("{}: {}", owner, e.what()));
  }
}

Eigen::MatrixXd sigma_or_identity(const std::optional<Eigen::MatrixXd>& sigma, int d) {
  return sigma ? *sigma : Eigen::MatrixXd::Identity(d, d);
}

// The training and test prompts of train and compare: on the acds, sja and zfb layouts the task law of check (task,
// sigma, w_cov, noise); on the unstructured layout xlssc's law (model/prompt_source.hpp unstructured_prompts): y =
// theta^T x, x ~ N(0, I_d), theta ~ N(0, I_d / d) per prompt, or with theta0 (d numbers) theta = +theta0 or -theta0
// with a fair sign (xlssc Sec. 4.2's symmetric law). The unstructured law takes no task, sigma, w_cov or noise, and
// theta0 belongs to it alone: each is one ValueError naming it.
icl::PromptSource prompts_of(const std::string& owner, const std::string& layout, int d, const PromptShape& shape,
                             const std::string& task, const py::object& sigma_arg, const py::object& w_cov,
                             const py::object& noise, const py::object& theta0_arg) {
  if (layout != "unstructured") {
    if (!theta0_arg.is_none())
      throw py::value_error(fmt::format("{}: theta0 (the +-theta0 law) is a law of the unstructured layout; on the {} "
                                        "layout the task law is task, sigma, w_cov, noise",
                                        owner, layout));
    const auto sigma = covariance_arg(sigma_arg, d);
    return icl::gaussian_prompts(task_model(owner, task, sigma_or_identity(sigma, d), noise, w_cov), shape);
  }
  const bool noisy = !noise.is_none() && !(is_real_like(noise) && noise.cast<double>() == 0.0);
  for (const auto& [given, name] : {std::pair<bool, const char*>{task != "linear", "task"}, {!sigma_arg.is_none(), "sigma"},
                                    {!w_cov.is_none(), "w_cov"}, {noisy, "noise"}})
    if (given)
      throw py::value_error(fmt::format("{}: {}: the unstructured layout draws xlssc's law (y = theta^T x, x ~ N(0, I), "
                                        "theta ~ N(0, I/d), or theta0=[...] for theta = +-theta0); it takes no {}",
                                        owner, name, name));
  Eigen::VectorXd theta0;
  if (!theta0_arg.is_none()) {
    theta0 = vector_arg(theta0_arg, owner + ": theta0", kEvalMaxD);
    if (theta0.size() != d)
      throw py::value_error(fmt::format("{}: theta0: expected {} numbers (a vector of length d)", owner, d));
    if (theta0.isZero(0)) throw py::value_error(fmt::format("{}: theta0 is zero (every label 0)", owner));
  }
  return icl::unstructured_prompts(d, shape.n, theta0);
}

// A prompt Z: (d+1) x (n+1) within eval's limits, finite.
Eigen::MatrixXd prompt_arg(const py::handle& obj) {
  Eigen::MatrixXd Z = matrix(obj, "Z", false, kEvalMaxD + 1, kEvalMaxN + 1);
  if (Z.rows() < 2 || Z.cols() < 2) throw py::value_error("Z must have at least 2 rows and 2 columns");
  return Z;
}

// The memory a Monte Carlo of `threads` workers on prompts of d, n needs, against what is available (as eval).
void check_memory(const std::string& owner, int d, int n, int threads) {
  const double need = threads * acds_shape(d, n).workspace_bytes(), mem = available_memory_bytes();
  if (need > 0.8 * mem)
    throw py::value_error(fmt::format("{}: d = {}, n = {} needs about {:.1f} GiB, only {:.1f} GiB available", owner, d,
                                      n, need / (1 << 30), mem / (1 << 30)));
}

// check()'s grid: {name: a number or a list of numbers}. d, n and cov are whole numbers; any other parameter is
// whole when every value given is a Python int, and is passed to the user's functions as such.
std::vector<ParamSpec> grid_from(const py::dict& grid, std::set<std::string>& integer) {
  std::vector<ParamSpec> out;
  for (auto item : grid) {
    if (!py::isinstance<py::str>(item.first)) throw py::value_error("grid: the keys must be parameter names (strings)");
    const std::string name = py::str(item.first);
    ParamSpec p;
    p.name = name;
    bool all_int = true;
    auto add = [&](const py::handle& v) {
      if (!is_real_like(v)) throw py::value_error(fmt::format("grid[{}]: expected numbers", name));
      all_int &= py::isinstance<py::int_>(v) ||
                 (py::hasattr(v, "dtype") && std::string(py::str(v.attr("dtype").attr("kind"))) == "i");
      p.defaults.push_back(real(v, "grid[" + name + "]"));
    };
    if (py::isinstance<py::sequence>(item.second) || py::isinstance<py::array>(item.second)) {
      for (auto v : item.second) add(v);
    } else {
      add(item.second);
    }
    // d, n, cov and noise within eval's limits (eval.hpp); a parameter of one's own: any finite number.
    p.integer = name == "d" || name == "n" || name == "cov" || all_int;
    p.min = name == "d" || name == "n" ? 1 : name == "cov" || name == "noise" ? 0 : -1e300;
    p.max = name == "d" ? kEvalMaxD : name == "n" ? kEvalMaxN : name == "cov" ? 3 : name == "noise" ? kEvalMaxNoise : 1e300;
    p.help = name == "d"       ? "input dimension"
             : name == "n"     ? "context length"
             : name == "cov"   ? "covariance: 0 isotropic, 1 diagonal, 2 rotated, 3 rotated ill-conditioned (kappa 100)"
             : name == "noise" ? "label noise standard deviation"
                               : "a parameter of the claim";
    if (p.integer) integer.insert(name);
    out.push_back(std::move(p));
  }
  return out;
}

// The case's parameters as keyword arguments (whole-number parameters as int). Needs the GIL.
py::dict case_kwargs(const Case& c, const std::set<std::string>& integer) {
  py::dict kw;
  for (const auto& [k, v] : c.params) {
    if (integer.count(k))
      kw[py::str(k)] = py::int_(static_cast<long long>(std::llround(v)));
    else
      kw[py::str(k)] = py::float_(v);
  }
  return kw;
}

// Runs `f` (library work, without the GIL) on a thread of its own while this thread, the caller's, checks Python's
// signals every 50 ms: Ctrl-C (KeyboardInterrupt), or any signal handler's exception, asks the library to stop
// (execute::request_cancel: its parallel loops stop taking tasks), and once `f` has returned or thrown, whatever it
// gave is dropped and the handler's exception is raised: a call stops within a fraction of a second of Ctrl-C, as
// far as its work runs in the library's parallel loops. (Python runs signal handlers only on the main thread, so
// the library cannot check them itself.) A stop affects every library call running in the process at that moment.
template <class F>
auto interruptible(F&& f, const std::function<bool()>& on_interrupt = nullptr) -> decltype(f()) {
  using Result = decltype(f());
  std::optional<Result> result;
  std::exception_ptr error;
  bool interrupted = false;
  {
    py::gil_scoped_release release;
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::thread worker([&] {
      try {
        result.emplace(f());
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard<std::mutex> lock(m);
      done = true;
      cv.notify_one();
    });
    std::unique_lock<std::mutex> lock(m);
    while (!done) {
      cv.wait_for(lock, std::chrono::milliseconds(50));
      if (done || interrupted) continue;
      lock.unlock();
      {
        py::gil_scoped_acquire gil;
        // A handler's exception stays set on this thread (PyErr_CheckSignals returned -1) until it is raised below.
        if (PyErr_CheckSignals() != 0) {
          interrupted = true;
          // on_interrupt: the call's own way to stop (train: finish the step, save, stop); true when it takes care
          // of it, so that the library's loops are not cancelled mid-step.
          if (!on_interrupt || !on_interrupt()) execute::request_cancel();
        }
      }
      lock.lock();
    }
    lock.unlock();
    worker.join();
  }
  if (interrupted) {
    execute::clear_cancel();
    throw py::error_already_set();
  }
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

// The backend and precision of one call (`--backend`, `--precision`: process-wide settings, execute/executor.hpp),
// set for the call and restored after it, also when it throws; a bad name is a ValueError, as on the command line.
class BackendScope {
public:
  BackendScope(const std::string& backend, const std::string& precision)
      : backend_(execute::default_backend()), precision_(execute::default_precision()) {
    try {
      select_backend(backend);
      select_precision(precision);
    } catch (const UsageError& e) {
      restore();
      throw py::value_error(e.what());
    }
  }
  ~BackendScope() { restore(); }
  BackendScope(const BackendScope&) = delete;
  BackendScope& operator=(const BackendScope&) = delete;

private:
  void restore() {
    execute::set_default_backend(backend_);
    execute::set_default_precision(precision_);
  }
  execute::Backend backend_;
  execute::Precision precision_;
};

}  // namespace

PYBIND11_MODULE(icl_verify, m) {
  m.doc() =
      "icl-verify: checks the claims of in-context-learning theory papers (README.md, docs/api.md).\n\n"
      "  check(claim_id, statement=, stated=, model=, grid=, ...)  a claim of one's own: the report `icl-verify run`\n"
      "                                                          writes, as a dict, and its files\n"
      "  run(claim, quick=False, **params)                        a claim of the catalogue (list_claims())\n"
      "  eval_weights(weights, task=, tolerance=, **params)       trained weights: array, state_dict or file\n"
      "  read_arrays(path)                                        the arrays of a .npy, .npz or .safetensors file\n"
      "  lsa_layer, bilinear_layer, forward, exact_loss, mc_loss, optimal_gamma, test_covariance, sample_prompt\n"
      "Bad input raises ValueError with the command line's one-line message.";
  m.attr("__version__") = build_info().version;

  m.def(
      "list_claims",
      [] {
        py::list l;
        for (const auto& id : listed_claim_ids()) {
          py::dict d;
          d["id"] = id;
          d["title"] = find_claim(id)->title;
          // Every listed claim is registered, so runnable; the key stays for callers from when the list also held
          // claims not implemented yet.
          d["implemented"] = true;
          l.append(d);
        }
        return l;
      },
      "Every claim of the library, in the order of `icl-verify list`: a list of {'id', 'title', 'implemented'}.");

  m.def(
      "run",
      [](const py::object& claim_arg, const py::object& quick, const py::object& seed, const py::object& samples,
         const py::object& threads, const py::object& alpha, const py::object& backend, const py::object& precision,
         const py::kwargs& params) {
        const std::string claim = text(claim_arg, "claim");
        if (claim == "all") throw py::value_error("run: name one claim (a list comes from list_claims())");
        RunOptions o;
        o.claims = {claim};
        o.quick = flag(quick, "quick");
        o.seed = seed_arg(seed);
        o.samples = samples_arg(samples);
        o.threads = threads_arg(threads).value_or(0);
        o.alpha = real(alpha, "alpha");
        o.sets = sets_from(params);
        const BackendScope scope(text(backend, "backend"), text(precision, "precision"));
        nlohmann::ordered_json r;
        try {
          const auto plan = plan_run(o);
          r = interruptible([&] { return run_claim(plan.at(0), o); });
        } catch (const UsageError& e) {
          throw py::value_error(e.what());
        }
        return to_python(r);
      },
      py::arg("claim"), py::arg("quick") = false, py::arg("seed") = 1, py::arg("samples") = py::none(),
      py::arg("threads") = py::none(), py::arg("alpha") = 0.01, py::arg("backend") = "cpu",
      py::arg("precision") = "float64",
      "Verify one claim; keyword parameters set its grid (a number or a list), e.g. run('sja.thm2', d=[1, 2]).\n"
      "backend, precision: as --backend and --precision ('cpu', 'portable', 'cuda' where built and a GPU is present;\n"
      "'float64', or 'float32' on portable and cuda), for this call (they are process-wide while it runs).\n"
      "Returns the JSON report (docs/reports.md) as a dict.");

  m.def(
      "eval_weights",
      [](const py::object& weights, const py::object& task, const py::object& sigma_arg, const py::object& quick,
         const py::object& seed, const py::object& samples, const py::object& threads, const py::object& alpha,
         const py::object& tolerance, const py::object& backend, const py::object& precision,
         const py::object& names_given, const py::object& out, const py::object& w_cov, const py::kwargs& params) {
        EvalOptions o;
        o.tolerance = real(tolerance, "tolerance");
        o.task = text(task, "task");
        o.quick = flag(quick, "quick");
        o.seed = seed_arg(seed);
        o.samples = samples_arg(samples);
        o.threads = threads_arg(threads).value_or(0);
        o.alpha = real(alpha, "alpha");
        o.sets = sets_from(params);
        const BackendScope scope(text(backend, "backend"), text(precision, "precision"));
        if (!out.is_none() && !is_path(out))
          throw py::value_error(fmt::format("out: expected a folder name, got {}", type_name(out)));
        const LsaStack w = to_stack(weights, names_arg(names_given));
        if (is_path(weights)) o.weights = py::str(py::module_::import("os").attr("fspath")(weights));
        const std::optional<Eigen::MatrixXd> sigma = covariance_arg(sigma_arg, w.d);
        if (py::isinstance<py::str>(w_cov)) {
          if (std::string(py::str(w_cov)) != "inverse")
            throw py::value_error("eval_weights: w_cov: a (d, d) matrix or 'inverse' (Sigma^-1)");
          o.w_cov_inverse = true;
        } else if (!w_cov.is_none()) {
          o.w_cov = matrix(w_cov, "w_cov", false, kEvalMaxD, kEvalMaxD);
        }
        nlohmann::ordered_json r;
        try {
          r = interruptible([&] { return evaluate_weights(w, o, sigma); });
          if (!out.is_none()) {
            const std::string folder = py::str(py::module_::import("os").attr("fspath")(out));
            py::gil_scoped_release release;
            write_eval_report(r, folder);
          }
        } catch (const UsageError& e) {
          throw py::value_error(e.what());
        }
        return to_python(r);
      },
      py::arg("weights"), py::arg("task") = "linear", py::arg("sigma") = py::none(), py::arg("quick") = false,
      py::arg("seed") = 1, py::arg("samples") = py::none(), py::arg("threads") = py::none(), py::arg("alpha") = 0.01,
      py::arg("tolerance") = 0.01, py::arg("backend") = "cpu", py::arg("precision") = "float64",
      py::arg("names") = py::none(), py::arg("out") = py::none(), py::arg("w_cov") = py::none(),
      "The `icl-verify eval` report (a dict) of trained weights, given as\n"
      "  - an allparam array (L, H, 2, d, d) of the acds authors' code (chengxiang/LinearTransformer);\n"
      "  - a mapping of names to arrays or tensors, e.g. model.state_dict(): the key `allparam` (or `<prefix>.allparam`,\n"
      "    e.g. 'module.allparam') alone, or full (d+1, d+1) matrices 'P1', 'Q1', 'P2', 'Q2', ... (one head per layer);\n"
      "    values: NumPy arrays, anything with __array__, or PyTorch tensors (.detach().cpu().numpy() is taken);\n"
      "  - a file name: .npy (allparam), .npz or .safetensors (keys as above).\n"
      "names: weights under any other names, e.g. names={'P1': 'attn.P', 'Q1': 'attn.Q'} (each a name above -> the\n"
      "  array's own key); exactly the named arrays are read, the others are listed in the report's weights block.\n"
      "out: a folder to write eval.json, eval.md and eval.tex to (as `icl-verify eval --out`); None writes nothing.\n"
      "Keyword parameters n, d, cov, noise (a number or a list); sigma: a (d, d) covariance instead of cov;\n"
      "w_cov: w ~ N(0, w_cov) on the linear task (a matrix, or 'inverse' for Sigma^-1; default I).\n"
      "backend, precision: as in run().\n"
      "The verdict is on the weights: confirmed when the exact loss exceeds the exact single-layer optimum by at most\n"
      "`tolerance` x the optimum, refuted when by more; inconclusive without an exact value (several layers).\n"
      "Each case's quantities are explained in the report's `quantity_meanings`; where the weights fit far better read\n"
      "with the opposite sign (yhat = +Z[d, n]), the evidence says so. Ctrl-C stops the call within moments.");

  m.def(
      "check",
      [](const py::object& claim_id_arg, const py::object& statement, const py::object& stated, const py::object& model,
         const py::object& task, const py::object& grid_arg, const py::object& samples_given, const py::object& seed_given,
         const py::object& out, const py::object& kind, const py::object& title, const py::object& source,
         const py::object& tolerance, const py::object& threads_given, const py::object& alpha_given,
         const py::object& propose, const py::object& argmin_over, const py::object& argmin_range,
         const py::object& argmin_tolerance, const py::object& exact_tolerance, const py::object& reference,
         const py::object& prompts, const py::object& argmin_mc_tolerance, const py::object& rate_over,
         const py::object& rate_tolerance, const py::object& sigma, const py::object& w_cov, const py::object& verbose,
         const py::object& layout, const py::object& theta0) {
        const std::string claim_id = text(claim_id_arg, "claim_id");
        const bool identity = text(kind, "kind") == "identity";
        if (identity) {
          if (!PyCallable_Check(reference.ptr()) || !PyCallable_Check(model.ptr()))
            throw py::value_error("check: kind='identity' needs `reference` (a function of X, y and the grid's "
                                  "parameters) and `model` (a function of the grid's parameters)");
          if (!stated.is_none()) throw py::value_error("check: kind='identity' takes `reference`, not `stated`");
        } else {
          if (!PyCallable_Check(stated.ptr()) || !PyCallable_Check(model.ptr()))
            throw py::value_error("check: `stated` and `model` must be functions of the grid's parameters");
          if (!reference.is_none()) throw py::value_error("check: `reference` belongs to kind='identity'");
        }
        if (!py::isinstance<py::dict>(grid_arg))
          throw py::value_error(fmt::format("grid: expected a dict {{name: value or list}}, got {}", type_name(grid_arg)));
        const py::dict grid = py::reinterpret_borrow<py::dict>(grid_arg);
        const std::uint64_t samples = *samples_arg(samples_given);
        const std::uint64_t seed = seed_arg(seed_given);
        const std::optional<int> threads = threads_arg(threads_given);
        const double alpha = real(alpha_given, "alpha");
        std::set<std::string> integer;
        FormulaClaim f;
        f.id = claim_id;
        f.statement = text(statement, "statement");
        f.title = text(title, "title");
        f.source = text(source, "source");
        f.kind = text(kind, "kind");
        f.task = task_arg(task, "check");
        f.tolerance = real(tolerance, "tolerance");
        f.exact_tolerance = real(exact_tolerance, "exact_tolerance");
        if (!argmin_over.is_none()) f.argmin_over = text(argmin_over, "argmin_over");
        if (!argmin_range.is_none()) {
          if (!py::isinstance<py::sequence>(argmin_range) || py::isinstance<py::str>(argmin_range) ||
              py::len(argmin_range) != 2)
            throw py::value_error(fmt::format("argmin_range: expected (low, high), got {}", type_name(argmin_range)));
          const py::sequence r = py::reinterpret_borrow<py::sequence>(argmin_range);
          f.argmin_range = std::make_pair(real(r[0], "argmin_range[0]"), real(r[1], "argmin_range[1]"));
        }
        f.argmin_tolerance = real(argmin_tolerance, "argmin_tolerance");
        f.argmin_mc_tolerance = real(argmin_mc_tolerance, "argmin_mc_tolerance");
        f.rate_over = text(rate_over, "rate_over");
        f.rate_tolerance = real(rate_tolerance, "rate_tolerance");
        f.prompts = whole(prompts, "prompts", parse_samples);
        f.samples = samples;
        if (!py::isinstance<py::bool_>(propose))
          throw py::value_error(fmt::format("propose: expected True or False, got {}", type_name(propose)));
        f.propose = propose.cast<bool>();
        f.grid = grid_from(grid, integer);
        // The functions are called with the GIL; the handles stay valid because this call holds `stated` and `model`.
        const py::handle stated_fn = stated, model_fn = model, reference_fn = reference;
        if (identity)  // X: the prompt's inputs as rows (n+1, d), the query's last; y: the n context labels
          f.reference = [reference_fn, integer, claim_id](const Case& c, const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
            py::gil_scoped_acquire gil;
            const py::object v = reference_fn(py::cast(Eigen::MatrixXd(x.transpose())), py::cast(y), **case_kwargs(c, integer));
            try {
              return v.cast<double>();
            } catch (const py::cast_error&) {
              throw py::value_error(fmt::format("{}: reference(X, y, {}) returned {}, not a number", claim_id, c.label(),
                                                std::string(py::repr(v))));
            }
          };
        else
        f.stated = [stated_fn, integer, claim_id](const Case& c) {
          py::gil_scoped_acquire gil;
          const py::object v = stated_fn(**case_kwargs(c, integer));
          try {
            return v.cast<double>();
          } catch (const py::cast_error&) {
            throw py::value_error(fmt::format("{}: stated({}) returned {}, not a number", claim_id, c.label(),
                                              std::string(py::repr(v))));
          }
        };
        if (layout.is_none()) {
          f.model = [model_fn, integer](const Case& c) {
            py::gil_scoped_acquire gil;
            const py::object w = model_fn(**case_kwargs(c, integer));
            return to_stack(w);
          };
        } else {
          const std::string lay = text(layout, "layout");
          if (lay != "acds" && lay != "sja" && lay != "zfb" && lay != "unstructured")
            throw py::value_error(fmt::format("layout '{}': expected 'acds', 'sja', 'zfb' or 'unstructured' (the model "
                                              "then returns a list of layer dicts)",
                                              printable_line(lay, 40)));
          f.network = [model_fn, integer, lay](const Case& c) {
            py::gil_scoped_acquire gil;
            const py::object layers = model_fn(**case_kwargs(c, integer));
            try {
              return to_network(layers, lay, c.geti("d"), c.geti("n"), c.label());
            } catch (const py::value_error& e) {
              throw UsageError(e.what());
            }
          };
        }
        // The task law of one's own: sigma (a (d, d) matrix or f(**params) returning one), w_cov (a matrix,
        // "inverse" for Sigma^-1, or f(**params)); checked in the run (formula.cpp own_covariance).
        const auto own_matrix = [claim_id](const py::handle& v, const std::string& name) {
          try {
            return matrix(v, name, false, kEvalMaxD, kEvalMaxD);
          } catch (const py::value_error& e) {
            throw UsageError(fmt::format("{}: {}", claim_id, e.what()));
          }
        };
        const py::handle sigma_obj = sigma, w_cov_obj = w_cov;
        if (!sigma.is_none()) {
          if (!PyCallable_Check(sigma.ptr())) own_matrix(sigma, "sigma");  // a bad matrix fails before the run
          f.sigma = [sigma_obj, integer, own_matrix](const Case& c) {
            py::gil_scoped_acquire gil;
            if (!PyCallable_Check(sigma_obj.ptr())) return own_matrix(sigma_obj, "sigma");
            return own_matrix(sigma_obj(**case_kwargs(c, integer)), fmt::format("sigma({})", c.label()));
          };
        }
        if (!w_cov.is_none()) {
          const bool inverse = py::isinstance<py::str>(w_cov);
          if (inverse && w_cov.cast<std::string>() != "inverse")
            throw py::value_error(fmt::format("w_cov: expected a matrix, 'inverse' (Sigma^-1) or a function of the grid's "
                                              "parameters, got {}", std::string(py::repr(w_cov))));
          if (!inverse && !PyCallable_Check(w_cov.ptr())) own_matrix(w_cov, "w_cov");
          f.w_cov = [w_cov_obj, inverse, integer, own_matrix](const Case& c, const Eigen::MatrixXd& sig) -> Eigen::MatrixXd {
            if (inverse) return inverse_law(sig);
            py::gil_scoped_acquire gil;
            if (!PyCallable_Check(w_cov_obj.ptr())) return own_matrix(w_cov_obj, "w_cov");
            return own_matrix(w_cov_obj(**case_kwargs(c, integer)), fmt::format("w_cov({})", c.label()));
          };
        }
        // theta0: w = +-theta0 with a fair sign (d numbers, or f(**params) returning them); checked in the run
        // (formula.cpp case_laws).
        const auto own_vector = [claim_id](const py::handle& v, const std::string& name) -> Eigen::VectorXd {
          try {
            return vector_arg(v, name, kEvalMaxD);
          } catch (const py::value_error& e) {
            throw UsageError(fmt::format("{}: {}", claim_id, e.what()));
          }
        };
        if (!theta0.is_none()) {
          if (!PyCallable_Check(theta0.ptr())) own_vector(theta0, "theta0");
          const py::handle theta0_obj = theta0;
          f.theta0 = [theta0_obj, integer, own_vector](const Case& c) {
            py::gil_scoped_acquire gil;
            if (!PyCallable_Check(theta0_obj.ptr())) return own_vector(theta0_obj, "theta0");
            return own_vector(theta0_obj(**case_kwargs(c, integer)), fmt::format("theta0({})", c.label()));
          };
        }
        f.between_cases = [] {  // Ctrl-C (or any signal handler's exception) stops the run between cases
          py::gil_scoped_acquire gil;
          if (PyErr_CheckSignals() != 0) throw py::error_already_set();
        };
        if (!py::isinstance<py::bool_>(verbose))
          throw py::value_error(fmt::format("verbose: expected True or False, got {}", type_name(verbose)));
        const bool loud = verbose.cast<bool>();
        py::object tmp = py::none();
        std::string folder;
        if (!out.is_none() && !is_path(out))
          throw py::value_error(fmt::format("out: expected a folder name, got {}", type_name(out)));
        if (out.is_none()) {
          tmp = py::module_::import("tempfile").attr("mkdtemp")(py::arg("prefix") = "icl-verify-check-");
          folder = py::str(tmp);
        } else {
          folder = py::str(py::module_::import("os").attr("fspath")(out));
        }
        const std::string command = fmt::format(
            "python: icl_verify.check({}, task={}, kind={}, grid={}, samples={}, seed={}, tolerance={}{})",
            std::string(py::repr(py::str(claim_id))), std::string(py::repr(py::str(f.task))),
            std::string(py::repr(py::str(f.kind))), std::string(py::repr(grid)), samples, seed, f.tolerance,
            f.argmin_over.empty() ? std::string() : fmt::format(", argmin_over={}", std::string(py::repr(py::str(f.argmin_over)))));
        nlohmann::ordered_json r;
        try {
          py::gil_scoped_release release;
          r = check_formula_claim(f, folder, seed, threads ? *threads : 0, alpha, command, !loud);
        } catch (const UsageError& e) {
          if (!tmp.is_none()) py::module_::import("shutil").attr("rmtree")(tmp, py::arg("ignore_errors") = true);
          throw py::value_error(e.what());
        } catch (...) {
          if (!tmp.is_none()) py::module_::import("shutil").attr("rmtree")(tmp, py::arg("ignore_errors") = true);
          throw;
        }
        if (!tmp.is_none()) py::module_::import("shutil").attr("rmtree")(tmp, py::arg("ignore_errors") = true);
        return to_python(r);
      },
      py::arg("claim_id"), py::kw_only(), py::arg("statement"), py::arg("stated") = py::none(), py::arg("model"),
      py::arg("task") = "linear", py::arg("grid"), py::arg("samples") = 262144, py::arg("seed") = 1,
      py::arg("out") = py::none(), py::arg("kind") = "equality", py::arg("title") = "", py::arg("source") = "",
      py::arg("tolerance") = 0.05, py::arg("threads") = py::none(), py::arg("alpha") = 0.01, py::arg("propose") = true,
      py::arg("argmin_over") = py::none(), py::arg("argmin_range") = py::none(), py::arg("argmin_tolerance") = 1e-6,
      py::arg("exact_tolerance") = 1e-9, py::arg("reference") = py::none(), py::arg("prompts") = 1000,
      py::arg("argmin_mc_tolerance") = 1e-3, py::arg("rate_over") = "n", py::arg("rate_tolerance") = 0.05,
      py::arg("sigma") = py::none(), py::arg("w_cov") = py::none(), py::arg("verbose") = false,
      py::arg("layout") = py::none(), py::arg("theta0") = py::none(),
      "Check a claim of one's own about the in-context loss of a model one builds, with the mechanism of the\n"
      "catalogue's claims; returns the same report dict as `icl-verify run` and writes its files to `out`\n"
      "(OUT/CLAIM.json, CLAIM.tex, summary.md, ...; out=None: a temporary folder, removed afterwards).\n"
      "\n"
      "  claim_id   the report's name: letters, digits, '.', '_', '-'; not a claim of the library\n"
      "  statement  the claim in words\n"
      "  stated     f(**params) -> the stated loss (kind='equality') or bound (kind='upper_bound': loss <= it;\n"
      "             'lower_bound': loss >= it), or the stated minimiser (kind='argmin'), for one case of the grid\n"
      "  model      build(**params) -> the weights: an allparam array (L, H, 2, d, d), a mapping {'P1': .., 'Q1': ..}\n"
      "             of full (d+1, d+1) matrices (Z <- Z + (1/n) P Z M Z^T Q Z, the query not a key), a state_dict or\n"
      "             a file, as eval_weights takes them; the prediction is -Z[d, n]\n"
      "  task       'linear' (y = <w, x>) or 'quadratic' (the sja task); x ~ N(0, Sigma), w ~ N(0, I)\n"
      "  sigma      Sigma of one's own: a (d, d) symmetric positive definite matrix, or f(**params) returning one\n"
      "             (in place of the grid's cov)\n"
      "  w_cov      the linear task's w ~ N(0, w_cov): a matrix, 'inverse' (Sigma^-1, the acds law) or f(**params)\n"
      "  theta0     instead, w = +theta0 or -theta0 with a fair sign (xlssc Sec. 4.2): d numbers or f(**params); the\n"
      "             loss is the two laws' mean (exact for one layer, Monte Carlo half the prompts each)\n"
      "  verbose    print the verdict line and where the reports went (default: quiet)\n"
      "  layout     'acds', 'sja', 'zfb' or 'unstructured' (xlssc's E_2, x and y in separate tokens): the model\n"
      "             returns a list of layer dicts of any of the library's layers,\n"
      "             {'kind': 'lsa', 'P', 'Q', 'masked', 'scale'} (or 'heads': [(P, Q), ...]), {'kind': 'bilinear',\n"
      "             'W0', 'W1'}, {'kind': 'softmax', 'V', 'K', 'activation', 'causal'}, on that prompt layout (sja: a\n"
      "             leading 1 and zero feature rows, the rows read off the layers); the exact loss for one masked\n"
      "             attention layer after at most one bilinear layer, else Monte Carlo\n"
      "  grid       {name: value or list}: d and n required; cov (0 isotropic, 1 diagonal, 2 rotated, 3 kappa 100;\n"
      "             default 0), noise (label noise sd; default 0) and parameters of one's own (passed to stated and model)\n"
      "  samples    Monte Carlo prompts per case: the cap of the sequential looks (doubling from 4096, alpha split\n"
      "             over them); seed, threads, alpha as for run()\n"
      "  tolerance  relative band of the Monte Carlo decisions (against the stated and the exact value)\n"
      "  exact_tolerance  relative band of the exact loss against the stated value (floating point; default 1e-9)\n"
      "Per case: stated; exact, the library's own exact loss of the weights where it integrates one (one layer;\n"
      "d <= 12 linear, d <= 3 quadratic); mc, Monte Carlo through the forward pass. Where the exact loss exists it\n"
      "decides (within exact_tolerance: confirmed, else refuted, the claim naming a counterexample) and Monte Carlo\n"
      "checks it: excluding it leaves the case inconclusive, INTERNAL INCONSISTENCY in the summary. Without one,\n"
      "Monte Carlo decides alone; an undecided case is named in the summary with the prompts that would decide it\n"
      "(decisions['samples_to_decide']).\n"
      "  kind='argmin', argmin_over='eta': stated(**params) is the claimed minimiser of the loss over eta, and\n"
      "             model(**params, eta=x) builds the weights at x. On the exact loss: a 41-point grid over\n"
      "             argmin_range (default: stated +/- max(|stated|, 1)) and Brent's method from its best point;\n"
      "             confirmed when no searched point has an exact loss lower by more than exact_tolerance and the\n"
      "             search's minimiser lies within argmin_tolerance (relative to max(|stated|, 1)) of the stated one;\n"
      "             refuted otherwise, the counterexample giving the better point and both losses. Without an exact\n"
      "             loss (several layers, large d) the search runs on the Monte Carlo loss over 8192 common prompts\n"
      "             and the stated minimiser is judged on the loss alone: its excess over the search's point on up\n"
      "             to 65536 fresh paired prompts, one-sided, against argmin_mc_tolerance (1e-3) x its loss.\n"
      "  kind='identity', reference=f(X, y, **params) -> the stated prediction of the query's label, X the prompt's\n"
      "             inputs as rows (n+1, d), the query's last, y the n context labels (stated is not given). On\n"
      "             `prompts` prompts per case (default 1000; the case's stream) the model's prediction -Z[d, n] is\n"
      "             compared with it: confirmed when every one is within exact_tolerance (relative, plus 1e-12),\n"
      "             refuted at the first that is not (the counterexample gives the prompt and both predictions).\n"
      "             A check on the prompts drawn, with no statistical test.\n"
      "  kind='rate', rate_over='n': stated(**params) is the exponent p of loss ~ C n^p as n grows (at least 3\n"
      "             values of rate_over in the grid). Per group of the other parameters, the log-log slope of the loss\n"
      "             (exact, else Monte Carlo with `samples` prompts) between the two largest values: confirmed within\n"
      "             rate_tolerance (0.05) of p; refuted outside it when the slope before is no nearer p (exact) or\n"
      "             both slopes' intervals lie outside on one side (Monte Carlo); else inconclusive.\n"
      "  propose    a refuted equality gets a proposed correction (propose=False: none searched): `model` is called\n"
      "             at a grid the toolkit chooses (d = 1..6, six values of n and of every parameter of one's own\n"
      "             the grid varies) and beyond it; the exact loss of its weights (one layer, cov 0) is fitted by the\n"
      "             smallest polynomial in d and those parameters and in 1/n, and returned under\n"
      "             'proposed_correction' {formula, latex, fitted_on, held_out, verified, ...} only when it equals\n"
      "             the exact loss at every held-out case (larger d and n) and every case of the grid; each case\n"
      "             then has the quantity 'proposed'. Otherwise 'proposed_correction' says why (formula None).\n"
      "Ctrl-C stops the run between cases (KeyboardInterrupt).");

  m.def(
      "read_arrays",
      [](const py::object& path_like) {
        if (!is_path(path_like))
          throw py::value_error(fmt::format("path: expected a file name, got {}", type_name(path_like)));
        const std::string path = py::str(py::module_::import("os").attr("fspath")(path_like));
        auto ends_with = [&](const std::string& e) {
          if (path.size() < e.size()) return false;
          std::string tail = path.substr(path.size() - e.size());
          for (auto& ch : tail) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
          return tail == e;
        };
        py::dict out;
        try {
          if (ends_with(".npy")) {
            out["allparam"] = to_numpy(read_npy(path));  // the key eval's mapping gives a lone .npy
          } else {
            const auto arrays = ends_with(".npz")           ? read_npz(path)
                                : ends_with(".safetensors") ? read_safetensors(path).tensors
                                                            : throw ArrayFileError(path + ": expected a .npy, .npz or .safetensors file");
            for (const auto& [k, a] : arrays) out[py::str(k)] = to_numpy(a);
          }
        } catch (const ArrayFileError& e) {
          throw py::value_error(e.what());
        }
        return out;
      },
      py::arg("path"),
      "The arrays of a weight file, read as strictly as `icl-verify eval` reads them: {name: float64 array} of a\n"
      ".npz or .safetensors file (F64, F32, F16, BF16), or {'allparam': array} of a .npy file. A malformed file\n"
      "raises ValueError with the command line's one-line message.");

  m.def(
      "lsa_layer",
      [](const py::object& Z_arg, const py::object& P_arg, const py::object& Q_arg, const py::object& masked_arg,
         const py::object& scale_arg) {
        Eigen::MatrixXd Z = prompt_arg(Z_arg);
        const Eigen::Index D = Z.rows();
        const Eigen::MatrixXd P = matrix(P_arg, "P", true, D, D), Q = matrix(Q_arg, "Q", true, D, D);
        if (P.rows() != D || P.cols() != D || Q.rows() != D || Q.cols() != D)
          throw py::value_error(fmt::format("P and Q must be {} x {} for Z of {} rows", D, D, D));
        const bool masked = flag(masked_arg, "masked");
        const double scale = real(scale_arg, "scale");
        if (!std::isfinite(scale)) throw py::value_error("scale: expected a finite number");
        ForwardWorkspace ws;
        LinearSelfAttention{P, Q, masked, scale}.apply(Z, ws);
        return Z;
      },
      py::arg("Z"), py::arg("P"), py::arg("Q"), py::arg("masked") = true, py::arg("scale") = 0.0,
      "One linear self-attention layer: Z + scale P Z M (Z^T Q Z), M = diag(I_n, 0) when masked; scale 0 means 1/n.");

  m.def(
      "bilinear_layer",
      [](const py::object& Z_arg, const py::object& W0_arg, const py::object& W1_arg) {
        Eigen::MatrixXd Z = prompt_arg(Z_arg);
        const Eigen::Index d = Z.rows() - 1;
        const Eigen::MatrixXd W0 = matrix(W0_arg, "W0", true, d, d), W1 = matrix(W1_arg, "W1", true, d, d);
        if (W0.rows() != d || W0.cols() != d || W1.rows() != d || W1.cols() != d)
          throw py::value_error(fmt::format("W0 and W1 must be {} x {} for Z of {} rows", d, d, d + 1));
        ForwardWorkspace ws;
        BilinearLayer{W0, W1}.apply(Z, ws);
        return Z;
      },
      py::arg("Z"), py::arg("W0"), py::arg("W1"),
      "The sja bilinear feed-forward layer: Z + (diag(W0, 0) Z) * (diag(W1, 0) Z) (the label row unchanged).");

  m.def(
      "forward",
      [](const py::object& Z_arg, const py::object& weights) {
        Eigen::MatrixXd Z = prompt_arg(Z_arg);
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
      "train",
      [](const py::object& layers, const py::object& layout_arg, const py::object& d_arg, const py::object& n_arg,
         const py::object& task_given, const py::object& sigma_arg, const py::object& w_cov, const py::object& noise,
         const py::object& optimizer_arg, const py::object& lr_arg, const py::object& steps_arg,
         const py::object& batch_arg, const py::object& seed_given, const py::object& threads_given,
         const py::object& test_batch_arg, const py::object& checkpoint_arg, const py::object& theta0_arg) {
        const std::string layout = text(layout_arg, "layout");
        if (layout != "acds" && layout != "sja" && layout != "zfb" && layout != "unstructured")
          throw py::value_error(fmt::format("train: layout '{}': expected 'acds', 'sja', 'zfb' or 'unstructured'",
                                            printable_line(layout, 40)));
        const int d = int_param(d_arg, "train", eval_param("d"));
        const int n = int_param(n_arg, "train", eval_param("n"));
        const std::string task = task_arg(task_given, "train");
        const NetworkModel start = to_network(layers, layout, d, n, "train");
        const py::sequence seq = py::reinterpret_borrow<py::sequence>(layers);
        for (std::size_t l = 0; l < seq.size(); ++l)
          if (py::reinterpret_borrow<py::dict>(seq[l]).contains("heads"))
            throw py::value_error(fmt::format("train: layer {} has several heads; train takes one-head layers", l + 1));
        // Every entry of every parameter trains, from the given weights (the base; theta = 0 at the start).
        icl::Parameterisation params(start.net);
        for (int l = 0; l < start.net.size(); ++l)
          for (const auto& p : start.net.layer(l).params())
            params.add(icl::ParamGroup::full(fmt::format("{}_{}", p.name, l), static_cast<int>(p.value.rows()),
                                               static_cast<int>(p.value.cols()), {{l, p.name}}));
        const icl::PromptSource source = prompts_of("train", layout, d, start.shape, task, sigma_arg, w_cov, noise, theta0_arg);
        learn::TrainConfig cfg;
        cfg.optimizer = text(optimizer_arg, "optimizer");
        if (cfg.optimizer != "adam" && cfg.optimizer != "sgd" && cfg.optimizer != "lbfgs")
          throw py::value_error(fmt::format("train: optimizer '{}': expected 'adam', 'sgd' or 'lbfgs'",
                                            printable_line(cfg.optimizer, 40)));
        cfg.learning_rate = real(lr_arg, "learning_rate");
        if (!(cfg.learning_rate > 0 && std::isfinite(cfg.learning_rate)))
          throw py::value_error("train: learning_rate must be a positive number");
        const long long steps = whole(steps_arg, "steps", [](const std::string& t) {
          const auto v = whole_number(t);
          if (!v || *v < 1 || *v > 100000000) throw UsageError(fmt::format("steps '{}': expected 1 to 1e8", t));
          return static_cast<long long>(*v);
        });
        cfg.steps = static_cast<int>(steps);
        cfg.batch = static_cast<std::uint64_t>(*samples_arg(batch_arg));
        cfg.test_batch = static_cast<std::uint64_t>(*samples_arg(test_batch_arg));
        cfg.seed = seed_arg(seed_given);
        cfg.purpose = stable_hash("python/train");
        const std::optional<int> threads = threads_arg(threads_given);
        cfg.threads = threads ? *threads : default_thread_count();
        cfg.label = "train";
        check_memory("train", d, n, cfg.threads);
        learn::CheckpointSettings saved = learn::checkpoints();
        if (!checkpoint_arg.is_none()) {
          const std::string dir = py::str(py::module_::import("os").attr("fspath")(checkpoint_arg));
          py::module_::import("os").attr("makedirs")(dir, py::arg("exist_ok") = true);
          try {
            learn::verify_checkpoint_folder(dir);
          } catch (const std::exception& e) {
            throw py::value_error(e.what());
          }
          learn::set_checkpoints({dir, 60});
        }
        const icl::LossSpec loss{start.sign, 1.0};
        learn::TrainResult r;
        try {
          r = interruptible([&] { return learn::train(params, Eigen::VectorXd::Zero(params.size()), source, loss, cfg); },
                            [] {
                              if (learn::checkpoints().dir.empty()) return false;  // nothing to save: cancel now
                              learn::stop_requested() = true;  // the step ends, the state is saved, train stops
                              return true;
                            });
        } catch (...) {
          learn::stop_requested() = false;
          learn::set_checkpoints(saved);
          throw;
        }
        learn::stop_requested() = false;
        learn::set_checkpoints(saved);
        // The trained layers: the given dicts with their matrices replaced.
        const Network net = params.network(r.theta);
        py::list out;
        for (std::size_t l = 0; l < seq.size(); ++l) {
          py::dict L = py::reinterpret_borrow<py::dict>(seq[l]).attr("copy")();
          for (const auto& p : net.layer(static_cast<int>(l)).params()) L[py::str(p.name)] = p.value;
          out.append(L);
        }
        py::dict res;
        res["layers"] = out;
        res["status"] = learn::to_string(r.status);
        res["reason"] = r.reason;
        res["steps"] = r.steps_done;
        res["final_train_loss"] = r.final_train_loss;
        res["final_test_loss"] = r.final_test_loss;
        res["seconds"] = r.seconds;
        res["curve"] = py::dict(py::arg("step") = r.curve.step, py::arg("train_loss") = r.curve.train_loss,
                                py::arg("test_loss") = r.curve.test_loss);
        return res;
      },
      py::arg("layers"), py::kw_only(), py::arg("layout"), py::arg("d"), py::arg("n"), py::arg("task") = "linear",
      py::arg("sigma") = py::none(), py::arg("w_cov") = py::none(), py::arg("noise") = 0.0,
      py::arg("optimizer") = "adam", py::arg("learning_rate") = 1e-3, py::arg("steps") = 1000,
      py::arg("batch") = 1000, py::arg("seed") = 1, py::arg("threads") = py::none(), py::arg("test_batch") = 1000,
      py::arg("checkpoint") = py::none(), py::arg("theta0") = py::none(),
      "Train a network of the library's layers (the layer dicts check(layout=...) takes, as the starting weights;\n"
      "every entry of every matrix trains) with the project's trainer (learn/trainer.hpp) on fresh prompts of the\n"
      "task: optimizer 'adam' | 'sgd' | 'lbfgs', steps, batch (fresh prompts every step), seed (same seed, same\n"
      "weights for any threads). checkpoint=folder saves the run's state and resumes it (a stopped call goes on\n"
      "from its last save; a finished one returns its result). Ctrl-C stops it (KeyboardInterrupt, saved first\n"
      "where a checkpoint folder is given). At a terminal a progress line is drawn on stderr. Returns {'layers':\n"
      "the trained layer dicts, 'status', 'reason', 'steps', 'final_train_loss', 'final_test_loss' (on test_batch\n"
      "held-out prompts), 'seconds', 'curve'}. On layout='unstructured' the prompts follow xlssc's law: theta ~\n"
      "N(0, I/d), or theta0=[...] for theta = +-theta0 with a fair sign (no task, sigma, w_cov or noise).");

  m.def(
      "compare",
      [](const py::object& lower_arg, const py::object& higher_arg, const py::object& layout_arg, const py::object& d_arg,
         const py::object& n_arg, const py::object& task_given, const py::object& sigma_arg, const py::object& w_cov,
         const py::object& noise, const py::object& samples_given, const py::object& seed_given,
         const py::object& threads_given, const py::object& alpha_arg, const py::object& min_trials_arg,
         const py::object& may_refute_arg, const py::object& theta0_arg, const py::object& trained_below,
         const py::object& held_out_arg) {
        const std::string layout = text(layout_arg, "layout");
        if (layout != "acds" && layout != "sja" && layout != "zfb" && layout != "unstructured")
          throw py::value_error(fmt::format("compare: layout '{}': expected 'acds', 'sja', 'zfb' or 'unstructured'",
                                            printable_line(layout, 40)));
        const int d = int_param(d_arg, "compare", eval_param("d"));
        const int n = int_param(n_arg, "compare", eval_param("n"));
        const std::string task = task_arg(task_given, "compare");
        auto trials_of = [&](const py::object& v, const char* side) {
          if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v))
            throw py::value_error(fmt::format("compare: {} is a list of trials, each a list of layer dicts", side));
          std::vector<NetworkModel> out;
          std::size_t k = 0;
          for (const auto& t : py::reinterpret_borrow<py::sequence>(v))
            out.push_back(to_network(py::reinterpret_borrow<py::object>(t), layout, d, n,
                                     fmt::format("compare: {} trial {}", side, ++k)));
          return out;
        };
        const std::vector<NetworkModel> lower = trials_of(lower_arg, "lower"), higher = trials_of(higher_arg, "higher");
        if (lower.size() != higher.size() || lower.empty())
          throw py::value_error(fmt::format("compare: lower and higher need the same number of trials, at least 1 "
                                            "(got {} and {})",
                                            lower.size(), higher.size()));
        for (std::size_t k = 0; k < lower.size(); ++k)
          if (lower[k].shape.rows() != higher[k].shape.rows())
            throw py::value_error(fmt::format("compare: trial {}: the two models read prompts of {} and {} rows",
                                              k + 1, lower[k].shape.rows(), higher[k].shape.rows()));
        const double alpha = real(alpha_arg, "alpha");
        if (!(alpha > 0 && alpha < 0.5)) throw py::value_error("compare: alpha must be in (0, 0.5)");
        const long long min_trials = whole(min_trials_arg, "min_trials", [](const std::string& t) {
          const auto v = whole_number(t);
          if (!v || *v < 1 || *v > 100000) throw UsageError(fmt::format("min_trials '{}': expected 1 to 1e5", t));
          return static_cast<long long>(*v);
        });
        const bool may_refute = flag(may_refute_arg, "may_refute");
        const std::uint64_t samples = static_cast<std::uint64_t>(*samples_arg(samples_given));
        const std::uint64_t seed = seed_arg(seed_given);
        const std::optional<int> threads = threads_arg(threads_given);
        const int th = threads ? *threads : default_thread_count();
        check_memory("compare", d, n, th);
        const icl::PromptSource source =
            prompts_of("compare", layout, d, lower[0].shape, task, sigma_arg, w_cov, noise, theta0_arg);
        const icl::LossSpec loss{lower[0].sign, 1.0};
        // The "trained" gate (claim/kinds/trained.hpp trained_gate, the catalogue's): a trial counts only where each
        // side's model reached its level, stated before the runs: its loss on held_out fixed prompts (the same for
        // every trial and side, apart from the comparison's) at most the level. trained_below: None (every trial
        // counts), a number (both sides), or (lower's, higher's), None for a side without a gate.
        std::optional<double> level[2];
        if (!trained_below.is_none()) {
          auto level_of = [](const py::handle& v, const char* side) -> std::optional<double> {
            if (v.is_none()) return std::nullopt;
            if (!is_real_like(v) || !std::isfinite(v.cast<double>()) || v.cast<double>() <= 0)
              throw py::value_error(fmt::format("compare: trained_below: {}'s level must be a positive number, got {}",
                                                side, type_name(v)));
            return v.cast<double>();
          };
          if (py::isinstance<py::tuple>(trained_below) || py::isinstance<py::list>(trained_below)) {
            const py::sequence lv = py::reinterpret_borrow<py::sequence>(trained_below);
            if (lv.size() != 2)
              throw py::value_error("compare: trained_below: a level, or a pair (lower's level, higher's level)");
            level[0] = level_of(lv[0], "lower");
            level[1] = level_of(lv[1], "higher");
          } else {
            level[0] = level[1] = level_of(trained_below, "each side");
          }
        }
        const std::uint64_t held_out = static_cast<std::uint64_t>(*samples_arg(held_out_arg));
        std::vector<Estimate> diffs;
        std::optional<trained::TrainedGate> gate[2];
        trained::TestLosses held[2];
        interruptible([&] {
          for (int side = 0; side < 2; ++side) {
            if (!level[side]) continue;
            held[side].n_test = n;
            for (const NetworkModel& m : side ? higher : lower)
              held[side].per_trial.push_back(learn::mc_loss(m.net, source, loss, seed,
                                                            stable_hash("python/compare/held-out"), held_out, th));
            gate[side] = trained::trained_gate(held[side], *level[side], fmt::format("{:g}", *level[side]));
          }
          for (std::size_t k = 0; k < lower.size(); ++k)  // trial k: its own fresh test prompts, paired across the sides
            diffs.push_back(learn::mc_loss_difference(lower[k].net, higher[k].net, source, loss, seed,
                                                      stable_hash(fmt::format("python/compare/{}", k).c_str()), samples, th));
          return 0;
        });
        std::vector<Estimate> kept;
        std::string left;
        for (std::size_t k = 0; k < diffs.size(); ++k) {
          std::string why;
          for (int side = 0; side < 2; ++side)
            if (gate[side] && !gate[side]->trained[k])
              why += fmt::format("{}{} {}", why.empty() ? "" : "; ", side ? "higher" : "lower", gate[side]->why_not[k]);
          if (why.empty())
            kept.push_back(diffs[k]);
          else
            left += fmt::format("{}trial {} ({})", left.empty() ? "" : ", ", k + 1, why);
        }
        Decision dec;
        if (kept.empty()) {
          dec = Decision(Verdict::inconclusive, 0, 0,
                         fmt::format("lower's loss is below higher's: not reproduced: no trial trained on both sides "
                                     "(the levels stated before the runs); {}", left));
        } else {
          dec = judge_paired_every_trial(kept, alpha, static_cast<int>(min_trials), may_refute,
                                         "lower's loss is below higher's", "");
          if (!left.empty())
            dec.why += fmt::format("; left out, having not trained (they count neither for nor against): {}", left);
        }
        py::list per;
        for (std::size_t k = 0; k < diffs.size(); ++k)
          per.append(py::dict(py::arg("mean") = diffs[k].mean, py::arg("stderr") = diffs[k].stderr_,
                              py::arg("ci_low") = diffs[k].ci_low, py::arg("ci_high") = diffs[k].ci_high,
                              py::arg("samples") = diffs[k].samples, py::arg("sign") = paired_trial_sign(diffs[k], alpha),
                              py::arg("trained") = py::make_tuple(!gate[0] || gate[0]->trained[k],
                                                                  !gate[1] || gate[1]->trained[k])));
        py::dict res;
        res["verdict"] = to_string(dec.verdict);
        res["why"] = dec.why;
        res["trials"] = per;
        res["alpha"] = alpha;
        if (gate[0] || gate[1]) {  // each gated side's held-out losses, the numbers its gate read
          py::dict h;
          for (int side = 0; side < 2; ++side)
            if (gate[side]) {
              h[side ? "higher" : "lower"] = held[side].means();
            }
          res["held_out_loss"] = h;
        }
        return res;
      },
      py::arg("lower"), py::arg("higher"), py::kw_only(), py::arg("layout"), py::arg("d"), py::arg("n"),
      py::arg("task") = "linear", py::arg("sigma") = py::none(), py::arg("w_cov") = py::none(), py::arg("noise") = 0.0,
      py::arg("samples") = 65536, py::arg("seed") = 1, py::arg("threads") = py::none(), py::arg("alpha") = 0.01,
      py::arg("min_trials") = 2, py::arg("may_refute") = false, py::arg("theta0") = py::none(),
      py::arg("trained_below") = py::none(), py::arg("held_out") = 16384,
      "\"lower's loss is below higher's\" over trained trials, by the catalogue's paired rule\n"
      "(verdict/over_trials.hpp judge_paired_every_trial): lower[k] and higher[k] (each a list of layer dicts, as\n"
      "check(layout=...) takes, e.g. iv.train(...)['layers']) are compared on the same fresh test prompts of trial k\n"
      "(samples of them), one-sided at alpha on the per-prompt differences; confirmed only when every trial shows it\n"
      "and at least min_trials trials were given; the reverse in every trial refutes only with may_refute=True (the\n"
      "paper's budget), else inconclusive. Returns {'verdict', 'why', 'trials': [{'mean', 'stderr', 'ci_low',\n"
      "'ci_high', 'samples', 'sign'}], 'alpha'}. The prompts: the task law as in train (theta0 on the unstructured\n"
      "layout). trained_below: the \"trained\" gate, levels stated before the runs (a number for both sides, or\n"
      "(lower's, higher's), None for no gate): a trial counts only where each gated side's loss on `held_out` fixed\n"
      "prompts is at most its level; the others are named in 'why' and count neither for nor against (each trial's\n"
      "'trained': (lower, higher)); no trial left: inconclusive, not reproduced.");

  m.def(
      "exact_loss",
      [](const py::object& P_arg, const py::object& Q_arg, const py::object& n_arg, const py::object& sigma_arg,
         const py::object& task_given, const py::object& noise, const py::object& w_cov) {
        const std::string task = task_arg(task_given, "exact_loss");
        const int max_d = exact_max_d(task);
        const Eigen::MatrixXd P = matrix(P_arg, "P", true, kEvalMaxD + 1, kEvalMaxD + 1),
                              Q = matrix(Q_arg, "Q", true, kEvalMaxD + 1, kEvalMaxD + 1);
        const int d = static_cast<int>(P.rows()) - 1;
        if (d < 1 || P.cols() != d + 1 || Q.rows() != d + 1 || Q.cols() != d + 1)
          throw py::value_error("P and Q must be (d+1, d+1) with d >= 1");
        if (d > max_d)
          throw py::value_error(fmt::format("exact_loss: d = {} is beyond the exact integration (d <= {} on the linear "
                                            "task, d <= {} on the quadratic one); mc_loss estimates it",
                                            d, kExactMaxDLinear, kExactMaxDQuadratic));
        const int n = int_param(n_arg, "exact_loss", eval_param("n"));
        const auto sigma = covariance_arg(sigma_arg, d);
        const GaussianIclModel model = task_model("exact_loss", task, sigma_or_identity(sigma, d), noise, w_cov);
        py::gil_scoped_release release;
        const SingleLayerMoments mo = single_layer_moments(model, identity_features(d));
        return single_layer_loss(mo, single_layer_coefficients({LinearSelfAttention{P, Q}}, d, n), n);
      },
      py::arg("P"), py::arg("Q"), py::arg("n"), py::arg("sigma") = py::none(), py::arg("task") = "linear",
      py::arg("noise") = 0.0, py::arg("w_cov") = py::none(),
      "The exact loss E[(Z[d, n] + y_q)^2] of one masked LSA layer (full P, Q in the acds/sja convention) on the\n"
      "linear or quadratic task, x ~ N(0, sigma) (default I), w ~ N(0, I) (or, linear task, N(0, w_cov): a matrix\n"
      "or 'inverse' for sigma^-1), label noise sd `noise`.");

  m.def(
      "optimal_gamma",
      [](const py::object& sigma_arg, const py::object& n_arg, const py::object& task_given, const py::object& noise) {
        const std::string task = task_arg(task_given, "optimal_gamma");
        const Eigen::MatrixXd sigma = *covariance_arg(sigma_arg, -1);
        const int d = static_cast<int>(sigma.rows());
        if (d > exact_max_d(task))
          throw py::value_error(fmt::format("optimal_gamma: d = {} is beyond the exact integration (d <= {} on the linear "
                                            "task, d <= {} on the quadratic one)",
                                            d, kExactMaxDLinear, kExactMaxDQuadratic));
        const int n = int_param(n_arg, "optimal_gamma", eval_param("n"));
        const GaussianIclModel model = task_model("optimal_gamma", task, sigma, noise);
        py::gil_scoped_release release;
        const FeatureMoments fm = model_feature_moments(model, identity_features(model.d));
        return optimal_sparse_gamma(fm, n);
      },
      py::arg("sigma"), py::arg("n"), py::arg("task") = "linear", py::arg("noise") = 0.0,
      "The exact optimum Gamma* of a sparse layer (P = e e^T, Q = diag(Gamma, 0)); for the linear task without\n"
      "noise it is acds Theorem 1's -U diag(1/((n+1)/n lam_i + tr/n)) U^T.");

  m.def(
      "mc_loss",
      [](const py::object& weights, const py::object& n_arg, const py::object& sigma_arg, const py::object& task_given,
         const py::object& noise, const py::object& samples_given, const py::object& seed_given,
         const py::object& threads_given, const py::object& confidence_arg, const py::object& w_cov) {
        const LsaStack w = to_stack(weights);
        if (w.d > kEvalMaxD) throw py::value_error(fmt::format("mc_loss: d = {} is larger than {}", w.d, kEvalMaxD));
        const int n = int_param(n_arg, "mc_loss", eval_param("n"));
        const long long samples = *samples_arg(samples_given);
        const std::uint64_t seed = seed_arg(seed_given);
        const std::optional<int> threads = threads_arg(threads_given);
        const double confidence = real(confidence_arg, "confidence");
        if (!(confidence > 0 && confidence < 1)) throw py::value_error("confidence must be in (0, 1)");
        const auto sigma = covariance_arg(sigma_arg, w.d);
        const GaussianIclModel model =
            task_model("mc_loss", task_arg(task_given, "mc_loss"), sigma_or_identity(sigma, w.d), noise, w_cov);
        check_memory("mc_loss", w.d, n, threads ? *threads : default_thread_count());
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
      py::arg("confidence") = 0.99, py::arg("w_cov") = py::none(),
      "Monte Carlo estimate of the loss of trained weights through the forward pass (samples rounded up to 256;\n"
      "w_cov: w ~ N(0, w_cov) on the linear task, a matrix or 'inverse' for sigma^-1):\n"
      "{'mean', 'stderr', 'ci_low', 'ci_high', 'samples', 'confidence'}; same seed, same numbers for any threads.");

  m.def(
      "test_covariance",
      [](const py::object& d_arg, const py::object& kind_arg) {
        const int d = int_param(d_arg, "test_covariance", eval_param("d"));
        ParamSpec kind = eval_param("cov");
        kind.name = "kind";
        return test_covariance(d, int_param(kind_arg, "test_covariance", kind));
      },
      py::arg("d"), py::arg("kind"),
      "The project's test covariances: 0 isotropic, 1 diagonal, 2 rotated, 3 rotated with condition number 100.");

  m.def(
      "sample_prompt",
      [](const py::object& d_arg, const py::object& n_arg, const py::object& seed_given, const py::object& index_arg,
         const py::object& sigma_arg, const py::object& task_given) {
        const int d = int_param(d_arg, "sample_prompt", eval_param("d"));
        const int n = int_param(n_arg, "sample_prompt", eval_param("n"));
        const std::uint64_t seed = seed_arg(seed_given);
        const std::uint64_t index = whole(index_arg, "index", [](const std::string& t) {
          const auto v = whole_number(t);
          if (!v) throw UsageError(fmt::format("index '{}': expected a whole number in [0, 2^64)", printable_line(t, 60)));
          return *v;
        });
        const auto sigma = covariance_arg(sigma_arg, d);
        const GaussianIclModel model =
            task_model("sample_prompt", task_arg(task_given, "sample_prompt"), sigma_or_identity(sigma, d), py::float_(0.0));
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
