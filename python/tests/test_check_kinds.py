"""icl_verify.check's kinds and its decision rule (issue 44): the exact loss decides where the library has one, Monte
Carlo checks it; kind="argmin" judges a stated minimiser on the exact loss, or without one by a search on the Monte
Carlo loss and paired prompts (ctest `python`; PYTHONPATH=build/python).

The layer is one gradient-descent step of size eta from w = 0 in the form the issue states it: P[d, d] = 1,
Q = diag(-eta I, 0), so that yhat = -Z[d, n] = (eta / n) sum_i y_i <x_i, x_q>. On the linear task with x ~ N(0, I)
its loss is d - 2 eta d + eta^2 d (n + d + 1) / n, least at eta* = n / (n + d + 1).
"""
import unittest

import numpy as np

import icl_verify as iv


def gd_step(d, n, eta, **_):
    P, Q = np.zeros((d + 1, d + 1)), np.zeros((d + 1, d + 1))
    P[d, d] = 1.0
    Q[:d, :d] = -eta * np.eye(d)
    return {"P1": P, "Q1": Q}


def eta_star(d, n, **_):
    return n / (n + d + 1)


class Argmin(unittest.TestCase):
    grid = {"d": [2, 5], "n": [10, 40]}

    def test_the_optimal_step_is_confirmed(self):
        r = iv.check("mine.eta_star", statement="one GD step: the loss is least at eta = n / (n + d + 1)",
                     kind="argmin", argmin_over="eta", stated=eta_star, model=gd_step, grid=self.grid)
        self.assertEqual(r["verdict"], "confirmed", r["summary"])
        self.assertEqual(len(r["cases"]), 4)
        for c in r["cases"]:
            d, n = c["params"]["d"], c["params"]["n"]
            q = c["quantities"]
            self.assertEqual(q["stated"]["value"], eta_star(d, n))
            self.assertAlmostEqual(q["search_argmin"]["value"], eta_star(d, n), delta=1e-6)
            # The exact loss at eta* is the formula's: d (d + 1) / (n + d + 1), and Monte Carlo does not exclude it.
            self.assertAlmostEqual(q["loss_at_stated"]["value"], d * (d + 1) / (n + d + 1), places=12)
            self.assertLessEqual(q["loss_at_stated"]["value"], q["loss_at_search"]["value"] * (1 + 1e-9))
            self.assertEqual(c["decisions"]["exact_vs_stated"]["verdict"], "confirmed")
            self.assertNotEqual(c["decisions"]["mc_vs_exact"]["verdict"], "refuted")
            self.assertEqual(c["basis"], ["exact_vs_stated"])
            self.assertIn("Brent", c["decisions"]["search"]["method"])

    def test_without_an_exact_loss_the_search_runs_on_monte_carlo(self):
        # Two layers, the second zero (the same function): no exact loss, so the Monte Carlo path decides.
        def two_layers(d, n, eta, **_):
            w = gd_step(d, n, eta)
            w.update(P2=np.zeros((d + 1, d + 1)), Q2=np.zeros((d + 1, d + 1)))
            return w
        grid = {"d": [2], "n": [10]}
        r = iv.check("mine.eta_mc", statement="s", kind="argmin", argmin_over="eta", stated=eta_star,
                     model=two_layers, grid=grid)
        self.assertEqual(r["verdict"], "confirmed", r["summary"])
        self.assertIn("Monte Carlo", r["cases"][0]["decisions"]["search"]["method"])
        self.assertEqual(r["cases"][0]["basis"], ["excess_vs_band"])
        w = iv.check("mine.eta_mc_wrong", statement="s", kind="argmin", argmin_over="eta",
                     stated=lambda d, n, **_: n / (n + d), model=two_layers, grid=grid)
        self.assertEqual(w["verdict"], "refuted", w["summary"])
        self.assertLess(w["refutation"]["counterexample"]["loss"], w["refutation"]["counterexample"]["loss_at_stated"])

    def test_a_wrong_step_is_refuted_with_the_better_point(self):
        for name, wrong in (("n/(n+d)", lambda d, n: n / (n + d)), ("1/n", lambda d, n: 1 / n)):
            with self.subTest(stated=name):
                r = iv.check("mine.eta_wrong", statement="the loss is least at eta = " + name, kind="argmin",
                             argmin_over="eta", stated=wrong, model=gd_step, grid=self.grid)
                self.assertEqual(r["verdict"], "refuted", r["summary"])
                self.assertTrue(all(c["verdict"] == "refuted" for c in r["cases"]))
                ce = r["refutation"]["counterexample"]
                d, n = ce["d"], ce["n"]
                self.assertAlmostEqual(ce["stated_eta"], wrong(d, n))
                self.assertAlmostEqual(ce["eta"], eta_star(d, n), delta=1e-6)  # the better point is the true one
                self.assertLess(ce["loss"], ce["loss_at_stated"])
                self.assertAlmostEqual(ce["loss"], d * (d + 1) / (n + d + 1), places=10)

    def test_usage(self):
        ok = dict(statement="s", kind="argmin", stated=eta_star, model=gd_step, grid={"d": 2, "n": 10}, samples=4096)
        for kw, says in ((dict(), "argmin_over"),  # no parameter named
                         (dict(argmin_over="eta", grid={"d": 2, "n": 10, "eta": 0.5}), "also in the grid"),
                         (dict(argmin_over="d"), "setting of the task"),
                         (dict(argmin_over="eta", argmin_range=(2.0, 3.0)), "outside the search range"),
                         (dict(argmin_over="eta", argmin_range=(3.0, 2.0)), "argmin_range"),
                         (dict(argmin_over="eta", argmin_range="wide"), "argmin_range")):
            with self.subTest(**{k: str(v) for k, v in kw.items()}):
                with self.assertRaises(ValueError) as cm:
                    iv.check("mine.bad", **{**ok, **kw})
                self.assertIn(says, str(cm.exception))
        with self.assertRaises(ValueError) as cm:
            iv.check("mine.bad", statement="s", stated=eta_star, model=gd_step, grid={"d": 2, "n": 10},
                     argmin_over="eta")
        self.assertIn("belong to kind 'argmin'", str(cm.exception))


class ExactDecides(unittest.TestCase):
    def test_a_formula_equal_to_the_exact_loss_is_confirmed_at_20000_samples(self):
        # The symptom: at 20,000 prompts Monte Carlo's interval is wider than the 5% band (it alone would leave
        # the case inconclusive); the exact loss, equal to the stated value, decides.
        def stated(d, n, eta):
            w = gd_step(d, n, eta)
            return iv.exact_loss(w["P1"], w["Q1"], n)

        r = iv.check("mine.exact", statement="loss = the library's exact loss", stated=stated, model=gd_step,
                     grid={"d": [5, 8], "n": [20], "eta": [0.5, 0.8]}, samples=20000)
        self.assertEqual(r["verdict"], "confirmed", r["summary"])
        too_noisy = [c for c in r["cases"] if c["decisions"]["mc_vs_stated"]["verdict"] == "inconclusive"]
        self.assertTrue(too_noisy, "no case where Monte Carlo alone is undecided: the test no longer tests the rule")
        for c in r["cases"]:
            self.assertEqual(c["verdict"], "confirmed")
            self.assertEqual(c["basis"], ["exact_vs_stated"])
            self.assertNotEqual(c["decisions"]["mc_vs_exact"]["verdict"], "refuted")

    def test_a_formula_off_the_exact_loss_is_refuted_even_where_monte_carlo_cannot_tell(self):
        # 2% off: within Monte Carlo's band, but the exact loss decides.
        r = iv.check("mine.off", statement="loss 2% high", stated=lambda d, n, eta: 1.02 * iv.exact_loss(
            gd_step(d, n, eta)["P1"], gd_step(d, n, eta)["Q1"], n), model=gd_step,
            grid={"d": 3, "n": 20, "eta": 0.5}, samples=20000, propose=False)
        self.assertEqual(r["verdict"], "refuted", r["summary"])
        self.assertEqual(r["refutation"]["counterexample"], r["cases"][0]["params"])

    def test_undecided_without_an_exact_loss_names_the_case_and_the_samples(self):
        # Two layers, the second doing nothing: no exact loss; the stated value 3% above the loss, inside the 5% band
        # and too near its edge for 8192 prompts.
        def two(d, n, eta):
            w = gd_step(d, n, eta)
            return {"P1": w["P1"], "Q1": w["Q1"], "P2": np.zeros_like(w["P1"]), "Q2": w["Q1"]}

        def stated(d, n, eta):
            w = gd_step(d, n, eta)
            return 1.03 * iv.exact_loss(w["P1"], w["Q1"], n)

        r = iv.check("mine.deep", statement="s", stated=stated, model=two, grid={"d": 2, "n": 20, "eta": 0.5},
                     samples=8192)
        self.assertEqual(r["verdict"], "inconclusive", r["summary"])
        need = r["cases"][0]["decisions"]["samples_to_decide"]
        self.assertGreater(need, 8192)
        self.assertIn("undecided: d=2, n=20, eta=0.5 (about %d prompts would decide it" % need, r["summary"])


class BoundWords(unittest.TestCase):
    def test_an_undecided_bound_never_says_straddles(self):
        # Monte Carlo only (two layers); loss <= 0.97 x the loss: inside the 5% tolerance, the interval lies across
        # or above the bound; the words say where, whatever they are.
        def two(d, n, eta):
            w = gd_step(d, n, eta)
            return {"P1": w["P1"], "Q1": w["Q1"], "P2": np.zeros_like(w["P1"]), "Q2": w["Q1"]}

        loss = lambda d, n, eta: iv.exact_loss(gd_step(d, n, eta)["P1"], gd_step(d, n, eta)["Q1"], n)
        r = iv.check("mine.ub", statement="s", kind="upper_bound", stated=lambda **p: 0.97 * loss(**p), model=two,
                     grid={"d": 2, "n": 20, "eta": 0.5}, samples=4096)
        why = r["cases"][0]["decisions"]["mc_vs_stated"]["why"]
        self.assertNotIn("straddles", why)
        mc = r["cases"][0]["quantities"]["mc"]
        bound = r["cases"][0]["quantities"]["stated"]["value"]
        if mc["ci_low"] > bound:
            self.assertIn("wholly above the bound", why)
        elif mc["ci_high"] < bound:
            self.assertIn("wholly below the bound", why)
        else:
            self.assertIn("contains the bound", why)


if __name__ == "__main__":
    unittest.main()
