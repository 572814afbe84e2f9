"""Readers of data as users have it (issue 33, item 1): a JSONL file of judge outputs, a nested-JSON panel and a long frame
with rater kinds (MLflow, Phoenix shapes), each read in one call and shown to give the same numbers as the wide path (one
column per rater, built independently of the reader); and the bad input of each, refused with an error naming the
argument. The expected numbers are the wide path's and the krippendorff package's, never read off the reader's output."""
import gzip
import json

import duckdb
import krippendorff
import numpy as np
import pandas as pd
import pytest

from humancert.agreement.measures import krippendorff_alpha
from humancert.data.annotations import Annotations
from humancert.data.panel import read_panel
from humancert.judges.alt_test import alt_test
from humancert.judges.board import compare_judges
import humancert.data.tables as tables

HUMANS, JUDGES = [f"h{k}" for k in range(5)], ["gpt", "claude"]


@pytest.fixture(scope="module")
def wide():
    "A panel as a wide table: 120 items, 5 humans (about 80 % right, 15 % of cells empty), 2 judges (one skips 10 %)."
    rng = np.random.default_rng(20261126)
    truth = rng.choice(["neg", "pos", "neu"], 120)
    other = {"neg": "pos", "pos": "neu", "neu": "neg"}
    def rater(acc, skip):
        lab = np.array([t if r < acc else other[t] for t, r in zip(truth, rng.random(120))], dtype=object)
        lab[rng.random(120) < skip] = None
        return lab
    cols = {h: rater(0.8, 0.15) for h in HUMANS} | {"gpt": rater(0.85, 0.0), "claude": rater(0.7, 0.1)}
    return pd.DataFrame(cols, index=pd.Index([f"q{i:03d}" for i in range(120)], name="item"))


def long_of(wide, kinds):
    "The wide table as one long table (item, rater, label, kind): one row per non-empty cell, in a shuffled order."
    rows = [(i, r, v, kinds[r]) for i, row in wide.iterrows() for r, v in row.items() if not pd.isna(v)]
    df = pd.DataFrame(rows, columns=["item", "rater", "label", "kind"])
    return df.sample(frac=1, random_state=3).reset_index(drop=True)


def wide_path(wide):
    "What a user of the wide table passes: Annotations of the human columns, the judges' columns as they are."
    return Annotations.from_wide(wide[HUMANS]), wide[JUDGES]


def same_numbers(panel, wide):
    "The panel gives the wide path's annotations, judge labels and board, number for number."
    ann, judges = wide_path(wide.loc[panel.annotations.items])       # the panel's items in its own order
    assert panel.annotations == ann
    assert list(panel.judges.columns) == JUDGES
    got, want = panel.judges.astype(object), judges.astype(object)
    assert (got.isna().to_numpy() == want.isna().to_numpy()).all()
    assert (got.fillna("-").to_numpy() == want.fillna("-").to_numpy()).all()
    b1 = compare_judges(panel.annotations, panel.judges, n_bootstrap=0, min_items_per_annotator=20).to_frame()
    b2 = compare_judges(ann, judges, n_bootstrap=0, min_items_per_annotator=20).to_frame()
    pd.testing.assert_frame_equal(b1, b2, check_index_type=False)
    a1 = alt_test(panel.annotations, panel.judges["gpt"], epsilon=0.1, min_items_per_annotator=20)
    a2 = alt_test(ann, judges["gpt"], epsilon=0.1, min_items_per_annotator=20)
    pd.testing.assert_frame_equal(a1.to_frame().sort_index(), a2.to_frame().sort_index(), check_index_type=False)  # annotators
    # come in order of first appearance from a long table, in column order from a wide one


def test_long_frame_mlflow_kinds_equals_wide(wide):
    "MLflow's assessments: source_type HUMAN / LLM_JUDGE, any case."
    kinds = {h: "HUMAN" for h in HUMANS} | {"gpt": "LLM_JUDGE", "claude": "llm_judge"}
    long = long_of(wide, kinds).rename(columns={"rater": "source_name", "label": "value", "kind": "source_type"})
    before = long.copy()
    panel = read_panel(long, rater="source_name", label="value", kind="source_type")
    pd.testing.assert_frame_equal(long, before)                         # the input is left as it was
    assert panel.kinds["gpt"] == "LLM_JUDGE" and panel.kinds["h0"] == "HUMAN"
    same_numbers(panel, wide)


def test_long_frame_phoenix_kinds_with_human_kinds(wide):
    "Phoenix's annotations: annotator_kind HUMAN / LLM, humans named too."
    kinds = {h: "HUMAN" for h in HUMANS} | {"gpt": "LLM", "claude": "LLM"}
    long = long_of(wide, kinds).rename(columns={"kind": "annotator_kind"})
    same_numbers(read_panel(long, kind="annotator_kind", judge_kinds=["llm"], human_kinds=["human"]), wide)


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_jsonl_of_judge_outputs_equals_wide(wide, tmp_path, suffix):
    "A JSONL log (one object per line, extra fields as evaluation logs have them), plain and gzipped."
    kinds = {h: "human" for h in HUMANS} | {j: "llm" for j in JUDGES}
    long = long_of(wide, kinds)
    lines = "".join(json.dumps({"item": r.item, "rater": r.rater, "label": r.label, "kind": r.kind, "latency_ms": 12.5}) + "\n"
                    for r in long.itertuples())
    p = tmp_path / f"panel{suffix}"
    p.write_bytes(gzip.compress(lines.encode()) if suffix.endswith(".gz") else lines.encode())
    same_numbers(read_panel(str(p)), wide)
    hum = long[long.kind == "human"]
    humans_only = tmp_path / f"humans{suffix}"
    text = "".join(json.dumps({"item": r.item, "annotator": r.rater, "label": r.label}) + "\n" for r in hum.itertuples())
    humans_only.write_bytes(gzip.compress(text.encode()) if suffix.endswith(".gz") else text.encode())
    ann_items_sorted = Annotations.from_wide(wide[HUMANS].sort_index())
    assert Annotations.from_table(humans_only, annotators=True) == ann_items_sorted


def test_nested_json_panel_equals_wide_and_krippendorff(wide, tmp_path):
    "The alt-test authors' {annotator: {item: label}}, from a file: the wide path's annotations and the krippendorff package's alpha."
    nested = {h: {i: v for i, v in wide[h].items() if not pd.isna(v)} for h in HUMANS}
    p = tmp_path / "panel.json"
    p.write_text(json.dumps(nested))
    ann = Annotations.from_nested(p)
    want = Annotations.from_wide(wide[HUMANS])
    assert ann == Annotations.from_wide(wide.loc[ann.items, HUMANS]) and set(ann.items) == set(want.items) - set(
        wide.index[wide[HUMANS].isna().all(axis=1)])
    codes = {"neg": 0, "neu": 1, "pos": 2}
    rel = wide[HUMANS].T.apply(lambda c: c.map(lambda v: np.nan if pd.isna(v) else codes[v])).to_numpy(float)
    ref = krippendorff.alpha(reliability_data=rel, level_of_measurement="nominal")
    assert krippendorff_alpha(ann).value == pytest.approx(ref, abs=1e-12)
    assert Annotations.from_nested(json.dumps(nested)) == ann == Annotations.from_nested(nested)


# ---------------------------------------------------------------- bad input

def test_jsonl_line_not_an_object(tmp_path):
    p = tmp_path / "judges.jsonl"
    p.write_text('{"item": 1, "rater": "a", "label": "x", "kind": "human"}\n["b", "y"]\n')
    with pytest.raises(ValueError, match=r"`source`: .*judges\.jsonl' is not one JSON object per line: a line holds \["):
        read_panel(p)
    with pytest.raises(ValueError, match=r"`source`: .* is not one JSON object per line"):
        Annotations.from_table(p)


def test_rater_kind_with_no_judge(wide):
    long = long_of(wide, {r: "HUMAN" for r in wide.columns})
    with pytest.raises(ValueError, match=r"`judge_kinds`=.*no rater of the table has one of these kinds .*\['human'\]"):
        read_panel(long)
    with pytest.raises(ValueError, match=r"`human_kinds`: no human rater"):
        read_panel(long, judge_kinds="human")
    two = long_of(wide, {r: "HUMAN" for r in wide.columns})
    two.loc[two.rater == "gpt", "kind"] = np.where(np.arange((two.rater == "gpt").sum()) % 2, "LLM", "HUMAN")
    with pytest.raises(ValueError, match=r"`kind`: rater 'gpt' has kinds"):
        read_panel(two)


def test_nested_json_bad_shapes(tmp_path):
    with pytest.raises(ValueError, match=r"annotator 'a' maps to a list"):
        Annotations.from_nested({"a": ["x", "y"], "b": {"1": "x"}})
    (tmp_path / "rows.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"`src` .* holds a JSON list, not an object"):
        Annotations.from_nested(tmp_path / "rows.json")
    with pytest.raises(TypeError, match=r"`src` must be a dict"):
        Annotations.from_nested(42)


def test_uri_scheme_duckdb_lacks():
    "Real DuckDB, no network needed: a scheme it does not read is named with `source`."
    with pytest.raises(ValueError, match=r"`source`: DuckDB could not read 'foo://bucket/labels\.parquet' .*scheme 'foo://'"):
        Annotations.from_table("foo://bucket/labels.parquet")
    with pytest.raises(ValueError, match=r"`source`: DuckDB could not read 'foo://bucket/panel\.jsonl'"):
        read_panel("foo://bucket/panel.jsonl")


class _Recorder:
    "Stands in for the DuckDB connection: records every string it is asked to read, then fails as DuckDB does without httpfs."
    def __init__(self): self.asked = []
    def _fail(self, s, **kw):
        self.asked.append(s)
        raise duckdb.Error('An error occurred while trying to automatically install the required extension \'httpfs\':\n'
                           'Failed to download extension "httpfs"')
    read_parquet = read_csv = read_json = _fail
    def execute(self, sql, params=()):                                # listing a glob's files: DuckDB cannot list a remote URI without httpfs
        raise duckdb.Error("No files found that match the pattern")


@pytest.mark.parametrize("uri", ["hf://datasets/org/panel/data/train-0000.parquet", "s3://bucket/run 1/labels.csv",
                                 "https://example.org/logs/judges.jsonl.gz?download=1"])
def test_uri_reaches_duckdb_unchanged_and_missing_httpfs_is_named(monkeypatch, uri):
    rec = _Recorder()
    monkeypatch.setattr(tables, "connect_engine", lambda *a, **k: rec)
    with pytest.raises(ValueError, match=r"`source`: reading .* needs DuckDB's httpfs extension"):
        Annotations.from_table(uri)
    with pytest.raises(ValueError, match=r"needs DuckDB's httpfs extension"):
        read_panel(uri)
    assert rec.asked == [uri, uri]                                    # exactly the string given, twice
