"""Call the public functions through the installed package, not from a notebook's namespace.

A notebook's setup cells can import a name that the exported module forgot; the notebook then passes while the
package raises NameError. These calls run every public estimator once from the package on bundled data.
"""
import subprocess
from pathlib import Path
import sys

import numpy as np
import pytest

import humancert


def test_every_estimator_runs_from_the_package():
    ds = humancert.load("running_example")
    ann, hard, soft = ds.annotations, ds.predictions["hard"], ds.predictions["calibrated"]
    assert round(humancert.classifier_score(hard, ann, "agreement").value, 4) == 0.7442      # the peer's value
    assert round(humancert.classifier_score(soft, ann, "cross_entropy").value, 4) == -0.8220
    assert humancert.classifier_score(hard, ann, "f1").method == "per annotator"
    assert humancert.power_curve(ann, "plurality", "agreement").values[1] == pytest.approx(0.6875, abs=5e-5)
    assert humancert.survey_equivalence(soft, ann).value == pytest.approx(1.969, abs=1.5e-3)
    assert humancert.certify(ann, hard).n_items > 0
    assert 0 < humancert.spa(ann, "inv_var_class").value < 1
    assert humancert.agreement_summary(ann).measures[0].value == pytest.approx(0.6875, abs=5e-5)
    assert humancert.check_assumptions(*(lambda s: (s.annotations, s.oracle))(humancert.simulate_oracle_labels(200, [0.8, 0.7], seed=1))).theorem1_holds in (True, False)
    assert len(humancert.iaa_experiment1(5, seed=0)) == 5
    auc = humancert.power_curve(ann, "abc", "auc", max_subsets=5, max_k=3)
    assert auc.method == "sampled" and auc.values[0] == pytest.approx(0.5)
    assert humancert.survey_equivalence(hard, ann, "plurality", "f1", max_subsets=5, max_k=5).bound in "=<>"
    half = humancert.Annotations.from_counts(np.asarray(ann.counts) // 2)
    assert humancert.expert_equivalence(half, half, 1, "abc", "agreement").bound in "=<>"
    assert humancert.cross_panel_curve(half, half, "frequency", "cross_entropy", max_k=2).values.shape == (3,)
    cal = humancert.calibrate_isotonic(soft["pos"].to_numpy(), ann, positive="pos")
    assert np.allclose(cal.sum(axis=1), 1)
    assert humancert.calibrate_by_group(hard, ann).shape == (1000, 2)
    cert = humancert.certify(ann, hard)
    assert cert.tails == ("binomial", "betting") and len(cert.compare_tails()) == 6
    assert humancert.confidence(0.971, 0.939, 1821, lower_tail="binomial", count=1768).score == pytest.approx(0.9902, abs=5e-5)
    assert humancert.plan_study(0.971, 0.939).n_items > 100
    assert 0 < humancert.lower_limit(0.9, 100) < 0.9 < humancert.upper_limit(0.81, 100, tail="hoeffding")
    assert humancert.classifier_score(hard, ann, "agreement", n_reference=3).n_reference == 3
    assert humancert.survey_equivalence(hard, ann, "plurality", "dmi", max_subsets=3, max_k=4, n_reference=3).bound in "=<>"
    sim = humancert.uniform_noise(300, [[0.9, 0.1], [0.3, 0.7]], 6, 0.8, seed=1)
    assert humancert.hscore_star(sim.classifier, sim.annotations, sim.states).value > 0
    assert humancert.state_equivalence(sim.classifier, sim.annotations, sim.states, max_subsets=3).bound in "=<>"
    assert len(humancert.seq_by_reference({"dmi": sim.classifier}, sim.annotations, (1, 3), max_subsets=3)) == 2
    assert humancert.panel_scale([[0.9, 0.1], [0.3, 0.7]], 3) > humancert.panel_scale([[0.9, 0.1], [0.3, 0.7]], 1)
    rep = humancert.make_report(ann, hard, soft, n_bootstrap=0)
    assert rep.certificate.score == humancert.certify(ann, hard).score and rep.equivalence is not None
    assert len(humancert.bounds_by_annotators(ann)) == 9 and humancert.dataset_case("credbank")[2] is not None
    long = ann.to_long()
    with_model = long.assign(model=hard.loc[long["item"]].to_numpy())
    assert humancert.Annotations.from_table(long).to_counts().equals(ann.to_counts())
    assert humancert.certify(humancert.profiles_from_table(with_model, model="model")).score == cert.score
    assert humancert.certify(humancert.profiles(ann, hard)).score == cert.score
    assert humancert.annotator_agreement_from_table(with_model, model="model", top=3).table.shape == (3, 4)


def test_modules_import_cleanly_in_a_fresh_interpreter():
    "Every module of every part imports on its own in a new interpreter (no name that only a notebook's namespace had)."
    root = Path(humancert.__file__).parent
    mods = sorted(".".join(p.relative_to(root).with_suffix("").parts) for p in root.glob("*/*.py") if p.stem != "__init__")
    assert len(mods) >= 34 and "report.cli" in mods and "certification.certify" in mods, mods
    code = "import importlib; [importlib.import_module('humancert.' + m) for m in %r]" % mods
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr


def _seeded_calls():
    "One cheap call per public function (or method) that takes a seed, as a function of the seed."
    import humancert as hc
    from humancert.certification import planner
    ds = hc.load("running_example")
    ann, hard, soft = ds.annotations, ds.predictions["hard"], ds.predictions["calibrated"]
    small = hc.Annotations.from_counts(ann.to_counts().iloc[:60])
    wide = hc.Annotations.from_wide(ann.to_wide().iloc[:60, :3])
    pair = ann.to_wide().iloc[:60, 0], ann.to_wide().iloc[:60, 1]
    x = np.full(50, 0.8)
    return {
        "simulate_oracle_labels": lambda s: hc.simulate_oracle_labels(20, [0.8, 0.7], seed=s),
        "aggregate": lambda s: hc.aggregate(ann, "plurality", seed=s),
        "certify": lambda s: hc.certify(ann, hard, seed=s),
        "check_assumptions": lambda s: hc.check_assumptions(ann, hard, hard, seed=s),
        "known_oracle_study": lambda s: hc.known_oracle_study(n_items=20, n_annotators=3, seed=s),
        "spa_variance_study": lambda s: hc.spa_variance_study(small, [200, 400], rounds=3, seed=s),
        "simulate_annotators": lambda s: hc.simulate_annotators(np.zeros(10), np.zeros(10), [0, 0], 1.0, 2, seed=s),
        "iaa_experiment1": lambda s: hc.iaa_experiment1(2, seed=s),
        "iaa_experiment2": lambda s: hc.iaa_experiment2(2, seed=s, n_train=50, n_test=20),
        "iaa_general": lambda s: hc.iaa_general(n_sims=2, seed=s),
        "iaa_certification": lambda s: hc.iaa_certification(2, seed=s),
        "classifier_score": lambda s: hc.classifier_score(hard, ann, "f1", seed=s),
        "power_curve": lambda s: hc.power_curve(small, n_bootstrap=1, seed=s, max_k=2),
        "survey_equivalence": lambda s: hc.survey_equivalence(soft.iloc[:60], small, n_bootstrap=1, seed=s, max_k=2),
        "expert_equivalence": lambda s: hc.expert_equivalence(small, small, 1, n_bootstrap=1, seed=s, max_k=2),
        "uniform_noise": lambda s: hc.uniform_noise(30, [[0.9, 0.1], [0.1, 0.9]], 5, 0.8, seed=s),
        "state_equivalence": lambda s: hc.state_equivalence(hard, ann, (ds.predictions["ideal"]["pos"] > 0.5).astype(int).to_numpy(), seed=s, max_k=2, max_subsets=2),
        "seq_by_reference": lambda s: hc.seq_by_reference({"agreement": hard}, ann, [1], max_k=2, max_subsets=2, seed=s),
        "make_report": lambda s: hc.make_report(small, seed=s),
        "Combiner.predict": lambda s: hc.Plurality(2).predict(np.array([[1, 1]]), seed=s),
        "SPAVarianceStudy.table": lambda s: hc.spa_variance_study(small, [200, 400], rounds=3, seed=0).table(n_boot=2, seed=s),
        "fleiss_kappa": lambda s: hc.fleiss_kappa(small, ci_method="bootstrap", n_bootstrap=2, seed=s),
        "krippendorff_alpha": lambda s: hc.krippendorff_alpha(small, ci_method="bootstrap", n_bootstrap=2, seed=s),
        "gwet_ac": lambda s: hc.gwet_ac(small, ci_method="bootstrap", n_bootstrap=2, seed=s),
        "brennan_prediger": lambda s: hc.brennan_prediger(small, ci_method="bootstrap", n_bootstrap=2, seed=s),
        "conger_kappa": lambda s: hc.conger_kappa(wide, ci_method="bootstrap", n_bootstrap=2, seed=s),
        "cohen_kappa_mean": lambda s: hc.cohen_kappa_mean(wide, ci_method="bootstrap", n_bootstrap=2, seed=s),
        "cohen_kappa": lambda s: hc.cohen_kappa(pair[0], pair[1], ci_method="bootstrap", n_bootstrap=2, seed=s),
        "scott_pi": lambda s: hc.scott_pi(pair[0], pair[1], ci_method="bootstrap", n_bootstrap=2, seed=s),
        "compare_judges": lambda s: hc.compare_judges(wide, hard.iloc[:60], epsilon=None, n_bootstrap=2, seed=s, max_k=2),
        "gold_learning_curve": lambda s: hc.gold_learning_curve(ann, hard, hard.rename("gold"), [50], 1, seed=s),
        "report_from_table": lambda s: hc.report_from_table(ann.to_long().iloc[:200], n_bootstrap=1, seed=s),
        "gold_test": lambda s: hc.gold_test(ann, hard, hard.rename("gold").iloc[:50], "randomised sign", seed=s),
        "certify_with_gold": lambda s: hc.certify_with_gold(ann, hard, hard.rename("gold").iloc[:50], test="randomised sign", seed=s),
        "next_gold_items": lambda s: hc.next_gold_items(small, hard.iloc[:60], 5, seed=s),
        "informative_design": lambda s: hc.informative_design(small, hard.iloc[:60], seed=s),
        "plan_gold_procedures": lambda s: hc.plan_gold_procedures(0.05, 0.5, reps=50, seed=s),
        "majority_of_runs": lambda s: hc.majority_of_runs(ann.to_wide().iloc[:40, :3], seed=s),
        "jury": lambda s: hc.jury(ann.to_wide().iloc[:40, :3], seed=s),
        "effective_judges": lambda s: hc.effective_judges(ann.to_wide().iloc[:40, :3], hard, n_bootstrap=2, seed=s),
        "judge_pairs": lambda s: hc.judge_pairs(hc.compare_judges(wide, hard.iloc[:60].to_frame("a").assign(b=hard.iloc[:60]), epsilon=None,
                                                                  n_bootstrap=0, max_k=2), n_bootstrap=2, seed=s),
        "score_budget": lambda s: hc.score_budget(0.12, pass_rate=0.7, sensitivity=0.9, specificity=0.6, reps=10, seed=s),
        "plan_informative_design": lambda s: planner.plan_informative_design(hc.informative_design(small, hard.iloc[:60], seed=0), 0.05,
                                                                             reps=50, seed=s),   # the module's: the lead adds the name to hc
    }


def test_every_seed_is_checked():
    "Every public function with a `seed` refuses a negative or non-integer seed with a message naming `seed`, before numpy does."
    import inspect
    import humancert as hc
    calls = _seeded_calls()
    seeded = {n for n in hc.__all__ if callable(getattr(hc, n)) and not inspect.isclass(getattr(hc, n))
              and "seed" in inspect.signature(getattr(hc, n)).parameters}
    assert seeded <= set(calls), f"no bad-seed check for {sorted(seeded - set(calls))}"
    for name, call in calls.items():
        for bad, exc in ((-1, ValueError), ("seven", TypeError), (1.5, TypeError)):
            with pytest.raises(exc, match="`seed` must be an int >= 0"): call(bad)


def _summary_in_worker(ann):
    "Runs in another process: the Annotations arrived by pickle."
    return ann.n_items, int(ann.n_labels.sum()), humancert.krippendorff_alpha(ann).value, ann.counts.flags.writeable


def test_annotations_cross_process_boundaries():
    "multiprocessing and joblib send arguments to workers by pickle; Annotations arrive equal and still read-only."
    from concurrent.futures import ProcessPoolExecutor
    import multiprocessing
    ann = humancert.load("running_example").annotations
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as ex:
        got = ex.submit(_summary_in_worker, ann).result(timeout=120)
    assert got == (1000, 10000, humancert.krippendorff_alpha(ann).value, False)


def test_report_loads_only_what_it_needs(tmp_path):
    "The report on a bundled dataset loads neither scipy.stats, scipy.optimize, scipy.sparse, tqdm, DuckDB, narwhals nor matplotlib (issue 25: a command under 1 s); writing it with --out draws figures, so matplotlib then loads (the check sees a load)."
    def loaded(*extra):
        code = ("import sys, io, contextlib; from humancert.report.cli import main\n"
                f"with contextlib.redirect_stdout(io.StringIO()): code = main(['report', '--dataset', 'personal_attacks', '--quiet', *{list(extra)!r}])\n"
                "print(code, *sorted(m for m in ('scipy.stats', 'scipy.optimize', 'scipy.sparse', 'tqdm', 'duckdb', 'narwhals', 'matplotlib') if m in sys.modules))")
        res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        return res.stdout.split()
    assert loaded() == ["0"]
    assert loaded("--out", str(tmp_path / "rep")) == ["0", "matplotlib"]
