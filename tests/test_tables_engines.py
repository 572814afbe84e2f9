"""One counts query, three engines: DuckDB (files, pandas, Arrow), Polars (a LazyFrame) and Spark (a DataFrame, local
mode) reduce the same generated long table to the same per-item counts, profile histogram, certificate and per-annotator
agreement, equal to what plain pandas and the in-memory functions give. Spark needs a Java runtime (.ci/run installs
Debian's openjdk-17-jre-headless); without one the Spark cases are skipped with that reason."""
import shutil

import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.certification.certify import certify
from humancert.data.profiles import profiles
from humancert.agreement.measures import agreement_summary, annotator_agreement
from humancert.report.reporting import make_report, report_from_table
from humancert.agreement.at_scale import agreement_summary_from_table, annotator_agreement_from_table
from humancert.data.tables import profiles_from_table
import humancert.data.tables as tables

PARTS = "duckdb (parquet, 5 parts)"

CLASSES = ["a", "b", "c"]
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module")
def table():
    "A long table with what real exports have: 1 to 8 labels per item from 40 annotators, null labels, repeated rows."
    rng = np.random.default_rng(20261123)
    rows = []
    truth = rng.integers(0, 3, 1500)
    for i, t in enumerate(truth):
        who = rng.choice(40, rng.integers(1, 9), replace=False)
        lab = np.where(rng.random(len(who)) < 0.7, t, rng.integers(0, 3, len(who)))
        rows += [(f"it{i:05d}", f"w{w:02d}", CLASSES[l]) for w, l in zip(who, lab)]
    long = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    long.loc[rng.choice(len(long), 60, replace=False), "label"] = None          # null labels are not labels
    long = pd.concat([long, long.sample(200, random_state=1)], ignore_index=True)   # an annotator repeating a label counts once
    model = pd.Series([CLASSES[m] for m in np.where(rng.random(len(truth)) < 0.8, truth, rng.integers(0, 3, len(truth)))],
                      index=[f"it{i:05d}" for i in range(len(truth))])
    return long.assign(model=model.loc[long["item"]].to_numpy()), model


@pytest.fixture(scope="module")
def expected(table):
    "Per-item counts by plain pandas, independent of humancert: drop null labels and repeats, then tabulate."
    long, _ = table
    kept = long.dropna(subset=["label"]).drop_duplicates(["item", "annotator", "label"])
    items = sorted(long["item"].unique())
    return pd.crosstab(kept["item"], kept["label"]).reindex(index=items, columns=CLASSES, fill_value=0)


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None: pytest.skip("Spark's local mode needs a Java runtime (apt install openjdk-17-jre-headless)")
    pyspark_sql = pytest.importorskip("pyspark.sql")
    s = (pyspark_sql.SparkSession.builder.master("local[1]").appName("humancert-tests")
         .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
         .config("spark.driver.memory", "1g").getOrCreate())
    s.sparkContext.setLogLevel("ERROR")
    yield s
    s.stop()


def _source(engine, long, tmp_path_factory, spark=None):
    if engine == "duckdb (pandas)": return long
    if engine.startswith("duckdb (parquet"):
        p = tmp_path_factory.mktemp("tables") / "labels.parquet"
        long.to_parquet(p)
        return p
    if engine == "polars (lazy)":
        pl = pytest.importorskip("polars")
        return pl.from_pandas(long).lazy()
    return spark.createDataFrame(long)


ENGINES = ["duckdb (pandas)", "duckdb (parquet)", PARTS, "polars (lazy)", "spark"]


@pytest.fixture(autouse=True)
def _in_parts(request, monkeypatch):
    "The PARTS engine splits every table into 5 parts of disjoint items (issue 42 item 7), as a table too large for DuckDB's memory limit is."
    engine = request.node.callspec.params.get("source", request.node.callspec.params.get("engine")) if hasattr(request.node, "callspec") else None
    if engine == PARTS: monkeypatch.setattr(tables, "parts_for", lambda rows, memory: 5)


@pytest.fixture(scope="module", params=ENGINES)
def source(request, table, tmp_path_factory):
    spark = request.getfixturevalue("spark") if request.param == "spark" else None
    return request.param, _source(request.param, table[0], tmp_path_factory, spark)


def test_counts_are_identical(source, expected):
    engine, src = source
    got = Annotations.from_table(src).to_counts()
    assert list(got.index) == list(expected.index), engine
    assert list(got.columns) == CLASSES, engine
    np.testing.assert_array_equal(got.to_numpy(), expected.to_numpy(), err_msg=engine)


def test_profiles_and_certificates_are_identical(source, table, expected):
    engine, src = source
    _, model = table
    ann = Annotations.from_counts(expected)
    ref = profiles(ann, model.loc[expected.index])
    got = profiles_from_table(src, model="model")
    assert got.counts.tolist() == ref.counts.tolist(), engine
    assert got.weight.tolist() == ref.weight.tolist(), engine
    assert got.model.tolist() == ref.model.tolist(), engine
    c_ref = certify(ann, model.loc[expected.index], seed=3).to_frame()
    c_got = certify(got, seed=3).to_frame()
    pd.testing.assert_frame_equal(c_got, c_ref, check_exact=True, obj=engine)


def test_engine_errors_name_the_argument(source, table):
    engine, src = source
    with pytest.raises(ValueError, match="`label`: column 'answer' is not in the table"):
        Annotations.from_table(src, label="answer")
    with pytest.raises(ValueError, match="`labels` misses"):
        Annotations.from_table(src, labels=["a", "b"])


@pytest.mark.parametrize("engine", ENGINES)
def test_clash_found_by_each_engine(engine, table, tmp_path_factory, request):
    "One annotator giving an item two labels is found where the table lives, and named."
    long, _ = table
    row = long.dropna(subset=["label"]).iloc[0]
    bad = pd.concat([long, row.to_frame().T.assign(label="c" if row.label != "c" else "a")], ignore_index=True)
    spark = request.getfixturevalue("spark") if engine == "spark" else None
    src = _source(engine, bad, tmp_path_factory, spark)
    with pytest.raises(ValueError, match=f"item '{row['item']}' two different labels from annotator '{row.annotator}'"):
        Annotations.from_table(src)


def test_annotator_agreement_is_identical(source, table):
    "Per-annotator sums and the top annotators' pair sums from the engine equal annotator_agreement on the labels in memory."
    engine, src = source
    long, model = table
    kept = long.dropna(subset=["label"]).drop_duplicates(["item", "annotator", "label"]).sort_values("annotator", kind="stable")
    ann = Annotations.from_long(kept[["item", "annotator", "label"]])
    want = annotator_agreement(ann, model.loc[ann.items], top=8)
    got = annotator_agreement_from_table(src, model="model", top=8)
    pd.testing.assert_frame_equal(got.per_annotator, want.per_annotator, check_names=False, check_index_type=False, rtol=1e-12, obj=engine)
    for part in ("table", "shared"):
        pd.testing.assert_frame_equal(getattr(got, part), getattr(want, part), check_names=False, check_index_type=False,
                                      check_column_type=False, rtol=1e-12, obj=f"{engine} {part}")


def test_agreement_summary_is_identical(source, table):
    "Count measures from the engine's counts and pairwise ones from its per-pair sums equal agreement_summary in memory."
    engine, src = source
    long, _ = table
    kept = long.dropna(subset=["label"]).drop_duplicates(["item", "annotator", "label"]).sort_values("annotator", kind="stable")
    every = sorted(long["item"].unique())                      # items whose labels are all null are kept, with no label
    want = agreement_summary(Annotations.from_long(kept[["item", "annotator", "label"]], items=every))
    got = agreement_summary_from_table(src)
    assert got.shape.to_dict() == want.shape.to_dict(), engine
    pd.testing.assert_frame_equal(got.to_frame(), want.to_frame(), rtol=1e-12, obj=engine)
    for g, w in zip(got.pairwise, want.pairwise):
        named = lambda p: p.pairs.assign(a=p.annotators[p.pairs.a], b=p.annotators[p.pairs.b]).sort_values(["a", "b"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(named(g), named(w), check_index_type=False, rtol=1e-12, obj=f"{engine} {g.measure}")
        assert (g.n_pairs, g.n_undefined, g.n_disjoint) == (w.n_pairs, w.n_undefined, w.n_disjoint), engine


def test_report_is_identical(source, table):
    "report_from_table on each engine gives make_report's numbers on the labels in memory (the model a column of the table)."
    engine, src = source
    long, model = table
    kept = long.dropna(subset=["label"]).drop_duplicates(["item", "annotator", "label"]).sort_values("annotator", kind="stable")
    ann = Annotations.from_long(kept[["item", "annotator", "label"]], items=sorted(long["item"].unique()))
    want = make_report(ann, model.loc[ann.items], n_bootstrap=20, top_annotators=8).to_dict()
    got = report_from_table(src, model="model", n_bootstrap=20, top_annotators=8).to_dict()
    _same(got, want, engine)


def _same(a, b, path):
    "Equal JSON, floats to a relative 1e-12; the notes (which say where the table was reduced) left out."
    if isinstance(a, dict):
        assert set(a) - {"notes"} == set(b) - {"notes"}, path
        for k in set(a) - {"notes"}: _same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for n, (x, y) in enumerate(zip(a, b)): _same(x, y, f"{path}[{n}]")
    elif isinstance(a, float) and isinstance(b, float): assert a == pytest.approx(b, rel=1e-12, abs=1e-15), path
    else: assert a == b, (path, a, b)


def test_parts_are_written_once_and_removed(table, tmp_path, monkeypatch):
    "A table larger than the memory limit allows is written once as Parquet parts under the spill directory, and they are gone when the report is made."
    long, _ = table
    src = tmp_path / "labels.parquet"
    long.to_parquet(src)
    spill, written = tmp_path / "spill", []
    spill.mkdir()
    write = tables._write_parts
    monkeypatch.setattr(tables, "parts_for", lambda rows, memory: 5)
    monkeypatch.setattr(tables, "_write_parts", lambda rel, item, cols, parts: written.append((cols, parts)) or write(rel, item, cols, parts))
    report_from_table(src, model="model", n_bootstrap=0, temp_directory=str(spill))
    assert written == [(["item", "annotator", "label", "model"], 5)]
    assert list(spill.glob("parts-*")) == []
