// The learning API in one place (include this, or the headers it names).
//
// 1. Define a model: which weights exist and which of them train.
//      icl::Parameterisation p = learn::full_lsa(rows, L, masked);   // forms.hpp: full_lsa,
//        softmax_stack(d, L, act, causal). The papers' own forms are constructions (icl_claims):
//        constructions/acds_forms.hpp acds_form8(d, L, symmetric), acds_form11, acds_family(d, L, M, with_B)
//        (A_i = a_i M, B_i = b_i I); constructions/sja_forms.hpp sja_bilinear(d, dbar, L, BilinearForm::dense | sparse).
//    Or by hand (model/parameters.hpp): a Network (layers/network.hpp: add_lsa(masked, scale) / add_bilinear() /
//    add_softmax(act, causal)) holds the frozen values; each ParamGroup (full, symmetric, masked, span) is
//    written into one or more Targets {layer, parameter name ("P"/"Q", "W0"/"W1", "V"/"K"), row, col, coef}; several targets
//    tie layers; entries no group writes stay frozen. theta is the concatenation of the groups' scalars;
//    p.group_matrix("A_1", theta) reads a matrix back, p.theta_from(net) fits theta to given weights,
//    normal_theta(p, sd, seed, purpose) draws an initialisation.
// 2. A task / prompt distribution (model/prompt_source.hpp): gaussian_prompts(GaussianIclModel, sja_shape | acds_shape |
//    zfb_shape) (the Monte Carlo engine's prompts for the same seed/purpose/index), unstructured_prompts(d, D)
//    (xlssc). A PromptSource is a factory of stateless drawers, so anything deterministic in (seed,
//    purpose, index) can be added. The loss (model/loss.hpp): LossSpec::acds() / sja() / zfb().
// 3. Train (trainer.hpp): TrainConfig {optimizer "adam" | "sgd" | "lbfgs", learning_rate, batch, steps,
//    resample_every (acds: 100), clip (per group; acds: 0.01), lr_decay(_every), test_batch, seed,
//    purpose, threads, observe_names/observe (extra curve columns, e.g. Dist(Sigma^1/2 A_i Sigma^1/2, I))};
//    TrainResult r = train(p, theta0, source, loss, config). Check r.ok(): a diverged run has status
//    `diverged`, r.reason and the last finite weights; report that case as inconclusive with the reason.
//    r.curve holds step, train/test loss, gradient norm and the observed columns.
// 4. Report: res.extra["training"] = training_json(config, seeds, paper_settings, "<claim>.training.svg");
//    res.files["training.svg"] = training_svg(title, {{"run 1", &r}, ...}); per case,
//    CaseJson::field("training_run", curve_json(r)). constructions/acds_appA.cpp is the worked example.
// 5. Exact population losses and gradients:
//    - single layer: exact/sparse_attention.hpp sparse_lsa_loss / sparse_lsa_gradient (Gamma), and
//      exact/optimal_attention.hpp single_layer_loss / single_layer_gradient (last row b of P, block A of Q);
//    - acds forms (8) and (11), any Sigma, Sigma_w, n: exact/acds_population.hpp AcdsPopulation(sigma,
//      sigma_w, n, L, form11).loss(A, B) / loss_and_gradient(A, B, gA, gB) (form (8) up to L = 4, form
//      (11) up to L = 2); at a form's theta: acds_exact_loss(pop, p, theta, &grad) (constructions/acds_forms.hpp), which
//      works for full, symmetric and family (span) groups; minimise it exactly with optimizers.hpp
//      minimize_lbfgs(objective, theta0) (stationarity checks of acds Theorems 2-4);
//    - unmasked LSA (zfb): exact/lsa_population_loss.hpp (PopulationLoss, LsaWeights).
//    - the trainer's minibatch gradient's expectation: objective.hpp mc_gradient(p, theta, source, loss, seed,
//      purpose, samples, threads) (mean and standard error per component), mc_loss for a network's loss.
#pragma once
#include "icl/learn/forms.hpp"
#include "icl/layers/backprop.hpp"
#include "icl/model/loss.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/model/parameters.hpp"
#include "icl/model/prompt_source.hpp"
#include "icl/learn/trainer.hpp"
