// The papers whose claims the project checks (report/paper.hpp): a claim's paper is the one of its ID's prefix.
// Authors, titles and venues as docs/claims.md ("The papers") gives them; those of acds and zfb as the reference
// lists of the sja and xlssc papers cite them. sja's year and arXiv number, and xlssc's, are those of their arXiv
// preprints.
//
// Registered in this one file, in the order `icl-verify list`, summary.md and icl-verify.bib give them (static
// initialisers of one translation unit run in order); each paper's claim_order is the order of its claims in `list`
// and docs/claims.md.
#include "icl/report/paper.hpp"

namespace icl {
namespace {
namespace papers {  // named, so that a unity build (several claim files in one unit) keeps them apart

const RegisterPaper kSja{PaperRef{
    "sja", "sun2025role", "Haoyuan Sun, Ali Jadbabaie and Navid Azizan", "Sun, Jadbabaie and Azizan",
    "On the Role of Transformer Feed-Forward Layers in Nonlinear In-Context Learning", 2025,
    "arXiv:2501.18187",
    "@article{sun2025role,\n  author  = {Sun, Haoyuan and Jadbabaie, Ali and Azizan, Navid},\n"
    "  title   = {On the Role of Transformer Feed-Forward Layers in Nonlinear In-Context Learning},\n"
    "  journal = {arXiv preprint arXiv:2501.18187},\n  year    = {2025}\n}\n",
    {"sja.prop1", "sja.thm2", "sja.fig3", "sja.lemma3", "sja.lemma12", "sja.prop4", "sja.remark1", "sja.thm5",
     "sja.cor6", "sja.thm7", "sja.cor8", "sja.cor9", "sja.cor10", "sja.sec42", "sja.fig1", "sja.fig2", "sja.fig4"}}};

const RegisterPaper kAcds{PaperRef{
    "acds", "ahn2023transformers", "Kwangjun Ahn, Xiang Cheng, Hadi Daneshmand and Suvrit Sra",
    "Ahn, Cheng, Daneshmand and Sra",
    "Transformers learn to implement preconditioned gradient descent for in-context learning", 2023,
    "Advances in Neural Information Processing Systems 36",
    "@inproceedings{ahn2023transformers,\n  author    = {Ahn, Kwangjun and Cheng, Xiang and Daneshmand, Hadi and "
    "Sra, Suvrit},\n  title     = {Transformers learn to implement preconditioned gradient descent for "
    "in-context learning},\n  booktitle = {Advances in Neural Information Processing Systems},\n"
    "  volume    = {36},\n  year      = {2023}\n}\n",
    {"acds.thm1", "acds.lemma1", "acds.thm2", "acds.thm3", "acds.thm4", "acds.exp43", "acds.exp51", "acds.figs67"}}};

const RegisterPaper kZfb{PaperRef{
    "zfb", "zhang2024trained", "Ruiqi Zhang, Spencer Frei and Peter L. Bartlett", "Zhang, Frei and Bartlett",
    "Trained Transformers Learn Linear Models In-Context", 2024, "Journal of Machine Learning Research 25(49)",
    "@article{zhang2024trained,\n  author  = {Zhang, Ruiqi and Frei, Spencer and Bartlett, Peter L.},\n"
    "  title   = {Trained Transformers Learn Linear Models In-Context},\n"
    "  journal = {Journal of Machine Learning Research},\n  volume  = {25},\n  number  = {49},\n"
    "  pages   = {1--55},\n  year    = {2024}\n}\n",
    {"zfb.thm4", "zfb.thm5", "zfb.thm8", "zfb.shift"}}};

const RegisterPaper kXlssc{PaperRef{
    "xlssc", "xing2024benefits", "Yue Xing, Xiaofeng Lin, Namjoon Suh, Qifan Song and Guang Cheng",
    "Xing, Lin, Suh, Song and Cheng",
    "Benefits of Transformer: In-Context Learning in Linear Regression Tasks with Unstructured Data", 2024,
    "arXiv:2402.00743",
    "@article{xing2024benefits,\n  author  = {Xing, Yue and Lin, Xiaofeng and Suh, Namjoon and Song, Qifan and "
    "Cheng, Guang},\n  title   = {Benefits of Transformer: In-Context Learning in Linear Regression Tasks "
    "with Unstructured Data},\n  journal = {arXiv preprint arXiv:2402.00743},\n  year    = {2024}\n}\n",
    {"xlssc.onelayer", "xlssc.twolayer", "xlssc.fig2"}}};

}  // namespace papers
}  // namespace
}  // namespace icl
