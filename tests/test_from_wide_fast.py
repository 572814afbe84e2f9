"""`Annotations.from_wide`'s fast path (issue 35 item 2) against two independent constructions.

Every attribute the object exposes is compared, on random small matrices with fixed seeds and many shapes:
1. a hand loop in plain Python (dictionaries, no numpy or pandas logic of humancert's) giving classes, counts and the long codes;
2. the general path of `from_wide` (the code that ran before the fast path existed), reached by disabling `_wide_fast`;
3. `from_long` of the melted table.
Inputs the fast path must refuse or leave to the general path (mixed types, infinite labels, a sentinel among text, a table that looks
transposed) must give the same object or the same error, word for word.
"""
import math
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

import humancert.data.annotations as A
from humancert.data.annotations import Annotations


def general(*args, **kw):
    "from_wide through the general path only (the fast path switched off)."
    fast = A._wide_fast
    A._wide_fast = lambda *a, **k: None
    try: return Annotations.from_wide(*args, **kw)
    finally: A._wide_fast = fast


def is_missing(v, missing):
    if v is None or v is pd.NA: return True
    if isinstance(v, (float, np.floating)) and math.isnan(v): return True
    if missing is None: return False
    return type(v) is not bool and not isinstance(v, np.bool_) and v == missing


def plain(v):
    "The label as a plain Python value, integral floats as ints (the documented class of a label)."
    if isinstance(v, np.generic): v = v.item()
    if isinstance(v, float) and v.is_integer(): v = int(v)
    return v


def hand(rows, missing=None, labels=None):
    "Classes, counts and long codes (item by item, annotator by annotator) by a plain loop over the cells."
    cells = [(i, k, plain(v)) for i, row in enumerate(rows) for k, v in enumerate(row) if not is_missing(v, missing)]
    classes = tuple(labels) if labels is not None else tuple(sorted({c for _, _, c in cells}))
    code = {c: j for j, c in enumerate(classes)}
    counts = [[0] * len(classes) for _ in rows]
    for i, _, c in cells: counts[i][code[c]] += 1
    return classes, counts, [i for i, _, _ in cells], [k for _, k, _ in cells], [code[c] for _, _, c in cells]


def check_same(ann, ref, rows, missing=None, labels=None, items=None, annotators=None):
    "Every exposed attribute of `ann` against the general path's object `ref` and the hand loop."
    classes, counts, item, annot, label = hand(rows, missing, labels)
    assert ann.classes == classes and [type(c) for c in ann.classes] == [type(c) for c in classes]
    assert ann.counts.tolist() == counts
    i, a, l = ann.codes()
    assert (i.tolist(), a.tolist(), l.tolist()) == (item, annot, label)
    n_items, n_annots = len(rows), len(rows[0])
    assert list(ann.items) == (list(range(n_items)) if items is None else list(items))
    assert list(ann.annotators) == (list(range(n_annots)) if annotators is None else list(annotators))
    # the general path: same storage, dtypes, ids (type and name), repr, level, long table, wide table, description
    for name in ("counts", "n_labels"):
        x, y = getattr(ann, name), getattr(ref, name)
        assert x.dtype == y.dtype and x.flags.writeable == y.flags.writeable and np.array_equal(x, y), name
    for x, y in zip(ann.codes(), ref.codes()):
        assert x.dtype == y.dtype and not x.flags.writeable and np.array_equal(x, y)
    assert type(ann.items) is type(ref.items) and ann.items.equals(ref.items) and ann.items.name == ref.items.name
    assert type(ann.annotators) is type(ref.annotators) and ann.annotators.equals(ref.annotators)
    assert (ann.classes, ann.class_index, ann.level, ann.has_annotators, ann.n_annotators, ann.n_classes, len(ann)) == \
           (ref.classes, ref.class_index, ref.level, ref.has_annotators, ref.n_annotators, ref.n_classes, len(ref))
    assert repr(ann) == repr(ref) and ann == ref
    pd.testing.assert_frame_equal(ann.to_long(), ref.to_long())
    pd.testing.assert_frame_equal(ann.to_wide(), ref.to_wide())
    pd.testing.assert_frame_equal(ann.to_counts(), ref.to_counts())
    pd.testing.assert_series_equal(ann.describe(), ref.describe())
    assert np.array_equal(ann.class_values, ref.class_values)
    # from_long of the melted table (drops items without a label, so compare on the items it keeps)
    long = ann.to_long()
    assert Annotations.from_long(long, items=list(ann.items), labels=list(ann.classes), level=ann.level) == ann


def seeds(n): return [pytest.param(s, id=f"seed{s}") for s in range(n)]


def shape(rng):
    I = int(rng.integers(2, 9))
    return I, int(rng.integers(2, min(10, max(3, 3 * I))))          # never 'looks transposed' (K < max(10, 3I))


def with_pairs(mask):
    "Keep two labels on item 0 and one on every annotator so the data is valid (the errors have their own tests)."
    mask = mask.copy()
    mask[0, :2] = False
    mask[np.arange(mask.shape[1]) % mask.shape[0], np.arange(mask.shape[1])] = False
    return mask


def build_both(x, fast=True, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error")                                # neither path may warn on these inputs
        ann = Annotations.from_wide(x, **kw)
        ref = general(x, **kw)
    assert (ann._long is None) == fast                                # the fast path builds lazily: nothing but counts made
    return ann, ref


@pytest.mark.parametrize("seed", seeds(25))
def test_integers_with_sentinel(seed):
    rng = np.random.default_rng(seed)
    I, K = shape(rng)
    x = rng.integers(0, 1 + seed % 5, (I, K)) * (1 + seed % 3) - (seed % 2)
    x[with_pairs(rng.random((I, K)) < 0.3) & (rng.random((I, K)) < 0.9)] = -7
    ann, ref = build_both(x, missing=-7)
    check_same(ann, ref, x.tolist(), missing=-7)


@pytest.mark.parametrize("seed", seeds(25))
def test_floats_with_nan(seed):
    rng = np.random.default_rng(100 + seed)
    I, K = shape(rng)
    vals = np.array([1.0, 2.0, 2.5, -1.0, 0.0, 1e6])[: 2 + seed % 5]
    x = vals[rng.integers(0, len(vals), (I, K))]
    x[with_pairs(rng.random((I, K)) < 0.4)] = np.nan
    if seed % 2: x = np.asfortranarray(x)                             # a DataFrame's block layout: read column by column
    ann, ref = build_both(x)
    check_same(ann, ref, x.tolist())
    sentinel = float(vals[0])                                         # a numeric sentinel in float data
    kept = (x != sentinel) & ~np.isnan(x)
    if kept.any(axis=0).all() and (kept.sum(axis=1) >= 2).any():
        ann, ref = build_both(x, missing=sentinel)
        check_same(ann, ref, x.tolist(), missing=sentinel)


@pytest.mark.parametrize("seed", seeds(25))
def test_strings_with_none(seed):
    rng = np.random.default_rng(200 + seed)
    I, K = shape(rng)
    vals = np.array(["pos", "neg", "n/a", "", "Zeta", "éa"], dtype=object)[: 2 + seed % 5]
    x = vals[rng.integers(0, len(vals), (I, K))]
    x[with_pairs(rng.random((I, K)) < 0.3)] = None if seed % 2 else np.nan
    ann, ref = build_both(x)
    check_same(ann, ref, x.tolist())
    ann, ref = build_both(x.tolist())                                  # a list of rows
    check_same(ann, ref, x.tolist())
    labels = sorted(set(vals), reverse=True) + ["unused"]              # a user order with an unused class
    ann, ref = build_both(x, labels=labels, level="ordinal")
    check_same(ann, ref, x.tolist(), labels=labels)


@pytest.mark.parametrize("seed", seeds(15))
def test_numpy_text_and_booleans(seed):
    rng = np.random.default_rng(300 + seed)
    I, K = shape(rng)
    u = np.array(["a", "b", "c"])[rng.integers(0, 2 + seed % 2, (I, K))]       # numpy <U1, no missing
    ann, ref = build_both(u)
    check_same(ann, ref, u.tolist())
    b = rng.random((I, K)) < 0.5
    ann, ref = build_both(b)
    check_same(ann, ref, b.tolist())
    ob = b.astype(object)
    ob[with_pairs(rng.random((I, K)) < 0.3)] = None
    ann, ref = build_both(ob, fast=False)                              # booleans among Python objects: the general path checks them
    check_same(ann, ref, ob.tolist())


@pytest.mark.parametrize("seed", seeds(15))
def test_dataframes_and_raters_in_rows(seed):
    rng = np.random.default_rng(400 + seed)
    I, K = shape(rng)
    x = rng.integers(1, 6, (I, K)).astype(float)
    x[with_pairs(rng.random((I, K)) < 0.3)] = np.nan
    items, annots = [f"item{i}" for i in range(I)][::-1], [f"r{k}" for k in range(K)]
    df = pd.DataFrame(x, index=pd.Index(items, name="doc"), columns=annots)
    ann, ref = build_both(df)
    check_same(ann, ref, x.tolist(), items=items, annotators=annots)
    assert ann.items.name == "doc"
    text = df.apply(lambda c: c.map(lambda v: None if np.isnan(v) else f"s{int(v)}"))     # str columns (pandas' str dtype)
    ann, ref = build_both(text)
    check_same(ann, ref, text.to_numpy(dtype=object).tolist(), items=items, annotators=annots)
    ann, ref = build_both(x.T.copy(), raters_in_rows=True, level="interval")
    check_same(ann, ref, x.tolist())


def test_many_classes_take_the_bincount_branch():
    rng = np.random.default_rng(7)
    x = rng.integers(0, 300, (50, 6))                                  # about 160 classes: int32 codes, bincount counts
    x[with_pairs(rng.random(x.shape) < 0.2)] = -1
    ann, ref = build_both(x, missing=-1)
    assert ann._wide.dtype == np.int32 and ann.codes()[2].dtype == np.int32
    check_same(ann, ref, x.tolist(), missing=-1)


def test_many_annotators_take_the_int32_accumulator():
    rng = np.random.default_rng(8)
    x = rng.integers(0, 3, (300, 299))                                 # K > 255: a count may exceed uint8
    x[0] = 1                                                           # item 0 has 299 labels of class 1
    ann, ref = build_both(x, raters_in_rows=False)
    assert ann.counts[0].tolist() == [0, 299, 0]
    check_same(ann, ref, x.tolist())


BAD = [
    ("booleans with numbers", np.array([[True, 1], [0, False]], dtype=object), {}),
    ("ints with text", np.array([[1, "a"], ["a", 1]], dtype=object), {}),
    ("infinite", np.array([[np.inf, 1.0], [2.0, -np.inf]]), {}),
    ("labels misses", np.array([["a", "q"], ["z", "a"]], dtype=object), {"labels": ["a"]}),
    ("labels repeats", np.array([["a", "b"], ["a", "a"]], dtype=object), {"labels": ["a", "a", "b"]}),
    ("labels not a list", np.array([["a", "b"], ["a", "a"]], dtype=object), {"labels": "ab"}),
    ("empty column", np.array([[1.0, np.nan, 2.0], [2.0, np.nan, 1.0]]), {}),
    ("empty column by sentinel", np.array([[1, -1], [2, -1]]), {"missing": -1}),
    ("no pair", np.array([["a", None, None], [None, "b", None], [None, None, "c"]], dtype=object), {}),
    ("text on an interval scale", np.array([["a", "b"], ["a", "a"]], dtype=object), {"level": "interval"}),
    ("bad level", np.array([[1, 2], [2, 2]]), {"level": "nominl"}),
    ("unhashable", np.array([[[1], 2], [3, 4]], dtype=object), {}),
    ("sentinel matches booleans", np.array([[True, False], [False, False]]), {"missing": 0}),
    ("bad raters_in_rows", np.array([[1, 2], [2, 2]]), {"raters_in_rows": "yes"}),
    ("one column", np.array([[1], [2]]), {}),
]


@pytest.mark.parametrize("what,x,kw", BAD, ids=[b[0] for b in BAD])
def test_refusals_are_the_general_paths(what, x, kw):
    with pytest.raises((TypeError, ValueError)) as general_err: general(x, **kw)
    with pytest.raises(general_err.type) as fast_err: Annotations.from_wide(x, **kw)
    assert str(fast_err.value) == str(general_err.value), what


def test_transposed_table_still_warns():
    kripp = np.array([[1.0, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan], [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
                      [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan], [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan]])
    with pytest.warns(UserWarning, match="looks like raters in rows"): ann = Annotations.from_wide(kripp)
    assert ann == general(kripp, raters_in_rows=False)


def test_lazy_long_codes_survive_with_level_relabel_and_pickle():
    rng = np.random.default_rng(11)
    x = rng.integers(1, 4, (40, 5)).astype(float)
    x[with_pairs(rng.random(x.shape) < 0.25)] = np.nan
    ref = general(x)
    for derived, expect in [(lambda a: a.with_level("ordinal"), ref.with_level("ordinal")),
                            (lambda a: a.relabel({3: 2}), ref.relabel({3: 2})),
                            (lambda a: pickle.loads(pickle.dumps(a)), ref)]:
        ann = Annotations.from_wide(x)
        got = derived(ann)
        assert got._long is None and ann._long is None                 # neither built the long codes
        for g, e in zip(got.codes(), expect.codes()): assert g.dtype == e.dtype and np.array_equal(g, e)
        assert got == expect and got.counts.tolist() == expect.counts.tolist()


def test_inputs_left_unchanged():
    x = np.array([[1.0, np.nan, 2.0], [2.0, 2.0, np.nan]])
    df = pd.DataFrame({"a": ["x", None], "b": ["y", "x"]})
    x0, df0 = x.copy(), df.copy()
    Annotations.from_wide(x); Annotations.from_wide(df)
    assert np.array_equal(x, x0, equal_nan=True)
    pd.testing.assert_frame_equal(df, df0)


@pytest.mark.parametrize("seed", seeds(10))
def test_float_bit_patterns(seed):
    "Floats are factorized by their bits: NaN patterns other than numpy's, and -0.0 beside 0.0, must read as the general path reads them."
    rng = np.random.default_rng(500 + seed)
    I, K = shape(rng)
    odd_nan = (np.array([np.nan]).view(np.uint64) | np.uint64(1 + seed)).view(np.float64)[0]
    vals = np.array([0.0, -0.0, 1.0, -np.nan, odd_nan, np.nan, 2.5])
    x = vals[rng.integers(0, len(vals), (I, K))]
    x[~with_pairs(np.ones((I, K), bool))] = rng.choice([0.0, -0.0, 1.0], int((~with_pairs(np.ones((I, K), bool))).sum()))
    ann, ref = build_both(x)
    check_same(ann, ref, x.tolist())
    assert all(type(c) is (float if c == 2.5 else int) for c in ann.classes)


def test_array_subclasses_go_the_general_way():
    "A masked array's mask marks missing labels (pandas reads it); the fast path would drop it, so subclasses are left to the general path."
    m = np.ma.masked_array([[1.0, 2.0, 3.0], [2.0, 2.0, 1.0]], mask=[[0, 1, 0], [0, 0, 0]])
    ann = Annotations.from_wide(m)
    assert ann.counts.tolist() == [[1, 0, 1], [1, 2, 0]] and ann == general(m)
