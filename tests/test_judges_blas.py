"""compare_judges keeps numpy's threaded BLAS on the calling thread (issue 32's speed goal under threaded OpenBLAS on a shared
machine): its dense products are summed over slices small enough that OpenBLAS never wakes its worker threads, with the same
numbers as the plain products. The thread checks read per-thread CPU time from /proc (Linux)."""
import os
import threading

import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.judges import board
from humancert.judges.board import compare_judges, _serial_matmul

def _openblas():
    "Whether numpy runs on OpenBLAS (the threading threshold _serial_matmul's slices follow)."
    try: return "openblas" in np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"].lower()
    except Exception: return False


linux = pytest.mark.skipif(not os.path.isdir("/proc/self/task") or not _openblas(), reason="per-thread CPU time is read from /proc; the slices follow OpenBLAS's threshold")


def _worker_cpu():
    "CPU seconds used so far by every thread of this process but the calling one (OpenBLAS's workers among them)."
    me, tot = threading.get_native_id(), 0
    for t in os.listdir("/proc/self/task"):
        if int(t) == me: continue
        try: f = open(f"/proc/self/task/{t}/stat").read().rsplit(")", 1)[1].split()
        except FileNotFoundError: continue                              # a thread that ended meanwhile
        tot += int(f[11]) + int(f[12])                                  # utime, stime (clock ticks)
    return tot / os.sysconf("SC_CLK_TCK")


def _panel(n_items=20_000, n_annot=10, n_judges=5, seed=0):
    "4 classes, annotators right with probability 0.55-0.85 and missing on 10 % of the items, judges right with 0.5-0.9 (as benchmarks/bench_alt_test.py)."
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n_items)
    def noisy(p): return np.where(rng.random(n_items) < p, truth, rng.integers(0, 4, n_items))
    wide = pd.DataFrame({f"h{j}": noisy(p) for j, p in enumerate(np.linspace(0.55, 0.85, n_annot))}).astype(float)
    wide = wide.mask(rng.random(wide.shape) < 0.1)
    wide.iloc[:, 0] = wide.iloc[:, 0].fillna(0.0)
    judges = pd.DataFrame({f"j{g}": noisy(p).astype(float) for g, p in enumerate(np.linspace(0.5, 0.9, n_judges))})
    return Annotations.from_wide(wide), judges


def test_serial_matmul_matches_einsum():
    "Large operands (the bootstrap's shapes, scaled down) against numpy's einsum, which does not call BLAS: equal to rounding; integer counts exactly."
    rng = np.random.default_rng(1)
    M, Y = rng.integers(0, 4, (20, 30_000)).astype(float), rng.normal(size=(30_000, 15))
    np.testing.assert_allclose(_serial_matmul(M, Y), np.einsum("bi,ij->bj", M, Y), rtol=1e-12, atol=1e-9)   # |sums| ~ 1e2-1e3: 1e-9 is ~1e6 ulps of slack for reordering
    Z, Mt = rng.integers(0, 2, (30_000, 60)).astype(np.float32), rng.integers(0, 4, (30_000, 20)).astype(np.float32)
    exact = np.einsum("ik,in->kn", Z.astype(np.int64), Mt.astype(np.int64))
    np.testing.assert_array_equal(_serial_matmul(Z.T, Mt), exact.astype(np.float32))   # integers below 2^24: exact in float32 in any order
    W, S = rng.integers(0, 5, (3000, 900)).astype(float), rng.random((900, 10))  # many resamples: rows in blocks too
    np.testing.assert_allclose(_serial_matmul(W, S), np.einsum("bq,qk->bk", W, S), rtol=1e-12)
    assert _serial_matmul(np.ones((2, 0)), np.ones((0, 3))).shape == (2, 3)


@linux
def test_serial_matmul_stays_on_the_calling_thread():
    "Products of 20 x 10^5 by 10^5 x 15 (each over OpenBLAS's threading threshold 2^18 many times): no CPU time in any other thread."
    rng = np.random.default_rng(2)
    M, Y = rng.integers(0, 4, (20, 100_000)).astype(float), rng.normal(size=(100_000, 15))
    c0 = _worker_cpu()
    for _ in range(30): _serial_matmul(M, Y)
    assert _worker_cpu() - c0 <= 0.02, _worker_cpu() - c0             # two clock ticks of slack for an unrelated thread


@linux
def test_compare_judges_uses_no_blas_threads():
    "The whole board at 2 x 10^4 items x 10 annotators x 5 judges, 200 bootstraps: before, threaded OpenBLAS spent CPU in its workers on this shape."
    ann, J = _panel()
    compare_judges(ann, J, n_bootstrap=20, seed=0)                      # warm-up: imports, thread pools created
    c0 = _worker_cpu()
    compare_judges(ann, J, n_bootstrap=200, seed=0)
    assert _worker_cpu() - c0 <= 0.02, _worker_cpu() - c0


def test_same_board_as_plain_products(monkeypatch):
    "Every number of the board with the sliced products against the same board with numpy's plain products (the code before): equal to 1e-12."
    ann, J = _panel(6_000)
    J = J.mask(np.random.default_rng(3).random(J.shape) < 0.05)           # missing judge labels too
    new = compare_judges(ann, J, n_bootstrap=100, seed=4).to_frame()
    monkeypatch.setattr(board, "_serial_matmul", lambda a, b: a @ b)
    old = compare_judges(ann, J, n_bootstrap=100, seed=4).to_frame()
    assert list(new.index) == list(old.index)
    num = [c for c in old.columns if pd.api.types.is_numeric_dtype(old[c]) and not pd.api.types.is_bool_dtype(old[c])]
    x, y = new[num].to_numpy(float), old[num].to_numpy(float)
    assert (np.isnan(x) == np.isnan(y)).all()
    assert np.nanmax(np.abs(x - y)) <= 1e-12, np.nanmax(np.abs(x - y))
    pd.testing.assert_frame_equal(new.drop(columns=num), old.drop(columns=num))
