"""The command's outputs, byte for byte, against files kept in tests/golden/ (issue 44 item 7: the report part was split into
rooms with the same outputs; these keep them the same through later changes, which must update the files on purpose).

Three small cases: one judge with the alternative annotator test on the running example (the printed text, report.md,
report.json, report.html with its embedded figures masked, and the judges' CSVs), ratings on CEBaB (the printed text), and
`gold-status` on TweetEval-Annotated with 600 gold labels (the printed status). Only the version is masked (and in
report.html the base64 figures, whose bytes depend on matplotlib and its fonts). After a deliberate change of an output,
rewrite the files with `HUMANCERT_UPDATE_GOLDEN=1 pytest tests/test_report_golden.py` and review the diff.
"""
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from humancert import __version__
from humancert.data.datasets import load
from report_run import command as run

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("HUMANCERT_UPDATE_GOLDEN") == "1"


@pytest.fixture(autouse=True)
def no_terminal_width(monkeypatch):
    "The text at its width without a terminal (100), whatever COLUMNS the shell running the tests exports."
    monkeypatch.delenv("COLUMNS", raising=False)


def masked(name, text):
    "The output with the version (and in HTML the base64 figures) replaced by placeholders."
    text = text.replace(f"humancert {__version__}", "humancert VERSION").replace(f'"humancert_version": "{__version__}"', '"humancert_version": "VERSION"')
    if name.endswith(".html"): text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "data:image/png;base64,FIGURE", text)
    return text


def check(case, name, text):
    "Compare with tests/golden/CASE/NAME byte for byte (or write it, when updating)."
    path = GOLDEN / case / name
    text = masked(name, text)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        return
    assert path.is_file(), f"{path} is missing; write it with HUMANCERT_UPDATE_GOLDEN=1"
    want = path.read_bytes().decode("utf-8")
    if text != want:
        a, b = want.splitlines(), text.splitlines()
        i = next((j for j, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        pytest.fail(f"{case}/{name} differs from the golden file first at line {i + 1}:\n  golden: {a[i] if i < len(a) else '<end>'!r}\n"
                    f"  now:    {b[i] if i < len(b) else '<end>'!r}")


def test_golden_one_judge_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run("report", "--dataset", "running_example", "--model", "hard", "--alt-test", "0.2", "--n-bootstrap", "20", "--out", "rep")
    assert (code, err) == (0, "")
    check("running_example_alt", "stdout.txt", out)
    names = sorted(p.name for p in (tmp_path / "rep").iterdir())
    assert names == sorted(["report.md", "report.json", "report.html", "judges.csv", "judges_per_annotator.csv", "disagreements_hard.csv",
                            "bounds_vs_annotators.png", "confidence_vs_margin.png", "power_curve.png", "judges.png"]), names
    for n in names:
        if not n.endswith(".png"): check("running_example_alt", n, (tmp_path / "rep" / n).read_bytes().decode("utf-8"))


def test_golden_ratings_text():
    code, out, err = run("report", "--dataset", "cebab", "--model", "tfidf_ridge", "--n-bootstrap", "10")
    assert (code, err) == (0, "")
    check("cebab_ratings", "stdout.txt", out)


def test_golden_gold_status(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tw = load("tweeteval")
    tw.annotations.to_wide().assign(llm=tw.predictions["llm"]).to_csv("labels.csv", index_label="item")
    gold = tw.extra["gold"].dropna()
    gold.sample(frac=1, random_state=1).iloc[:600].rename("gold").rename_axis("item").to_csv("gold.csv")
    code, out, err = run("gold-status", "labels.csv", "--model", "llm", "--gold", "gold.csv", "--reps", "20")
    assert (code, err) == (0, "")
    check("gold_status", "stdout.txt", out)
