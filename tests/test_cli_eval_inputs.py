"""Issue 44 items 1 and 2 through the command as a user runs it (in-process `main`) and through `make_report`.

Item 2: a judge that left items without a label is accepted on every path (a wide --model column, a --model file, the long
--rater-kind table), with the count of missing outputs in the report and what each section does with them; the
certificate is computed on the items the judge labelled (checked against `certify` on those items, built here by hand),
the alt-test on the items the judge labelled; gold-status refuses, naming the alternative.
Item 1: eval tools' files (nested JSON, inspect logs, judge-output JSON lines with extra fields) as INPUT and as --model,
each made in the test, with hand counts.
Expected values come from the library called on data built here, or from hand counts, never from the command's output."""
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from humancert.certification.certify import certify
from humancert.data.annotations import Annotations
from humancert.report.reporting import make_report, add_gold
from report_run import command as cli


def _wide(n=40, skipped=5, seed=1):
    "Items i0..i{n-1}, annotators a, b, c (0/1), judge llm with no label on the first `skipped` items."
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 2, n)
    df = pd.DataFrame({"item": [f"i{k}" for k in range(n)]})
    for a in "abc": df[a] = np.where(rng.random(n) < 0.8, t, 1 - t)
    m = np.where(rng.random(n) < 0.85, t, 1 - t).astype(object)
    m[:skipped] = None
    df["llm"] = m
    return df


# ------------------------------------------------------------------------------------------------ item 2: missing outputs

def test_wide_model_column_with_missing_labels(tmp_path):
    "Before: exit 2, '--model: no prediction for 5 of 40 item(s) ... predict every item'."
    df = _wide()
    df.to_csv(tmp_path / "w.csv", index=False)
    code, out, err = cli("report", str(tmp_path / "w.csv"), "--model", "llm", "--alt-test", "0.1", "--min-items", "10", "--n-bootstrap", "0")
    assert code == 0, err
    assert "'llm' has no label on 5 of 40 item(s)" in out
    assert "'llm' gave no label on 5 of 40 items: the agreement, bounds, certificates (agreement-only and gold) and survey equivalence describe the 35 items" in out
    assert "the alternative annotator test and the judges' table use, for each judge, the items it labelled" in out


def test_report_on_the_items_the_judge_labelled():
    "The certificate is certify's on the 35 labelled items (built here from the rows by hand); the alt-test keeps those 35 items."
    df = _wide().set_index("item")
    ann = Annotations.from_wide(df[["a", "b", "c"]])
    rep = make_report(ann, df["llm"].rename("llm"), alt_test=0.1, min_items_per_annotator=10, n_bootstrap=0)
    kept = df.iloc[5:]
    want = certify(Annotations.from_wide(kept[["a", "b", "c"]]), kept["llm"].astype(int), delta=0.05, seed=0)
    assert (rep.certificate.n_items, rep.certificate.score, rep.certificate.lower) == (35, want.score, want.lower)
    assert rep.shape["items"] == 35
    assert rep.judges.alt["llm"].n_items == 35
    assert any("gave no label on 5 of 40 items" in n for n in rep.notes)


def test_gold_certificate_on_the_items_the_judge_labelled(tmp_path):
    "12 gold items, 3 of them (i1, i2, i3) among the 5 the judge skipped: the gold certificate counts 9 (by hand)."
    df = _wide()
    df.to_csv(tmp_path / "w.csv", index=False)
    gold = {"i1": 1, "i2": 0, "i3": 1, "i7": 0, "i8": 1, "i9": 0, "i10": 1, "i11": 1, "i12": 0, "i13": 1, "i14": 0, "i15": 1}
    pd.Series(gold, name="gold").rename_axis("item").reset_index().to_csv(tmp_path / "g.csv", index=False)
    code, out, err = cli("report", str(tmp_path / "w.csv"), "--model", "llm", "--gold", str(tmp_path / "g.csv"), "--n-bootstrap", "0")
    assert code == 0, err
    assert "gold items                                              9" in out


def test_model_file_and_rater_kind_paths(tmp_path):
    "A --model file listing 35 of the 40 items, and a long table whose LLM_JUDGE rater skipped 5 items: both accepted, both counted."
    df = _wide()
    df[["a", "b", "c"]].set_axis(df["item"]).rename_axis("item").reset_index().to_csv(tmp_path / "h.csv", index=False)
    df.iloc[5:][["item", "llm"]].to_csv(tmp_path / "pred.csv", index=False)
    code, out, err = cli("report", str(tmp_path / "h.csv"), "--model", str(tmp_path / "pred.csv"), "--n-bootstrap", "0")
    assert code == 0 and "gave no label on 5 of 40 items" in out, err
    rows = [(r.item, a, int(r[a]), "HUMAN") for _, r in df.iterrows() for a in "abc"]
    rows += [(r.item, "llm", int(r.llm), "LLM_JUDGE") for _, r in df.iterrows() if r.llm is not None]
    pd.DataFrame(rows, columns=["item", "annotator", "label", "kind"]).to_csv(tmp_path / "long.csv", index=False)
    code, out, err = cli("report", str(tmp_path / "long.csv"), "--format", "long", "--rater-kind", "kind", "--n-bootstrap", "0")
    assert code == 0 and "'llm' gave no label on 5 of 40 items" in out, err


def test_gold_status_refuses_naming_the_alternative(tmp_path):
    df = _wide()
    df.to_csv(tmp_path / "w.csv", index=False)
    pd.DataFrame({"item": ["i7", "i8"], "gold": [0, 1]}).to_csv(tmp_path / "g.csv", index=False)
    code, out, err = cli("gold-status", str(tmp_path / "w.csv"), "--model", "llm", "--gold", str(tmp_path / "g.csv"))
    assert code == 2 and "--model: the model has no label on 5 of 40 item(s)" in err and "humancert report INPUT --model" in err, err


def test_judge_with_no_label_at_all_is_refused(tmp_path):
    df = _wide()
    df[["a", "b", "c"]].set_axis(df["item"]).rename_axis("item").reset_index().to_csv(tmp_path / "h.csv", index=False)
    pd.DataFrame({"item": ["x1", "x2"], "llm": [0, 1]}).to_csv(tmp_path / "pred.csv", index=False)
    code, _, err = cli("report", str(tmp_path / "h.csv"), "--model", str(tmp_path / "pred.csv"))
    assert code == 2 and "has no label for any of the 40 item(s) of INPUT" in err, err


# ------------------------------------------------------------------------------------------------ item 1: eval tools' files

def _files(tmp_path):
    "The same labels as a wide CSV (humans + llm), nested JSON (humans + llm), humans.csv, nested JSON of llm alone, and JSON lines."
    df = _wide()
    df.to_csv(tmp_path / "w.csv", index=False)
    nested = {a: {i: int(v) for i, v in zip(df["item"], df[a])} for a in "abc"}
    nested["llm"] = {i: int(v) for i, v in zip(df["item"], df["llm"]) if v is not None}
    (tmp_path / "nested.json").write_text(json.dumps(nested))
    (tmp_path / "llm.json").write_text(json.dumps({"llm": nested["llm"]}))
    df[["item", "a", "b", "c"]].to_csv(tmp_path / "humans.csv", index=False)
    rows = []
    for i, v, a in zip(df["item"], df["llm"], df["a"]):
        if v is not None: rows.append({"item": i, "label": int(v), "model": "gpt", "latency_ms": 300})
        rows.append({"item": i, "label": int(a), "model": "claude", "latency_ms": 200})
    (tmp_path / "runs.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    (tmp_path / "gpt.jsonl").write_text("\n".join(json.dumps(r) for r in rows if r["model"] == "gpt"))
    return df


def _line(out, start):
    return next(l for l in out.splitlines() if l.startswith(start))


def test_nested_json_as_input_and_as_model(tmp_path):
    "Before: INPUT .json refused ('neither CSV ... nor Parquet'), a nested --model file read as a table. By hand: 4 annotators, llm on 35 items."
    _files(tmp_path)
    opts = ("--model", "llm", "--alt-test", "0.1", "--min-items", "10", "--n-bootstrap", "0")
    code, wide, err = cli("report", str(tmp_path / "w.csv"), *opts)
    assert code == 0, err
    code, nested, err = cli("report", str(tmp_path / "nested.json"), *opts)
    assert code == 0, err
    assert "nested JSON: 4 annotator(s); judges: ['llm']" in nested and "'llm' gave no label on 5 of 40 items" in nested
    code, model_file, err = cli("report", str(tmp_path / "humans.csv"), "--model", str(tmp_path / "llm.json"), *opts[2:])
    assert code == 0, err
    for start in ("Answer:", "  agreement-only certificate", "  alternative annotator test", "  llm  "):
        assert _line(nested, start) == _line(wide, start) == _line(model_file, start), start
    code, _, err = cli("report", str(tmp_path / "nested.json"), "--model", "gpt")
    assert code == 2 and "--model: ['gpt'] are not annotators of the file" in err, err


def test_jsonl_model_with_extra_fields(tmp_path):
    "Before: fields label, model and latency_ms were read as three judges. By hand: gpt labelled 35 items, claude 40."
    _files(tmp_path)
    opts = ("--alt-test", "0.1", "--min-items", "10", "--n-bootstrap", "0")
    code, out, err = cli("report", str(tmp_path / "humans.csv"), "--model", str(tmp_path / "gpt.jsonl"), *opts)
    assert code == 0, err
    assert "Answer: is judge 'label' better" in out and "fields left out: ['latency_ms', 'model']" in out
    assert not any(l.startswith(("  latency_ms ", "  model ")) for l in out.splitlines())
    code, out, err = cli("report", str(tmp_path / "humans.csv"), "--model", str(tmp_path / "runs.jsonl"), "--judge-field", "model", *opts)
    assert code == 0, err
    assert "judge(s) 'claude', 'gpt'" in out and "'gpt' has no label on 5 of 40 item(s)" in out and "'claude' has no label" not in out
    code, _, err = cli("report", str(tmp_path / "humans.csv"), "--model", str(tmp_path / "runs.jsonl"))
    assert code == 2 and "--judge-field FIELD" in err, err
    code, _, err = cli("report", str(tmp_path / "w.csv"), "--model", "llm", "--judge-field", "model")
    assert code == 2 and err.startswith("humancert: error: --judge-field applies to a --model file"), err


def _inspect_log(path, grades):
    "An inspect EvalLog (.json) of one epoch: sample i scored by scorer 'match' with grades[i] (C or I)."
    samples = [{"id": i, "epoch": 1, "input": "q", "target": "t", "scores": {"match": {"value": g, "answer": "x"}}}
               for i, g in grades.items()]
    path.write_text(json.dumps({"version": 2, "status": "success", "eval": {"task": "qa", "model": "m"}, "samples": samples}))


def test_inspect_log_as_model_and_as_input(tmp_path):
    "An inspect log as --model: its scorer is the judge, C/I read as correct/incorrect. By hand: 40 samples, 'match' on each."
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 2, 40)
    words = np.array(["incorrect", "correct"])
    humans = pd.DataFrame({a: words[np.where(rng.random(40) < 0.85, truth, 1 - truth)] for a in "abc"}, index=pd.Index(range(40), name="item"))
    humans.to_csv(tmp_path / "h.csv")
    _inspect_log(tmp_path / "log.json", {i: "CI"[int(t == 0)] for i, t in enumerate(truth)})
    code, out, err = cli("report", str(tmp_path / "h.csv"), "--model", str(tmp_path / "log.json"), "--n-bootstrap", "0")
    assert code == 0, err
    assert "Answer: is judge 'match' better" in out and "inspect file" in out and "has no label on" not in out
    code, _, err = cli("report", str(tmp_path / "log.json"))
    assert code == 2 and "holds no human label" in err and "this file as --model" in err, err


def test_table_jsonl_model_still_a_table(tmp_path):
    "A two-field JSON lines --model file (item, pred) stays a table: the judge is named after the file, as before."
    _files(tmp_path)
    df = _wide(skipped=0)
    df[["item", "a", "b", "c"]].to_csv(tmp_path / "h.csv", index=False)
    (tmp_path / "pred.jsonl").write_text("\n".join(json.dumps({"item": i, "pred": int(v)}) for i, v in zip(df["item"], df["llm"])))
    code, out, err = cli("report", str(tmp_path / "h.csv"), "--model", str(tmp_path / "pred.jsonl"), "--n-bootstrap", "0")
    assert code == 0 and "Answer: is judge 'pred' better" in out, err


def test_out_of_core_takes_a_judge_that_skipped_items(tmp_path):
    "--out-of-core takes a judge that skipped items as the in-memory path does (it refused it before, naming the in-memory path): "
    "the count of skipped items is stated on both paths."
    df = _wide()
    rows = [(i, a, int(r[a]), r["llm"]) for i, (_, r) in zip(df["item"], df.iterrows()) for a in "abc"]
    pd.DataFrame(rows, columns=["item", "annotator", "label", "model"]).to_csv(tmp_path / "long.csv", index=False)
    code, out, err = cli("report", str(tmp_path / "long.csv"), "--format", "long", "--out-of-core", "--model", "model", "--n-bootstrap", "0")
    assert code == 0 and "'model' gave no label on 5 of 40 items" in out, err
    code, out, err = cli("report", str(tmp_path / "long.csv"), "--format", "long", "--model", "model", "--n-bootstrap", "0")
    assert code == 0 and "'model' gave no label on 5 of 40 items" in out, err


def test_unknown_json_names_the_command_options(tmp_path):
    "A .json INPUT in no layout read_eval knows: one line in the command's words (--item, --label, --format label-studio), no Python names."
    (tmp_path / "ls.json").write_text(json.dumps([{"id": 1, "annotations": [], "data": {"text": "x"}}]))
    code, _, err = cli("report", str(tmp_path / "ls.json"))
    first = err.splitlines()[0]
    assert code == 2 and "name the fields with --item and --label" in first and first.endswith("pass --format label-studio."), err
    assert "read_panel" not in first and "item_field" not in first and "`source`" not in first, first
