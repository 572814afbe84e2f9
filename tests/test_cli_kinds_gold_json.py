"""Three leftovers of issue 42, through the command as a user runs it (in-process `main`):
group 4: `report --rater-kind` with a kind neither list names says --human-kinds/--judge-kinds (not the Python names), and
--human-kinds makes such a kind human; group 3: `gold-status` takes --annotators as `report` does (a wide file with a token
count column was refused there with no way round), and the command it suggests before any gold label runs as written;
group 2: report.json's certificate writes null, not 2S - 1 = -3, where the text says the proved confidence is none.
Expected values come from the library called directly, never from the command's own output."""
import json
import shlex

import numpy as np
import pandas as pd
import pytest

from humancert.certification.certify import certify
from humancert.certification.gold_sequence import GoldSequence
from humancert.data.annotations import Annotations
from humancert.data.panel import read_panel
from report_run import command as cli


# ---------------------------------------------------------------- group 4: --human-kinds

def _panel(other_kind, n=60, seed=0):
    "Long table: two HUMAN raters, one rater of `other_kind`, one LLM_JUDGE; n items, two classes."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    rows = []
    for rater, kind, acc in (("h1", "HUMAN", 0.85), ("h2", "HUMAN", 0.8), ("e1", other_kind, 0.9), ("gpt", "LLM_JUDGE", 0.9)):
        lab = np.where(rng.random(n) < acc, truth, 1 - truth)
        rows += [(i, rater, "ab"[l], kind) for i, l in enumerate(lab)]
    return pd.DataFrame(rows, columns=["item", "rater", "label", "kind"])


@pytest.mark.parametrize("kind", ["expert", "DECISION"])
def test_rater_kind_unknown_kind_names_the_options(tmp_path, kind):
    "Before: the message named `human_kinds` and human_kinds=[...], which the command has no option for."
    _panel(kind).to_csv(tmp_path / "panel.csv", index=False)
    base = (str(tmp_path / "panel.csv"), "--format", "long", "--annotator", "rater", "--rater-kind", "kind", "--n-bootstrap", "0")
    code, _, err = cli("report", *base)
    first = err.splitlines()[0]
    assert code == 2 and first.startswith("humancert: error: --human-kinds:"), err
    assert "human_kinds" not in first and "judge_kinds" not in first and "`" not in first, first
    k = kind.lower()
    assert (f"as humans: --human-kinds {k} (added to 'human'); or as judges: --judge-kinds llm,model,judge,llm_judge,ai_judge,code,agent,{k} "
            "(the whole list") in first, first


@pytest.mark.parametrize("spec", ["expert", "EXPERT", "human,expert"])
def test_human_kinds_makes_a_kind_human(tmp_path, spec):
    _panel("expert").to_csv(tmp_path / "panel.csv", index=False)
    base = (str(tmp_path / "panel.csv"), "--format", "long", "--annotator", "rater", "--rater-kind", "kind", "--n-bootstrap", "0")
    code, out, err = cli("report", *base, "--human-kinds", spec)
    assert code == 0, err
    want = read_panel(_panel("expert"), human_kinds=["human", "expert"])          # the library's split, called directly
    assert want.annotations.n_annotators == 3 and list(want.judges.columns) == ["gpt"]
    assert f"{want.annotations.n_annotators} human rater(s), judge(s) gpt" in out, out


def test_human_kinds_refusals(tmp_path):
    _panel("expert").to_csv(tmp_path / "panel.csv", index=False)
    base = (str(tmp_path / "panel.csv"), "--format", "long", "--annotator", "rater", "--rater-kind", "kind", "--n-bootstrap", "0")
    code, _, err = cli("report", *base, "--human-kinds", "expert", "--judge-kinds", "llm_judge,expert")   # one kind, two roles
    assert code == 2 and err.splitlines()[0] == "humancert: error: --human-kinds and --judge-kinds share ['expert']; a kind is one or the other.", err
    code, _, err = cli("report", *base[:5], "--human-kinds", "expert")             # no --rater-kind
    assert code == 2 and err.splitlines()[0] == "humancert: error: --human-kinds applies to --rater-kind; add --rater-kind COLUMN or drop it.", err


# ---------------------------------------------------------------- group 3: gold-status --annotators

@pytest.fixture
def token_files(tmp_path):
    "A wide file of 6 annotators, the model 'x,y' (a comma in its name) and a token count with 300 distinct values; gold labels for 150 items."
    rng = np.random.default_rng(1)
    n = 300
    truth = rng.integers(0, 2, n)
    wide = pd.DataFrame({f"a{j}": np.where(rng.random(n) < 0.75, truth, 1 - truth) for j in range(6)}, index=pd.RangeIndex(n, name="item"))
    model = np.where(rng.random(n) < 0.95, truth, 1 - truth)
    wide.assign(**{"x,y": model, "tokens": rng.permutation(np.arange(1000, 1300))}).to_csv(tmp_path / "labels.csv")
    gold_items = rng.permutation(n)[:150]
    pd.Series(truth[gold_items], index=pd.Index(gold_items, name="item"), name="gold").to_csv(tmp_path / "gold.csv")
    ann = Annotations.from_wide(wide)
    return tmp_path, ann, pd.Series(model, index=ann.items), pd.Series(truth[gold_items], index=gold_items), truth


def test_gold_status_takes_annotators(token_files):
    folder, ann, model, gold, _ = token_files
    base = ("gold-status", str(folder / "labels.csv"), "--model", '"x,y"', "--reps", "20")
    code, _, err = cli(*base, "--gold", str(folder / "gold.csv"))
    assert code == 2 and "--annotators" in err.splitlines()[0] and "tokens" in err.splitlines()[0], err   # refused, with the way round
    code, out, err = cli(*base, "--gold", str(folder / "gold.csv"), "--annotators", "a0,a1,a2,a3,a4,a5")
    assert code == 0, err
    seq = GoldSequence(ann, model)                                   # the library on the same labels, without the token column
    seq.update(gold, shuffle=False)
    assert out.splitlines()[1] == repr(seq.certificate), (out, repr(seq.certificate))


def test_gold_status_annotators_keeps_a_gold_column(token_files):
    folder, ann, model, gold, _ = token_files
    df = pd.read_csv(folder / "labels.csv", index_col="item").assign(oracle=gold.reindex(range(300)).astype("Int64"))
    df.to_csv(folder / "labels_gold.csv")
    code, out, err = cli("gold-status", str(folder / "labels_gold.csv"), "--model", '"x,y"', "--gold", "oracle", "--reps", "20",
                         "--annotators", "a0,a1,a2,a3,a4,a5")
    assert code == 0, err
    seq = GoldSequence(ann, model)
    seq.update(gold.sort_index(), shuffle=False)                     # a column of INPUT: the gold labels in the file's row order
    assert out.splitlines()[1] == repr(seq.certificate), out


def test_gold_status_next_command_passes_annotators_and_runs(token_files, monkeypatch):
    "Before: 'Then run this command again with --gold FILE and --order 3.', without --annotators (refused again) and without the model."
    folder, *_, truth = token_files
    monkeypatch.chdir(folder)
    code, out, err = cli("gold-status", "labels.csv", "--model", "x,y", "--order", "3", "--annotators", "a0,a1,a2,a3,a4,a5", "--tau", "0.01")
    assert code == 0, err
    line = out.splitlines()[-1]
    assert line.endswith("run: humancert gold-status labels.csv --model '\"x,y\"' --annotators a0,a1,a2,a3,a4,a5 --tau 0.01 --gold FILE --order 3"), line
    first = [int(i) for i in out.splitlines()[1].split(": ", 1)[1].removesuffix(" ...").split(", ")]   # the design's first items
    pd.Series(truth[first], index=pd.Index(first, name="item"), name="gold").to_csv("gold_order.csv")   # their gold labels
    argv = shlex.split(line.split("run: ", 1)[1])
    assert argv[:2] == ["humancert", "gold-status"]
    argv = [a if a != "FILE" else "gold_order.csv" for a in argv[2:]] + ["--reps", "20"]
    code, out, err = cli("gold-status", *argv)                       # the suggested command, as the shell splits it
    assert code == 0 and "in the order of informative_design, seed 3" in out and "claim mean D > 0.01" in out, err


# ---------------------------------------------------------------- group 2: proved_confidence in report.json

def test_report_json_proved_confidence_null_where_nothing_is_proved(tmp_path):
    "A model that contradicts the majority: S = -1, 2S - 1 = -3; report.json wrote -3 where the text says none."
    rng = np.random.default_rng(3)
    n = 200
    truth = rng.integers(0, 2, n)
    wide = pd.DataFrame({f"a{j}": np.where(rng.random(n) < 0.85, truth, 1 - truth) for j in range(5)}, index=pd.RangeIndex(n, name="item"))
    bad = 1 - (wide.mean(axis=1) > 0.5).astype(int)
    wide.assign(model=bad).to_csv(tmp_path / "labels.csv")
    c = certify(Annotations.from_wide(wide), bad.to_numpy())        # the library's certificate, called directly
    assert c.score == -1 and c.method == "optimal" and 2 * c.score - 1 == -3
    code, out, err = cli("report", str(tmp_path / "labels.csv"), "--model", "model", "--n-bootstrap", "0", "--out", str(tmp_path / "rep"))
    assert code == 0, err
    assert any(l.split()[:3] == ["proved", "confidence", "none"] for l in out.splitlines()), out
    cert = json.loads((tmp_path / "rep" / "report.json").read_text())["certificate"]
    assert cert["proved_confidence"] is None and cert["score"] == -1, cert["proved_confidence"]
    assert cert["proved_confidence_note"] == "2S - 1 <= 0: nothing is proved"


def test_report_json_proved_confidence_where_something_is_proved(tmp_path):
    rng = np.random.default_rng(4)
    n = 400
    truth = rng.integers(0, 2, n)
    wide = pd.DataFrame({f"a{j}": np.where(rng.random(n) < 0.75, truth, 1 - truth) for j in range(5)}, index=pd.RangeIndex(n, name="item"))
    model = (wide.mean(axis=1) > 0.5).astype(int)                     # the majority itself: S near 1
    wide.assign(model=model).to_csv(tmp_path / "labels.csv")
    c = certify(Annotations.from_wide(wide), model.to_numpy())
    assert c.method == "optimal" and c.score > 0.5
    code, _, err = cli("report", str(tmp_path / "labels.csv"), "--model", "model", "--n-bootstrap", "0", "--out", str(tmp_path / "rep"))
    assert code == 0, err
    cert = json.loads((tmp_path / "rep" / "report.json").read_text())["certificate"]
    assert cert["proved_confidence"] == pytest.approx(2 * c.score - 1, abs=1e-12)
    assert cert["proved_confidence_note"].startswith("2S - 1: the split is chosen from the data")


# ---------------------------------------------------------------- --runs with --rater-kind

def _runs_panel(n=60, seed=3):
    "Long table of three HUMAN raters (no run id) and the LLM_JUDGE 'gpt' run twice (run ids r1, r2: one row per item and run)."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    rows = []
    for rater, kind, acc, run in (("h1", "HUMAN", 0.85, None), ("h2", "HUMAN", 0.8, None), ("h3", "HUMAN", 0.8, None),
                                  ("gpt", "LLM_JUDGE", 0.9, "r1"), ("gpt", "LLM_JUDGE", 0.9, "r2")):
        lab = np.where(rng.random(n) < acc, truth, 1 - truth)
        rows += [(i, rater, "ab"[l], kind, run) for i, l in enumerate(lab)]
    return pd.DataFrame(rows, columns=["item", "rater", "label", "kind", "run"])


def _flip_line(c):
    "The block's flip-rate numbers as the text form prints them, from a JudgeConsistency called directly."
    return f"flip rate             {c.flip_rate:.4f}  [{c.flip_ci[0]:.4f}, {c.flip_ci[1]:.4f}] (Clopper-Pearson); {c.flips} of {c.n_items} items"


def test_rater_kind_with_runs_column_is_refused_in_one_line(tmp_path):
    "Before: --runs COLUMN with --rater-kind said `--label: judge 'gpt' gives item I labels ['a', 'b']` (the runs read as duplicate labels)."
    _runs_panel().to_csv(tmp_path / "panel.csv", index=False)
    code, out, err = cli("report", tmp_path / "panel.csv", "--format", "long", "--annotator", "rater", "--rater-kind", "kind", "--runs", "run")
    assert (code, out, len(err.splitlines())) == (2, "", 1), err
    assert err == ("humancert: error: --runs run: with --rater-kind give the judge's runs as a FILE (item ids, one column per run); for a column of "
                   "run ids drop --rater-kind and name the judge's label column with --model (rows without a run id are the humans').\n"), err


def test_rater_kind_with_runs_file_and_the_suggested_column_form(tmp_path):
    "Before: --runs FILE with --rater-kind asked for --model, which --rater-kind refuses. Both ways the message offers give judge_consistency's block."
    from humancert.judges.consistency import judge_consistency
    df = _runs_panel()
    runs = df[df.rater == "gpt"].pivot(index="item", columns="run", values="label")
    runs.to_csv(tmp_path / "runs.csv")
    df.drop_duplicates(["item", "rater"]).drop(columns="run").to_csv(tmp_path / "panel1.csv", index=False)   # the judge's first run as its labels
    df.to_csv(tmp_path / "panel.csv", index=False)
    c = judge_consistency(runs.rename_axis(None, axis=1).rename(columns=str))                  # the library, called directly
    want = _flip_line(c)
    assert 0 < c.flips < c.n_items                                                              # the runs disagree on some items: a block with something to show
    code, out, err = cli("report", tmp_path / "panel1.csv", "--format", "long", "--annotator", "rater", "--rater-kind", "kind",
                         "--n-bootstrap", "0", "--runs", tmp_path / "runs.csv", "--runs-as", "majority")
    assert code == 0, err
    assert "Repeated runs of judge 'gpt' (2 runs, 60 items" in out and want in out, out
    assert "judge 'gpt' in the other sections (--runs-as majority)" in " ".join(out.split()), out
    code, out2, err = cli("report", tmp_path / "panel.csv", "--format", "long", "--annotator", "rater", "--model", "label",
                          "--n-bootstrap", "0", "--runs", "run")                                # the column form, without --rater-kind
    assert code == 0 and want in out2, err or out2
