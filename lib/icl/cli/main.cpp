// icl-verify: command line (docs/reports.md). Exit status: 0 run completed, 1 --expect did not hold,
// 2 bad usage or bad input (one line on stderr, nothing written), 3 internal failure (or a report file that could not
// be written), 4 stopped on request with --checkpoint (SIGTERM, Ctrl-C, SIGUSR1), the state saved, 130 stopped by
// Ctrl-C without --checkpoint (one line on stderr; no report file of the run written).
#include "icl/cli/engine.hpp"
#include "icl/learn/checkpoint.hpp"
#include "icl/cli/eval.hpp"
#include "icl/cli/output_folder.hpp"
#include "icl/cli/ranks_mpi.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/execute/ranks.hpp"
#include "icl/execute/thread_pool.hpp"
#include "icl/report/provenance.hpp"
#include "icl/verdict/mutation.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// Every error is one line on stderr, whatever the input held (newlines, bytes that are not UTF-8, 1 MB values).
int fail(int status, const std::string& message) {
  std::fprintf(stderr, "icl-verify: %s\n", icl::printable_line(message).c_str());
  return status;
}

// Ctrl-C (SIGINT) without --checkpoint: one line on stderr at once (over the progress line, where one is drawn), and
// the run stops at its next task (execute::request_cancel: every parallel loop of the library stops taking tasks);
// nothing of it is written (a run's files are moved in together at its end, and not once a stop is requested), and
// the command exits 130. A second Ctrl-C ends the process at once. The messages are made before the handler is
// installed: it only writes them (async-signal-safe).
char g_interrupt_line[160], g_late_line[200];
std::size_t g_interrupt_size = 0, g_late_size = 0;

extern "C" void on_interrupt(int) {
  if (icl::execute::cancel_flag().exchange(true)) _exit(130);
  if (icl::commit_started().load()) {
    if (::write(2, g_late_line, g_late_size) < 0) {}
  } else if (::write(2, g_interrupt_line, g_interrupt_size) < 0) {
  }
}

void install_interrupt_handler() {
  struct sigaction old {};
  if (::sigaction(SIGINT, nullptr, &old) != 0 || old.sa_handler == SIG_IGN) return;  // started with Ctrl-C ignored
  if (icl::rank_comm().size > 1) return;  // under mpirun, which ends the job on Ctrl-C itself
  const char* clear = ::isatty(2) == 1 ? "\r\033[K" : "";
  g_interrupt_size = static_cast<std::size_t>(std::snprintf(
      g_interrupt_line, sizeof g_interrupt_line,
      "%sicl-verify: stopped by Ctrl-C (SIGINT); no report file of this run was written\n", clear));
  g_late_size = static_cast<std::size_t>(std::snprintf(
      g_late_line, sizeof g_late_line,
      "%sicl-verify: stopped by Ctrl-C (SIGINT) after this run's report files were moved in (they are all there)\n",
      clear));
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  // (cuda is listed where built; it is refused as bad input where no GPU is present)
  std::string backend_help = "Where the arithmetic runs (built here:";
  for (const auto& b : icl::execute::built_backends()) backend_help += " " + b;
  backend_help += ")";
  const char* const kPrecisionHelp =
      "float64, or float32 on the portable and cuda backends (the network's arithmetic in float: docs/engine.md)";
  icl::start_ranks(&argc, &argv);  // MPI, where built with it and started by mpirun (ranks_mpi.cpp)
  CLI::App app{"icl-verify: checks the theorems of in-context-learning theory"};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Help for every subcommand");
  app.set_version_flag("--version", icl::version_text(), "Version, commit, build and library versions");

  std::vector<std::string> list_ids;
  auto* list = app.add_subcommand("list", "Every claim ID with a one-line title; with claim IDs, their parameters");
  list->add_option("claims", list_ids, "Claim IDs: show each one's statement, parameters (valid --set keys) and parts");
  bool list_sites = false;
  list->add_flag("--mutation-sites", list_sites,
                 "The mutation sites (stated formulas, constants, construction weights) bench/mutate.py perturbs");

  icl::RunOptions o;
  std::string samples, seed = "1", threads, look;
  auto* run = app.add_subcommand("run", "Verify the named claims (or: all)");
  run->add_option("claims", o.claims, "Claim IDs, or 'all'")->required();
  run->add_option("--set", o.sets, "Parameter grid KEY=V1,V2,... (repeatable, one KEY each)");
  auto* samples_opt =
      run->add_option("--samples", samples, "Monte Carlo prompts per case (a budget; a whole number, also as 1e5)");
  run->add_option("--seed", seed, "Master seed in [0, 2^64): same seed, same numbers, whatever the thread count")
      ->capture_default_str();
  auto* threads_opt = run->add_option("--threads", threads, "Worker threads (default: all cores)")->type_name("INT");
  run->add_option("--backend", o.backend, backend_help)->capture_default_str();
  run->add_option("--precision", o.precision, kPrecisionHelp)->capture_default_str();
  run->add_option("--out", o.out,
                  "Where reports go (default: reports/partial; reports/latest only for the full standard run, "
                  "'run all' without --quick, --set, --samples, --alpha or --seed)");
  run->add_flag("--quick", o.quick, "Small grid and budget, for CI and a first look (= --budget quick)");
  run->add_flag("--estimate", o.estimate,
                "Print the run's predicted time on this machine (each training run's step cost measured) and write "
                "nothing");
  std::string resume_dir;
  run->add_option("--checkpoint", o.checkpoint,
                  "Save training state in DIR (every --checkpoint-every seconds and on SIGTERM or SIGUSR1); the same command "
                  "with the same DIR goes on from it, bitwise");
  run->add_option("--resume", resume_dir, "Go on with the run saved in DIR (the same command, --checkpoint DIR)");
  run->add_option("--checkpoint-every", o.checkpoint_every, "Seconds between saves of a training run's state")
      ->capture_default_str();
  run->add_option("--budget", o.budget,
                  "quick, standard (default), deciding (the paper's model settings, reduced training; reports/deciding "
                  "without --out) or paper: every setting the paper states (reports/paper without --out)");
  run->add_option("--expect", o.expect, "Exit 1 unless every claim run got this verdict");
  run->add_option("--alpha", o.alpha, "Family-wise false-fail rate per claim")->capture_default_str();
  auto* look_opt = run->add_option("--look", look,
                                   "This run is look N at its claims, each look at a new --seed after earlier ones left a "
                                   "part undecided: judged alone at --alpha, the report states the rate over the N looks "
                                   "(N x alpha)")
                       ->type_name("N");

  std::string from = "reports/latest";
  auto* report = app.add_subcommand("report", "Rebuild Markdown/LaTeX from existing JSON");
  report->add_option("--from", from, "Report folder")->capture_default_str();

  icl::EvalOptions ev;
  std::string eval_samples, eval_seed = "1", eval_threads;
  std::string sigma_file;
  auto* eval = app.add_subcommand("eval", "Loss of linear-attention weights trained elsewhere (.npy allparam, .npz or .safetensors)");
  eval->add_option("--weights", ev.weights,
                   "Weight file: .npy (L, H, 2, d, d), or .npz / .safetensors holding allparam or P1, Q1, P2, Q2, ...")
      ->required();
  eval->add_option("--task", ev.task, "Task: linear or quadratic")->capture_default_str();
  eval->add_option("--set", ev.sets, "Parameters d, n, cov, noise: KEY=V1,V2,... (repeatable)");
  eval->add_option("--sigma", sigma_file, "Input covariance, a d x d .npy (instead of --set cov)");
  std::vector<std::string> eval_names;
  eval->add_option("--name", eval_names,
                   "Weights under other names: NAME=KEY reads the array KEY of the file as NAME (allparam, P1, Q1, "
                   "P2, ...), repeatable, e.g. --name P1=attn.P --name Q1=attn.Q; the arrays not named are left out "
                   "and listed in the report");
  auto* eval_samples_opt = eval->add_option("--samples", eval_samples, "Monte Carlo prompts per case");
  eval->add_option("--seed", eval_seed, "Master seed in [0, 2^64)")->capture_default_str();
  auto* eval_threads_opt =
      eval->add_option("--threads", eval_threads, "Worker threads (default: all cores)")->type_name("INT");
  eval->add_option("--backend", ev.backend, backend_help)->capture_default_str();
  eval->add_option("--precision", ev.precision, kPrecisionHelp)->capture_default_str();
  eval->add_option("--out", ev.out, "Where eval.json, eval.md and eval.tex go")->capture_default_str();
  eval->add_flag("--quick", ev.quick, "Smaller Monte Carlo budget");
  eval->add_option("--alpha", ev.alpha, "False-fail rate over the cases")->capture_default_str();
  eval->add_option("--tolerance", ev.tolerance,
                   "Excess over the single-layer optimum the verdict allows, relative to it (0.01: 1%)")
      ->capture_default_str();

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // No subcommand: name the word that was meant as one, and the nearest subcommand (did-you-mean).
    if (app.get_subcommands().empty()) {
      std::vector<std::string> names;
      for (const CLI::App* sub : {list, run, report, eval}) names.push_back(sub->get_name());
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      for (int i = 1; i < argc; ++i) {
        const std::string word = argv[i];
        if (!word.empty() && word[0] == '-') {  // the top level has flags only (--help, --help-all, --version)
          if (word == "-h" || word == "--help" || word == "--help-all" || word == "--version") continue;
          return fail(2, "unknown option '" + icl::printable_line(word, 60) + "' before the subcommand (subcommands: " +
                             known + "; options follow the subcommand; see 'icl-verify --help')");
        }
        if (std::find(names.begin(), names.end(), word) != names.end()) break;  // a subcommand: CLI11's message
        const std::string near = icl::nearest_name(word, names);
        return fail(2, "unknown subcommand '" + icl::printable_line(word, 60) + "'" +
                           (near.empty() ? "" : ": did you mean '" + near + "'?") + " (subcommands: " + known +
                           "; see 'icl-verify --help')");
      }
      return fail(2, std::string(e.what()) + " (subcommands: " + known + "; see 'icl-verify --help')");
    }
    return fail(2, e.what());
  }
  install_interrupt_handler();
  // The command's status; 130 whatever it ended with once Ctrl-C stopped it (its one line is already on stderr).
  const auto status = [](int s) { return icl::execute::cancel_requested() ? 130 : s; };
  const auto failed = [&](int s, const std::string& message) {
    return icl::execute::cancel_requested() ? 130 : fail(s, message);
  };
  try {
    if (*list && list_sites) return icl::list_mutation_sites();
    if (*list) return icl::list_command(list_ids);
    std::string mutant;
    try {
      mutant = icl::active_mutant();
    } catch (const std::invalid_argument& e) {
      throw icl::UsageError(e.what());
    }
    if (!mutant.empty())
      std::fprintf(stderr, "icl-verify: MUTANT RUN (ICL_MUTANT=%s): the results are deliberately wrong\n", mutant.c_str());
    if (*report) return status(icl::report_command(from));
    if (*eval) {
      if (eval_samples_opt->count()) ev.samples = static_cast<long long>(icl::parse_samples(eval_samples));
      ev.seed = icl::parse_seed(eval_seed);
      if (!sigma_file.empty()) ev.sigma_file = sigma_file;
      for (const auto& entry : eval_names) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
          throw icl::UsageError("--name '" + icl::printable_line(entry, 60) +
                                "': expected NAME=KEY, e.g. --name P1=attn.P (NAME: allparam, P1, Q1, P2, ...)");
        ev.names.emplace_back(entry.substr(0, eq), entry.substr(eq + 1));
      }
      if (eval_threads_opt->count()) ev.threads = icl::parse_threads(eval_threads);
      icl::select_backend(ev.backend);
      icl::select_precision(ev.precision);
      ev.command = icl::command_line(argc, argv);
      return status(icl::eval_command(ev));
    }
    if (samples_opt->count()) o.samples = static_cast<long long>(icl::parse_samples(samples));
    if (threads_opt->count()) o.threads = icl::parse_threads(threads);
    if (look_opt->count()) o.look = icl::parse_look(look);
    icl::select_backend(o.backend);
    icl::select_precision(o.precision);
    o.seed = icl::parse_seed(seed);
    o.command = icl::command_line(argc, argv);
    if (!resume_dir.empty()) {
      if (o.checkpoint && !icl::same_path(*o.checkpoint, resume_dir))
        throw icl::UsageError("--resume and --checkpoint name different folders");
      o.checkpoint = resume_dir;
      o.resume = true;
    }
    return status(icl::run_command(o));
  } catch (const icl::learn::Interrupted& e) {
    return failed(4, std::string("stopped on request: ") + e.what() + "; the same command goes on from there");
  } catch (const icl::UsageError& e) {
    return failed(2, e.what());
  } catch (const icl::learn::CheckpointError& e) {  // a checkpoint file damaged while the run went on
    return failed(2, e.what());
  } catch (const icl::WriteError& e) {  // a full disk: none of the run's report files written
    return failed(3, e.what());
  } catch (const std::bad_alloc&) {
    return failed(3, "internal failure: out of memory");
  } catch (const std::exception& e) {  // icl::execute::Cancelled after Ctrl-C among them: 130, its line already said
    return failed(3, std::string("internal failure: ") + e.what());
  }
}
