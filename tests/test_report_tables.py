"""No table of the report has a column that is empty on every row (issue 35's report fix: the Data block had an empty third
column in report.md and report.html), checked on the files a user opens, for a dataset with a model and one without."""
import json
import pickle
import re

import numpy as np
import pandas as pd
import pytest

from humancert.data.datasets import load
from humancert.report.reporting import make_report


def _md_tables(md):
    "Each markdown table of the file as a list of rows of stripped cells (header and alignment lines left out)."
    tables, cur = [], []
    for line in md.splitlines() + [""]:
        if line.startswith("|"): cur.append([c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]])
        elif cur: tables.append(cur[2:]); cur = []
    return tables


def _html_tables(html):
    "Each HTML table's body rows as lists of cell texts (th and td)."
    return [[re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)]
            for body in re.findall(r"<tbody>(.*?)</tbody>", html, flags=re.S)]


def _empty_columns(tables):
    "(table number, column) of every column with no text in any row."
    out = []
    for t, rows in enumerate(tables):
        width = {len(r) for r in rows}
        assert len(width) == 1, f"table {t} has rows of {width} cells"
        out += [(t, j) for j in range(width.pop()) if not any(r[j] for r in rows)]
    return out


@pytest.mark.parametrize("name, with_model", [("running_example", True), ("running_example", False)])
def test_no_empty_column(tmp_path, name, with_model):
    ds = load(name)
    model = ds.predictions[next(iter(ds.predictions))] if with_model else None
    rep = make_report(ds.annotations, model, n_bootstrap=10, title=name)
    rep.save(tmp_path)
    md, html = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    assert "## Data" in md and "<h2>Data</h2>" in html
    assert _empty_columns(_md_tables(md)) == []
    assert _empty_columns(_html_tables(html)) == []
    assert "| items | 1000 |" in md                              # the Data block: label and value, nothing after them
    assert '<tr><th>items</th><td class="n">1000</td></tr>' in html


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_parameters_line_names_the_level(tmp_path, confidence):
    "The top line of report.md and report.html gives the level as confidence (issue 33's one name), not as delta; report.json keeps both."
    ds = load("running_example")
    rep = make_report(ds.annotations, ds.predictions["hard"], n_bootstrap=0, confidence=confidence, title="running_example")
    rep.save(tmp_path)
    md, html = (tmp_path / "report.md").read_text(), (tmp_path / "report.html").read_text()
    top = md.splitlines()[2]
    assert top.startswith("humancert ") and "parameters:" in top
    assert f"`confidence={confidence}`" in top and "delta" not in top
    para = re.search(r"<p>humancert [^<]*; parameters: (.*?)</p>", html).group(1)
    assert f"<code>confidence={confidence}</code>" in para and "delta" not in para
    params = json.loads((tmp_path / "report.json").read_text())["parameters"]
    assert (params["confidence"], params["delta"]) == (confidence, round(1 - confidence, 12))
    assert rep.confidence == confidence


def test_margins_on_first_read_and_after_pickle():
    "The margin curve is computed when first read (the text report does not show it), equals the certificate's own sweep, and a report pickles before and after."
    ds = load("running_example")
    rep = make_report(ds.annotations, ds.predictions["hard"], n_bootstrap=0)
    again = pickle.loads(pickle.dumps(rep))                             # before the margins were read
    c = rep.certificate
    want = c.confidence_at(np.linspace(0, max(c.margin, 0) * 1.1 if c.margin > 0 else 0.05, 23))
    pd.testing.assert_frame_equal(again.margins, want)
    pd.testing.assert_frame_equal(rep.margins, want)
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(rep)).margins, want)   # and after


def test_a_long_value_does_not_pad_its_block():
    "The survey block's 'items behind c_k' value (hundreds of characters) ran on from the column start; it used to pad every number of its block to its width."
    from humancert.report.reporting import _to_text, dataset_case
    ann, hard, soft, notes = dataset_case("personal_attacks")
    text = _to_text(make_report(ann, hard, soft_model=soft, seed=0))
    block = text.split("Survey equivalence")[1].split("\n\n")[0].splitlines()[1:]
    numbers = [l for l in block if not l.lstrip().startswith("items behind")]
    assert numbers and not any(" " * 40 in l for l in numbers), numbers          # no row padded out to the long value's width
    assert max(len(l) for l in block) > 200                            # the long value is still there, whole
