"""Train the classifier whose predictions humancert ships for Davidson et al. (2017): TF-IDF + logistic regression,
with 5-fold out-of-fold probabilities, so that every tweet is predicted by a model that never saw its labels.

    python benchmarks/davidson_model.py PATH/TO/labeled_data.csv.gz     # writes data/davidson.csv.gz, prints what it did

The input is `data/labeled_data.csv` of github.com/t-davidson/hate-speech-and-offensive-language (MIT). The tweets
themselves are not written anywhere: data/davidson.csv.gz holds per-tweet label counts and the out-of-fold
probabilities only. The model is trained on the crowd's majority class, as Davidson et al. did; deterministic
(fixed folds and solver). Needs scikit-learn (in the dev extra).
"""
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold

CLASSES = ("hate speech", "offensive language", "neither")       # Davidson's class codes 0, 1, 2


def out_of_fold(text, y, n_splits=5, seed=0):
    "Probabilities of each class for every tweet, from a model fitted on the other folds."
    P = np.zeros((len(y), len(CLASSES)))
    for train, test in StratifiedKFold(n_splits, shuffle=True, random_state=seed).split(text, y):
        vec = TfidfVectorizer(ngram_range=(1, 2), min_df=2, sublinear_tf=True, lowercase=True)
        model = LogisticRegression(C=4.0, max_iter=2000)
        model.fit(vec.fit_transform(text[train]), y[train])
        P[test] = model.predict_proba(vec.transform(text[test]))
    return P


def main(src):
    out = Path(__file__).resolve().parent.parent / "data" / "davidson.csv.gz"
    d = pd.read_csv(src)
    t0 = time.perf_counter()
    P = out_of_fold(d["tweet"].to_numpy(), d["class"].to_numpy())
    secs = time.perf_counter() - t0
    table = pd.DataFrame({"tweet": d["Unnamed: 0"], "hate_speech": d["hate_speech"], "offensive_language": d["offensive_language"],
                          "neither": d["neither"]})
    for k, c in enumerate(("hate_speech", "offensive_language", "neither")): table[f"p_{c}"] = P[:, k]
    table.to_csv(out, index=False, float_format="%.6g", compression={"method": "gzip", "mtime": 0})   # 6 digits: never a 0
    acc = (P.argmax(1) == d["class"].to_numpy()).mean()
    print(f"{len(d):,} tweets, 5-fold out-of-fold TF-IDF + logistic regression in {secs:.1f} s; "
          f"accuracy against the majority class {acc:.4f}; wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__": main(sys.argv[1])
