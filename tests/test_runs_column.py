"""--runs COLUMN (issue 45 item 2 in the report): in a long INPUT the judge has one row per item and run, its run id in a column;
the 'Repeated runs' block then equals judge_consistency on those runs, and equals the block of the file form (--runs FILE with
the same runs); the other sections use the judge's first run, or with --runs-as majority the majority of its runs.

A small made-up study: 60 items x 4 annotators (binary), one judge 'llm' run 3 times (one run missing on one item)."""

import numpy as np
import pandas as pd
import pytest

import humancert as h
from report_run import command as run


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    "The long table with the judge's rows (run id in 'epoch'), the humans' rows alone, the runs as items x runs, and their file."
    d = tmp_path_factory.mktemp("runs")
    rng = np.random.default_rng(5)
    n, items = 60, [f"i{j:02d}" for j in range(60)]
    truth = rng.integers(0, 2, n)
    hum = pd.DataFrame([(items[i], f"a{a}", ["neg", "pos"][truth[i] if rng.random() < 0.8 else 1 - truth[i]]) for i in range(n) for a in range(4)],
                       columns=["item", "annotator", "label"])
    base = np.where(rng.random(n) < 0.85, truth, 1 - truth)
    runs = pd.DataFrame({f"e{r}": np.where(rng.random(n) < 0.2, 1 - base, base) for r in (1, 2, 3)}, index=pd.Index(items, name="item"))
    runs = runs.replace({0: "neg", 1: "pos"}).astype(object)
    runs.iloc[3, 2] = np.nan                                          # item i03 has no third run
    judge = pd.DataFrame([(i, "llm", v, r) for r in runs.columns for i, v in runs[r].dropna().items()], columns=["item", "annotator", "label", "epoch"])
    pd.concat([hum, judge]).sample(frac=1, random_state=0).to_csv(d / "long_runs.csv", index=False)   # rows in any order
    hum.to_csv(d / "long_h.csv", index=False)
    runs.to_csv(d / "runs.csv")
    runs["e1"].rename("label").to_csv(d / "llm.csv")                  # the file form's --model: the first run, named llm
    return d, runs


def report_text(*argv):
    "The report's text (no --out: the PNGs would cost a second), its title line left out."
    code, out, err = run("report", *argv, "--format", "long", "--n-bootstrap", "0")
    assert code == 0, err
    return out.split("\n", 1)[1]


def body(text):
    "The text without its Notes (they name how INPUT was read), one space between words, the file names made one."
    text = text.split("\nNotes")[0] + text.split("\nNotes")[1].split("\n\n", 1)[-1]
    return " ".join(text.replace("long_runs.csv", "long_h.csv").split())


def test_column_block_is_judge_consistency(study):
    "The runs read from the judge's rows are the test's items x runs, and the block prints judge_consistency's numbers on them (on integ: --runs epoch is no file, refused)."
    d, runs = study
    from humancert.report.cli import _runs_column_case
    case = _runs_column_case(d / "long_runs.csv", "long", None, "annotator", "label", None, None, "label", None, None, "epoch")
    pd.testing.assert_frame_equal(case.runs, runs, check_names=False, check_dtype=False)
    assert (case.model_name, case.ann.n_items, case.ann.n_annotators) == ("llm", 60, 4)
    c = h.judge_consistency(runs)
    text = " ".join(report_text(d / "long_runs.csv", "--model", "label", "--runs", "epoch").split())
    assert f"Repeated runs of judge 'llm' (3 runs, {c.n_items} items with two or more; confidence 0.95)" in text, text
    assert f"flip rate {c.flip_rate:.4f} [{c.flip_ci[0]:.4f}, {c.flip_ci[1]:.4f}] (Clopper-Pearson); {c.flips} of {c.n_items} items" in text
    assert f"{c.percent:.4f} [{c.percent_ci[0]:.4f}, {c.percent_ci[1]:.4f}]" in text


def test_file_and_column_forms_agree(study):
    "The same runs as a file (with the first run as --model) and as rows of INPUT: the same report but for its notes."
    d, runs = study
    col = report_text(d / "long_runs.csv", "--model", "label", "--runs", "epoch")
    fil = report_text(d / "long_h.csv", "--model", d / "llm.csv", "--runs", d / "runs.csv")
    assert body(col) == body(fil) and "Repeated runs of judge 'llm'" in col
    assert "--runs-as first" in " ".join(col.split()) and "--runs-as" not in fil


def majority_by_hand(runs):
    "Each item's most frequent label over its runs; a tie goes to the label of the earliest run among the tied."
    out = {}
    for i, row in runs.iterrows():
        v = row.dropna().tolist()
        best = max(v.count(x) for x in v)
        out[i] = next(x for x in v if v.count(x) == best)
    return pd.Series(out, name="label")


def test_runs_as_majority_is_the_majority_judge(study, tmp_path):
    "--runs-as majority: the other sections describe the majority of the runs (by hand), as a --model file of those labels would."
    d, runs = study
    maj = majority_by_hand(runs)
    assert (maj != runs["e1"]).sum() > 0                               # the choice matters on this data
    maj.rename_axis("item").to_csv(tmp_path / "llm.csv")
    col = report_text(d / "long_runs.csv", "--model", "label", "--runs", "epoch", "--runs-as", "majority")
    fil = report_text(d / "long_h.csv", "--model", tmp_path / "llm.csv", "--runs", d / "runs.csv")
    assert body(col) == body(fil)
    assert body(col) != body(report_text(d / "long_runs.csv", "--model", "label", "--runs", "epoch"))   # not the first run's report
    assert "--runs-as majority): the majority-of-3-runs judge" in " ".join(col.split())


@pytest.mark.parametrize("extra, words", [
    (("--format", "wide"), "a column of run ids is read from a long INPUT"),
    (("--runs", "run_id"), "--runs: 'run_id' is neither a file nor a column of INPUT"),
    (("--runs-as", "last"), "--runs-as must be one of first, majority"),
])
def test_bad_runs_column_is_one_line(study, extra, words):
    d, _ = study
    argv = ["report", d / "long_runs.csv", "--model", "label", "--runs", "epoch", "--format", "long", *extra]
    code, out, err = run(*argv)
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


def test_two_labels_in_one_run_are_refused(study, tmp_path):
    d, _ = study
    df = pd.read_csv(d / "long_runs.csv")
    df.loc[df["epoch"].notna(), "epoch"] = "e1"                        # every run called e1: items get two labels in one run
    df.to_csv(tmp_path / "clash.csv", index=False)
    code, out, err = run("report", tmp_path / "clash.csv", "--format", "long", "--model", "label", "--runs", "epoch")
    assert code == 2 and "more than one label in column 'label'; give one label per item and run" in err, err


def test_runs_as_needs_runs(study):
    d, _ = study
    code, out, err = run("report", d / "long_h.csv", "--format", "long", "--model", d / "llm.csv", "--runs-as", "first")
    assert code == 2 and "--runs-as applies to --runs" in err, err
