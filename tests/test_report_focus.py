"""Several judges (issue 44 item 6): the report says which judge its single-judge sections describe and `--focus NAME`
picks another; judges.csv carries each judge's verdict; the verdict's order does not hinge on S's fourth decimal.

The judges are TweetEval-Annotated's LLM and a copy of it with 20 % of its labels moved to the next class (seed 3). The
certificate of the judge in focus is checked against `certify` called on that judge's labels.
"""
import contextlib
import io
import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from humancert.certification.certify import certify
from humancert.data.datasets import load
from humancert.report.cli import main
from humancert.report.sections import _verdict_order


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("focus")
    tw = load("tweeteval")
    w = tw.annotations.to_wide()
    llm = tw.predictions["llm"].reindex(w.index)
    cls = list(tw.annotations.classes)
    flip = np.random.default_rng(3).random(len(w)) < 0.2
    noisy = llm.copy()
    noisy[flip] = [cls[(cls.index(v) + 1) % len(cls)] for v in llm[flip]]
    w.assign(llm=llm, noisy=noisy).to_csv(tmp / "labels.csv", index_label="item")
    return SimpleNamespace(dir=tmp, ann=tw.annotations, llm=llm, noisy=noisy)


def run(files, *extra):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["report", str(files.dir / "labels.csv"), "--model", "llm,noisy", "--n-bootstrap", "0", *extra])
    return code, out.getvalue(), err.getvalue()


def certificate_line(text):
    return next(l for l in text.splitlines() if l.startswith("Agreement-only certificate (confidence"))


def test_the_top_says_which_judge_and_how_to_focus(files):
    code, out, err = run(files)
    assert (code, err) == (0, "")
    top = out.split("\n\nData\n")[0]                                   # the verdict table and its notes open the report
    assert "focus: the sections after this table" in top and "describe judge 'llm'" in top and "--focus NAME" in top.replace("\n    ", " ")
    assert "judge 'llm'" in certificate_line(out)


def test_focus_picks_the_judge_of_the_sections(files):
    code, out, err = run(files, "--focus", "noisy")
    assert (code, err) == (0, "")
    assert "describe judge 'noisy'" in out.split("\n\nData\n")[0].replace("\n    ", " ")
    assert "judge 'noisy'" in certificate_line(out)
    s = certify(files.ann, files.noisy.to_numpy(dtype=object)).score                 # the certificate of the judge in focus
    verdict = out.split(certificate_line(out))[1].splitlines()[1]
    assert f"S = {s:.4f} " in out.split(certificate_line(out))[1].split("\n\n")[0].replace("\n      ", " "), verdict
    code, out2, _ = run(files, "--focus", "llm")
    assert out2 == run(files)[1]                                       # the first judge is the default


def test_focus_errors_name_the_option(files):
    code, out, err = run(files, "--focus", "gpt")
    assert code == 2 and err.startswith("humancert: error: --focus: 'gpt' is not one of the judges (llm, noisy)"), err


def test_judges_csv_has_the_verdict_and_words(files, tmp_path):
    code, out, err = run(files, "--alt-test", "0.2", "--out", str(tmp_path / "rep"))
    assert (code, err) == (0, "")
    csv = pd.read_csv(tmp_path / "rep" / "judges.csv", index_col=0)
    assert list(csv.columns)[0] == "verdict" and set(csv["verdict"]) <= {"CERTIFIED (agreement only)", "NOT SHOWN (agreement only)"}
    table = out.split("Judges (ranked by verdict")[1].split("\n  - ")[0]
    for judge, verdict in csv["verdict"].items():                      # the verdict the printed table gives each judge
        assert any(l.startswith(f"  {judge} ") and l.endswith(verdict) for l in table.splitlines()), (judge, verdict)
    assert set(csv["SEQ bound"]) <= {"exact", "less than", "more than"}, csv["SEQ bound"]   # no "'=" for a spreadsheet


def stub(S, certified):
    t = pd.DataFrame({"certified": certified, "S": S}, index=["first", "second", "third"])
    return SimpleNamespace(gold=None, gold_judges=None, judge_name=None, judges=SimpleNamespace(table=t))


def test_verdict_order_ignores_the_fourth_decimal():
    "S 0.1231 and 0.1233 (0.0002 apart) are tied: the board's order decides; 0.0022 apart, S decides; certified judges first."
    assert list(_verdict_order(stub([0.1231, 0.1233, 0.5], [False] * 3))) == ["third", "first", "second"]
    assert list(_verdict_order(stub([0.1231, 0.1253, 0.5], [False] * 3))) == ["third", "second", "first"]
    assert list(_verdict_order(stub([0.96, 0.9601, math.nan], [False, True, False]))) == ["second", "first", "third"]
