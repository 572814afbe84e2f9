"""Loading ten million long-format rows copies the input at most about twice (issue: memory of the data model)."""
import gc
import tracemalloc

import numpy as np
import pandas as pd

from humancert.data.annotations import Annotations


def test_from_long_ten_million_rows_peak_memory():
    rng = np.random.default_rng(0)
    n, n_items, n_annot = 10_000_000, 2_000_000, 50
    item = rng.integers(0, n_items, n, dtype=np.int64)
    annot = rng.integers(0, n_annot, n, dtype=np.int64)
    # make (item, annotator) unique so the default duplicates='error' applies: annotator = slot within the item
    order = np.argsort(item, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    starts = np.r_[0, np.flatnonzero(np.diff(item[order])) + 1]
    rank[order] = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
    annot = rank
    df = pd.DataFrame({"item": item, "annotator": annot, "label": rng.integers(0, 3, n, dtype=np.int64)})
    del item, annot, order, rank, starts
    gc.collect()
    input_bytes = int(df.memory_usage(index=False).sum())
    tracemalloc.start()
    ann = Annotations.from_long(df)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert ann.n_labels.sum() == n
    print(f"peak {peak / 1e6:.0f} MB, input {input_bytes / 1e6:.0f} MB")
    assert peak <= 2 * input_bytes, f"peak {peak / 1e6:.0f} MB > 2 x input {input_bytes / 1e6:.0f} MB"
