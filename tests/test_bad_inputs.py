"""Issue 25's bad and edge inputs, one test per case: each must give a clear error that names the argument (Python) or the
option/INPUT (the command, run as a subprocess), or a correct result. Silently wrong results first, then crashes, unclear
errors and faults. Every expected value here is computed by hand or from a correctly prepared input, never read off the
output under test."""
import json
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

from humancert.agreement.measures import krippendorff_alpha
from humancert.data.annotations import Annotations
from humancert.certification.assumptions import check_assumptions
from humancert.data.imports import read_label_studio
from humancert.data.simulate import simulate_oracle_labels
from humancert.sparse_agreement.spa import spa
from report_run import COMMAND


def cli(*args, cwd=None):
    "The command in a fresh process, as a user runs it."
    return subprocess.run([*COMMAND, *map(str, args)],
                          capture_output=True, text=True, cwd=cwd)


def first_line(res): return res.stderr.splitlines()[0] if res.stderr else ""


def ls_task(tid, answers, predictions=()):
    "A Label Studio task: answers are (annotator, result) pairs; result is the `result` list (or anything, for bad inputs)."
    ann = [{"id": 100 * tid + j, "completed_by": who, "result": res} for j, (who, res) in enumerate(answers)]
    return {"id": tid, "annotations": ann, "predictions": list(predictions)}


def choice(c): return [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [c]}}]


# ---------------------------------------------------------------- silently wrong (1-9)

@pytest.mark.parametrize("bad", [np.inf, -np.inf])
def test_silent_1_2_from_wide_infinite_label_refused(bad):
    x = pd.DataFrame({"a": [1.0, 2.0, bad], "b": [1.0, 2.0, 1.0]})
    with pytest.raises(ValueError, match=r"`x`.*(inf|infinite)"):
        Annotations.from_wide(x)


def _sim_with_model():
    s = simulate_oracle_labels(300, [0.8, 0.7, 0.6, 0.75, 0.65], hard_share=0.3, hard_accuracy=[0.3, 0.4, 0.5, 0.3, 0.4], seed=3)
    rng = np.random.default_rng(1)
    model = np.where(rng.random(300) < 0.8, s.oracle, 1 - s.oracle)
    return s, pd.Series(model, index=s.annotations.items)


def test_silent_3_check_assumptions_gold_index_matching_no_item_refused():
    s, model = _sim_with_model()
    gold = pd.Series(s.oracle, index=s.annotations.items)
    other = gold.set_axis([f"x{i}" for i in range(len(gold))])          # the same labels under ids of no item
    with pytest.raises(ValueError, match="`oracle`"):
        check_assumptions(s.annotations, other, model=model)


def test_silent_4_check_assumptions_gold_reversed_is_aligned():
    s, model = _sim_with_model()
    gold = pd.Series(s.oracle, index=s.annotations.items)
    right = check_assumptions(s.annotations, gold, model=model)
    rev = check_assumptions(s.annotations, gold.iloc[::-1], model=model)    # the same gold, rows in reverse order
    assert repr(rev) == repr(right)
    # ids that are integers in another order than the items' positions: 300 items whose ids are 299..0
    items = pd.Index(np.arange(300)[::-1])
    long = s.annotations.to_long()
    long["item"] = items[long["item"].to_numpy()]
    ann2 = Annotations.from_long(long, "item", "annotator", "label", labels=[0, 1], items=items)
    gold2 = pd.Series(s.oracle, index=items).sort_index()                 # indexed 0..299: a RangeIndex-like order
    gold2.index = pd.RangeIndex(300)
    res = check_assumptions(ann2, gold2, model=pd.Series(model.to_numpy(), index=items))
    assert repr(res) == repr(right)


def test_silent_5_label_studio_result_string_refused():
    tasks = [ls_task(1, [(1, choice("Pos")), (2, "Pos")]), ls_task(2, [(1, choice("Neg")), (2, choice("Neg"))])]
    with pytest.raises(ValueError, match=r"`src`.*`result`"):
        read_label_studio(tasks, from_name="sentiment")


@pytest.fixture
def wide_with_id(tmp_path):
    rng = np.random.default_rng(0)
    x = pd.DataFrame(rng.integers(0, 2, (40, 4)), columns=["a", "b", "c", "d"])
    x.index = pd.Index([f"t{i}" for i in range(40)], name="id")
    p = tmp_path / "wide.csv"
    x.reset_index().to_csv(p, index=False)
    return p, x


def test_silent_6_wide_csv_id_column_is_the_item_id(wide_with_id):
    p, x = wide_with_id
    res = cli("report", p)
    assert res.returncode == 0, res.stderr
    alpha = krippendorff_alpha(Annotations.from_wide(x)).value     # four annotators, items t0..t39
    line = next(l for l in res.stdout.splitlines() if l.strip().startswith("krippendorff_alpha"))
    assert f"{alpha:.4f}" in line, (alpha, line)
    assert "column 'id'" in res.stdout and "item id" in res.stdout     # the output says which column was taken


@pytest.mark.parametrize("name", ["None", "NA"])
def test_silent_7_8_class_named_none_or_na_is_a_class(tmp_path, name):
    rows = [[name, "yes", "no"], ["yes", name, "no"], [name, name, "yes"], ["no", "no", ""], ["yes", "no", name], ["no", "yes", name]]
    p = tmp_path / "w.csv"
    pd.DataFrame(rows, columns=["a", "b", "c"]).to_csv(p, index=False)
    res = cli("report", p)
    assert res.returncode == 0, res.stderr
    from humancert.report.read import read_labels
    ann = read_labels(str(p)).annotations
    assert ann.n_labels.sum() == 17 and list(ann.classes) == sorted([name, "no", "yes"])   # 18 cells, one empty


def _soft_file(tmp_path, colname):
    rng = np.random.default_rng(2)
    n = 60
    oracle = rng.integers(0, 2, n)
    x = np.column_stack([np.where(rng.random(n) < 0.85, oracle, 1 - oracle) for _ in range(5)])
    df = pd.DataFrame(x, columns=list("abcde"))
    df[colname] = np.where(oracle == 1, 0.9, 0.1)                         # P(class 1), a good model
    p = tmp_path / "soft.csv"
    df.to_csv(p, index_label="item")
    return p


def test_silent_9_soft_model_column_ending_in_a_class_is_not_guessed(tmp_path):
    p = _soft_file(tmp_path, "score_v0")
    res = cli("report", p, "--soft-model", "score_v0", "--n-bootstrap", 0)
    # either refused as ambiguous (naming the option), or read as P(1) with the mapping said in the output
    if res.returncode == 2:
        assert "--soft-model" in first_line(res) and "score_v0" in first_line(res)
    else:
        assert res.returncode == 0, res.stderr
        assert "score_v0" in res.stdout and "P(1)" in res.stdout
        lnl = next(l for l in res.stdout.splitlines() if l.strip().startswith("L_N"))
        assert float(lnl.split()[1]) > 0.5


def test_silent_9b_soft_model_mapping_is_said(tmp_path):
    p = _soft_file(tmp_path, "p_1")
    res = cli("report", p, "--soft-model", "p_1", "--n-bootstrap", 0)
    assert res.returncode == 0, res.stderr
    assert "p_1" in res.stdout and "P(1)" in res.stdout


# ---------------------------------------------------------------- crashes (1-9)

def test_crash_1_from_wide_list_label():
    x = pd.DataFrame({"a": [[1, 2], 1, 2], "b": [1, 2, 1]})
    with pytest.raises(TypeError, match=r"`x`.*hashable"):
        Annotations.from_wide(x)


def test_crash_2_label_studio_completed_by_list():
    tasks = [ls_task(1, [([1, 2], choice("Pos")), (3, choice("Pos"))]), ls_task(2, [(1, choice("Neg")), (3, choice("Neg"))])]
    with pytest.raises(ValueError, match=r"`src`.*completed_by"):
        read_label_studio(tasks)


def _bad_tables(tmp_path):
    good = pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"], "label": ["x", "y", "x", "x"]})
    good.to_parquet(tmp_path / "good.parquet")
    (tmp_path / "random.parquet").write_bytes(np.random.default_rng(0).bytes(4096))
    raw = (tmp_path / "good.parquet").read_bytes()
    (tmp_path / "truncated.parquet").write_bytes(raw[: len(raw) // 2])
    (tmp_path / "binary.csv").write_bytes(bytes(range(256)) * 16)
    return tmp_path


@pytest.mark.parametrize("name", ["random.parquet", "truncated.parquet", "binary.csv"])
def test_crash_3_5_from_table_unreadable_file(tmp_path, name):
    d = _bad_tables(tmp_path)
    with pytest.raises(ValueError, match=r"`source`.*" + name.replace(".", r"\.")):
        Annotations.from_table(str(d / name))


def test_crash_9_out_of_core_glob_with_a_bad_file(tmp_path):
    d = _bad_tables(tmp_path)
    (d / "binary.csv").unlink()
    res = cli("report", str(d / "*.parquet"), "--format", "long", "--out-of-core")
    assert res.returncode == 2, res.stderr
    assert "INPUT" in first_line(res) and "Traceback" not in res.stderr


def _small_report():
    from humancert.report.reporting import make_report
    s = simulate_oracle_labels(50, [0.8, 0.7, 0.75], seed=0)
    return make_report(s.annotations, pd.Series(s.oracle, index=s.annotations.items), n_bootstrap=0)


def test_crash_6a_save_unwritable_place(tmp_path):
    rep = _small_report()
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="`out`"):
        rep.save(tmp_path / "file" / "sub")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        if os.access(ro, os.W_OK): pytest.skip("running as a user who can write anywhere (root)")
        with pytest.raises(ValueError, match="`out`"):
            rep.save(ro / "report")
    finally: ro.chmod(0o700)


def test_crash_6b_save_full_disk_leaves_nothing(tmp_path, monkeypatch):
    import errno
    from matplotlib.figure import Figure
    rep = _small_report()
    real = Figure.savefig
    calls = []
    def full(self, fname, *a, **k):
        calls.append(fname)
        if len(calls) == 2:                                       # the second plot: half written, then the disk is full
            with open(fname, "wb") as f: f.write(b"\x89PNG")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, fname, *a, **k)
    monkeypatch.setattr(Figure, "savefig", full)
    with pytest.raises(ValueError, match=r"`out`.*No space left"):
        rep.save(tmp_path / "report")
    assert list(tmp_path.iterdir()) == []                         # no folder, no PNG, no temporary folder


def _huge(n):
    "Three items with 2n labels each (counts), two classes."
    return Annotations.from_counts(pd.DataFrame({"a": [6 * n // 5, 4 * n // 5, n], "b": [4 * n // 5, 6 * n // 5, n]}))


def test_crash_7_survey_equivalence_huge_items_bounded():
    "Items with 10^6 labels: the default max_k bounds the curve (was MemoryError: 3.64 TiB) and the result says where it stopped."
    from humancert.survey.power_curve import MAX_K_DEFAULT
    from humancert.survey.survey_equivalence import survey_equivalence
    res = survey_equivalence(pd.Series(["a", "b", "a"]), _huge(500_000), "plurality", "agreement")
    assert len(res.curve.k) == MAX_K_DEFAULT + 1 and res.curve.max_k_cut == 999_999
    assert f"stopped at the default max_k={MAX_K_DEFAULT} of 999999 possible" in repr(res.curve)


def test_crash_7b_make_report_huge_items():
    from humancert.report.reporting import make_report
    rep = make_report(_huge(500_000), pd.Series(["a", "b", "a"]), n_bootstrap=0)
    assert rep.equivalence is not None
    assert any("the default max_k" in n and "1000000 labels" in n for n in rep.notes), rep.notes


def test_crash_7c_max_k_that_would_not_fit_is_refused():
    from humancert.survey.power_curve import power_curve
    with pytest.raises(ValueError, match=r"`max_k`=999999 would need about 100000 GB"):
        power_curve(_huge(500_000), "plurality", "agreement", max_k=999_999)


def test_crash_8_power_curve_many_labels_bounded():
    "3 items with 10^4 labels: was 75 s and 9.9 GB; the default max_k stops the curve at MAX_K_DEFAULT (well under a second)."
    from humancert.survey.power_curve import power_curve, MAX_K_DEFAULT
    pc = power_curve(_huge(5_000), "plurality", "agreement")
    assert len(pc.k) == MAX_K_DEFAULT + 1 and pc.max_k_cut == 9_999
    full = power_curve(_huge(5_000), "plurality", "agreement", max_k=MAX_K_DEFAULT)   # the same curve when asked for
    np.testing.assert_array_equal(pc.values, full.values)


# ---------------------------------------------------------------- unclear errors

def _ann6():
    return Annotations.from_wide(pd.DataFrame({"a": list("xyxyxy"), "b": list("xxyyxy"), "c": list("xyyyxx")}))


def test_unclear_1_spa_string_weights():
    with pytest.raises(TypeError, match="`weights`"):
        spa(_ann6(), ["a"] * 6)


def test_unclear_2_spa_weights_index_matching_no_item():
    with pytest.raises(ValueError, match=r"`weights`.*(index|item)"):
        spa(_ann6(), pd.Series(np.ones(6), index=[f"z{i}" for i in range(6)]))


def test_unclear_3_make_report_without_any_strict_majority():
    from humancert.report.reporting import make_report
    ann = Annotations.from_wide(pd.DataFrame({"a": list("xyxy"), "b": list("yxyx")}))
    rep = make_report(ann, pd.Series(list("xxyy")), n_bootstrap=0)
    assert rep.certificate is None and any("majority" in n for n in rep.notes)
    assert rep.agreement is not None


def _ls_twice():
    return [ls_task(1, [(1, choice("Pos")), (1, choice("Neg")), (2, choice("Pos"))]),
            ls_task(2, [(1, choice("Neg")), (2, choice("Neg"))])]


def test_unclear_4_label_studio_answer_twice_advice_works():
    with pytest.raises(ValueError, match="duplicates") as e:
        read_label_studio(_ls_twice())
    assert "duplicates='first'" in str(e.value)
    ls = read_label_studio(_ls_twice(), duplicates="first")                   # the advice is a parameter it takes
    assert ls.annotations.n_labels.sum() == 4


def test_unclear_5_cli_label_studio_twice_advice_is_an_option(tmp_path):
    p = tmp_path / "ls.json"
    p.write_text(json.dumps(_ls_twice()))
    res = cli("report", p, "--format", "label-studio")
    assert res.returncode == 2
    assert "duplicates=" not in res.stderr and "--duplicates" in first_line(res)
    assert cli("report", p, "--format", "label-studio", "--duplicates", "first").returncode == 0


@pytest.mark.parametrize("content", ["item,a,b\n1,x,y\n", '{"version": 1, "settings": {"a": 2}}', '[{"id": 1, "annotations": [{"id'])
def test_unclear_6_cli_label_studio_bad_input_names_INPUT(tmp_path, content):
    p = tmp_path / ("x.csv" if content.startswith("item") else "x.json")
    p.write_text(content)
    res = cli("report", p, "--format", "label-studio")
    assert res.returncode == 2
    assert "INPUT" in first_line(res) and "`src`" not in res.stderr


def test_unclear_7_cli_model_with_leftover_probability_column(tmp_path):
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.choice(["neg", "pos"], (20, 3)), columns=["a", "b", "c"])
    df["model"] = rng.choice(["neg", "pos"], 20)
    df["p_pos"] = rng.random(20)
    p = tmp_path / "w.csv"
    df.to_csv(p, index_label="item")
    res = cli("report", p, "--model", "model")
    assert res.returncode == 2
    assert "p_pos" in first_line(res) and "annotator" in first_line(res)


# ---------------------------------------------------------------- faults

def _long_table(n_items, seed):
    rng = np.random.default_rng(seed)
    ann = rng.integers(0, 40, (n_items, 7))                                    # 7 of 40 annotators per item (repeats dropped)
    long = pd.DataFrame({"item": np.repeat(np.arange(n_items), 7), "annotator": ann.ravel(),
                         "label": rng.choice(["a", "b", "c"], n_items * 7, p=[0.5, 0.3, 0.2])})
    return long.drop_duplicates(["item", "annotator"])


def test_fault_per_annotator_sums_do_not_depend_on_row_order():
    "The per-annotator 'agreement with the others' is the same float whatever the row order and the number of threads."
    from humancert.agreement.at_scale import annotator_agreement_from_table
    long = _long_table(30_000, 0)
    rng = np.random.default_rng(1)
    runs = [annotator_agreement_from_table(long.iloc[rng.permutation(len(long))].reset_index(drop=True), threads=t)
            for t in (1, 4, 4)]
    for r in runs[1:]:
        pd.testing.assert_frame_equal(r.per_annotator, runs[0].per_annotator, check_exact=True)


def _numbers(stdout):
    "The report's lines up to its notes (the notes say how the table was read), sorted: annotators with as many labels come in id order out of core, in order of appearance in memory."
    return sorted(stdout.split("\nNotes")[0].splitlines())


@pytest.mark.parametrize("yes, no", [("yes", "no"), ("true", "false")])
def test_fault_boolean_looking_labels_same_in_both_paths(tmp_path, yes, no):
    "yes/no (or true/false) labels and model, rows in random order: --out-of-core and in memory print the same numbers."
    rng = np.random.default_rng(5)
    n = 120
    truth = rng.integers(0, 2, n)
    long = pd.DataFrame({"item": np.repeat(np.arange(n), 5), "annotator": np.tile(list("abcde"), n)})
    right = rng.random(len(long)) < 0.8
    long["label"] = np.where(np.where(right, truth[long["item"]], 1 - truth[long["item"]]) == 1, yes, no)
    long["model"] = np.where(truth[long["item"]] == 1, yes, no)
    p = tmp_path / "long.csv"
    long.iloc[rng.permutation(len(long))].to_csv(p, index=False)
    args = ("report", p, "--format", "long", "--model", "model", "--n-bootstrap", 20)
    mem, ooc = cli(*args), cli(*args, "--out-of-core")
    assert mem.returncode == 0 and ooc.returncode == 0, (mem.stderr, ooc.stderr)
    assert f"classes                      2" in mem.stdout
    assert _numbers(mem.stdout) == _numbers(ooc.stdout)
    assert any(l.strip().startswith("L_N") for l in _numbers(mem.stdout))



def test_fault_small_memory_limit_spills(mid_table):
    "At 40MB (was: OutOfMemoryException with two threads) DuckDB runs with fewer threads and spills: the report is made."
    res = cli("report", mid_table[0], "--format", "long", "--out-of-core", "--memory-limit", "40MB", "--quiet")
    assert res.returncode == 0, res.stderr


def test_fault_too_small_memory_limit_is_a_clear_error(mid_table):
    res = cli("report", mid_table[0], "--format", "long", "--out-of-core", "--memory-limit", "10MB", "--quiet")
    assert res.returncode == 2 and "--memory-limit" in first_line(res) and "Traceback" not in res.stderr, res.stderr
