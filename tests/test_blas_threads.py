"""Issue 42 item 5: the Python API's bootstraps run on one BLAS thread, as the `humancert` command does, whatever the caller's
thread setting, and give the caller's setting back afterwards; the numbers do not depend on that setting.

The caller here sets two BLAS threads explicitly (threadpoolctl), so that the checks mean the same on a machine of any size.
A spy on `np.bincount` (`np.sort` for bootstrap-t) reads the BLAS thread count at each resample's draw of item multiplicities
(item indices), among the calls with an integer array as long as the items (or a whole block of resamples of them)."""
import numpy as np
import pandas as pd
import pytest
from threadpoolctl import ThreadpoolController

import humancert
from humancert.data.annotations import Annotations, single_blas_thread

CTL = ThreadpoolController()
BLAS = CTL.select(user_api="blas")
pytestmark = pytest.mark.skipif(not BLAS.lib_controllers, reason="no BLAS library that threadpoolctl can set")
N = 157                                                  # items: a size no other array of these calls has


def _threads():
    return sorted({lib["num_threads"] for lib in BLAS.info()})


def _panel(n=N, raters=5, classes=3, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, classes, n)
    wide = np.where(rng.random((n, raters)) < 0.7, truth[:, None], rng.integers(0, classes, (n, raters))).astype(float)
    return wide, np.where(rng.random(n) < 0.75, truth, rng.integers(0, classes, n))


def _spy(monkeypatch, seen, name):
    "np.bincount (or np.sort, for bootstrap-t) records the BLAS thread count when it draws a resample of the N items."
    real = getattr(np, name)
    def spy(x, *a, **k):
        arr = np.asarray(x)
        size = k.get("minlength", arr.size) if name == "bincount" else N
        if arr.ndim == 1 and arr.dtype.kind in "iu" and arr.size == size and size % N == 0:
            seen.append(_threads()[-1])
        return real(x, *a, **k)
    monkeypatch.setattr(np, name, spy)


WIDE, MODEL = _panel()
ANN = Annotations.from_wide(WIDE)
RATINGS = Annotations.from_wide(WIDE + 1, level="ordinal")
CALLS = {   # name: (the call, its resample draws: one per resample, or one per block of 64 on a scale)
    "gwet_ac bootstrap": (lambda: humancert.gwet_ac(ANN, ci_method="bootstrap", n_bootstrap=30, seed=1).ci, 30),
    "brennan_prediger bca": (lambda: humancert.brennan_prediger(ANN, ci_method="bca", n_bootstrap=30, seed=1).ci, 30),
    "krippendorff_alpha bootstrap": (lambda: humancert.krippendorff_alpha(ANN, ci_method="bootstrap", n_bootstrap=30, seed=1).ci, 30),
    "cohen_kappa_mean bootstrap": (lambda: humancert.cohen_kappa_mean(ANN, ci_method="bootstrap", n_bootstrap=30, seed=1).ci, 30),
    "power_curve": (lambda: humancert.power_curve(ANN, "plurality", "agreement", n_bootstrap=20, seed=1).to_frame().to_numpy().tolist(), 20),
    "survey_equivalence": (lambda: repr(humancert.survey_equivalence(MODEL, ANN, "plurality", "agreement", n_bootstrap=20, seed=1)), 20),
    "survey_equivalence, ratings": (lambda: repr(humancert.survey_equivalence(pd.Series(MODEL + 1.0), RATINGS, "mean", "neg_mae", n_bootstrap=20, seed=1)), 1),
    "power_curve, ratings": (lambda: humancert.power_curve(RATINGS, "mean", "neg_mae", n_bootstrap=20, seed=1).to_frame().to_numpy().tolist(), 1),
    "compare_judges": (lambda: humancert.compare_judges(ANN, pd.DataFrame({"j": MODEL.astype(float)}), n_bootstrap=20, seed=1).to_frame().to_numpy().tolist(), 20),
}
SORTED = {"gwet_ac bootstrap_t": (lambda: humancert.gwet_ac(ANN, ci_method="bootstrap_t", n_bootstrap=30, seed=1).ci, 30)}  # draws item indices
CALLS |= SORTED


@pytest.mark.parametrize("name", CALLS)
def test_bootstrap_on_one_blas_thread(monkeypatch, name):
    "Under the caller's two BLAS threads: every resample is drawn on one thread, the caller's two come back, and the numbers equal those under one thread."
    call, draws = CALLS[name]
    seen = []
    with CTL.limit(limits=2, user_api="blas"):
        assert _threads() == [2]
        _spy(monkeypatch, seen, "sort" if name in SORTED else "bincount")
        two = call()
        assert _threads() == [2]                          # the caller's setting, given back
    monkeypatch.undo()
    assert seen.count(1) == draws, seen                  # (other calls with an array of N integers, outside the bootstrap, may see 2)
    with CTL.limit(limits=1, user_api="blas"):
        one = call()
    assert repr(two) == repr(one)                         # the same numbers, to the last digit


def test_single_blas_thread_restores_after_an_error():
    "The caller's thread count comes back when the wrapped function raises, and the wrapper keeps the function's name and doc."
    @single_blas_thread
    def fails():
        "A doc."
        assert _threads() == [1]
        raise KeyError("inside")
    with CTL.limit(limits=2, user_api="blas"):
        with pytest.raises(KeyError, match="inside"): fails()
        assert _threads() == [2]
    assert (fails.__name__, fails.__doc__) == ("fails", "A doc.")
