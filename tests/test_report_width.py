"""The printed report fits the terminal (issue 44 item 6): no line wider than the terminal's width, 100 where there is none.

Before, a report of several judges printed lines of several hundred characters (the verdict table's rows, the certificate's
comments, the assumptions). Here a report of three judges with the alternative annotator test and gold labels, written
to a folder, is printed at the width COLUMNS gives and at the default of 100 (COLUMNS unset; the output is a pipe, no
terminal), and every line is counted. A judge whose labels are long sentences puts them in the disagreements table: they
go below the table as notes, not into its rows.
"""
import contextlib
import io

import pandas as pd
import pytest

from humancert.data.datasets import load
from humancert.report.cli import main

LONG = "neither: the tweet is ambiguous and no single emoji fits it"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("width")
    tw = load("tweeteval")
    w = tw.annotations.to_wide()
    llm = tw.predictions["llm"].reindex(w.index)
    wordy = llm.copy()
    wordy.iloc[:100] = LONG                                                 # a judge that answers the first 100 items with a sentence
    w.assign(llm=llm, author=tw.extra["gold"].reindex(w.index), wordy=wordy).to_csv(tmp / "labels.csv", index_label="item")
    gold = tw.extra["gold"].dropna().sample(frac=1, random_state=1).iloc[:600]
    gold.rename("gold").rename_axis("item").to_csv(tmp / "gold.csv")
    return tmp


def run(files, columns, monkeypatch, *extra):
    "The printed report of three judges, in this process (its output is no terminal), at the width COLUMNS gives (None: unset)."
    if columns is None: monkeypatch.delenv("COLUMNS", raising=False)
    else: monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.chdir(files)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["report", "labels.csv", "--model", "llm,author,wordy", "--alt-test", "0.2", "--gold", "gold.csv", "--n-bootstrap", "10", *extra])
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize("columns", [None, 80])
def test_no_line_wider_than_the_terminal(files, columns, monkeypatch):
    out = run(files, columns, monkeypatch, "--out", f"rep{columns}", "--force")
    width = 100 if columns is None else columns
    lines = out.splitlines()
    assert len(lines) > 150 and "Judges (ranked by verdict" in out and "Wrote " in out
    long = [l for l in lines if len(l) > width]
    assert not long, f"{len(long)} line(s) over {width} characters, e.g. {long[0]!r}"
    assert max(map(len, lines)) > width - 10                          # the width is used, not a narrower one
    if columns is None:                                               # a judge's long label: a note below its table, not in a row
        block = out.split("Judge 'wordy': items where it disagrees with a clear human majority")[1].split("\n\n")[0]
        rows = block.splitlines()[1:]
        assert not any(LONG in r for r in rows if not r.lstrip().startswith("[")), block
        assert any(r.startswith("  [1] ") and LONG in r for r in rows), block
        assert "  [1]" in "\n".join(rows[:7])                          # the marker in its row
