"""The small simulated panel the gold-label tests share: C classes, K annotators right with probability `acc` and the model
with `model_acc`, every error a uniformly drawn wrong class; the oracle labels come back as the gold."""
import numpy as np
import pandas as pd

from humancert.data.annotations import Annotations


def toy_panel(n, C, K, acc, model_acc, seed):
    "(annotations, model labels, oracle labels) of `n` items named i0, i1, ...; the same seed gives the same panel."
    r = np.random.default_rng(seed)
    truth = r.integers(0, C, n)
    wrong = lambda k: (truth[:, None] + r.integers(1, C, (n, k))) % C
    labels = np.where(r.random((n, K)) < acc, truth[:, None], wrong(K))
    model = np.where(r.random(n) < model_acc, truth, wrong(1)[:, 0])
    items = [f"i{j}" for j in range(n)]
    ann = Annotations.from_wide(pd.DataFrame(labels, index=items, columns=[f"a{k}" for k in range(K)]))
    return ann, pd.Series(model, index=items), pd.Series(truth, index=items)
