#include "icl/exact/wishart_chain.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>

namespace icl {

using Eigen::MatrixXd;

// ---------------------------------------------------------------------------------------------------------
// Matchings of the 2m slots: per matching, its m letters in cycle order (factor << 1 | walked backwards),
// the cycle ends (bit j: a cycle closes after entry j), and n's power c - m.
namespace {

struct MatchingTable {
  int m = 0;
  std::size_t count = 0;
  std::vector<std::uint8_t> seq;
  std::vector<std::uint16_t> ends;
  std::vector<std::int8_t> power;
};

void build_table(MatchingTable& t, int m) {
  t.m = m;
  const int slots = 2 * m;
  std::vector<int> partner(slots, -1);
  auto position = [m](int slot) { return slot % 2 == 0 ? slot / 2 : (slot / 2 + 1) % m; };
  std::vector<int> parent(m);
  std::function<int(int)> find = [&](int a) { return parent[a] == a ? a : parent[a] = find(parent[a]); };
  std::vector<bool> visited(m);
  auto emit = [&] {
    for (int k = 0; k < m; ++k) parent[k] = k;
    int c = m;
    for (int s = 0; s < slots; ++s)
      if (partner[s] > s) {
        const int a = find(position(s)), b = find(position(partner[s]));
        if (a != b) {
          parent[a] = b;
          --c;
        }
      }
    std::fill(visited.begin(), visited.end(), false);
    std::uint16_t ends = 0;
    int j = 0;
    for (int k = 0; k < m; ++k) {
      if (visited[k]) continue;
      const int start = 2 * k;
      int slot = start;
      for (;;) {
        const int f = slot / 2;
        const bool backward = slot % 2 == 1;
        t.seq.push_back(static_cast<std::uint8_t>(f << 1 | (backward ? 1 : 0)));
        visited[f] = true;
        const int at = backward ? 2 * f : 2 * f + 1;
        ++j;
        slot = partner[at];
        if (slot == start) break;
      }
      ends |= static_cast<std::uint16_t>(1u << (j - 1));
    }
    t.ends.push_back(ends);
    t.power.push_back(static_cast<std::int8_t>(c - m));
    ++t.count;
  };
  std::function<void()> rec = [&] {
    int first = -1;
    for (int s = 0; s < slots; ++s)
      if (partner[s] < 0) {
        first = s;
        break;
      }
    if (first < 0) {
      emit();
      return;
    }
    for (int s = first + 1; s < slots; ++s)
      if (partner[s] < 0) {
        partner[first] = s;
        partner[s] = first;
        rec();
        partner[first] = partner[s] = -1;
      }
  };
  rec();
}

const MatchingTable& table(int m) {
  static std::array<MatchingTable, TraceExpectation::kMaxDegree + 1> tables;
  static std::array<std::once_flag, TraceExpectation::kMaxDegree + 1> once;
  if (m < 1 || m > TraceExpectation::kMaxDegree)
    throw std::invalid_argument(fmt::format("wishart_trace: {} factors of S (at most {})", m, TraceExpectation::kMaxDegree));
  std::call_once(once[m], [m] { build_table(tables[m], m); });
  return tables[m];
}

std::uint64_t double_factorial_odd(int m) {  // (2m - 1)!!
  std::uint64_t r = 1;
  for (int k = 2 * m - 1; k > 1; k -= 2) r *= static_cast<std::uint64_t>(k);
  return r;
}

MatrixXd sym_sqrt(const MatrixXd& sigma) {
  Eigen::SelfAdjointEigenSolver<MatrixXd> es(0.5 * (sigma + sigma.transpose()));
  if (es.eigenvalues().minCoeff() < 0) throw std::invalid_argument("wishart_trace: Sigma is not positive semi-definite");
  return es.eigenvectors() * es.eigenvalues().cwiseSqrt().asDiagonal() * es.eigenvectors().transpose();
}

// The core: letters already conjugated (L~), their transposes; adds weight * d/dL~_k into adj (if given).
double chain_core(const std::vector<MatrixXd>& Lt, double n, std::vector<MatrixXd>* adj, double weight) {
  const int m = static_cast<int>(Lt.size());
  const MatchingTable& t = table(m);
  const Eigen::Index d = Lt[0].rows();
  std::vector<MatrixXd> LT(m);
  for (int k = 0; k < m; ++k) LT[k] = Lt[k].transpose();
  std::vector<double> npow(2 * m + 1);
  for (int p = -m; p <= m; ++p) npow[p + m] = std::pow(n, p);
  auto letter = [&](std::uint8_t e) -> const MatrixXd& { return (e & 1) ? LT[e >> 1] : Lt[e >> 1]; };
  // Scratch: prefix products of the current cycle (prefix[j] = M_1 .. M_{j+1}), suffixes, cycle traces.
  std::vector<MatrixXd> prefix(m, MatrixXd(d, d)), suffix(m, MatrixXd(d, d));
  MatrixXd R(d, d);
  std::vector<double> traces(m), left(m + 1), right(m + 1);
  std::vector<int> cstart(m), cend(m);
  double total = 0;
  for (std::size_t p = 0; p < t.count; ++p) {
    const std::uint8_t* s = &t.seq[p * m];
    const std::uint16_t ends = t.ends[p];
    const double w = npow[t.power[p] + m];
    // Cycles: [cstart, cend] index ranges into s.
    int nc = 0, j0 = 0;
    for (int j = 0; j < m; ++j)
      if (ends >> j & 1) {
        cstart[nc] = j0;
        cend[nc] = j;
        ++nc;
        j0 = j + 1;
      }
    double prod = 1;
    for (int c = 0; c < nc; ++c) {
      const int a = cstart[c], b = cend[c];
      double tr;
      if (a == b) {
        tr = letter(s[a]).trace();
        if (adj) prefix[a] = letter(s[a]);  // unused; keeps indices aligned
      } else {
        prefix[a] = letter(s[a]);
        for (int j = a + 1; j < b; ++j) prefix[j].noalias() = prefix[j - 1] * letter(s[j]);
        // tr(prefix[b-1] * M_b) without forming the product
        tr = prefix[b - 1].cwiseProduct(letter(s[b]).transpose()).sum();
      }
      traces[c] = tr;
      prod *= tr;
    }
    total += w * prod;
    if (!adj) continue;
    // Products of the other cycles' traces (no division: prefix/suffix products over cycles).
    left[0] = 1;
    for (int c = 0; c < nc; ++c) left[c + 1] = left[c] * traces[c];
    right[nc] = 1;
    for (int c = nc; c-- > 0;) right[c] = right[c + 1] * traces[c];
    for (int c = 0; c < nc; ++c) {
      const double others = weight * w * left[c] * right[c + 1];
      if (others == 0) continue;
      const int a = cstart[c], b = cend[c];
      auto add = [&](int j, const MatrixXd& rest) {  // rest = M_{j+1} .. M_b M_a .. M_{j-1}
        const std::uint8_t e = s[j];
        if (e & 1)
          (*adj)[e >> 1] += others * rest;
        else
          (*adj)[e >> 1] += others * rest.transpose();
      };
      if (a == b) {
        add(a, MatrixXd::Identity(d, d));
        continue;
      }
      suffix[b] = letter(s[b]);
      for (int j = b - 1; j > a; --j) suffix[j].noalias() = letter(s[j]) * suffix[j + 1];
      add(a, suffix[a + 1]);
      add(b, prefix[b - 1]);
      for (int j = a + 1; j < b; ++j) {
        R.noalias() = suffix[j + 1] * prefix[j - 1];
        add(j, R);
      }
    }
  }
  return total;
}

}  // namespace

double wishart_trace(const std::vector<MatrixXd>& letters, const MatrixXd& sigma, double n, std::vector<MatrixXd>* adjoint,
                     double weight) {
  if (letters.empty()) throw std::invalid_argument("wishart_trace: no letters");
  const MatrixXd h = sym_sqrt(sigma);
  std::vector<MatrixXd> Lt;
  for (const auto& L : letters) Lt.push_back(h * L * h);
  if (!adjoint) return chain_core(Lt, n, nullptr, weight);
  std::vector<MatrixXd> a(letters.size(), MatrixXd::Zero(sigma.rows(), sigma.rows()));
  const double v = chain_core(Lt, n, &a, weight);
  if (adjoint->size() != letters.size()) adjoint->assign(letters.size(), MatrixXd::Zero(sigma.rows(), sigma.rows()));
  for (std::size_t k = 0; k < letters.size(); ++k) (*adjoint)[k] += h * a[k] * h;
  return v;
}

// ---------------------------------------------------------------------------------------------------------
NcPoly NcPoly::identity() { return NcPoly{{NcTerm{1.0, {}}}}; }
NcPoly NcPoly::S() { return NcPoly{{NcTerm{1.0, {NcToken{-1, false}}}}}; }
NcPoly NcPoly::base(int id, bool transposed) { return NcPoly{{NcTerm{1.0, {NcToken{id, transposed}}}}}; }

NcPoly NcPoly::transpose() const {
  NcPoly r;
  for (const auto& t : terms) {
    NcTerm u{t.coef, {}};
    for (auto it = t.tokens.rbegin(); it != t.tokens.rend(); ++it)
      u.tokens.push_back(NcToken{it->id, it->id >= 0 ? !it->transposed : false});
    r.terms.push_back(std::move(u));
  }
  return r;
}

NcPoly NcPoly::operator*(const NcPoly& o) const {
  NcPoly r;
  for (const auto& a : terms)
    for (const auto& b : o.terms) {
      NcTerm t{a.coef * b.coef, a.tokens};
      t.tokens.insert(t.tokens.end(), b.tokens.begin(), b.tokens.end());
      r.terms.push_back(std::move(t));
    }
  return r;
}

NcPoly NcPoly::operator+(const NcPoly& o) const {
  NcPoly r = *this;
  r.terms.insert(r.terms.end(), o.terms.begin(), o.terms.end());
  return r;
}

NcPoly NcPoly::operator-(const NcPoly& o) const { return *this + o * -1.0; }

NcPoly NcPoly::operator*(double c) const {
  NcPoly r = *this;
  for (auto& t : r.terms) t.coef *= c;
  return r;
}

int NcPoly::max_degree() const {
  int m = 0;
  for (const auto& t : terms)
    m = std::max(m, static_cast<int>(std::count_if(t.tokens.begin(), t.tokens.end(), [](const NcToken& k) { return k.id < 0; })));
  return m;
}

TraceExpectation::TraceExpectation(const NcPoly& p, int num_base) : num_base_(num_base) {
  std::map<std::pair<int, std::vector<std::vector<NcToken>>>, double> merged;
  for (const auto& t : p.terms) {
    if (t.coef == 0) continue;
    for (const auto& k : t.tokens)
      if (k.id >= num_base) throw std::invalid_argument("TraceExpectation: token refers to a missing base matrix");
    const int m = static_cast<int>(std::count_if(t.tokens.begin(), t.tokens.end(), [](const NcToken& k) { return k.id < 0; }));
    if (m > kMaxDegree)
      throw std::invalid_argument(fmt::format("TraceExpectation: a term has {} factors of S; at most {} are feasible "
                                              "((2m-1)!! matchings)", m, kMaxDegree));
    std::vector<std::vector<NcToken>> letters;
    if (m == 0) {
      letters.push_back(t.tokens);
    } else {
      const auto first = std::find_if(t.tokens.begin(), t.tokens.end(), [](const NcToken& k) { return k.id < 0; });
      std::vector<NcToken> rot(first, t.tokens.end());
      rot.insert(rot.end(), t.tokens.begin(), first);
      for (const auto& k : rot) {
        if (k.id < 0)
          letters.emplace_back();
        else
          letters.back().push_back(k);
      }
      // Canonical form (the trace is cyclic and tr(W) = tr(W^T)), so equal terms merge: the smallest rotation
      // of the letters or of the transposed word's letters (reversed order, each letter reversed and flipped).
      auto best = letters;
      std::vector<std::vector<NcToken>> tr(letters.rbegin(), letters.rend());
      for (auto& w : tr) {
        std::reverse(w.begin(), w.end());
        for (auto& k : w) k.transposed = !k.transposed;
      }
      for (auto* v : {&letters, &tr})
        for (int r = 0; r < m; ++r) {
          if (*v < best) best = *v;
          std::rotate(v->begin(), v->begin() + 1, v->end());
        }
      letters = best;
    }
    merged[{m, letters}] += t.coef;
  }
  for (auto& [key, coef] : merged) {
    if (coef == 0) continue;
    terms_.push_back(Term{coef, key.first, key.second});
    max_degree_ = std::max(max_degree_, key.first);
  }
}

std::uint64_t TraceExpectation::matchings() const {
  std::uint64_t s = 0;
  for (const auto& t : terms_) s += t.m ? double_factorial_odd(t.m) : 1;
  return s;
}

double TraceExpectation::value(const std::vector<MatrixXd>& base, const MatrixXd& sigma, double n) const {
  return evaluate(base, sigma, n, nullptr);
}

double TraceExpectation::value_and_gradient(const std::vector<MatrixXd>& base, const MatrixXd& sigma, double n,
                                            std::vector<MatrixXd>& grad) const {
  return evaluate(base, sigma, n, &grad);
}

double TraceExpectation::evaluate(const std::vector<MatrixXd>& base, const MatrixXd& sigma, double n,
                                  std::vector<MatrixXd>* grad) const {
  if (static_cast<int>(base.size()) != num_base_) throw std::invalid_argument("TraceExpectation: wrong number of base matrices");
  const Eigen::Index d = sigma.rows();
  for (const auto& b : base)
    if (b.rows() != d || b.cols() != d) throw std::invalid_argument("TraceExpectation: base matrices must be d x d");
  const MatrixXd h = sym_sqrt(sigma);
  if (grad) grad->assign(num_base_, MatrixXd::Zero(d, d));
  auto token = [&](const NcToken& k) -> MatrixXd { return k.transposed ? MatrixXd(base[k.id].transpose()) : base[k.id]; };
  auto product = [&](const std::vector<NcToken>& w) {
    MatrixXd r = MatrixXd::Identity(d, d);
    for (const auto& k : w) r = r * token(k);
    return r;
  };
  // Adds d/d(letter) = adjL into the base gradients through the token product.
  auto backprop_letter = [&](const std::vector<NcToken>& w, const MatrixXd& adjL) {
    const std::size_t q = w.size();
    std::vector<MatrixXd> pre(q + 1, MatrixXd::Identity(d, d)), suf(q + 1, MatrixXd::Identity(d, d));
    for (std::size_t j = 0; j < q; ++j) pre[j + 1] = pre[j] * token(w[j]);
    for (std::size_t j = q; j-- > 0;) suf[j] = token(w[j]) * suf[j + 1];
    for (std::size_t j = 0; j < q; ++j) {
      const MatrixXd g = pre[j].transpose() * adjL * suf[j + 1].transpose();
      if (w[j].transposed)
        (*grad)[w[j].id] += g.transpose();
      else
        (*grad)[w[j].id] += g;
    }
  };
  double total = 0;
  for (const auto& t : terms_) {
    if (t.m == 0) {
      total += t.coef * product(t.letters[0]).trace();
      if (grad) backprop_letter(t.letters[0], t.coef * MatrixXd::Identity(d, d));
      continue;
    }
    std::vector<MatrixXd> Lt;
    for (const auto& w : t.letters) Lt.push_back(h * product(w) * h);
    if (!grad) {
      total += t.coef * chain_core(Lt, n, nullptr, 1.0);
      continue;
    }
    std::vector<MatrixXd> adj(t.m, MatrixXd::Zero(d, d));
    total += t.coef * chain_core(Lt, n, &adj, t.coef);
    for (int k = 0; k < t.m; ++k) backprop_letter(t.letters[k], h * adj[k] * h);
  }
  return total;
}

}  // namespace icl
