#include "icl/model/attention_weights.hpp"

#include "icl/io/safetensors.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace icl {

int LsaStack::num_heads() const {
  std::size_t h = 0;
  for (const auto& l : layers) h = std::max(h, l.size());
  return static_cast<int>(h);
}

Transformer LsaStack::transformer() const {
  Transformer t;
  for (const auto& l : layers) {
    if (l.size() == 1)
      t.layers.emplace_back(l[0]);
    else
      t.layers.emplace_back(LinearAttentionHeads{l});
  }
  return t;
}

namespace {

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw ArrayFileError(fmt::format("{}: {}", name, what));
}

// The first non-finite entry, as "nan at [i, j, ...]".
void check_finite(const NpyArray& a, const std::string& name, const std::string& what) {
  for (std::size_t i = 0; i < a.data.size(); ++i) {
    if (std::isfinite(a.data[i])) continue;
    std::vector<std::int64_t> idx(a.shape.size());
    std::size_t r = i;
    for (std::size_t k = a.shape.size(); k-- > 0;) {
      idx[k] = static_cast<std::int64_t>(r % static_cast<std::size_t>(a.shape[k]));
      r /= static_cast<std::size_t>(a.shape[k]);
    }
    fail(name, fmt::format("{} has a non-finite entry ({}) at [{}]", what, a.data[i], fmt::join(idx, ", ")));
  }
}

}  // namespace

LsaStack lsa_stack_from_allparam(const NpyArray& a, const std::string& name) {
  const auto& s = a.shape;
  if (s.size() != 5 || s[2] != 2 || s[3] != s[4] || s[0] < 1 || s[1] < 1 || s[3] < 1)
    fail(name, fmt::format("shape {} is not (L, H, 2, d, d) with L, H, d >= 1 (the acds allparam layout)", a.shape_text()));
  check_finite(a, name, "allparam");
  const int L = static_cast<int>(s[0]), H = static_cast<int>(s[1]), d = static_cast<int>(s[3]);
  LsaStack st;
  st.d = d;
  st.layout = "allparam";
  auto block = [&](int l, int h, int k) {  // W[l, h, k] as a d x d matrix (row-major in the file)
    Eigen::MatrixXd m(d, d);
    const std::size_t off = ((static_cast<std::size_t>(l) * H + h) * 2 + k) * d * d;
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j) m(i, j) = a.data[off + static_cast<std::size_t>(i) * d + j];
    return m;
  };
  for (int l = 0; l < L; ++l) {
    std::vector<LinearSelfAttention> heads;
    for (int h = 0; h < H; ++h) {
      LinearSelfAttention att;
      att.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
      att.P.topLeftCorner(d, d) = block(l, h, 0);
      att.P(d, d) = 1.0;
      att.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
      att.Q.topLeftCorner(d, d) = block(l, h, 1).transpose();  // Q_h = Qf^T (see the header)
      heads.push_back(std::move(att));
    }
    st.layers.push_back(std::move(heads));
  }
  return st;
}

LsaStack lsa_stack_from_named(const std::vector<std::pair<std::string, NpyArray>>& arrays, const std::string& name) {
  std::map<int, const NpyArray*> P, Q;
  std::vector<std::string> present;
  for (const auto& [key, arr] : arrays) present.push_back(key);
  const std::string listing = present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", "));
  for (const auto& [key, arr] : arrays) {
    const bool ok = key.size() >= 2 && (key[0] == 'P' || key[0] == 'Q') && key[1] >= '1' && key[1] <= '9' &&
                    key.size() <= 5 && std::all_of(key.begin() + 1, key.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!ok)
      fail(name, fmt::format("unexpected array '{}' (expected P1, Q1, P2, Q2, ...; present: {}); for weights under other "
                             "names, map them: names={{\"P1\": \"{}\", ...}} in Python, --name P1={} on the command line",
                             key, listing, key, key));
    (key[0] == 'P' ? P : Q)[std::stoi(key.substr(1))] = &arr;
  }
  if (P.empty() && Q.empty()) fail(name, "no arrays: expected allparam, or P1, Q1, P2, Q2, ...");
  const int L = std::max(P.empty() ? 0 : P.rbegin()->first, Q.empty() ? 0 : Q.rbegin()->first);
  for (int l = 1; l <= L; ++l)
    for (const char* which : {"P", "Q"}) {
      const auto& m = which[0] == 'P' ? P : Q;
      if (!m.count(l)) fail(name, fmt::format("missing array {}{} (present: {})", which, l, listing));
    }
  LsaStack st;
  st.layout = "named";
  int D = 0;
  for (int l = 1; l <= L; ++l) {
    LinearSelfAttention att;
    for (const char* which : {"P", "Q"}) {
      const NpyArray& a = *(which[0] == 'P' ? P : Q).at(l);
      const std::string what = fmt::format("{}{}", which, l);
      if (a.shape.size() != 2 || a.shape[0] != a.shape[1] || a.shape[0] < 2)
        fail(name, fmt::format("{} has shape {}; expected a square (d+1, d+1) matrix with d >= 1", what, a.shape_text()));
      if (D == 0) D = static_cast<int>(a.shape[0]);
      if (a.shape[0] != D)
        fail(name, fmt::format("{} has shape {}, but P1 is ({}, {}): every matrix must have the same size", what,
                               a.shape_text(), D, D));
      check_finite(a, name, what);
      Eigen::MatrixXd m(D, D);
      for (int i = 0; i < D; ++i)
        for (int j = 0; j < D; ++j) m(i, j) = a.data[static_cast<std::size_t>(i) * D + j];
      (which[0] == 'P' ? att.P : att.Q) = std::move(m);
    }
    st.layers.push_back({std::move(att)});
  }
  st.d = D - 1;
  return st;
}

namespace {

// A canonical name of the key mapping: allparam, or P<l> / Q<l> with l >= 1 (no leading zero).
bool canonical_name(const std::string& k) {
  if (k == "allparam") return true;
  return k.size() >= 2 && k.size() <= 5 && (k[0] == 'P' || k[0] == 'Q') && k[1] >= '1' && k[1] <= '9' &&
         std::all_of(k.begin() + 1, k.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

LsaStack lsa_stack_from_arrays(const std::vector<std::pair<std::string, NpyArray>>& arrays, const std::string& name,
                               const NameMap& names) {
  if (!names.empty()) {
    std::vector<std::string> present;
    for (const auto& [key, arr] : arrays) present.push_back(key);
    const std::string listing = present.empty() ? "none" : fmt::format("{}", fmt::join(present, ", "));
    std::vector<std::pair<std::string, NpyArray>> renamed;
    std::map<std::string, std::string> used;  // the array's own name -> its canonical one
    for (const auto& [canonical, own] : names) {
      if (!canonical_name(canonical))
        fail(name, fmt::format("names: '{}' is not a name of the weights' layout (allparam, or P1, Q1, P2, Q2, ...)",
                               canonical));
      for (const auto& [c, o] : renamed)
        if (c == canonical) fail(name, fmt::format("names: '{}' is given twice", canonical));
      if (auto it = used.find(own); it != used.end())
        fail(name, fmt::format("names: the array '{}' is named both {} and {}", own, it->second, canonical));
      const auto found =
          std::find_if(arrays.begin(), arrays.end(), [&](const auto& kv) { return kv.first == own; });
      if (found == arrays.end())
        fail(name, fmt::format("names: no array '{}' (for {}); present: {}", own, canonical, listing));
      used[own] = canonical;
      renamed.emplace_back(canonical, found->second);
    }
    LsaStack st = lsa_stack_from_arrays(renamed, name);
    st.names = names;
    for (const auto& key : present)
      if (!used.count(key)) st.unused.push_back(key);
    return st;
  }
  const auto is_allparam = [](const std::string& k) {
    static const std::string a = "allparam", dotted = ".allparam";
    return k == a || (k.size() > dotted.size() && k.compare(k.size() - dotted.size(), dotted.size(), dotted) == 0);
  };
  const auto found = std::find_if(arrays.begin(), arrays.end(), [&](const auto& kv) { return is_allparam(kv.first); });
  if (found == arrays.end()) return lsa_stack_from_named(arrays, name);
  for (const auto& [key, arr] : arrays)
    if (&key != &found->first)
      fail(name, fmt::format("unexpected array '{}' beside '{}' (the allparam layout is that one array alone)", key,
                             found->first));
  LsaStack st = lsa_stack_from_allparam(found->second, fmt::format("{}: {}", name, found->first));
  return st;
}

LsaStack read_lsa_stack(const std::string& path, const NameMap& names) {
  auto ends_with = [&](const char* ext) {
    const std::string e = ext;
    if (path.size() < e.size()) return false;
    std::string tail = path.substr(path.size() - e.size());
    std::transform(tail.begin(), tail.end(), tail.begin(), [](unsigned char c) { return std::tolower(c); });
    return tail == e;
  };
  if (ends_with(".npy")) {
    if (!names.empty())
      throw ArrayFileError(fmt::format("{}: a .npy file holds one array (allparam): names apply to the arrays of a "
                                       ".npz or .safetensors file or a state dict",
                                       path));
    return lsa_stack_from_allparam(read_npy(path), path);
  }
  if (ends_with(".npz")) return lsa_stack_from_arrays(read_npz(path), path, names);
  if (ends_with(".safetensors")) return lsa_stack_from_arrays(read_safetensors(path).tensors, path, names);
  const bool torch = ends_with(".pt") || ends_with(".pth") || ends_with(".bin") || ends_with(".ckpt");
  throw ArrayFileError(fmt::format(
      "{}: expected a .npy (allparam, shape (L, H, 2, d, d)), .npz or .safetensors (allparam, or P1, Q1, ...) file{}", path,
      torch ? " (a PyTorch pickle is not read: save the state_dict with safetensors.torch.save_file, or pass it to "
              "icl_verify.eval_weights in Python)"
            : ""));
}

}  // namespace icl
