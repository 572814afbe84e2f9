"""The report's work on personal_attacks (issue 35 item 4, second pass): a soft model's labels are factorized as Python
objects, not through pandas' pyarrow strings (whose first factorize costs about 25 ms in a fresh process)."""
import numpy as np
import pandas as pd
import pytest

from humancert.data.datasets import load
from humancert.report.reporting import _model_labels


def test_soft_model_labels_skip_pyarrow_strings(monkeypatch):
    arrow = pytest.importorskip("pandas.core.arrays.arrow.array")
    def refuse(*a, **k): raise AssertionError("pyarrow string factorize on the report path")
    monkeypatch.setattr(arrow.ArrowExtensionArray, "factorize", refuse)
    monkeypatch.setattr(pd.core.arrays.string_arrow.ArrowStringArray, "factorize", refuse, raising=False)
    d = load("personal_attacks")
    ann, soft = d.annotations, d.predictions["predictor"]
    notes = []
    _, probs, ext, label = _model_labels(ann, None, soft, None, None, notes)
    want = np.where(soft["attack"].to_numpy() > soft["not attack"].to_numpy(), "attack", "not attack")   # argmax, first class on ties
    assert ext is ann and label.tolist() == want.tolist()
