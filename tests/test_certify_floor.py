"""Issue 35 item 1: certify's fast path (labels encoded once into narrow codes, the profile key built in place, weights from
the key histogram) gives the certificate of a plain item-by-item computation, bit for bit. Correctness only: the timings
are in benchmarks/bench_certify_floor.py."""
import numpy as np
import pandas as pd
import pytest

from humancert.certification.certify import certify, confidence
from humancert.data.annotations import Annotations, hard_predictions, _int_label_codes
from humancert.data.profiles import unique_rows, unique_row_counts, profiles, _radix_key

METHODS = ("hms", "optimal", "balanced")


def _plain_rows(cols):
    "The old path: an n x m int64 matrix and numpy's row sort."
    return np.unique(np.column_stack([np.asarray(c, dtype=np.int64) for c in cols]), axis=0, return_inverse=True, return_counts=True)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_unique_rows_and_counts_match_numpy_row_sort(seed, dtype):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 5))
    top = int(rng.choice([2, 11, 100, 127])) if dtype == np.int8 else int(rng.choice([2, 11, 5000, 2**20]))
    n = int(rng.integers(1, 3000))                     # n = 0: test_unique_rows_edge_cases
    M = rng.integers(0, top, (n, m)).astype(dtype)
    before = M.copy()
    cols = list(M.T)                                   # strided views, as certify passes the count matrix's columns
    rows_p, inv_p, cnt_p = _plain_rows(cols)
    rows, inv = unique_rows(cols)
    test_rows, cnt = unique_row_counts(cols)
    assert rows.tolist() == rows_p.tolist() and inv.tolist() == inv_p.ravel().tolist()
    assert test_rows.tolist() == rows_p.tolist() and cnt.tolist() == cnt_p.tolist()
    np.testing.assert_array_equal(M, before)                                  # inputs unchanged


def test_unique_rows_edge_cases():
    empty = [np.zeros(0, np.int64), np.zeros(0, np.int32)]
    r, i = unique_rows(empty)
    r2, w2 = unique_row_counts(empty)
    assert r.shape == (0, 2) and i.shape == (0,) and r2.shape == (0, 2) and w2.shape == (0,)
    wide = [np.array([2**40, 0, 2**40]), np.array([1, 3, 1]), np.array([2**30, 0, 2**30])]   # 71 bits: the row sort
    r, w = unique_row_counts(wide)
    assert r.tolist() == [[0, 3, 0], [2**40, 1, 2**30]] and w.tolist() == [1, 2]
    assert _radix_key(wide) is None
    # bool and float columns are read as int64, as the old path did
    r, w = unique_row_counts([np.array([True, False, True]), np.array([1.0, 2.0, 1.0])])
    assert r.tolist() == [[0, 2], [1, 1]] and w.tolist() == [1, 2]
    # a uint64 column goes through int64 (in-place addition into the int64 key would refuse it)
    r, w = unique_row_counts([np.array([3, 1, 3], np.uint64), np.array([0, 0, 0], np.uint8)])
    assert r.tolist() == [[1, 0], [3, 0]] and w.tolist() == [1, 2]


def _plain_codes(ann, labels):
    "Class code per item by a Python dict, labels outside the classes coded C, C+1, ... in order of first appearance."
    pos = {c: k for k, c in enumerate(ann.classes)}
    out, extra = [], {}
    for v in np.asarray(labels, dtype=object):
        v = v.item() if isinstance(v, np.generic) else v
        out.append(pos[v] if v in pos else extra.setdefault(v, ann.n_classes + len(extra)))
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("kind", ["int", "int_offset", "int_gap", "bool", "str", "str_outside", "int_outside"])
def test_label_codes_match_a_plain_mapping(kind):
    rng = np.random.default_rng(7)
    n = 500
    if kind == "bool":
        ann = Annotations.from_wide(rng.random((n, 3)) < 0.5)
        model = rng.random(n) < 0.5
    elif kind in ("str", "str_outside"):
        ann = Annotations.from_wide(rng.choice(np.array(["a", "b", "c"], dtype=object), (n, 3)))
        model = rng.choice(np.array(["a", "b", "c"] + (["zz", "yy"] if kind == "str_outside" else []), dtype=object), n)
    else:
        classes = {"int": [0, 1, 2], "int_offset": [-3, -2, -1, 0], "int_gap": [3, 5, 9], "int_outside": [0, 1, 2]}[kind]
        ann = Annotations.from_counts(pd.DataFrame(rng.integers(0, 4, (n, len(classes))), columns=classes))
        pool = classes + ([7, 5] if kind == "int_outside" else [])
        model = rng.choice(np.array(pool), n)
    series = pd.Series(model, index=ann.items)
    kept = np.array(model, copy=True)
    want = _plain_codes(ann, model)
    for pred in (model, series, list(model)):
        outside = kind.endswith("outside")
        got = hard_predictions(ann, pred, "model", outside=outside)
        narrow = hard_predictions(ann, pred, "model", outside=outside, narrow=True)
        assert got.dtype == np.int64 and got.tolist() == want.tolist()
        assert narrow.dtype == np.int8 and narrow.tolist() == want.tolist()
    np.testing.assert_array_equal(model, kept)                         # the input is not changed
    if kind == "int": assert _int_label_codes(model, ann) is not None  # the lookup-table path was taken
    if kind == "int_gap": assert _int_label_codes(model, ann) is None  # 4, 6, 7, 8 are no classes: the general path


def test_label_codes_keep_the_boolean_trap():
    nums = Annotations.from_wide([[0, 1], [1, 1]])
    with pytest.raises(TypeError, match="holds booleans but the classes are"):
        hard_predictions(nums, np.array([True, False]))
    with pytest.raises(TypeError, match="holds booleans"):                      # True hidden behind 1 by factorize
        hard_predictions(nums, np.array([1, True], dtype=object))
    bools = Annotations.from_wide([[True, False], [True, True]])
    with pytest.raises(TypeError, match="holds numbers"):
        hard_predictions(bools, np.array([1, 0]))
    with pytest.raises(ValueError, match="missing prediction"):
        hard_predictions(nums, pd.Series([1, None], dtype="Int64"))


def _plain_certificate_numbers(counts, codes, kind):
    "N, the agreement count, what was left out and the per-item values X_n, item by item with numpy only."
    n = counts.sum(1)
    top = counts.argmax(1)
    maj = np.where(2 * counts.max(1) > n, top, -1)
    few = n < 2
    keep = ~few & (maj >= 0)
    c = counts[keep].astype(np.float64)
    m = c.sum(1)
    x = (c * c).sum(1) / (m * m) if kind == "theoretical" else (c * (c - 1)).sum(1) / (m * (m - 1))
    return int(keep.sum()), int((codes[keep] == maj[keep]).sum()), int(few.sum()), int((~few & (maj < 0)).sum()), x


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("labels", ["int", "str", "bool"])
def test_certify_matches_a_plain_item_computation(seed, labels):
    rng = np.random.default_rng(100 + seed)
    n, C = int(rng.integers(300, 3000)), 2 if labels == "bool" else int(rng.integers(2, 5))
    truth = rng.integers(0, C, n)
    r = rng.integers(0, 8, n)                                              # 0 or 1 label on some items: left out
    counts = np.zeros((n, C), np.int64)
    for j in range(8):
        lab = np.where(rng.random(n) < 0.75, truth, rng.integers(0, C, n))
        np.add.at(counts, (np.arange(n)[j < r], lab[j < r]), 1)
    names = {"int": list(range(C)), "str": [f"c{k}" for k in range(C)], "bool": [False, True]}[labels]
    ann = Annotations.from_counts(pd.DataFrame(counts, columns=names))
    model_codes = np.where(rng.random(n) < 0.8, truth, rng.integers(0, C, n))
    model = np.array(names, dtype=object)[model_codes] if labels == "str" else np.array(names)[model_codes]
    for upper in ("theoretical", "empirical"):
        N, agree, few, tie, x = _plain_certificate_numbers(counts, model_codes, upper)
        v, k = np.unique(x, return_counts=True)
        U, L = float(np.sqrt(k @ v / N)), agree / N
        for tails in (("hoeffding", "hoeffding"), ("binomial", "betting"), ("binomial", "bernstein")):
            for tau in (0.0, 0.02):
                cert = certify(ann, model, upper=upper, tails=tails, tau=tau)
                assert (cert.n_items, cert.count, cert.lower, cert.upper) == (N, agree, L, U)
                assert cert.dropped == {"fewer than two labels": few, "no strict majority (a tie or a split vote)": tie}
                assert cert.upper_values.tolist() == v.tolist() and cert.upper_counts.tolist() == k.tolist()
                for m in METHODS:
                    want = confidence(L, U, N, m, tau, tails[0], tails[1], count=agree, upper_values=x)
                    assert cert.scores[m] == want, (m, cert.scores[m], want)    # every field, bit for bit


def test_certify_items_and_profiles_agree_with_outside_labels():
    rng = np.random.default_rng(5)
    n = 2000
    counts = rng.multinomial(5, [0.6, 0.3, 0.1], n)
    ann = Annotations.from_counts(pd.DataFrame(counts, columns=["a", "b", "c"]))
    model = rng.choice(np.array(["a", "b", "c", "none"], dtype=object), n, p=[0.5, 0.3, 0.15, 0.05])
    cert = certify(ann, model)
    assert cert.n_outside == int((model == "none").sum())
    N, agree, *_ = _plain_certificate_numbers(counts, _plain_codes(ann, model), "theoretical")
    assert (cert.n_items, cert.count) == (N, agree)
    ref = np.where(rng.random(n) < 0.9, counts.argmax(1), 1)          # a given reference: the other branch
    given = certify(ann, model, reference=np.array(["a", "b", "c"], dtype=object)[ref])
    codes = _plain_codes(ann, model)
    keep = counts.sum(1) >= 2
    assert (given.n_items, given.count) == (int(keep.sum()), int((codes[keep] == ref[keep]).sum()))
    p = profiles(ann, np.where(model == "none", "a", model))
    rows_p, inv_p, cnt_p = _plain_rows([*counts.T, hard_predictions(ann, np.where(model == "none", "a", model))])
    assert p.counts.tolist() == rows_p[:, :3].tolist() and p.weight.tolist() == cnt_p.tolist()
    assert p.inverse.tolist() == inv_p.ravel().tolist()


def test_certify_on_items_allocates_no_items_by_columns_matrix():
    "Allocation accounting, not timing: at 10^6 items with integer labels certify's largest arrays are the int64 profile key "
    "(8 MB) and the int8 model codes (1 MB); the old path's n x 3 int64 matrix and its copies were 24 MB each."
    import gc
    import tracemalloc
    rng = np.random.default_rng(0)
    n = 10**6
    pos = rng.binomial(10, 0.5, n)
    ann = Annotations.from_counts(pd.DataFrame({0: 10 - pos, 1: pos}))
    model = pd.Series(rng.integers(0, 2, n), index=ann.items)
    certify(ann.__class__.from_counts([[2, 0], [1, 1]]), [0, 1])        # imports and lazy caches outside the count
    gc.collect()
    tracemalloc.start()
    cert = certify(ann, model)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert cert.n_items > 0
    assert peak <= 1.5 * 8 * n, f"peak {peak / 1e6:.1f} MB > 12 MB (key 8 MB + codes 1 MB + small)"
