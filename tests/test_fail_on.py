"""`--fail-on` (issue 44 item 4): a finding ends the command with exit code 3, distinct from bad input (2) and an internal
error (1); on `gold-status` the finding is `not-certified`. The exit codes are documented in the command's --help."""
import contextlib
import io
import subprocess

import numpy as np
import pandas as pd
import pytest

from humancert.data.datasets import load
from humancert.report.cli import main
from report_run import COMMAND


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    "TweetEval (bundled) as files: the labels with the LLM as a column; 100 and 1,500 gold labels in one random order."
    tmp = tmp_path_factory.mktemp("gate")
    tw = load("tweeteval")
    tw.annotations.to_wide().assign(llm=tw.predictions["llm"]).to_csv(tmp / "labels.csv", index_label="item")
    order = np.random.default_rng(0).permutation(tw.annotations.n_items)
    gold = tw.extra["gold"].iloc[order].rename("gold").rename_axis("item")
    gold.iloc[:100].to_csv(tmp / "gold_100.csv")
    gold.iloc[:1500].to_csv(tmp / "gold_1500.csv")
    return tmp


def status(files, gold, *more):
    "humancert gold-status in-process: (exit code, stdout, stderr)."
    out, err = io.StringIO(), io.StringIO()
    args = ["gold-status", str(files / "labels.csv"), "--model", "llm", "--gold", str(files / gold), "--reps", "50", *more]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_not_certified_is_exit_3_with_the_status_printed(files):
    code, out, err = status(files, "gold_100.csv", "--fail-on", "not-certified")
    assert code == 3 and err == ""
    assert "Not certified yet." in out and out.rstrip().splitlines()[-1].startswith("Finding: not-certified")
    code0, out0, _ = status(files, "gold_100.csv")                           # without --fail-on: the same status, exit 0
    assert code0 == 0 and "Finding" not in out0


def test_certified_is_exit_0(files):
    code, out, err = status(files, "gold_1500.csv", "--fail-on", "not-certified")
    assert code == 0 and "Certified: stop labelling" in out and "Finding" not in out


def test_no_gold_yet_is_a_finding(files):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["gold-status", str(files / "labels.csv"), "--model", "llm", "--order", "3", "--fail-on", "not-certified"])
    assert code == 3 and "no gold labels yet" in out.getvalue()


@pytest.mark.parametrize("value, message", [("certified", "--fail-on must be one of not-certified for this command, got 'certified'"),
                                            ("not-passed", "'not-passed' is a finding of another command")])
def test_unknown_finding_is_bad_input(files, value, message):
    code, out, err = status(files, "gold_100.csv", "--fail-on", value)
    assert code == 2 and out == "" and message in err.splitlines()[0]


def test_the_console_script_exits_3(files):
    # the installed command's exit status, as a CI runner sees it
    args = ["gold-status", str(files / "labels.csv"), "--model", "llm", "--gold", str(files / "gold_100.csv"), "--reps", "50",
            "--fail-on", "not-certified"]
    assert subprocess.run([*COMMAND, *args], capture_output=True, text=True).returncode == 3


def test_internal_error_is_still_1(files, monkeypatch):
    import humancert.certification.gold_sequence as gs
    monkeypatch.setattr(gs.GoldSequence, "update", lambda *a, **k: 1 / 0)
    code, out, err = status(files, "gold_100.csv", "--fail-on", "not-certified")
    assert code == 1 and "unexpected error" in err


def test_help_documents_the_exit_codes():
    out = io.StringIO()
    with contextlib.redirect_stdout(out): assert main(["gold-status", "--help"]) == 0
    text = " ".join(out.getvalue().split())
    assert "--fail-on" in text and "exit code 3 when the model is not certified" in text
    assert "0 done, 2 bad input, 1 internal error" in text
