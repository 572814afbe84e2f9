"""Issue 44's open ends: --sep on every command that reads a CSV, gold-status wrapped to the terminal's width, the report's
figures (the confidence-against-margin plot only when informative, the SEQ caption naming its curve, the judges' agreement
legend off the points), exit code 3 in the help's epilog, and --judge-field on gold-status (the command that takes --model FILE
besides report; score's judge is a column of INPUT), and --out-of-core with a judge that skipped items.

Small made-up panels (80 to 300 items, binary labels), each command run in this process through `main`.
"""
import contextlib
import json
import re

import numpy as np
import pandas as pd
import pytest

from humancert.report.cli import main
from report_run import command as run


def panel(n, k, acc, model_acc, seed=1):
    "A wide table: k annotators right with probability acc, a judge column 'llm' right with probability model_acc; and the truth."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    w = pd.DataFrame({f"a{j}": np.where(rng.random(n) < acc, truth, 1 - truth) for j in range(k)}, index=pd.Index(range(n), name="item"))
    w["llm"] = np.where(rng.random(n) < model_acc, truth, 1 - truth)
    return w, pd.Series(truth, index=w.index, name="gold")


@pytest.fixture
def files(tmp_path):
    "The same panel as a comma CSV, a semicolon CSV and a tab-separated .csv, with gold labels of the first 40 items in both separators."
    w, truth = panel(80, 5, 0.8, 0.9)
    w.to_csv(tmp_path / "comma.csv"); w.to_csv(tmp_path / "semi.csv", sep=";"); w.to_csv(tmp_path / "tabs.csv", sep="\t")
    truth.iloc[:40].to_csv(tmp_path / "gold.csv"); truth.iloc[:40].to_csv(tmp_path / "gold_semi.csv", sep=";")
    return tmp_path


def body(text):
    "The output without its first line (the title names the file)."
    return text.split("\n", 1)[1]


# --- 1. --sep -------------------------------------------------------------------------------------------------------
def test_report_reads_a_semicolon_and_a_tab_csv_with_sep(files):
    "The same labels read from ';' and tab files with --sep give the report of the comma file (on main: --sep is an unknown option)."
    code, want, err = run("report", files / "comma.csv", "--model", "llm", "--n-bootstrap", "20")
    assert code == 0, err
    for f, sep in (("semi.csv", ";"), ("tabs.csv", "\\t")):
        code, got, err = run("report", files / f, "--sep", sep, "--model", "llm", "--n-bootstrap", "20")
        assert code == 0, err
        shown = "';'" if sep == ";" else "'\\t'"                       # the suggested gold-status command passes --sep on
        assert f"{f} --sep {shown} --model llm --order S" in got, got
        assert body(got).replace(f"{f} --sep {shown}", "comma.csv") == body(want)


def test_sep_applies_to_the_gold_file_too(files):
    "--sep splits every CSV the command reads: INPUT and the --gold file (both ';'), as the comma files are read."
    code, want, err = run("gold-status", files / "comma.csv", "--model", "llm", "--gold", files / "gold.csv", "--reps", "20")
    assert code == 0, err
    code, got, err = run("gold-status", files / "semi.csv", "--sep", ";", "--model", "llm", "--gold", files / "gold_semi.csv", "--reps", "20")
    assert code == 0, err
    assert got.replace("gold_semi.csv", "gold.csv") == want


def test_score_and_doctor_take_sep(files, monkeypatch):
    "score reads a ';' file as the comma one; doctor profiles it and passes --sep ';' on in the commands it writes."
    monkeypatch.chdir(files)
    code, want, err = run("score", "comma.csv", "--judge", "llm", "--gold", "a0", "--headline", "PPI++")
    assert code == 0, err
    code, got, err = run("score", "semi.csv", "--sep", ";", "--judge", "llm", "--gold", "a0", "--headline", "PPI++")
    assert code == 0, err
    assert body(got) == body(want)
    code, out, err = run("doctor", "semi.csv", "--sep", ";")
    assert code == 0, err
    assert "annotators a0, a1, a2, a3, a4; judges llm" in out, out
    assert "humancert report semi.csv --sep ';' --model llm" in out and "humancert gold-status semi.csv --sep ';' --model llm" in out, out


@pytest.mark.parametrize("command", [("report",), ("gold-status", "--model", "llm", "--gold", "gold.csv"), ("score", "--judge", "llm", "--gold", "a0"), ("doctor",)])
@pytest.mark.parametrize("sep", ["", ";;", "\\s"])
def test_bad_sep_is_refused_naming_it(files, command, sep):
    "An empty or longer --sep (other than the typed '\\t') is refused with exit 2, one line naming --sep."
    cmd, *rest = command
    rest = [files / r if r.endswith(".csv") else r for r in rest]
    code, out, err = run(cmd, files / "semi.csv", "--sep", sep, *rest)
    assert code == 2 and err.startswith("humancert: error: --sep must be one character"), err
    assert len(err.strip().splitlines()) == 1 and out == ""


def test_semicolon_hint_names_sep(files):
    "A ';' file read without --sep: the refusal says to pass --sep ';'."
    code, out, err = run("report", files / "semi.csv", "--model", "llm")
    assert code == 2 and "pass --sep ';'" in err, err


# --sep with --out-of-core was refused here; it is now read by DuckDB at --sep: tests/test_sep_out_of_core.py.


# --- 2. gold-status wraps -------------------------------------------------------------------------------------------
def unbreakable(line):
    "A line that may pass the width: one token (no space after the indent), or a command kept whole to be copied."
    return " " not in line.strip() or line.startswith("  humancert ")


def test_gold_status_wraps_to_columns(files, monkeypatch):
    "At COLUMNS=60 every line of gold-status's output is at most 60 characters (on main the first line is over 100)."
    monkeypatch.setenv("COLUMNS", "60")
    for args in (("--gold", files / "gold.csv", "--reps", "20"), ("--order", "3", "--lead", "0.1", "--reps", "50")):
        code, out, err = run("gold-status", files / "comma.csv", "--model", "llm", *args)
        assert code == 0, err
        long = [l for l in out.splitlines() if len(l) > 60 and not unbreakable(l)]
        assert not long, long
    assert any(l.startswith("  humancert gold-status ") for l in out.splitlines())      # the command to run next, whole


def test_gold_status_width_default_100(files, monkeypatch):
    "Without COLUMNS and without a terminal, the width is 100, as the report's text."
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, err = run("gold-status", files / "comma.csv", "--model", "llm", "--gold", files / "gold.csv", "--reps", "20")
    assert code == 0, err
    assert max(len(l) for l in out.splitlines()) <= 100 and max(len(l) for l in out.splitlines()) > 60


# --- 3. figures -----------------------------------------------------------------------------------------------------
@pytest.fixture
def no_png(monkeypatch):
    "Figures drawn but not rendered to PNG (an empty file): these tests read the report's text, and rendering costs ~0.5 s a figure."
    from matplotlib.figure import Figure
    monkeypatch.setattr(Figure, "savefig", lambda self, path, **kw: open(path, "wb").close())


def report_md(tmp_path, w, name):
    "report.md of `humancert report` on the wide table w (judge 'llm') written to a folder."
    w.to_csv(tmp_path / f"{name}.csv")
    code, out, err = run("report", tmp_path / f"{name}.csv", "--model", "llm", "--n-bootstrap", "20", "--out", tmp_path / name, "--quiet")
    assert code == 0, err
    return (tmp_path / name / "report.md").read_text(), json.loads((tmp_path / name / "report.json").read_text())


def test_margin_plot_only_when_informative(tmp_path, no_png):
    "A judge far ahead of noisy annotators (S reaches the level): the plot is drawn; a coin-flip judge (S = -1 at every margin) "
    "and a judge whose S stays below 0.85 at every margin: it is not (on main it is drawn for every judge)."
    md, js = report_md(tmp_path, panel(300, 7, 0.75, 1.0)[0], "ahead")
    S = [r["S"] for r in js["confidence_by_margin"]]
    assert max(S) >= 0.95 and "](confidence_vs_margin.png)" in md
    md, js = report_md(tmp_path, panel(80, 5, 0.8, 0.5)[0], "coin")
    S = [r["S"] for r in js["confidence_by_margin"]]
    assert max(S) - min(S) < 0.01 and "confidence_vs_margin.png" not in md
    md, js = report_md(tmp_path, panel(200, 5, 0.7, 1.0)[0], "short")
    S = [r["S"] for r in js["confidence_by_margin"]]
    assert max(S) - min(S) > 0.5 and max(S) < 0.85 and "confidence_vs_margin.png" not in md
    assert not (tmp_path / "short" / "confidence_vs_margin.png").exists()


def test_seq_caption_names_its_curve(tmp_path, no_png):
    "The survey-equivalence figure's caption names the power curve it shows (combiner + scorer) and the classifier's line."
    md, _ = report_md(tmp_path, panel(80, 5, 0.8, 0.9)[0], "seq")
    cap = re.search(r"!\[([^\]]*)\]\(power_curve\.png\)", md).group(1)
    assert cap.startswith("Power curve of plurality + agreement (k raters' combined label scored against a held-out rater)"), cap


def test_judges_legend_covers_no_point():
    "The report's judges figure (axes given to JudgeBoard.plot): the agreement panel's legend box holds no plotted point."
    from matplotlib.figure import Figure
    from humancert.report.reporting import make_report
    from humancert.data.annotations import Annotations
    w, _ = panel(120, 5, 0.8, 0.9)
    rng = np.random.default_rng(2)
    judges = pd.DataFrame({"llm": w["llm"], "small": np.where(rng.random(len(w)) < 0.8, w["llm"], 1 - w["llm"])}, index=w.index)
    rep = make_report(Annotations.from_wide(w.drop(columns="llm")), judges["llm"].to_numpy(), n_bootstrap=20, judges=judges,
                      alt_test=0.2, min_items_per_annotator=30)
    fig = Figure(figsize=(3.6 * 3 + 1.6, 0.5 * 2 + 2.2), layout="constrained")
    axs = fig.subplots(1, 3, sharey=True, squeeze=False)
    rep.judges.plot(axs)
    fig.canvas.draw()
    ax = axs[0, -1]
    box = ax.get_legend().get_window_extent()
    pts = np.vstack([ax.transData.transform(np.column_stack(l.get_data())) for l in ax.lines if len(l.get_xdata())])
    assert len(pts) >= 4                                           # both judges' two points
    inside = [p for p in pts if box.contains(*p)]
    assert not inside, (box, inside)


# --- 4. exit code 3 in the help -------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [("--help",), ("report", "--help"), ("gold-status", "--help")])
def test_help_lists_exit_code_3(argv, capsys):
    "The epilog of `humancert --help` and of each command's help names exit code 3 (a finding under --fail-on) and 130."
    with contextlib.suppress(SystemExit): code = main(list(argv))
    text = re.sub(r"\s+", " ", capsys.readouterr().out)
    assert "3 a finding under --fail-on" in text and "130 interrupted" in text, text[-600:]


# --- 5. --judge-field on gold-status --------------------------------------------------------------------------------
def test_gold_status_judge_field(files):
    "A --model JSON lines file of two judges' rows (item, label, model, latency_ms): --judge-field model names them; the status is "
    "the first judge's, equal to the status read from a plain file of its labels; without --judge-field the file is refused, naming it."
    w, _ = panel(80, 5, 0.8, 0.9)
    rows = [{"item": int(i), "label": int(v), "model": j, "latency_ms": 100 + int(i)}
            for j, col in (("judge_a", w["llm"]), ("judge_b", 1 - w["llm"])) for i, v in col.items()]
    (files / "judges.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    w["llm"].rename("judge_a").to_csv(files / "judge_a.csv")
    code, want, err = run("gold-status", files / "comma.csv", "--annotators", "a0,a1,a2,a3,a4", "--model", files / "judge_a.csv",
                          "--gold", files / "gold.csv", "--reps", "20")
    assert code == 0, err
    code, got, err = run("gold-status", files / "comma.csv", "--annotators", "a0,a1,a2,a3,a4", "--model", files / "judges.jsonl",
                         "--judge-field", "model", "--gold", files / "gold.csv", "--reps", "20")
    assert code == 0, err
    assert got.splitlines()[0].startswith("--model holds 2 judges (judge_a, judge_b); this status is for the first, 'judge_a'"), got
    assert got.splitlines()[2:] == [l.replace(repr(str(files / "judge_a.csv")), "'judge_a'") for l in want.splitlines()][1:], (got, want)
    code, out, err = run("gold-status", files / "comma.csv", "--annotators", "a0,a1,a2,a3,a4", "--model", files / "judges.jsonl",
                         "--gold", files / "gold.csv", "--reps", "20")
    assert code == 2 and "--judge-field" in err, err


# --- 6. --out-of-core with a judge that skipped items ---------------------------------------------------------------
def close(a, b, path="report"):
    "Equal JSON, floats to a relative 1e-12 (the engine sums in another order)."
    if isinstance(a, dict):
        assert sorted(a) == sorted(b), path
        for k in a: close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for n, (x, y) in enumerate(zip(a, b)): close(x, y, f"{path}[{n}]")
    elif isinstance(a, float) and isinstance(b, float): assert abs(a - b) <= 1e-12 * max(abs(a), abs(b), 1e-3), (path, a, b)
    else: assert a == b, (path, a, b)


def test_out_of_core_judge_with_gaps_equals_in_memory(tmp_path, no_png):
    "A long table whose judge column is empty on 6 of 60 items: --out-of-core prints the report of the in-memory run (on main it "
    "refused it, exit 2): the same lines but the notes on how the table was read, the count of skipped items stated, and the same report.json."
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 60)
    llm = np.where(rng.random(60) < 0.9, truth, 1 - truth).astype(object)
    llm[rng.choice(60, 6, replace=False)] = None
    rows = [(i, a, int(truth[i] if rng.random() < 0.8 else 1 - truth[i]), llm[i]) for i in range(60) for a in "abcd"]
    pd.DataFrame(rows, columns=["item", "annotator", "label", "model"]).to_csv(tmp_path / "long.csv", index=False)
    args = ("report", tmp_path / "long.csv", "--format", "long", "--model", "model", "--n-bootstrap", "20")
    code, mem, err = run(*args, "--out", tmp_path / "mem")
    assert code == 0, err
    code, ooc, err = run(*args, "--out-of-core", "--out", tmp_path / "ooc")
    assert code == 0, err
    assert "'model' gave no label on 6 of 60 items" in ooc, ooc
    reading = ("  - model: ", "  - the table was reduced where it lives", "    were computed there")   # how each path read it
    keep = lambda t: [l for l in t.split("\n\nWrote ")[0].splitlines() if not l.startswith(reading)]
    assert keep(ooc) == keep(mem)
    a, b = (json.loads((tmp_path / d / "report.json").read_text()) for d in ("mem", "ooc"))
    for d in (a, b): d.pop("notes")
    close(b, a)
