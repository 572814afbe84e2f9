"""The judges' report as a user sees it: report.html opened offline in headless Chromium (every figure decoded, the verdict
table listing every judge in the true order), a screenshot, and every number of the verdict table, report.json and the CSVs
checked against the library's functions called directly (alt_test, certify_with_gold) or against hand counts."""
import base64
import json
import re
import subprocess

import numpy as np
import pandas as pd
import pytest

from browser import chromium_or_skip
from humancert.certification.gold_certificate import certify_with_gold
from humancert.data.annotations import Annotations
from humancert.data.datasets import load
from humancert.judges.alt_test import alt_test
from humancert.report.reporting import add_gold, make_report

ACCURACIES = (0.92, 0.85, 0.78, 0.70, 0.60)          # the judges' true oracle accuracies, best first


def simulated_panel(seed=0, n_items=600, annotators=(0.75,) * 5, judges=ACCURACIES, classes=("a", "b", "c")):
    "Five annotators and five judges of known oracle accuracy (errors uniform over the other classes), with the oracle labels."
    rng = np.random.default_rng(seed)
    C = len(classes)
    truth = rng.integers(0, C, n_items)

    def rater(acc):
        wrong = (truth + rng.integers(1, C, n_items)) % C
        return np.where(rng.random(n_items) < acc, truth, wrong)

    cls = np.asarray(classes, dtype=object)
    wide = pd.DataFrame({f"h{k}": cls[rater(a)] for k, a in enumerate(annotators)}, index=pd.RangeIndex(n_items, name="item"))
    judges = pd.DataFrame({f"judge_{int(round(a * 100))}": cls[rater(a)] for a in judges}, index=wide.index)
    return Annotations.from_wide(wide, labels=list(classes)), judges, pd.Series(cls[truth], index=wide.index, name="gold")


@pytest.fixture(scope="module")
def panel_report(tmp_path_factory):
    "The simulated five-judge panel's report (alt-test at 0.1, gold labels on every item), written to a folder."
    ann, judges, gold = simulated_panel()
    rep = make_report(ann, judges.iloc[:, 0], judges=judges, alt_test=0.1, n_bootstrap=20, title="simulated panel")
    rep = add_gold(rep, ann, judges.iloc[:, 0], gold)
    out = tmp_path_factory.mktemp("panel") / "rep"
    paths = rep.save(out)
    return ann, judges, gold, rep, out, paths


def _tables(html):
    "Every <table> of a page as a list of rows, each a list of cell texts (tags stripped)."
    cell = lambda s: re.sub(r"<[^>]+>", "", s).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").strip()
    return [[[cell(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)] for row in re.findall(r"<tr>(.*?)</tr>", t, re.S)]
            for t in re.findall(r"<table>(.*?)</table>", html, re.S)]


_PROBE = """<script>
window.addEventListener("load", () => {
  const imgs = [...document.images];
  document.body.setAttribute("data-images", imgs.length);
  document.body.setAttribute("data-loaded", imgs.filter(i => i.complete && i.naturalWidth > 0).length);
});
</script></body>"""


def _chromium(chromium, args, profile):
    "Run headless Chromium with every network request refused (a page that needs the network fails to load what it needs)."
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
           f"--user-data-dir={profile}", *args]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    return res.stdout


def test_html_is_self_contained(panel_report):
    "No address to fetch, no script; every figure inside the page, byte for byte the PNG written beside it."
    *_, out, paths = panel_report
    page = (out / "report.html").read_text(encoding="utf-8")
    assert not re.search(r"(src|href)=\"(?!data:)", page) and "<script" not in page and "http" not in page.lower()
    pngs = sorted(p.name for p in paths if p.suffix == ".png")
    assert pngs == ["bounds_vs_annotators.png", "confidence_vs_margin.png", "judges.png", "power_curve.png"]
    inline = [base64.b64decode(b) for b in re.findall(r'src="data:image/png;base64,([^"]+)"', page)]
    assert sorted(inline) == sorted((out / n).read_bytes() for n in pngs)


def test_html_loads_offline_in_chromium(panel_report, tmp_path):
    "Opened with the network refused, every figure decodes and the verdict table lists every judge, in the true order."
    chromium = chromium_or_skip("report.html")
    *_, out, _ = panel_report
    probe = tmp_path / "probe.html"                     # a copy with a probe script; the report itself has none
    probe.write_text((out / "report.html").read_text(encoding="utf-8").replace("</body>", _PROBE), encoding="utf-8")
    dom = _chromium(chromium, ["--virtual-time-budget=3000", "--dump-dom", probe.as_uri()], tmp_path / "profile")
    assert 'data-images="4"' in dom and 'data-loaded="4"' in dom, re.findall(r'data-\w+="\d+"', dom)
    verdict = _tables(dom)[0]
    assert verdict[0][0] == "judge" and [r[0] for r in verdict[1:]] == [f"judge_{int(round(a * 100))}" for a in ACCURACIES]


def test_missing_figure_is_caught(panel_report, tmp_path):
    "The offline check can fail: a figure whose data is cut loads 3 of 4."
    chromium = chromium_or_skip("report.html")
    *_, out, _ = panel_report
    page = (out / "report.html").read_text(encoding="utf-8")
    page = re.sub(r'src="data:image/png;base64,[^"]{40}', 'src="data:image/png;base64,AAAA', page, count=1)
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("</body>", _PROBE), encoding="utf-8")
    dom = _chromium(chromium, ["--virtual-time-budget=3000", "--dump-dom", probe.as_uri()], tmp_path / "profile")
    assert 'data-images="4"' in dom and 'data-loaded="3"' in dom


def test_verdict_numbers_against_direct_calls(panel_report):
    "Every verdict number of every judge against alt_test, certify_with_gold and hand counts; the ranking is the true one."
    ann, judges, gold, rep, out, _ = panel_report
    verdict = _tables((out / "report.html").read_text(encoding="utf-8"))[0]
    head, rows = verdict[0], {r[0]: dict(zip(verdict[0], r)) for r in verdict[1:]}
    assert list(rows) == list(judges.columns)                        # the true order: accuracy 0.92 first
    H = ann.to_wide().to_numpy(dtype=object)                          # every item has 5 labels
    pair = np.mean([(H[:, a] == H[:, b]).mean() for a in range(5) for b in range(5) if a != b])
    for name in judges.columns:
        r, direct = rows[name], alt_test(ann, judges[name], epsilon=0.1)
        assert r["alt-test (epsilon 0.1)"] == ("passed" if direct.passed else "not passed")
        assert r["winning rate"] == f"{direct.winning_rate:.2f}"
        assert r["advantage probability"].startswith(f"{direct.advantage_probability:.3f} [")
        assert r["agreement with the humans"].startswith(f"{(H == judges[name].to_numpy()[:, None]).mean():.3f} [")
        assert r["humans with each other"].startswith(f"{pair:.3f} [")
        g = certify_with_gold(ann, judges[name], gold)
        assert r["gold certificate"] == f"{'certified' if g.certified else 'not certified'} (S = {g.score:.4f})"
    assert [h for h in head if h.startswith("SEQ")] == ["SEQ (plurality + agreement)"]


def test_json_and_csvs_carry_every_judge(panel_report):
    "report.json's numbers under each judge's name, judges.csv, judges_per_annotator.csv and the disagreements, against direct calls."
    ann, judges, gold, rep, out, _ = panel_report
    d = json.loads((out / "report.json").read_text())["judges"]["by_judge"]
    csv = pd.read_csv(out / "judges.csv", index_col="judge")
    per = pd.read_csv(out / "judges_per_annotator.csv")
    H = ann.to_wide()
    majority = H.apply(lambda r: r.value_counts().idxmax() if r.value_counts().max() > 2 else None, axis=1)   # 5 labels: > 2.5
    for name in judges.columns:
        direct = alt_test(ann, judges[name], epsilon=0.1)
        assert d[name]["advantage probability"] == pytest.approx(direct.advantage_probability, abs=1e-12)
        assert csv.loc[name, "advantage probability"] == pytest.approx(direct.advantage_probability, abs=1e-12)
        mine = per[per["judge"] == name].set_index("annotator")["p-value"]
        assert np.allclose(mine.loc[direct.table.index].to_numpy(), direct.table["p_value"].to_numpy(), rtol=1e-12, atol=0)
        hand = pd.crosstab(majority.dropna(), judges[name][majority.notna()])
        conf = pd.DataFrame(d[name]["confusion_majority"]).T                     # JSON: reference -> judge -> count
        assert (conf.loc[hand.index, hand.columns].to_numpy() == hand.to_numpy()).all()
        wrong = pd.read_csv(out / f"disagreements_{name}.csv")
        assert len(wrong) == int((majority.notna() & (majority != judges[name])).sum())
        assert wrong["majority share"].is_monotonic_decreasing
        gold_conf = pd.DataFrame(d[name]["confusion_gold"]).T
        assert np.trace(gold_conf.loc[list("abc"), list("abc")].to_numpy()) == int((judges[name] == gold).sum())
        tol = d[name]["tolerance"]["smallest_epsilon_passed"]
        if tol is not None:
            assert alt_test(ann, judges[name], epsilon=tol).passed
            if tol > 0: assert not alt_test(ann, judges[name], epsilon=round(tol - 0.05, 2)).passed


def test_screenshot_of_tweeteval_judges(tmp_path):
    "TweetEval's LLM and the author's emoji as judges, with gold: the page renders (a screenshot that is not blank) and names both."
    chromium = chromium_or_skip("report.html")
    tw = load("tweeteval")
    both = pd.DataFrame({"llm": tw.predictions["llm"], "author": tw.extra["gold"]})
    rep = make_report(tw.annotations, tw.predictions["llm"], judges=both, alt_test=0.2, n_bootstrap=0, title="tweeteval")
    rep = add_gold(rep, tw.annotations, tw.predictions["llm"], tw.extra["gold"])
    rep.save(tmp_path / "rep")
    shot = tmp_path / "shot.png"
    _chromium(chromium, ["--window-size=1400,1600", "--hide-scrollbars", f"--screenshot={shot}", (tmp_path / "rep" / "report.html").as_uri()],
              tmp_path / "profile")
    import matplotlib.image as mpimg
    img = mpimg.imread(shot)
    assert img.shape[0] >= 1000 and img.shape[1] >= 1000 and img[..., :3].std() > 0.05   # text and tables, not a blank page
    verdict = _tables((tmp_path / "rep" / "report.html").read_text(encoding="utf-8"))[0]
    certs = {j: certify_with_gold(tw.annotations, both[j], tw.extra["gold"]) for j in both}   # the verdicts, called directly
    assert list(rep.judges.table.index) == list(both)                   # the board's order (agreement) is the tie-break below
    s = {j: certs[j].score for j in both}
    tied = certs["llm"].certified == certs["author"].certified and abs(s["llm"] - s["author"]) <= 0.001   # S within 0.001: a tie
    want = list(both) if tied else sorted(both, key=lambda j: (not certs[j].certified, -s[j]))   # certified first, then S; ties: the board's
    assert [r[0] for r in verdict[1:]] == want
    g = certs["llm"]
    row = next(r for r in verdict[1:] if r[0] == "llm")
    assert row[-1] == f"{'certified' if g.certified else 'not certified'} (S = {g.score:.4f})"


def test_repr_html_is_a_table():
    "In a notebook a report shows as tables, not a one-line repr."
    ann, judges, _ = simulated_panel(n_items=200)
    rep = make_report(ann, judges=judges, alt_test=0.1, n_bootstrap=0)
    h = rep._repr_html_()
    assert h.count("<table>") >= 5 and all(n in _tables(h)[0][i + 1][0] for i, n in enumerate(rep.judges.table.index))


def test_several_judges_without_gold_say_what_to_run(panel_report):
    "Several judges and no gold labels: the certificate section says why agreement alone rarely certifies and names the planner's study; with gold it does not."
    ann, judges, gold, rep, out, _ = panel_report
    no_gold = make_report(ann, judges.iloc[:, 0], judges=judges, alt_test=0.1, n_bootstrap=0)
    text = no_gold.to_text()
    cert = text.split("\nAgreement-only certificate (confidence 0.95, delta = 0.05; judge 'judge_92'")[1].split("\n\n")[0]
    assert "Agreement alone rarely certifies a judge" in cert and "random gold items" in cert and "plan_gold_study" in cert and "gold-status" in cert
    assert "Agreement alone rarely certifies" not in rep.to_text()                 # gold given: the gold certificate answers
    for head in [l for l in text.splitlines() if l.startswith(("Agreement-only certificate", "Survey equivalence", "Annotators"))]:
        assert "judge 'judge_92'" in head                                          # never silently the first judge's
