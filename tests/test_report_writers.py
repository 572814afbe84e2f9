"""Issue 42 item 6 groups 9 and 17, and item 8's report.html mutation: what the report writes from names and labels it
did not choose. Judges whose names differ only in characters a file name cannot hold each get their own disagreements
file; report.md shows markup and line breaks from the data as text (as report.html does), report.html escapes its table
cells and section headings, and the CSVs a spreadsheet may open hold no formula."""
import hashlib
import json
import re

import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.report.reporting import make_report

BAD = "<b>j|1\nx"          # a judge name with markup, a pipe and a line break
FORMULA = "=HYPERLINK(\"http://x\")"


def _panel(judge_names, seed=0, n=200):
    "Four annotators and one judge per name (each right 80 % of the time, wrong otherwise), on two classes."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 2, n)
    flip = lambda acc: np.where(rng.random(n) < acc, truth, 1 - truth)
    cls = np.array(["neg", "pos"], dtype=object)
    wide = pd.DataFrame({f"h{k}": cls[flip(0.8)] for k in range(4)}, index=pd.RangeIndex(n, name="item"))
    judges = pd.DataFrame({name: cls[flip(0.8)] for name in judge_names}, index=wide.index)
    return Annotations.from_wide(wide, labels=["neg", "pos"]), judges


def _saved(tmp_path, names, **kw):
    ann, judges = _panel(names)
    rep = make_report(ann, judges.iloc[:, 0], judges=judges, n_bootstrap=0, **kw)
    out = tmp_path / "rep"
    rep.save(out)
    return judges, out


def _disagreements(ann_wide, judge):
    "Items where the judge differs from the annotators' strict majority (the rows of its disagreements file), counted by hand."
    pos = (ann_wide == "pos").sum(axis=1)
    maj = pd.Series(np.where(pos > 2, "pos", np.where(pos < 2, "neg", None)), index=ann_wide.index)
    return int((maj.notna() & (maj != judge)).sum())


@pytest.mark.filterwarnings("ignore:Glyph")
@pytest.mark.parametrize("names", [("gpt 4", "gpt_4"), ("日本", "中文"), ("a/b", "a:b", "a b")])
def test_judges_equal_once_sanitised_get_their_own_files(tmp_path, names):
    "Group 9: today's code writes one disagreements_gpt_4.csv for both judges; each judge's file must hold its own disagreements."
    ann, judges = _panel(names)
    rep = make_report(ann, judges.iloc[:, 0], judges=judges, n_bootstrap=0)
    out = tmp_path / "rep"
    written = [p.name for p in rep.save(out)]
    files = sorted(n for n in written if n.startswith("disagreements_"))
    assert len(files) == len(names)
    wide = ann.to_wide()
    by_file = {}
    for name in names:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name)
        f = f"disagreements_{safe}.csv" if safe == name else f"disagreements_{safe}-{hashlib.sha1(name.encode()).hexdigest()[:8]}.csv"
        assert (out / f).is_file(), (f, files)
        assert len(pd.read_csv(out / f)) == _disagreements(wide, judges[name])
        by_file[name] = f
    assert len(set(by_file.values())) == len(names)
    by_json = json.loads((out / "report.json").read_text())["judges"]["by_judge"]
    assert {n: by_json[n]["disagreements_file"] for n in names} == by_file


def test_report_md_code_spans_shown_as_they_are():
    "A command in backticks (the next step names INPUT) keeps & as it is: inside a code span an entity would show as typed."
    ann, judges = _panel(["j1", "j2"])
    md = make_report(ann, judges.iloc[:, 0], judges=judges, n_bootstrap=0, title="file a&b.csv").to_markdown()
    assert md.splitlines()[0] == "# humancert report: file a&amp;b.csv"
    spans = [s for s in re.findall(r"`[^`\n]*`", md) if "a&" in s]
    assert spans and all("a&b.csv" in s for s in spans), spans


def test_report_md_escapes_names(tmp_path):
    "Group 17: a judge named with markup and a line break: report.md shows the text (no <b> tag, no broken table row)."
    _, out = _saved(tmp_path, [BAD, "plain"], title="file <script>alert(1)</script>.csv")
    md = (out / "report.md").read_text()
    text = re.sub(r"`[^`]*`", "", md)                        # outside code spans (shown as they are: `<b>` is text there)
    assert "<script>" not in text and "<b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in md.splitlines()[0]
    rows = [l for l in text.splitlines() if l.startswith("| &lt;b&gt;j")]     # the judge's own rows, its name in the first cell
    assert rows, "the judge's row is missing from the markdown tables"
    assert all("&lt;b&gt;j\\|1<br>x" in l for l in rows)
    for table in re.findall(r"((?:^\|.*\n)+)", md, re.M):     # every table row has as many cells as its header
        lines = table.splitlines()
        n = len(re.split(r"(?<!\\)\|", lines[0]))
        assert all(len(re.split(r"(?<!\\)\|", l)) == n for l in lines), table


def test_report_html_escapes_cells_and_headings(tmp_path):
    "Item 8: report.html's table cells and section headings escaped: a judge named '<b>...' appears as text in both."
    _, out = _saved(tmp_path, [BAD, "plain"])
    page = (out / "report.html").read_text()
    assert "<b>" not in page
    esc = "&lt;b&gt;j|1"
    heads = re.findall(r"<h2>(.*?)</h2>", page, re.S)
    assert any(h.startswith("Judge &#x27;" + esc) for h in heads), heads   # the judge's own sections, headed by its name
    cells = re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", page, re.S)
    assert any(c.startswith(esc) for c in cells)           # its row in the verdict table


def test_judge_csvs_hold_no_formula(tmp_path):
    "Group 17: judges.csv, judges_per_annotator.csv and the disagreements files: a cell starting with = + - @ gets a leading '."
    _, out = _saved(tmp_path, [FORMULA, "-judge", "plain"], alt_test=0.1, min_items_per_annotator=30)
    csv = pd.read_csv(out / "judges.csv", index_col=0)
    assert sorted(csv.index) == sorted(["'" + FORMULA, "'-judge", "plain"])
    per = pd.read_csv(out / "judges_per_annotator.csv")
    assert set(per["judge"]) == {"'" + FORMULA, "'-judge", "plain"}
    for f in out.glob("*.csv"):
        for line in f.read_text().splitlines():
            cells = line.split(",")
            assert not any(c.startswith(("=", "+", "@")) for c in cells), (f.name, line)
            assert not any(c.startswith("-") and not re.fullmatch(r"-[\d.e+-]+", c) for c in cells), (f.name, line)
    assert np.issubdtype(csv["winning rate"].dtype, np.floating)   # numbers stay numbers
