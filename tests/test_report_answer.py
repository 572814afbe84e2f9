"""A one-judge report answers its question first: 'is this judge better than the average annotator?', in text, markdown,
HTML (opened in headless Chromium) and report.json, with the verdict taken by a rule fixed before the data (the gold
certificate when gold labels are given, else the agreement-only certificate). The verdicts are checked against
certify_with_gold and certify called directly, on TweetEval with gold labels on a random 30 % of the items."""
import json
import re

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from browser import chromium_or_skip, dump_dom
from humancert.certification.certify import certify
from humancert.certification.gold_certificate import certify_with_gold
from humancert.data.annotations import Annotations
from humancert.data.datasets import load
from humancert.report.reporting import add_gold, make_report
from report_run import run

HEAD = "Answer: is judge 'llm' better than the average annotator? (confidence 0.95)"


@pytest.fixture(scope="module")
def tweeteval(tmp_path_factory):
    "TweetEval as a wide file: the annotators, the llm's labels, gold labels on a random 30 % of items (seed 1); and the gold Series."
    d = load("tweeteval")
    w = d.annotations.to_wide()
    keep = np.random.default_rng(1).random(len(w)) < 0.3
    gold = pd.Series(d.extra["gold"]).reindex(w.index)[keep]
    w["llm"] = pd.Series(d.predictions["llm"]).reindex(w.index).to_numpy()
    w["gold"] = pd.Series(gold, dtype=object).reindex(w.index).to_numpy()
    path = tmp_path_factory.mktemp("tw") / "tw.csv"
    w.to_csv(path, index_label="item")
    humans = w.drop(columns=["llm", "gold"])                     # as the command reads the file: classes in sorted order
    ann = Annotations.from_wide(humans, labels=sorted(pd.unique(humans.to_numpy().ravel())))   # (the randomised sign test's draw depends on it)
    return path, SimpleNamespace(annotations=ann, predictions={"llm": pd.Series(w["llm"].to_numpy(dtype=object), index=w.index)}), gold


def first_heads(out):
    "(first section heading of the text, of report.md, of report.html, report.json) of a report folder and its printed text."
    text = out["text"].splitlines()
    md = [l[3:] for l in (out["dir"] / "report.md").read_text().splitlines() if l.startswith("## ")]
    html = re.findall(r"<h2>(.*?)</h2>", (out["dir"] / "report.html").read_text())
    return text[2], md[0], html[0].replace("&#x27;", "'"), json.loads((out["dir"] / "report.json").read_text())


def report_dir(tmp_path, *args):
    code, text = run(*args, "--out", str(tmp_path / "rep"), "--n-bootstrap", "20")
    assert code == 0, text
    return {"text": text, "dir": tmp_path / "rep"}


def test_gold_decides_when_given(tweeteval, tmp_path):
    path, d, gold = tweeteval
    g = certify_with_gold(d.annotations, d.predictions["llm"], gold, delta=0.05)     # the library, called directly
    c = certify(d.annotations, d.predictions["llm"], delta=0.05)
    assert (g.certified, c.certified) == (True, False)                                # the case of the brief: they disagree
    out = report_dir(tmp_path, str(path), "--model", "llm", "--gold", "gold")
    text, md, html, js = first_heads(out)
    assert text == md == html == HEAD                                                 # the Answer first, in every form
    verdict = out["text"].splitlines()[3]
    assert "CERTIFIED" in verdict and "NOT" not in verdict and "by the gold certificate" in verdict and f"S = {g.score:.4f}" in verdict
    assert list(js)[0] == "answer"
    a = js["answer"]
    assert (a["verdict"], a["by"], a["certified"], a["judge"], a["confidence"]) == ("CERTIFIED", "gold certificate", True, "llm", 0.95)
    assert a["S"] == pytest.approx(g.score, abs=1e-12)
    ev = {e["name"]: e for e in a["evidence"]}
    assert set(ev) == {"gold certificate", "agreement-only certificate", "survey equivalence"}
    assert "not the verdict" in ev["agreement-only certificate"]["says"] and ev["agreement-only certificate"]["value"] == f"S = {c.score:.4f}"
    assert "gold certificate is the verdict when gold labels are given" in a["rule"]


def test_agreement_decides_without_gold(tweeteval, tmp_path):
    path, d, _ = tweeteval
    c = certify(d.annotations, d.predictions["llm"], delta=0.05)
    out = report_dir(tmp_path, str(path), "--model", "llm")
    text, md, html, js = first_heads(out)
    assert text == md == html == HEAD
    assert js["answer"]["verdict"] == "NOT SHOWN" and js["answer"]["by"] == "agreement-only certificate"
    assert js["answer"]["S"] == pytest.approx(c.score, abs=1e-12) and js["answer"]["certified"] is False
    assert "this is not evidence that it is worse" in out["text"].splitlines()[3]


def test_no_model_no_answer(tweeteval, tmp_path):
    path, _, _ = tweeteval
    w = pd.read_csv(path).drop(columns=["llm", "gold"])
    humans = tmp_path / "humans.csv"
    w.to_csv(humans, index=False)
    code, text = run(str(humans), "--out", str(tmp_path / "rep0"))
    assert code == 0
    assert "Answer" not in text and text.splitlines()[2] == "Data"
    assert "## Answer" not in (tmp_path / "rep0" / "report.md").read_text()
    assert "<h2>Answer" not in (tmp_path / "rep0" / "report.html").read_text()
    assert "answer" not in json.loads((tmp_path / "rep0" / "report.json").read_text())


def test_soft_model_answer_first():
    d = load("running_example")
    rep = make_report(d.annotations, soft_model=d.predictions["calibrated"], n_bootstrap=0)
    c = certify(d.annotations, (d.predictions["calibrated"]["pos"] > 0.5).map({True: "pos", False: "neg"}))
    first = rep.to_text().splitlines()[2:4]
    assert first[0] == "Answer: is the model better than the average annotator? (confidence 0.95)"
    assert first[1].split()[1] == ("CERTIFIED" if c.certified else "NOT")
    assert rep.to_dict()["answer"]["S"] == pytest.approx(c.score, abs=1e-12)


def test_answer_first_screen_in_browser(tweeteval, tmp_path):
    chromium = chromium_or_skip("the Answer block of report.html")
    path, _, _ = tweeteval
    out = report_dir(tmp_path, str(path), "--model", "llm", "--gold", "gold")
    dom = dump_dom(chromium, out["dir"] / "report.html", tmp_path / "profile")
    h2 = re.findall(r"<h2>(.*?)</h2>", dom)
    assert h2[0].replace("&#x27;", "'") == HEAD
    first_table = dom.split("<h2>", 2)[1]
    assert "CERTIFIED" in first_table and "by the gold certificate" in first_table


def test_several_judges_verdict_follows_gold(tweeteval):
    _, d, gold = tweeteval
    judges = pd.DataFrame({"llm": d.predictions["llm"], "majority": d.annotations.to_wide().mode(axis=1)[0]})
    rep = make_report(d.annotations, d.predictions["llm"], judges=judges, n_bootstrap=0)
    rep = add_gold(rep, d.annotations, d.predictions["llm"], gold, judges=judges)
    lines = rep.to_text().splitlines()
    assert lines[2].startswith("Judges (ranked by") and "Answer" not in rep.to_text()     # several judges: the verdict table, no Answer
    want = {j: ("CERTIFIED" if certify_with_gold(d.annotations, judges[j], gold, delta=0.05).certified else "NOT SHOWN") + " (gold)"
            for j in judges}
    table = "\n".join(lines[3:6])
    for j, v in want.items():
        row = next(l for l in lines[3:6] if l.split()[0] == j)
        assert v in row, (j, v, table)
    assert any("by one rule fixed before the data: the gold certificate is the verdict when gold labels are given" in l for l in lines[:12])


def test_one_judge_with_alt_test_keeps_its_name(tweeteval, tmp_path):
    "--model llm --alt-test: the Answer, the board and report.json name judge 'llm' (the board named it 'model' before)."
    path, _, _ = tweeteval
    out = report_dir(tmp_path, str(path), "--model", "llm", "--alt-test", "0.1")
    text, md, html, js = first_heads(out)
    assert text == md == html == HEAD and js["answer"]["judge"] == "llm"
    lines = out["text"].splitlines()
    board = lines[lines.index(next(l for l in lines if l.startswith("Judges (ranked"))) + 2]
    assert board.split()[0] == "llm", board
