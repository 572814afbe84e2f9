"""Rebuild data/dices.csv.gz from DICES-350 (CC BY 4.0), deterministically.

    python data/provenance/make_dices.py PATH/TO/dices

PATH/TO/dices holds JUDGE-BENCH's conversion of DICES-350 (repository dmg-illc/JUDGE-BENCH, commit 5a0bf50,
folder data/dices/): dices_350_crowdsourced.json (each conversation's crowd ratings `Q_overall`, 123 per
conversation, rater ids not kept) and dices_350_expert.json (the experts' `safety_gold`). Kept per conversation: its
`id`, how many crowd ratings were Yes, No and Unsure, and the expert label. The conversation text is not kept.
A provenance record: not run by the package or the tests.
"""
import collections, gzip, json, pathlib, sys

import pandas as pd

CLASSES = ("Yes", "No", "Unsure")

def main(src):
    src = pathlib.Path(src)
    crowd = json.loads((src / "dices_350_crowdsourced.json").read_text(encoding="utf-8"))["instances"]
    expert = {r["id"]: r["annotations"]["safety"]["individual_human_scores"] for r in
              json.loads((src / "dices_350_expert.json").read_text(encoding="utf-8"))["instances"]}
    rows = []
    for r in crowd:
        n = collections.Counter(r["annotations"]["safety"]["individual_human_scores"])
        if set(n) - set(CLASSES): raise ValueError(f"conversation {r['id']}: unexpected ratings {set(n) - set(CLASSES)}")
        gold = expert[r["id"]]
        if len(gold) != 1 or gold[0] not in ("Yes", "No"): raise ValueError(f"conversation {r['id']}: expert label {gold!r}")
        rows.append({"item": int(r["id"]), **{c: n[c] for c in CLASSES}, "expert": gold[0]})
    d = pd.DataFrame(rows).sort_values("item")
    if len(d) != len(expert) or d["item"].duplicated().any(): raise ValueError("crowd and expert files do not match one to one")
    with gzip.GzipFile("data/dices.csv.gz", "wb", mtime=0) as f:
        f.write(d.to_csv(index=False).encode())
    print(len(d), "conversations;", int(d[list(CLASSES)].to_numpy().sum()), "crowd ratings;",
          "expert:", d["expert"].value_counts().to_dict())

if __name__ == "__main__": main(sys.argv[1])
