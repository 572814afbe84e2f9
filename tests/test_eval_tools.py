"""read_eval on small files written here in each eval tool's documented layout, checked against a hand count of each file.

Every file below is made in the test (json / zipfile / gzip), so no tool is installed and no export is bundled: none of the
tools' example outputs found carries a licence that allows redistributing it here (issue 44 item 1 asks for one where a
licence allows; none was found). Each test states the count by hand (items, labels per judge, mapped labels) next to the
file it counts.
"""
import gzip
import json
import zipfile

import numpy as np
import pandas as pd
import pytest

from humancert.data.eval_tools import EVAL_LAYOUTS, EvalFile, read_eval
from humancert.data.panel import read_panel


def counts_of(ev, judge):
    "A judge's non-zero label counts from label_counts()."
    return {k: v for k, v in ev.label_counts()[judge].items() if v}


def labels_of(ev, judge):
    "A judge's labels as a plain list, None where it gave none."
    return [None if pd.isna(v) else v for v in ev.judges[judge]]


# --- inspect -------------------------------------------------------------------------------------------------------
HEADER = {"version": 2, "status": "success", "eval": {"task": "qa", "model": "openai/gpt-4o", "run_id": "r1"},
          "results": {"scores": [{"name": "match"}]}}

def inspect_sample(i, epoch, match, judge=None):
    scores = {"match": {"value": match, "answer": "x", "explanation": ""}}
    if judge is not None: scores["model_graded_qa"] = {"value": judge}
    return {"id": i, "epoch": epoch, "input": f"q{i}", "target": "t", "scores": scores}

# By hand: 3 samples x 2 epochs; scorer match gives C, I, P (epoch 1) and C, C, N (epoch 2); scorer model_graded_qa a
# number 1, 0, 0.5 on epoch 1 only. Rows: 6 ('1#1' ... '3#2'); match: correct 3, incorrect 1, partial 1, no answer 1.
SAMPLES = [inspect_sample(1, 1, "C", 1), inspect_sample(2, 1, "I", 0), inspect_sample(3, 1, "P", 0.5),
           inspect_sample(1, 2, "C"), inspect_sample(2, 2, "C"), inspect_sample(3, 2, "N")]

def write_eval_zip(path, samples=SAMPLES, header=HEADER, summaries_only=False):
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("_journal/start.json", json.dumps({"version": 2, "eval": header["eval"]}))
        if not summaries_only:
            for s in samples: zf.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json", json.dumps(s))
        zf.writestr("summaries.json", json.dumps([{k: s[k] for k in ("id", "epoch", "scores")} for s in samples]))
        zf.writestr("header.json", json.dumps(header))
    return path

def check_inspect(ev):
    assert ev.tool == "inspect" and isinstance(ev, EvalFile)
    assert list(ev.judges.index) == ["1#1", "2#1", "3#1", "1#2", "2#2", "3#2"]
    assert labels_of(ev, "match") == ["correct", "incorrect", "partial", "correct", "correct", "no answer"]
    assert labels_of(ev, "model_graded_qa") == [1, 0, 0.5, None, None, None]       # numbers kept as numbers
    assert ev.runs.tolist() == [1, 1, 1, 2, 2, 2] and ev.clusters.tolist() == [1, 2, 3, 1, 2, 3]
    assert counts_of(ev, "match") == {"correct": 3, "incorrect": 1, "no answer": 1, "partial": 1}
    assert ev.annotations is None and ev.kinds == {"match": "judge", "model_graded_qa": "judge"}

def test_inspect_eval_zip(tmp_path):
    ev = read_eval(write_eval_zip(tmp_path / "log.eval"))
    check_inspect(ev)
    assert "6 samples/ member(s)" in ev.notes[0] and "status 'success'" in ev.notes[0]
    assert repr(ev) == ("EvalFile(tool='inspect', n_items=6, judges=['match', 'model_graded_qa'], n_judge_labels=9, "
                        "n_humans=0, runs=2)")

def test_inspect_eval_zip_summaries_and_json(tmp_path):
    check_inspect(read_eval(write_eval_zip(tmp_path / "s.eval", summaries_only=True)))       # no samples/: summaries.json
    (tmp_path / "log.json").write_text(json.dumps({**HEADER, "samples": SAMPLES}))
    check_inspect(read_eval(tmp_path / "log.json"))

def test_inspect_scores_model_and_one_epoch(tmp_path):
    (tmp_path / "log.json").write_text(json.dumps({**HEADER, "samples": SAMPLES}))
    ev = read_eval(tmp_path / "log.json", value="score", judge="model")
    assert list(ev.judges.columns) == ["openai/gpt-4o/match", "openai/gpt-4o/model_graded_qa"]
    assert labels_of(ev, "openai/gpt-4o/match") == [1.0, 0.0, 0.5, 1.0, 1.0, 0.0]       # C=1, I=0, P=0.5, N=0
    one = [s for s in SAMPLES if s["epoch"] == 1]
    (tmp_path / "one.json").write_text(json.dumps({**HEADER, "samples": [{**s, "scores": {"match": s["scores"]["match"]}} for s in one]}))
    ev1 = read_eval(tmp_path / "one.json", judge="model")
    assert list(ev1.judges.index) == [1, 2, 3] and ev1.runs is None and ev1.clusters is None
    assert list(ev1.judges.columns) == ["openai/gpt-4o"]                                  # one scorer: the model's name alone

def test_inspect_bad_files(tmp_path):
    good = write_eval_zip(tmp_path / "good.eval").read_bytes()
    (tmp_path / "cut.eval").write_bytes(good[: len(good) // 2])
    with pytest.raises(ValueError, match=r"`source`: .*cut.eval' ends in .eval but is not a complete zip archive"):
        read_eval(tmp_path / "cut.eval")
    zst = bytearray(good)                                       # header.json marked zstd (method 93), as newer inspect may write
    for sig, at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        pos = -1
        while (pos := zst.find(sig, pos + 1)) >= 0:
            name_at = pos + (30 if sig == b"PK\x03\x04" else 46)
            if zst[name_at:name_at + 11] == b"header.json": zst[pos + at:pos + at + 2] = (93).to_bytes(2, "little")
    (tmp_path / "zstd.eval").write_bytes(bytes(zst))
    with pytest.raises(ValueError, match=r"member 'header.json' is compressed with method 93 \(zstd\).*inspect log convert"):
        read_eval(tmp_path / "zstd.eval")
    bad = [{**SAMPLES[0], "scores": {"match": {"answer": "x"}}}]
    (tmp_path / "nov.json").write_text(json.dumps({**HEADER, "samples": bad}))
    with pytest.raises(ValueError, match=r"sample 1: score 'match' has no `value` field"): read_eval(tmp_path / "nov.json")
    (tmp_path / "none.json").write_text(json.dumps(HEADER))
    with pytest.raises(ValueError, match="holds no sample"): read_eval(tmp_path / "none.json")
    lst = [{**SAMPLES[0], "scores": {"match": {"value": ["C", "I"]}}}]
    (tmp_path / "list.json").write_text(json.dumps({**HEADER, "samples": lst}))
    with pytest.raises(ValueError, match="scorer 'match' gives a list value"): read_eval(tmp_path / "list.json")


# --- promptfoo -----------------------------------------------------------------------------------------------------
def pf_result(test, provider, passes, prompt=0):
    comps = [{"pass": p, "score": float(p), "reason": "", "assertion": {"type": t}} for t, p in passes]
    return {"promptIdx": prompt, "testIdx": test, "provider": {"id": provider, "label": provider}, "success": all(p for _, p in passes),
            "score": 1.0, "gradingResult": {"pass": all(p for _, p in passes), "score": 1.0, "componentResults": comps} if comps else None}

def test_promptfoo_v3(tmp_path):
    # By hand: 3 tests x 2 providers = 6 rows; assertions llm-rubric and contains (contains twice on test 2: 'contains#2').
    # llm-rubric: pass on (0,a), (1,a), (0,b), (2,b); fail on (1,b); test 2 on provider a has no grading result.
    res = [pf_result(0, "a", [("llm-rubric", True), ("contains", True)]), pf_result(1, "a", [("llm-rubric", True), ("contains", False)]),
           pf_result(2, "a", []), pf_result(0, "b", [("llm-rubric", True), ("contains", False)]),
           pf_result(1, "b", [("llm-rubric", False), ("contains", True)]),
           pf_result(2, "b", [("llm-rubric", True), ("contains", True), ("contains", False)])]
    (tmp_path / "results.json").write_text(json.dumps({"evalId": "e", "results": {"version": 3, "results": res, "stats": {}}}))
    ev = read_eval(tmp_path / "results.json")
    assert ev.tool == "promptfoo" and len(ev.judges) == 6
    assert list(ev.judges.columns) == ["llm-rubric", "contains", "contains#2"]
    assert ev.judges.index[0] == "0#a / prompt 0" and ev.clusters.tolist() == [0, 1, 2, 0, 1, 2]
    assert labels_of(ev, "llm-rubric") == ["pass", "pass", None, "pass", "fail", "pass"]
    assert labels_of(ev, "contains#2") == [None] * 5 + ["fail"]
    assert counts_of(ev, "contains") == {"(none)": 1, "fail": 2, "pass": 3}
    assert "1 result(s) without grading results" in ev.notes[2]
    res[0]["gradingResult"]["componentResults"][0].pop("pass")
    (tmp_path / "nopass.json").write_text(json.dumps({"results": {"version": 3, "results": res}}))
    with pytest.raises(ValueError, match=r"result 0 \(test 0\), assertion 'llm-rubric' has no `pass` field"):
        read_eval(tmp_path / "nopass.json")
    (tmp_path / "v2.json").write_text(json.dumps({"results": {"version": 2, "results": res}}))
    with pytest.raises(ValueError, match="promptfoo results of version 2; read_eval reads version 3"): read_eval(tmp_path / "v2.json")


# --- DeepEval ------------------------------------------------------------------------------------------------------
def test_deepeval_test_run(tmp_path):
    # By hand: 3 test cases; Answer Relevancy success True, False, True; Faithfulness True on case 0, an error on case 1,
    # absent on case 2. Scores 0.9, 0.4, 0.8 for Answer Relevancy.
    md = lambda name, ok, score, err=None: {"name": name, "threshold": 0.5, "success": ok, "score": score, "reason": "",
                                            "strictMode": False, "evaluationModel": "gpt-4.1", "error": err}
    run = {"testFile": "test_x.py", "testCases": [
        {"name": "test_case_0", "input": "a", "success": True, "metricsData": [md("Answer Relevancy", True, 0.9), md("Faithfulness", True, 1.0)]},
        {"name": "test_case_1", "input": "b", "success": False, "metricsData": [md("Answer Relevancy", False, 0.4), md("Faithfulness", None, None, "timeout")]},
        {"name": "test_case_2", "input": "c", "success": True, "metricsData": [md("Answer Relevancy", True, 0.8)]}]}
    (tmp_path / "test_run.json").write_text(json.dumps(run))
    ev = read_eval(tmp_path / "test_run.json")
    assert ev.tool == "deepeval" and list(ev.judges.index) == ["test_case_0", "test_case_1", "test_case_2"]
    assert labels_of(ev, "Answer Relevancy") == ["pass", "fail", "pass"] and labels_of(ev, "Faithfulness") == ["pass", None, None]
    assert labels_of(read_eval(tmp_path / "test_run.json", value="score"), "Answer Relevancy") == [0.9, 0.4, 0.8]
    assert "evaluation model 'gpt-4.1', threshold 0.5" in ev.notes[1] and "1 metric result(s) with an error" in ev.notes[2]
    run["testCases"][0]["metricsData"][0].pop("success")
    (tmp_path / "bad.json").write_text(json.dumps(run))
    with pytest.raises(ValueError, match=r"test case 'test_case_0', metric 'Answer Relevancy' has no `success` field"):
        read_eval(tmp_path / "bad.json")


# --- lm-eval-harness -----------------------------------------------------------------------------------------------
def test_lm_eval_samples(tmp_path):
    # By hand: docs 0, 1, 2, each with filters strict-match and flexible-extract (6 lines); exact_match strict 1, 0, 0;
    # flexible 1, 1, 0; 2 responses per request (repeats). Judges: 'exact_match,strict-match', 'exact_match,flexible-extract'.
    lines = [{"doc_id": d, "doc": {"q": d}, "target": "4", "arguments": [], "resps": [["a", "b"]], "filtered_resps": ["4"],
              "filter": f, "metrics": ["exact_match"], "doc_hash": "h", "exact_match": v}
             for f, vals in (("strict-match", (1.0, 0.0, 0.0)), ("flexible-extract", (1.0, 1.0, 0.0))) for d, v in enumerate(vals)]
    path = tmp_path / "samples_gsm8k_2026-01-01T00-00-00.jsonl"
    path.write_text("\n".join(map(json.dumps, lines)) + "\n")
    ev = read_eval(path)
    assert ev.tool == "lm_eval" and list(ev.judges.index) == [0, 1, 2]
    assert labels_of(ev, "exact_match,strict-match") == [1, 0, 0] and labels_of(ev, "exact_match,flexible-extract") == [1, 1, 0]
    assert any("up to 2 responses per request" in n for n in ev.notes)
    gz = tmp_path / "samples_gsm8k.jsonl.gz"
    gz.write_bytes(gzip.compress(path.read_bytes()))
    assert read_eval(gz).judges.equals(ev.judges)
    gz.write_bytes(gzip.compress(path.read_bytes())[:40])
    with pytest.raises(ValueError, match="is not a complete gzip file"): read_eval(gz)
    lines[0]["metrics"] = ["exact_match", "acc"]
    path.write_text("\n".join(map(json.dumps, lines)))
    with pytest.raises(ValueError, match=r"line 1 \(doc_id 0\) lists metric 'acc' in `metrics` but has no field 'acc'"): read_eval(path)


# --- OpenAI Evals --------------------------------------------------------------------------------------------------
def test_openai_output_items(tmp_path):
    # By hand: items 1, 2, 3 of one run; grader 'exact' passed True, False, True (scores 1, 0, 1); grader 'rubric' scores
    # 0.7, 0.2, 0.9 passed True, False, True.
    items = [{"object": "eval.run.output_item", "id": f"oi{i}", "run_id": "run1", "eval_id": "e", "datasource_item_id": i,
              "status": "pass", "results": [{"name": "exact", "type": "string_check", "score": float(p), "passed": p},
                                            {"name": "rubric", "type": "score_model", "score": s, "passed": s > 0.5}]}
             for i, p, s in ((1, True, 0.7), (2, False, 0.2), (3, True, 0.9))]
    (tmp_path / "items.jsonl").write_text("\n".join(map(json.dumps, items)))
    ev = read_eval(tmp_path / "items.jsonl")
    assert ev.tool == "openai_evals" and list(ev.judges.index) == [1, 2, 3]
    assert labels_of(ev, "exact") == ["pass", "fail", "pass"] and labels_of(ev, "rubric") == ["pass", "fail", "pass"]
    (tmp_path / "page.json").write_text(json.dumps({"object": "list", "data": items, "has_more": False}))
    assert labels_of(read_eval(tmp_path / "page.json", value="score"), "rubric") == [0.7, 0.2, 0.9]
    two = items + [{**it, "run_id": "run2"} for it in items]                                # two runs: rows '<item>#<run>'
    ev2 = read_eval(_write(tmp_path / "two.json", two))
    assert len(ev2.judges) == 6 and ev2.runs.tolist() == ["run1"] * 3 + ["run2"] * 3 and ev2.clusters.tolist() == [1, 2, 3] * 2
    items[1]["results"][0].pop("passed")
    (tmp_path / "bad.jsonl").write_text("\n".join(map(json.dumps, items)))
    with pytest.raises(ValueError, match=r"output item 1, grader 'exact' has no `passed` field"): read_eval(tmp_path / "bad.jsonl")

def _write(path, obj):
    path.write_text(json.dumps(obj))
    return path


# --- MLflow --------------------------------------------------------------------------------------------------------
def assessment(name, stype, sid, value, kind="feedback", **kw):
    a = {"assessment_id": "a", "assessment_name": name, "trace_id": "t", "source": {"source_type": stype, "source_id": sid},
         "rationale": None, "metadata": None, "span_id": None, **kw}
    a[kind] = {"value": value}
    return a

def traces_frame():
    # By hand: traces t1, t2, t3; 'correct' by human ann@x (yes, no, -), human bob@x (yes, -, yes), LLM judge 'gpt' (yes,
    # yes, no), a legacy AI_JUDGE 'old' (no on t1); an expectation on t1 and a 'tone' feedback on t2 are left out.
    return pd.DataFrame({"trace_id": ["t1", "t2", "t3"], "request": ["q1", "q2", "q3"], "assessments": [
        [assessment("correct", "HUMAN", "ann@x", "yes"), assessment("correct", "HUMAN", "bob@x", "yes"),
         assessment("correct", "LLM_JUDGE", "gpt", "yes"), assessment("correct", "AI_JUDGE", "old", "no"),
         assessment("expected", "HUMAN", "ann@x", "Paris", kind="expectation")],
        [assessment("correct", "HUMAN", "ann@x", "no"), assessment("correct", "LLM_JUDGE", "gpt", "yes"),
         assessment("tone", "CODE", "default", "ok")],
        [assessment("correct", "HUMAN", "bob@x", "yes"), assessment("correct", "LLM_JUDGE", "gpt", "no")]]})

def test_mlflow_traces_frame(tmp_path):
    df = traces_frame()
    ev = read_eval(df, name="correct")
    assert ev.tool == "mlflow" and list(ev.judges.index) == ["t1", "t2", "t3"]
    assert ev.annotations.counts.tolist() == [[0, 2], [1, 0], [0, 1]]                    # (no, yes) per trace, by hand
    assert list(ev.annotations.annotators) == ["ann@x", "bob@x"]
    assert labels_of(ev, "gpt") == ["yes", "yes", "no"] and labels_of(ev, "old") == ["no", None, None]
    assert "1 expectation" in ev.notes[1] and "feedback of other names: 1" in ev.notes[1]
    with pytest.raises(ValueError, match=r"`name`: the frame has several feedback assessments \['correct', 'tone'\]"): read_eval(df)
    df.to_parquet(tmp_path / "traces.parquet")                                           # nested lists survive Parquet
    assert read_eval(tmp_path / "traces.parquet", name="correct").judges.equals(ev.judges)
    panel = read_panel(df.assign(assessments=df["assessments"].map(lambda l: [a for a in l if a["assessment_name"] == "correct"])))
    assert panel.judges.equals(ev.judges) and panel.annotations == ev.annotations        # read_panel hands the frame to read_eval
    with pytest.raises(ValueError, match="has `assessments` but no `trace_id`"): read_eval(df.drop(columns="trace_id"), name="correct")


# --- Phoenix -------------------------------------------------------------------------------------------------------
def test_phoenix_annotations_frame():
    # By hand: spans s1, s2, s3; 'correctness' by HUMAN users u1 (correct, incorrect, -) and u2 (correct, -, correct), an LLM (no user, no identifier:
    # rater 'LLM') with labels correct, correct and a score 0.0 only on s3; a CODE check scores 1, 0, 1; an AGENT says correct
    # on s1; one 'note' row.
    rows = [("s1", "correctness", "HUMAN", "correct", None, "u1"), ("s2", "correctness", "HUMAN", "incorrect", None, "u1"),
            ("s1", "correctness", "LLM", "correct", 1.0, None), ("s2", "correctness", "LLM", "correct", 1.0, None),
            ("s3", "correctness", "LLM", None, 0.0, None), ("s1", "correctness", "CODE", None, 1.0, None),
            ("s2", "correctness", "CODE", None, 0.0, None), ("s3", "correctness", "CODE", None, 1.0, None),
            ("s3", "note", "HUMAN", "see", None, "u1"), ("s1", "correctness", "HUMAN", "correct", None, "u2"),
            ("s3", "correctness", "HUMAN", "correct", None, "u2"), ("s1", "correctness", "AGENT", "correct", None, None)]
    df = pd.DataFrame(rows, columns=["span_id", "annotation_name", "annotator_kind", "result.label", "result.score", "user_id"])
    df = df.assign(identifier="", source="API").set_index("span_id")
    ev = read_eval(df, name="correctness")
    assert ev.tool == "phoenix" and list(ev.judges.index) == ["s1", "s2", "s3"] and list(ev.judges.columns) == ["LLM", "CODE", "AGENT"]
    assert labels_of(ev, "LLM") == ["correct", "correct", 0] and labels_of(ev, "CODE") == [1, 0, 1]
    assert labels_of(ev, "AGENT") == ["correct", None, None]                              # Phoenix's AGENT kind: a judge
    assert ev.annotations.counts.tolist() == [[2, 0], [0, 1], [1, 0]] and list(ev.annotations.annotators) == ["u1", "u2"]
    assert labels_of(read_eval(df[df["annotator_kind"] != "HUMAN"], name="correctness", value="score"), "LLM") == [1, 1, 0]
    dec = df.assign(annotator_kind=df["annotator_kind"].replace({"CODE": "DECISION"}))
    with pytest.raises(ValueError, match=r"kind\(s\) 'decision' \(a decision recorded by Phoenix"): read_eval(dec, name="correctness")
    assert list(read_eval(dec, name="correctness", judge_kinds=["llm", "decision", "agent"]).judges.columns) == ["LLM", "DECISION", "AGENT"]


# --- nested JSON and judge rows --------------------------------------------------------------------------------------
def test_nested_json_and_judge_rows(tmp_path):
    # By hand: annotators a, b and judge g over items q1, q2, q3 (b skips q3).
    nested = {"a": {"q1": "yes", "q2": "no", "q3": "yes"}, "b": {"q1": "yes", "q2": "yes"}, "g": {"q1": "no", "q2": "no", "q3": "yes"}}
    p = _write(tmp_path / "panel.json", nested)
    ev = read_eval(p, judges=["g"])
    assert ev.tool == "nested" and ev.annotations.counts.tolist() == [[0, 2], [1, 1], [0, 1]] and labels_of(ev, "g") == ["no", "no", "yes"]
    assert read_eval(p).judges.shape == (3, 0) and read_eval(p).annotations.n_annotators == 3
    assert list(read_eval(_write(tmp_path / "model.json", {"g": nested["g"]}), judges="all").judges.columns) == ["g"]
    with pytest.raises(ValueError, match=r"`judges`: \['zz'\] are not annotators of the file"): read_eval(p, judges=["zz"])
    # judge rows as --model reads them: item, label, model, latency_ms. By hand: 3 items, labels no, no, yes; one judge,
    # named after the label field, or by the model field's value with judge_field='model'; latency_ms is not a judge.
    rows = [{"item": "q1", "label": "no", "model": "gpt-4o", "latency_ms": 812}, {"item": "q2", "label": "no", "model": "gpt-4o", "latency_ms": 640},
            {"item": "q3", "label": "yes", "model": "gpt-4o", "latency_ms": 701}]
    j = tmp_path / "judge.jsonl"
    j.write_text("\n".join(map(json.dumps, rows)))
    ev = read_eval(j)
    assert ev.tool == "judge_rows" and list(ev.judges.columns) == ["label"] and labels_of(ev, "label") == ["no", "no", "yes"]
    assert "pass judge_field='model'" in ev.notes[0] and "fields left out: ['latency_ms', 'model']" in ev.notes[1]
    ev = read_eval(j, judge_field="model")
    assert list(ev.judges.columns) == ["gpt-4o"] and labels_of(ev, "gpt-4o") == ["no", "no", "yes"]
    assert "fields left out: ['latency_ms']" in ev.notes[1]
    two = rows + [{**r, "model": "llama", "label": "yes"} for r in rows]                   # two judges in one file
    j2 = tmp_path / "judges.jsonl"
    j2.write_text("\n".join(map(json.dumps, two)))
    assert read_eval(j2, judge_field="model").judges.values.tolist() == [["no", "yes"], ["no", "yes"], ["yes", "yes"]]
    j.write_text("\n".join(json.dumps({k: v for k, v in r.items() if k != "model"}) for r in rows))
    with pytest.raises(ValueError, match=r"`label_field`: row 1 of .* has no field 'verdict'"): read_eval(j, label_field="verdict")
    with pytest.raises(ValueError, match=r"`judge_field`: row 1 of .* has no field 'who'"): read_eval(j, judge_field="who")


# --- unknown layouts and arguments -----------------------------------------------------------------------------------
def test_unknown_layouts_name_what_was_found(tmp_path):
    with pytest.raises(ValueError, match=r"not a layout read_eval knows: found a JSON object with keys \['foo'\]\. Supported layouts: inspect"):
        read_eval(_write(tmp_path / "x.json", {"foo": 1}))
    (tmp_path / "x.txt").write_text("hi")
    with pytest.raises(ValueError, match=r"found extension '.txt'"): read_eval(tmp_path / "x.txt")
    with pytest.raises(ValueError, match=r"found columns \['a'\]"): read_eval(pd.DataFrame({"a": [1]}))
    (tmp_path / "cut.json").write_text('{"version": 2, "eval": {')
    with pytest.raises(ValueError, match=r"is not valid JSON .*; is the file complete\?"): read_eval(tmp_path / "cut.json")
    with pytest.raises(ValueError, match="`source`: no file"): read_eval(tmp_path / "missing.eval")
    with pytest.raises(TypeError, match="`source` must be the path"): read_eval(3)
    with pytest.raises(ValueError, match="`value` must be 'label'"): read_eval(tmp_path / "x.txt", value="pass")
    with pytest.raises(ValueError, match="`judge` must be 'scorer' or 'model'"): read_eval(tmp_path / "x.txt", judge="llm")
    assert set(EVAL_LAYOUTS) == {"inspect", "promptfoo", "deepeval", "lm_eval", "openai_evals", "mlflow", "phoenix", "judge_rows", "nested"}


def test_result_frames(tmp_path):
    ev = read_eval(traces_frame(), name="correct")
    long = ev.to_frame()
    assert len(long) == 4 + 4 and set(long["kind"]) == {"HUMAN", "LLM_JUDGE", "AI_JUDGE"}    # 4 human labels, 4 judge labels, by hand
    assert "<table" in ev._repr_html_() and "assessment 'correct' read" in ev._repr_html_()
    with pytest.raises(ValueError, match="holds no human label"): read_eval(write_eval_zip(tmp_path / "l.eval")).to_panel()
    with pytest.raises(ValueError, match="the inspect file holds no human label"): read_panel(tmp_path / "l.eval")
    long = ev.to_frame()[["item", "rater", "label", "kind"]]                               # a long table saved as .json lines
    (tmp_path / "long.json").write_text("".join(json.dumps(r) + "\n" for r in long.to_dict("records")))
    assert read_panel(tmp_path / "long.json", judge_kinds=["llm_judge", "ai_judge"]).judges.equals(ev.judges)
    assert ev.to_panel().judges.equals(ev.judges)
    pf = read_eval(_write(tmp_path / "r.json", {"results": {"version": 3, "results": [
        {"testIdx": 0, "promptIdx": p, "provider": "x", "gradingResult": {"componentResults": [{"pass": True, "assertion": {"type": "equals"}}]}}
        for p in (0, 1)]}}))
    assert "'&lt;testIdx&gt;#&lt;provider&gt; / prompt &lt;promptIdx&gt;'" in pf._repr_html_()      # notes escaped in HTML
    with pytest.raises(ValueError, match=r"`human_kinds` and `judge_kinds` share \['human'\]"):
        read_eval(traces_frame(), name="correct", judge_kinds=["human", "llm_judge"], human_kinds=["human"])
