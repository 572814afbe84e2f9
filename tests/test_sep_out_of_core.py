"""--sep with --out-of-core (issue 44 item 6): INPUT is split at --sep by DuckDB's read_csv (its header check too), so a ';' or
tab CSV, and a glob of ';' CSVs, give the report.json of the same labels read in memory with --sep; `report_from_table(sep=)`
checks the delimiter as the CLI does. Before this change the pair was refused.

A small made-up long table (90 items x 4 annotators, binary labels, a judge column); each command runs in this process.
"""
import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("duckdb")
from humancert import report_from_table
from report_run import command as run


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    "The same long table as a ';' CSV, a tab-separated .csv and three ';' CSVs of disjoint items (a glob); labels hold a comma."
    d = tmp_path_factory.mktemp("sep")
    rng = np.random.default_rng(7)
    n, truth = 90, rng.integers(0, 2, 90)
    judge = np.where(rng.random(n) < 0.85, truth, 1 - truth)
    names = np.array(["no, not toxic", "toxic"], dtype=object)        # a comma inside a label: only a ';' or tab split keeps it whole
    rows = [(i, f"a{a}", names[truth[i] if rng.random() < 0.8 else 1 - truth[i]], names[judge[i]]) for i in range(n) for a in range(4)]
    df = pd.DataFrame(rows, columns=["item", "annotator", "label", "model"])
    df.to_csv(d / "semi.csv", sep=";", index=False); df.to_csv(d / "tabs.csv", sep="\t", index=False)
    (d / "parts").mkdir()
    for j, part in enumerate(np.array_split(np.arange(n), 3)): df[df["item"].isin(part)].to_csv(d / "parts" / f"p{j}.csv", sep=";", index=False)
    return d


_DONE = {}

def report_json(files, name, src, sep, *extra):
    "report.json of `humancert report SRC --format long --model model --sep SEP EXTRA` written to a folder of its own."
    out = files / name
    if name in _DONE: return _DONE[name]
    code, _, err = run("report", src, "--format", "long", "--model", "model", "--n-bootstrap", "20", "--sep", sep, "--out", out, "--force", "--quiet", *extra)
    assert code == 0, err
    _DONE[name] = json.loads((out / "report.json").read_text())
    return _DONE[name]


def same(a, b, path="report"):
    "Equal JSON, floats to 1e-12 relative (DuckDB sums in another order), the free-text notes left out (they name the path taken)."
    if isinstance(a, dict):
        assert set(a) == set(b), (path, set(a) ^ set(b))
        for k in a:
            if k != "notes": same(a[k], b[k], f"{path}/{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)): same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float): assert b == pytest.approx(a, rel=1e-12, abs=1e-15, nan_ok=True), path
    else: assert a == b, (path, a, b)


@pytest.mark.parametrize("name, sep", [("semi.csv", ";"), ("tabs.csv", "\\t")])
def test_out_of_core_with_sep_gives_the_in_memory_report(files, name, sep):
    "A ';' and a tab CSV reduced by DuckDB with --sep give the in-memory report.json (on integ: the pair is refused, exit 2)."
    want = report_json(files, f"mem-{name}", files / name, sep)
    got = report_json(files, f"ooc-{name}", files / name, sep, "--out-of-core")
    assert (got["data"]["items"], got["data"]["classes"], got["data"]["labels"]) == (90, 2, 360)   # made so in the fixture
    same(want, got)
    assert any("reduced where it lives" in n for n in got["notes"])


def test_a_glob_of_semicolon_csvs_with_sep(files):
    "Three ';' CSVs of disjoint items as a quoted glob, out of core with --sep, give the in-memory report of the whole table."
    want = report_json(files, "mem-semi.csv", files / "semi.csv", ";")      # run once in the test above
    got = report_json(files, "ooc-glob", files / "parts" / "p*.csv", ";", "--out-of-core")
    glob, whole = str(files / "parts" / "p*.csv"), str(files / "semi.csv")
    same(want, json.loads(json.dumps(got).replace(f"'{glob}'", whole).replace(glob, whole)))   # the texts name INPUT (quoted if a glob)


def test_report_from_table_takes_sep(files):
    "Python: report_from_table(sep='\\t') on the tab file counts the fixture's 90 items, 4 annotators, 360 labels and 2 classes."
    rep = report_from_table(str(files / "tabs.csv"), model="model", n_bootstrap=20, sep="\t")
    assert (rep.shape["items"], rep.shape["annotators"], rep.shape["labels"], rep.shape["classes"]) == (90, 4, 360, 2)


@pytest.mark.parametrize("bad, err", [(";;", ValueError), ("", ValueError), ('"', ValueError), ("\n", ValueError), (59, TypeError)])
def test_report_from_table_checks_sep(files, bad, err):
    "A delimiter that is not one character (or a quote, a line break, not a string) is refused naming `sep`, before any read."
    with pytest.raises(err, match="`sep` must be"):
        report_from_table(str(files / "semi.csv"), model="model", sep=bad)


def test_bad_sep_out_of_core_is_one_line_naming_sep(files):
    "On the command line the same check names --sep, exit 2, one line."
    code, out, err = run("report", files / "semi.csv", "--format", "long", "--out-of-core", "--sep", ";;")
    assert code == 2 and err.startswith("humancert: error: --sep must be one character") and len(err.strip().splitlines()) == 1, err
