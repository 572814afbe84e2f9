"""Issue 42: the in-memory and the out-of-core per-annotator tables order exact ties (annotators with as many labels) the
same way, by annotator id (numbers by value, text in natural order), whatever order the rows or columns were read in."""
import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.agreement.measures import annotator_agreement

pytest.importorskip("duckdb", reason="the out-of-core path needs the `tables` extra (pip install 'humancert[tables]')")
pytest.importorskip("narwhals", reason="the out-of-core path needs the `tables` extra (pip install 'humancert[tables]')")
from humancert.agreement.at_scale import annotator_agreement_from_table   # noqa: E402


def _panel(ids, per_item=3, n_items=60, seed=42):
    "A long table where every annotator in `ids` labels the same items (so all tie), rows in the order of `ids` first seen."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    rows = [(f"i{i:03d}", a, "abc"[t if rng.random() < 0.7 else rng.integers(0, 3)]) for i, t in enumerate(truth) for a in ids]
    long = pd.DataFrame(rows, columns=["item", "annotator", "label"])
    model = pd.Series(["abc"[t] for t in truth], index=[f"i{i:03d}" for i in range(n_items)])
    return long.assign(model=model.loc[long["item"]].to_numpy()), model


def _both(long, model, top):
    ann = Annotations.from_long(long[["item", "annotator", "label"]])    # annotators in order of first appearance
    return annotator_agreement(ann, model.loc[ann.items], top=top), annotator_agreement_from_table(long, model="model", top=top)


@pytest.mark.parametrize("ids, want", [
    (["e_10", "e_2", "e_1", "b", "e_3"], ["b", "e_1", "e_2", "e_3", "e_10"]),       # read in another order than the ids'
    ([30, 4, 200, 1], [1, 4, 30, 200]),                                              # numeric ids by value
])
def test_ties_by_id_in_both_paths(ids, want):
    long, model = _panel(ids)
    mem, ooc = _both(long, model, top=3)
    assert mem.per_annotator.index.tolist() == want and ooc.per_annotator.index.tolist() == want
    assert mem.table.index.tolist() == want[:3] and ooc.table.index.tolist() == want[:3]
    pd.testing.assert_frame_equal(ooc.per_annotator, mem.per_annotator, check_names=False, check_index_type=False, rtol=1e-12)
    for part in ("table", "shared"):
        pd.testing.assert_frame_equal(getattr(ooc, part), getattr(mem, part), check_names=False, check_index_type=False,
                                      check_column_type=False, rtol=1e-12)


def test_ties_broken_after_the_label_counts():
    "More labels still come first; only annotators with as many labels are ordered by id."
    long, model = _panel(["w9", "w10", "w2", "w1"])
    long = long[~((long["annotator"] == "w10") & (long["item"] >= "i050"))]                # w10: fewer labels than the rest
    mem, ooc = _both(long, model, top=2)
    want = ["w1", "w2", "w9", "w10"]
    assert mem.per_annotator.index.tolist() == want and ooc.per_annotator.index.tolist() == want
    assert mem.table.index.tolist() == ooc.table.index.tolist() == ["w1", "w2"]


def test_a_wide_panel_orders_its_columns_by_id():
    "A complete wide panel: every annotator ties; the table follows the ids, not the column order."
    w = pd.DataFrame({"r3": list("aab"), "r10": list("abb"), "r1": list("aba")}, index=list("xyz"))
    assert annotator_agreement(Annotations.from_wide(w), top=2).table.index.tolist() == ["r1", "r3"]
