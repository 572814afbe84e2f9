"""Build data/cebab.csv.gz from CEBaB v1.1 (CC BY 4.0; github.com/CEBaBing/CEBaB, commit 40e6851, CEBaB-v1.1.zip).

    python data/provenance/make_cebab.py PATH/TO/CEBaB-v1.1.zip

One row per (review, worker): `review` (CEBaB's id), `original` (the id of the original review it edits, itself for an
original), `is_original`, `worker` (CEBaB's worker id, consistent across reviews), `rating` (the worker's 1-5 stars for
the review text), `author` (for original reviews only: the author's own OpenTable `rating_overall`; empty for edits,
whose text is no longer the author's), `model` (the out-of-fold prediction of benchmarks/cebab_model.py, TF-IDF + ridge
trained on the workers' mean rating). Reviews that appear in several of CEBaB's splits are kept once. No review text.
Deterministic: fixed order (by review id, then worker), fixed folds, gzip with mtime 0.
"""
import importlib.util
import json
import sys
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
SPLITS = ("train_exclusive", "train_inclusive", "train_observational", "dev", "test")


def read_reviews(src):
    "One row per distinct review: ids, the five workers' ratings, the author's rating (originals) and the text."
    rows = {}
    with zipfile.ZipFile(src) as z:
        for s in SPLITS:
            for r in json.loads(z.read(f"CEBaB-v1.1/{s}.json")):
                if r["id"] in rows: continue
                meta = r["opentable_metadata"] if r["is_original"] and isinstance(r["opentable_metadata"], dict) else {}
                rows[r["id"]] = {"review": r["id"], "original": r["original_id"], "is_original": bool(r["is_original"]),
                                 "workers": {w: int(v) for w, v in r["review_workers"].items()},
                                 "author": meta.get("rating_overall"), "text": r["description"]}
    d = pd.DataFrame(sorted(rows.values(), key=lambda r: r["review"]))
    d["worker_mean"] = [np.mean(list(w.values())) for w in d["workers"]]
    return d


def main(src):
    spec = importlib.util.spec_from_file_location("cebab_model", ROOT / "benchmarks" / "cebab_model.py")
    model = importlib.util.module_from_spec(spec); spec.loader.exec_module(model)
    d = read_reviews(src)
    d["model"] = model.out_of_fold(d["text"], d["worker_mean"], d["original"])
    long = d.drop(columns=["text", "worker_mean"]).explode("workers", ignore_index=False)
    long = pd.DataFrame({"review": long["review"], "original": long["original"], "is_original": long["is_original"].astype(int),
                         "worker": long["workers"], "rating": [d.at[i, "workers"][w] for i, w in zip(long.index, long["workers"])],
                         "author": long["author"].astype("Int64"), "model": long["model"]})
    long = long.sort_values(["review", "worker"], kind="stable")
    out = ROOT / "data" / "cebab.csv.gz"
    long.to_csv(out, index=False, float_format="%.4f", compression={"method": "gzip", "mtime": 0})
    print(f"{d.shape[0]:,} reviews ({int(d['is_original'].sum()):,} original), {len(long):,} ratings by "
          f"{long['worker'].nunique()} workers; wrote {out} ({out.stat().st_size:,} bytes)")


if __name__ == "__main__": main(sys.argv[1])
