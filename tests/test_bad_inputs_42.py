"""Issue 42 item 6, the library's bad inputs (groups 1, 2, 4, 5, 7, 8, 10, 11, 16): each gives the verdict asked for or a clear
error naming the argument and what to do. Expected values come from the inputs built by hand here (or from the
result's own documented fields: `bool` must equal `certified`), never from a second call of the function under test."""
import inspect
import json

import numpy as np
import pandas as pd
import pytest

import humancert
from humancert.agreement.coefficients import cohen_kappa, gwet_ac, scott_pi, conger_kappa, brennan_prediger, fleiss_kappa_at
from humancert.agreement.measures import fleiss_kappa, krippendorff_alpha
from humancert.certification.certify import certify
from humancert.certification.gold_certificate import certify_with_gold
from humancert.certification.gold_power import gold_test
from humancert.certification.finite import upper_bound_at
from humancert.data.annotations import Annotations
from humancert.data.imports import read_label_studio
from humancert.data.panel import read_panel
from humancert.judges.alt_test import alt_test


def _panel(n=200, model_right=0.95, seed=1):
    "Five annotators right 90 % of the time on binary items; a model right `model_right` of the time; the oracle."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    wide = pd.DataFrame({f"h{k}": np.where(rng.random(n) < 0.9, truth, 1 - truth) for k in range(5)})
    model = pd.Series(np.where(rng.random(n) < model_right, truth, 1 - truth))
    return Annotations.from_wide(wide), model, pd.Series(truth), wide


# ---------------------------------------------------------------- group 1: truth is the verdict, float the number

def test_1_certificate_truth_is_the_verdict():
    ann, _, truth, _ = _panel()
    bad = certify(ann, 1 - truth)                              # the model always wrong: never certified
    good = certify(ann, truth)                                 # the model always right, 200 items: certified
    assert (bad.certified, good.certified) == (False, True)    # the premise
    assert not bad and bool(good)
    assert ("yes" if bad else "no") == "no"
    assert float(bad) == bad.score and float(good) == good.score


def test_1_gold_certificate_and_gold_test_truth_is_the_verdict():
    ann, model, truth, _ = _panel()
    wrong = 1 - truth
    gc = certify_with_gold(ann, wrong, truth)                  # a model wrong on every gold item
    gt = gold_test(ann, wrong, truth)
    assert not gc.certified and not gc and float(gc) == gc.score
    assert not gt.certified and not gt and float(gt) == gt.score


def test_1_alt_test_truth_is_passed_and_float_the_winning_rate():
    ann, _, truth, wide = _panel()
    r = alt_test(ann, pd.Series(1 - truth, name="bad"), epsilon=0.1)      # a judge always wrong passes against no annotator
    assert not r.passed                                                    # the premise
    assert not r and float(r) == r.winning_rate == 0.0
    two = alt_test(ann, pd.DataFrame({"bad": 1 - truth, "also bad": 1 - truth}), epsilon=0.1)
    with pytest.raises(TypeError, match=r"all\(tests\)"):
        bool(two)
    assert not any(two) and len(two) == 2


def test_1_every_result_with_a_verdict_answers_bool_and_float():
    "The sequential and active certificates too: truth is `certified`, float is S (built by hand, field by field)."
    import dataclasses
    from humancert.certification.gold_sequence import SequentialCertificate
    from humancert.certification.active_gold import ActiveCertificate
    for cls in (SequentialCertificate, ActiveCertificate):
        names = [f.name for f in dataclasses.fields(cls)]
        vals = {n: 0.0 for n in names} | {"certified": False, "score": 0.42, "population": "items", "seed": None}
        r = cls(**{n: vals[n] for n in names})
        assert not r and float(r) == 0.42
        assert bool(dataclasses.replace(r, certified=True))


# ---------------------------------------------------------------- group 2: "none" printed where nothing is proved

def test_2_certificate_table_prints_none_not_minus_three():
    ann, _, truth, _ = _panel()
    bad = certify(ann, 1 - truth)
    assert bad.score == -1.0                                   # infeasible split: S = -1, 2S - 1 = -3
    row = "proved confidence (2S - 1: split chosen from the data)"
    assert bad.to_frame().loc[row, "value"] == "none (2S - 1 <= 0)"
    html = bad._repr_html_()
    assert "-3.0000" not in html and "none (2S - 1 &lt;= 0)" in html
    bal = certify(ann, 1 - truth, method="balanced")
    assert bal.to_frame().loc["proved confidence", "value"] == "none (S <= 0)"


# ---------------------------------------------------------------- group 4: MLflow's and Phoenix's kinds

def _long(kinds):
    "Two humans labelling 4 items, and one rater of each kind in `kinds` labelling them too."
    rows = [(i, h, l, "HUMAN") for h in ("a", "b") for i, l in enumerate("xyxy")]
    rows += [(i, f"r_{k}", "x", k) for k in kinds for i in range(4)]
    return pd.DataFrame(rows, columns=["item", "rater", "label", "kind"])


@pytest.mark.parametrize("kind", ["AI_JUDGE", "AGENT", "LLM", "LLM_JUDGE", "CODE"])
def test_4_machine_kinds_are_judges_not_humans(kind):
    p = read_panel(_long([kind]))
    assert list(p.judges.columns) == [f"r_{kind}"] and p.annotations.n_annotators == 2


@pytest.mark.parametrize("kind, says", [("DECISION", "a decision recorded by Phoenix"), ("expert", "not a kind humancert knows")])
def test_4_decision_and_unknown_kinds_refused_unless_named(kind, says):
    with pytest.raises(ValueError, match=rf"`human_kinds`: kind\(s\) '{kind.lower()}' \({says}.*name their role"):
        read_panel(_long(["LLM", kind]))
    p = read_panel(_long(["LLM", kind]), human_kinds=["human", kind])     # named: it is a human
    assert p.annotations.n_annotators == 3 and list(p.judges.columns) == ["r_LLM"]


# ---------------------------------------------------------------- group 5: item keys of one kind

def test_5_from_nested_mixed_key_kinds_refused():
    from_python = {"a": {1: "x", 2: "y", 3: "x"}}
    from_json = json.loads('{"b": {"1": "x", "2": "y", "3": "y"}}')
    with pytest.raises(ValueError, match=r"`src`: the item ids mix kinds \(int 1, str '1'\)"):
        Annotations.from_nested(from_python | from_json)
    ok = Annotations.from_nested({"a": {str(k): v for k, v in from_python["a"].items()}} | from_json)
    assert ok.n_items == 3


# ---------------------------------------------------------------- group 7: one level, one range, for both names

def test_7_confidence_and_delta_conflict_refused():
    ann, _, truth, _ = _panel()
    with pytest.raises(ValueError, match=r"`confidence`=0.95 and `delta`=0.1 disagree"):
        certify(ann, truth, confidence=0.95, delta=0.1)
    assert certify(ann, truth, delta=0.1).delta == 0.1                     # the old name alone still works
    assert certify(ann, truth, confidence=0.9, delta=0.1).delta == 0.1     # the two agreeing


@pytest.mark.parametrize("delta", [0.9, 0.95, 0.6])
def test_7_delta_above_half_suggests_confidence(delta):
    ann, _, truth, _ = _panel()
    with pytest.raises(ValueError, match=rf"must lie in \(0, 0.5\].*pass confidence={delta}"):
        certify(ann, truth, delta=delta)
    with pytest.raises(ValueError, match=r"`delta`"):
        certify_with_gold(ann, truth, truth, delta=delta)


def test_7_every_function_taking_both_names_defaults_to_the_marked_level():
    "The default must be CONFIDENCE (a 0.95 told apart from a typed one), or a typed 0.95 beside delta goes unseen."
    from humancert.data.annotations import CONFIDENCE
    both = []
    for name in humancert.__all__:
        f = getattr(humancert, name)
        if callable(f) and not inspect.isclass(f):
            ps = inspect.signature(f).parameters
            if "confidence" in ps and "delta" in ps: both.append((name, ps["confidence"].default))
    assert len(both) >= 10, both
    assert [n for n, d in both if d is not CONFIDENCE] == []


def test_7_other_functions_refuse_the_conflict():
    ann, _, truth, _ = _panel()
    with pytest.raises(ValueError, match="disagree"):
        certify_with_gold(ann, truth, truth, confidence=0.95, delta=0.2)
    with pytest.raises(ValueError, match="disagree"):
        gold_test(ann, truth, truth, confidence=0.95, delta=0.2)
    with pytest.raises(ValueError, match="disagree"):
        upper_bound_at(ann, confidence=0.95, delta=0.2)


# ---------------------------------------------------------------- group 8: coefficients' levels

@pytest.mark.parametrize("fn", [gwet_ac, fleiss_kappa, krippendorff_alpha, brennan_prediger, conger_kappa])
def test_8_coefficient_level_below_half_refused(fn):
    ann, *_ = _panel()
    with pytest.raises(ValueError, match=r"`confidence` must be a level in \[0.5, 1\).*pass confidence=0.95"):
        fn(ann, ci_method="analytic", confidence=0.05)


def test_8_two_rater_coefficients_level_below_half_refused():
    _, _, _, wide = _panel()
    for fn in (cohen_kappa, scott_pi):
        with pytest.raises(ValueError, match=r"`confidence` must be a level in \[0.5, 1\)"):
            fn(wide["h0"], wide["h1"], ci_method="analytic", confidence=0.05)


def test_8_judge_board_class_metrics_level_below_half_refused():
    from humancert.judges.board import compare_judges
    ann, model, _, _ = _panel(60)
    board = compare_judges(ann, pd.DataFrame({"m": model}), n_bootstrap=0)
    with pytest.raises(ValueError, match=r"`confidence` must be a level in \[0.5, 1\).*pass confidence=0.9"):
        board.class_metrics("m", confidence=0.1)


# ---------------------------------------------------------------- group 10: population on every interval path

@pytest.mark.parametrize("ci", ["bootstrap", "bca", "bootstrap_t"])
@pytest.mark.parametrize("fn", [gwet_ac, fleiss_kappa, krippendorff_alpha, conger_kappa])
def test_10_population_with_a_bootstrap_interval_refused(fn, ci):
    ann, *_ = _panel()
    with pytest.raises(ValueError, match=rf"`population`=400 .*ci_method='{ci}'.*pass ci_method='analytic'"):
        fn(ann, ci_method=ci, population=400, n_bootstrap=20)


def test_10_population_used_by_the_analytic_interval_and_checked_there():
    ann, *_ = _panel()
    full, half = gwet_ac(ann, ci_method="analytic"), gwet_ac(ann, ci_method="analytic", population=400)
    assert abs(half.se ** 2 - full.se ** 2 / 2) < 1e-12                # factor 1 - 200/400
    with pytest.raises(ValueError, match=r"`population`=100 is smaller than the 200 items rated"):
        gwet_ac(ann, ci_method="analytic", population=100)
    assert gwet_ac(ann, ci_method="bootstrap", n_bootstrap=20, population=np.inf).ci is not None   # infinite: as None


# ---------------------------------------------------------------- group 11: inf is no class

@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_11_cohen_kappa_infinite_label_refused(bad):
    with pytest.raises(ValueError, match=r"`a` has 1 infinite label"):
        cohen_kappa([1.0, 2.0, bad, 1.0], [1.0, 2.0, 2.0, 1.0])
    with pytest.raises(ValueError, match=r"`b` has 1 infinite label"):
        cohen_kappa(pd.Series(["x", "y", "x", "y"]), pd.Series(["x", bad, "x", "y"], dtype=object))


# ---------------------------------------------------------------- group 16: the user's input, plain values

def test_16_label_studio_twice_names_src_and_plain_ids():
    def choice(c): return [{"from_name": "s", "to_name": "t", "type": "choices", "value": {"choices": [c]}}]
    tasks = [{"id": 1, "annotations": [{"id": 1, "completed_by": 1, "result": choice("Pos")},
                                       {"id": 2, "completed_by": 1, "result": choice("Neg")},
                                       {"id": 3, "completed_by": 2, "result": choice("Pos")}]},
             {"id": 2, "annotations": [{"id": 4, "completed_by": 1, "result": choice("Neg")}]}]
    with pytest.raises(ValueError) as e:
        read_label_studio(tasks)
    msg = str(e.value)
    assert msg.startswith("`src` has 1 (item, annotator) pair(s) with different labels, e.g. annotator 1 answered task 1 'Pos' and 'Neg'")
    assert "`df`" not in msg and "np.int64" not in msg and "duplicates='first'" in msg
    assert read_label_studio(tasks, duplicates="first").annotations.n_labels.sum() == 3
