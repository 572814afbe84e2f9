"""Train the rating model whose predictions humancert ships for CEBaB (Abraham et al. 2022): TF-IDF + ridge regression
from the review text to the five workers' mean star rating, with 5-fold out-of-fold predictions, so that every review is
predicted by a model that never saw its text or its ratings.

    python benchmarks/cebab_model.py PATH/TO/CEBaB-v1.1.zip     # prints the model's fit; data/provenance/make_cebab.py calls out_of_fold

Folds are drawn over ORIGINAL reviews (seed 0): an edited review shares most of its text with its original, so both
always fall in the same fold. The text is used here only; data/cebab.csv.gz keeps the predictions, never the text.
Needs scikit-learn (in the dev extra).
"""
import sys
import time

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import Ridge


def folds(groups, n_splits=5, seed=0):
    "A fold number per row: the groups (original review ids) shuffled with `seed` and dealt round-robin into folds."
    uniq = np.unique(groups)
    fold_of = dict(zip(np.random.default_rng(seed).permutation(uniq), np.arange(len(uniq)) % n_splits))
    return np.array([fold_of[g] for g in groups])


def out_of_fold(text, y, groups, n_splits=5, seed=0):
    "Each review's predicted rating from a model fitted on the other folds, clipped to the 1-5 scale."
    text, y = np.asarray(text, dtype=object), np.asarray(y, dtype=float)
    f = folds(np.asarray(groups), n_splits, seed)
    pred = np.empty(len(y))
    for j in range(n_splits):
        train, test = f != j, f == j
        vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, lowercase=True)
        model = Ridge(alpha=1.0)
        model.fit(vec.fit_transform(text[train]), y[train])
        pred[test] = model.predict(vec.transform(text[test]))
    return np.clip(pred, 1.0, 5.0)


def main(src):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "data" / "provenance"))
    from make_cebab import read_reviews
    r = read_reviews(src)
    t0 = time.perf_counter()
    p = out_of_fold(r["text"], r["worker_mean"], r["original"])
    secs = time.perf_counter() - t0
    mae = np.abs(p - r["worker_mean"].to_numpy()).mean()
    print(f"{len(r):,} reviews, 5-fold out-of-fold TF-IDF + ridge in {secs:.1f} s; MAE against the workers' mean {mae:.4f}")


if __name__ == "__main__": main(sys.argv[1])
