"""Timing shared by the benchmark scripts (imported as a sibling module: a script's folder is first on sys.path)."""
import time

import numpy as np


def timed(f, repeat):
    "Best wall and CPU seconds of `repeat` calls, and the last result."
    best, out = (np.inf, np.inf), None
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        out = f()
        best = min(best, (time.perf_counter() - w, time.process_time() - c))
    return best, out
