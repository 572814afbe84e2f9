"""Rebuild data/imagenet_real.csv.gz and data/imagenet_real_golden.csv.gz from Google Research's reassessed-imagenet
rater files (raters.npz, raters_golden.npz, golden.npz; Apache-2.0).

One-off provenance script, never run by the package or its tests:
    python data/provenance/make_imagenet.py PATH/TO/reassessed-imagenet
Output is deterministic (no randomness); see data/README.md for what each column means.

Each question is an (image, proposed ImageNet class) pair that a rater answered no, maybe or yes. The upstream
tensors are raters x questions x (no, maybe, yes) one-hot; a question is named by the image's number in the
ILSVRC2012 validation set and the proposed class id.
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ANSWERS = np.array(["no", "maybe", "yes"], dtype=object)


def _questions(info):
    "Image number and proposed class of each question, from ('ILSVRC2012_val_00041207.JPEG', '556') pairs."
    return (pd.Series(info[:, 0]).str.extract(r"_(\d+)\.JPEG")[0].astype(int).to_numpy(), info[:, 1].astype(int))


def main(src):
    src, out = Path(src), Path(__file__).resolve().parent.parent
    r = np.load(src / "raters.npz")
    T, ids = r["tensor"], r["ids"]
    image, proposed = _questions(r["info"])
    answered = T.sum(2) > 0                                         # raters x questions
    if not (answered.sum(0) == 5).all(): raise ValueError("expected exactly five answers per question")
    rater_idx = np.argsort(~answered, axis=0, kind="stable")[:5].T  # the five raters of each question, in rater order
    q = np.arange(T.shape[1])[:, None]
    main_ = pd.DataFrame({"image": image, "proposed": proposed})
    for j in range(5):
        main_[f"rater_{j + 1}"] = ids[rater_idx[:, j]]
        main_[f"answer_{j + 1}"] = ANSWERS[T[rater_idx[:, j], q[:, 0]].argmax(1)]
    main_.to_csv(out / "imagenet_real.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})

    g, rg = np.load(src / "golden.npz"), np.load(src / "raters_golden.npz")
    if not (g["info"] == rg["info"]).all(): raise ValueError("golden.npz and raters_golden.npz list different questions")
    image, proposed = _questions(g["info"])
    gold = pd.DataFrame({"image": image, "proposed": proposed})
    for j in range(g["tensor"].shape[0]): gold[f"expert_{j + 1}"] = ANSWERS[g["tensor"][j].argmax(1)]
    if (rg["tensor"].sum(2) != 1).any(): raise ValueError("expected every rater to answer every golden question")
    for j, rid in enumerate(rg["ids"]): gold[f"r{rid}"] = ANSWERS[rg["tensor"][j].argmax(1)]
    gold.to_csv(out / "imagenet_real_golden.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})


if __name__ == "__main__": main(sys.argv[1])
