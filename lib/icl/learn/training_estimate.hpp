// `icl-verify run --estimate` for training loops outside learn::train() (a claim with its own loss, e.g. the
// every-position loss of xlssc Figure 2's GPT-2-style models): while an estimate is on (begin_training_estimate(),
// trainer.hpp), such a loop runs a few calibration steps instead of its run, measures a step's cost, and adds the
// run's predicted training time here; the engine reports it with the runs of train() (trainer.cpp keeps the tally).
#pragma once

namespace icl::learn {

// True while `--estimate` is on (between begin_training_estimate() and end_training_estimate()).
bool training_estimate_active();
// Adds one run: `steps` steps at `step_seconds` each (predicted), and the seconds its calibration took.
void add_training_estimate(double step_seconds, long long steps, double calibration_seconds);

}  // namespace icl::learn
