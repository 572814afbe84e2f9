"""Issue 44 item 5: one default score per level everywhere, and the score named in every output that shows an alt-test verdict.

alt_test used to default to 'accuracy' whatever the level, while compare_judges and `humancert report` default to 'neg_mae' for
numeric ratings; now score=None means the same rule in all three. The board's repr and the report's text, markdown and HTML
name the score beside epsilon and q."""
import contextlib
import io

import numpy as np
import pandas as pd

from humancert.data.annotations import Annotations
from humancert.judges.alt_test import alt_test
from humancert.judges.board import compare_judges
from humancert.report.cli import main


def _ratings(n=80, seed=0):
    "Four raters on a 1-5 scale (truth + noise, clipped) and a judge that is off by one on about half the items."
    rng = np.random.default_rng(seed)
    t = rng.integers(1, 6, n)
    wide = pd.DataFrame({r: np.clip(t + rng.integers(-1, 2, n), 1, 5) for r in "abcd"})
    judge = pd.Series(np.clip(t + rng.choice([-1, 0, 1], n, p=[0.25, 0.5, 0.25]), 1, 5), name="llm")
    return wide, judge


def test_alt_test_default_score_follows_the_level():
    "Before: score='accuracy' at every level."
    wide, judge = _ratings()
    ordinal = Annotations.from_wide(wide, level="ordinal")
    res = alt_test(ordinal, judge, 0.1, min_items_per_annotator=20)
    want = alt_test(ordinal, judge, 0.1, score="neg_mae", min_items_per_annotator=20)
    assert res.score == "neg_mae"
    assert (res.winning_rate, res.advantage_probability) == (want.winning_rate, want.advantage_probability)
    assert "score='neg_mae'" in repr(res)
    board = compare_judges(ordinal, judge.to_frame(), epsilon=0.1, n_bootstrap=0, min_items_per_annotator=20)
    assert board.alt["llm"].score == res.score                           # one rule: the board's default is alt_test's
    assert alt_test(Annotations.from_wide(wide), judge, 0.1, min_items_per_annotator=20).score == "accuracy"   # nominal: accuracy
    text_judge = judge.astype(object).where(judge != 3, "three")
    assert alt_test(ordinal.with_level("nominal"), text_judge, 0.1, min_items_per_annotator=20).score == "accuracy"


def test_board_repr_names_the_score():
    "Before: at the nominal level the repr showed epsilon and q but not the score."
    wide, judge = _ratings()
    board = compare_judges(Annotations.from_wide(wide), judge.to_frame(), epsilon=0.1, n_bootstrap=0, min_items_per_annotator=20)
    assert "epsilon=0.100, q=0.050, score=accuracy, " in repr(board).splitlines()[0]
    ordinal = compare_judges(Annotations.from_wide(wide, level="ordinal"), judge.to_frame(), epsilon=0.1, n_bootstrap=0,
                             min_items_per_annotator=20)
    assert "epsilon=0.100, q=0.050, score=neg_mae, level=ordinal, SEQ mean + neg_mae, " in repr(ordinal).splitlines()[0]


def test_report_names_the_score(tmp_path):
    "Before: the text, markdown and HTML said 'epsilon 0.1, FDR q = 0.05' without the score."
    wide, judge = _ratings()
    wide.assign(llm=judge).rename_axis("item").to_csv(tmp_path / "r.csv")
    for level, score in (("nominal", "accuracy"), ("interval", "neg_mae")):
        out, err = io.StringIO(), io.StringIO()
        args = ["report", str(tmp_path / "r.csv"), "--model", "llm", "--alt-test", "0.1", "--min-items", "20", "--n-bootstrap", "0",
                "--level", level, "--out", str(tmp_path / level)]
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(args)
        assert code == 0, err.getvalue()
        for text in (out.getvalue(), (tmp_path / level / "report.md").read_text(), (tmp_path / level / "report.html").read_text()):
            assert f"epsilon 0.1, FDR q = 0.05, score {score}, winning rate" in text
            assert f"alternative annotator test at epsilon = 0.1, q = 0.05, score {score})" in text
