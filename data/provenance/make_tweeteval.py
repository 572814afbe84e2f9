"""Rebuild data/tweeteval_annotated.csv.gz from TweetEval-Annotated (CC BY 4.0), deterministically.

    python data/provenance/make_tweeteval.py PATH/TO/TweetEval-Annotated.jsonl

Source: the public repository keimoriyama/TweetEval_Annotated (commit 55a5efa, 2025-03-02), file
TweetEval-Annotated.jsonl. Kept per tweet: its `id`, the four annotators' emoji codes, the LLM's code
and the emoji the author used (the oracle), each written as an emoji name. The tweet text is not kept.
A provenance record: not run by the package or the tests.
"""
import gzip, json, sys

import pandas as pd

NAMES = {0: "fire", 1: "camera", 2: "wink", 3: "smile"}   # 🔥 📷 😜 😊, the upstream codes 0..3

def main(src):
    rows = [json.loads(line) for line in open(src, encoding="utf-8")]
    d = pd.DataFrame({"id": [r["id"] for r in rows],
                      **{f"annotator_{j}": [NAMES[r[f"annotation_label_{j}"]] for r in rows] for j in range(4)},
                      "llm": [NAMES[r["annotation_llm"]] for r in rows],   # upstream swaps the LLM fields: this one holds the code
                      "author": [NAMES[r["ground_truth_label"]] for r in rows]}).sort_values("id")
    with gzip.GzipFile("data/tweeteval_annotated.csv.gz", "wb", mtime=0) as f:
        f.write(d.to_csv(index=False).encode())
    print(len(d), "tweets; accuracy against the author:",
          {c: round((d[c] == d["author"]).mean(), 4) for c in d.columns[1:-1]})

if __name__ == "__main__": main(sys.argv[1])
