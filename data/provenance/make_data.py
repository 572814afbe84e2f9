"""Rebuild the compact copies in data/ from the survey-equivalence authors' shipped data.

One-off provenance script, never run by the package or its tests:
    python data/provenance/make_data.py PATH/TO/surveyequivalence   # the folder holding running_example/, credweb.csv, ...
Output is deterministic (no randomness); see data/README.md for what each column means.
"""
import sys
from pathlib import Path

import pandas as pd

def _probs(s):
    "Parse the package's 'Prediction: [p_pos, p_neg]' strings into the probability of `pos`."
    return s.str.extract(r"\[([0-9.eE+-]+),")[0].astype(float)

def main(src):
    src, out = Path(src), Path(__file__).resolve().parent.parent
    lab = pd.read_csv(src/"running_example/ref_rater_labels.csv", index_col=0)
    pred = pd.read_csv(src/"running_example/predictions.csv", index_col=0)
    re_ = lab.copy()
    re_.index.name = "item"
    re_["hard"] = pred["mock hard classifier"].str.removeprefix("Prediction: ").values
    re_["calibrated_pos"] = _probs(pred["calibrated hard classifier"]).values
    re_["ideal_pos"] = _probs(pred["h_infinity: ideal classifier"]).values
    re_.to_csv(out/"running_example.csv.gz", compression={"method": "gzip", "mtime": 0})

    wiki = pd.read_csv(src/"wiki_attack_labels_and_predictor.csv")
    wiki[["rev_id", "n_labelled_attack", "n_labels", "predictor_prob"]].to_csv(
        out/"personal_attacks.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})

    cred = pd.read_csv(src/"credweb.csv")
    cols = {f"credCount{c}_ret": str(c) for c in (-2, -1, 0, 1, 2)}
    cred = cred[["event", *cols, "cscw_predictor"]].rename(columns=cols)
    cred.to_csv(out/"credbank.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})

    gtk = pd.read_csv(src/"vote_gtk2.csv")
    users = {u: i for i, u in enumerate(pd.unique(gtk["user_id"]))}
    g = pd.DataFrame({"pair": gtk["image_pair"], "user": gtk["user_id"].map(users),
                      "opinion": gtk["opinion_choice"].astype(str).replace({"-1": ""}),
                      "guess": gtk["prediction_choice"],
                      "score_A": gtk["image_A_score"], "score_B": gtk["image_B_score"]})
    g.to_csv(out/"guessthekarma.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})

if __name__ == "__main__": main(sys.argv[1])
