#include "icl/verdict/mutation.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <utility>

namespace icl {

namespace {

std::map<std::string, MutationSiteInfo>& registry() {
  static std::map<std::string, MutationSiteInfo> r;
  return r;
}

struct Selected {
  std::string site;
  MutationKind kind = MutationKind::none;
  std::string error;  // non-empty when ICL_MUTANT is malformed
};

const Selected& selected() {
  static const Selected s = [] {
    Selected out;
    const char* env = std::getenv("ICL_MUTANT");
    if (env == nullptr || *env == '\0') return out;
    const std::string v(env);
    const auto colon = v.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      out.error = "ICL_MUTANT must be <site>:<kind> (kind: scale, sign or transpose), got '" + v + "'";
      return out;
    }
    out.site = v.substr(0, colon);
    const std::string k = v.substr(colon + 1);
    if (k == "scale") out.kind = MutationKind::scale;
    else if (k == "sign") out.kind = MutationKind::sign;
    else if (k == "transpose") out.kind = MutationKind::transpose;
    else out.error = "ICL_MUTANT kind must be scale, sign or transpose, got '" + k + "'";
    return out;
  }();
  return s;
}

}  // namespace

MutationSite::MutationSite(std::string id, std::string claims, std::string note, bool matrix) : id_(std::move(id)) {
  auto& r = registry();
  auto it = r.find(id_);
  if (it == r.end()) {
    r.emplace(id_, MutationSiteInfo{id_, std::move(claims), matrix, std::move(note)});
  } else {
    it->second.matrix = it->second.matrix || matrix;
  }
}

MutationKind MutationSite::kind() const {
  const Selected& s = selected();
  if (s.kind == MutationKind::none || s.site != id_) return MutationKind::none;
  return s.kind;
}

double MutationSite::operator()(double v) const {
  switch (kind()) {
    case MutationKind::scale: return 1.02 * v;
    case MutationKind::sign: return -v;
    default: return v;
  }
}

Eigen::MatrixXd MutationSite::operator()(const Eigen::MatrixXd& m) const {
  switch (kind()) {
    case MutationKind::scale: return 1.02 * m;
    case MutationKind::sign: return -m;
    case MutationKind::transpose: return m.transpose();
    default: return m;
  }
}

Eigen::VectorXd MutationSite::operator()(const Eigen::VectorXd& v) const {
  switch (kind()) {
    case MutationKind::scale: return 1.02 * v;
    case MutationKind::sign: return -v;
    default: return v;
  }
}

std::vector<MutationSiteInfo> mutation_sites() {
  std::vector<MutationSiteInfo> out;
  for (const auto& [id, info] : registry()) out.push_back(info);
  return out;
}

std::string active_mutant() {
  const Selected& s = selected();
  if (!s.error.empty()) throw std::invalid_argument(s.error);
  if (s.kind == MutationKind::none) return "";
  if (registry().count(s.site) == 0) throw std::invalid_argument("ICL_MUTANT names no mutation site: '" + s.site + "'");
  const char* names[] = {"none", "scale", "sign", "transpose"};
  return s.site + ":" + names[static_cast<int>(s.kind)];
}

}  // namespace icl
