"""`humancert doctor` (issue 44 item 3): on files made here, each with a known truth (which column is what), the profile finds
it; every command the doctor writes is run and exits 0 (or is marked not runnable, with the reason); bad input exits 2 with one
line."""
import io
import json
import shlex
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from humancert.report.doctor import doctor, Doctor, WIDTH, _text
from report_run import COMMAND
from report_run import command as cli

LABELS = np.array(["neg", "pos"])


def noisy(truth, p, rng):
    "Labels equal to the truth with probability p, else a fair coin."
    return np.where(rng.random(len(truth)) < p, truth, rng.choice(LABELS, len(truth)))


def wide_file(path, n=60, seed=0, **extra):
    "A wide file: item ids c<conversation>_t<turn>, three annotators, an LLM judge, gold on about half the items, a latency, a prompt."
    rng = np.random.default_rng(seed)
    truth = rng.choice(LABELS, n)
    df = pd.DataFrame({"item": [f"c{i // 3}_t{i % 3}" for i in range(n)], "ann_1": noisy(truth, .7, rng), "ann_2": noisy(truth, .7, rng),
                       "ann_3": noisy(truth, .7, rng), "gpt-4o": noisy(truth, .85, rng),
                       "gold_label": np.where(rng.random(n) < .5, truth, None), "latency_ms": rng.integers(100, 5000, n),
                       "prompt": [f"is review number {i} positive?" for i in range(n)]})
    for k, v in extra.items(): df[k] = v(df) if callable(v) else v
    df.to_csv(path, index=False)
    return df


def long_file(path, n=40, seed=1, kinds=("HUMAN", "HUMAN", "EXPERT"), gold=True):
    "A long table as MLflow writes assessments: item, rater, label, a source_type per rater, a conversation, a latency for the judges."
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        t = rng.choice(LABELS)
        for r, k in zip(("h1", "h2", "h3"), kinds):
            rows.append(dict(trace_id=f"s{i}", rater=r, source_type=k, label=noisy([t], .8, rng)[0], conversation=f"conv{i // 4}",
                             latency=None))
        for r in ("judge-a", "judge-b"):
            rows.append(dict(trace_id=f"s{i}", rater=r, source_type="LLM_JUDGE", label=noisy([t], .85, rng)[0],
                             conversation=f"conv{i // 4}", latency=float(rng.integers(200, 3000))))
        if gold:
            for row in rows[-5:]: row["gold"] = t if i % 2 == 0 else None
    pd.DataFrame(rows).to_csv(path, index=False)


def run_commands(d, cwd):
    "Run every runnable command the doctor wrote (humancert as the console script runs it, python as this interpreter): exit codes."
    codes = []
    for line, questions, runnable in d.commands:
        if not runnable: continue
        argv = shlex.split(line)
        argv = [*COMMAND, *argv[1:]] if argv[0] == "humancert" else [sys.executable, *argv[1:]]
        r = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
        assert r.returncode == 0, (line, r.stderr[-1500:])
        codes.append(r.returncode)
    return codes


def test_wide_with_a_model_column(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    df = wide_file("labels.csv")
    d = doctor("labels.csv")
    assert isinstance(d, Doctor) and (d.layout, d.n_rows, d.n_items) == ("wide", 60, 60)
    assert d.annotators == ("ann_1", "ann_2", "ann_3") and d.judges == ("gpt-4o",) and d.gold == "gold_label"
    roles = d.to_frame().role.to_dict()
    assert roles == {"item": "item id", "ann_1": "annotator", "ann_2": "annotator", "ann_3": "annotator", "gpt-4o": "judge",
                     "gold_label": "gold", "latency_ms": "covariate", "prompt": "text"}
    assert d.to_frame().loc["gold_label", "missing"] == pytest.approx(df.gold_label.isna().mean())
    assert d.clusters.startswith("item-id prefix") and "20 prefixes" in d.clusters       # c0 ... c19, three turns each
    assert (d.questions.answered == "yes").all()
    lines = [c[0] for c in d.commands]
    assert lines[0] == ("humancert report labels.csv --model gpt-4o --annotators ann_1,ann_2,ann_3 --alt-test 0.1 "
                        "--gold gold_label")
    assert lines[1] == "humancert gold-status labels.csv --model gpt-4o --annotators ann_1,ann_2,ann_3 --gold gold_label"
    assert "clusters=clusters" in lines[2] and 't["gpt-4o"], t["gold_label"]' in lines[2]
    n_gold = int(df.gold_label.notna().sum())
    assert d.needs.have.tolist() == ["3 of 3 annotators have 30 items", f"{n_gold} gold items"]
    assert run_commands(d, tmp_path) == [0, 0, 0]
    assert "Doctor('labels.csv': wide, 60 items; annotators ann_1, ann_2, ann_3; judges gpt-4o;" in repr(d)
    assert "<table" in d._repr_html_()


def test_gold_plan_matches_the_planner(tmp_path):
    # the labels still needed are plan_gold_study's, at the lead and sd of D computed here by hand on the gold items
    from humancert.certification.planner import plan_gold_study
    df = wide_file(tmp_path / "labels.csv", n=90, seed=3)
    g = df[df.gold_label.notna()]
    share = np.mean([g[a] == g.gold_label for a in ("ann_1", "ann_2", "ann_3")], axis=0)
    dd = (g["gpt-4o"] == g.gold_label).astype(float) - share
    assert dd.mean() > 0
    n = plan_gold_study(dd.mean(), min(dd.std(ddof=1), 1 - dd.mean())).n_gold
    row = doctor(str(tmp_path / "labels.csv")).needs.iloc[1]
    assert (row.have, row.needed) == (f"{len(g)} gold items", max(0, n - len(g)))


def test_long_with_rater_kinds(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    long_file("panel.csv")
    d = doctor("panel.csv")
    assert (d.layout, d.n_rows, d.n_items) == ("long", 200, 40)
    assert d.annotators == ("h1", "h2", "h3") and d.judges == ("judge-a", "judge-b") and d.gold == "gold"
    assert d.clusters == "column 'conversation'"
    roles = d.to_frame().role.to_dict()
    assert roles == {"trace_id": "item id", "rater": "rater", "label": "label", "source_type": "rater kind", "conversation": "cluster",
                     "latency": "covariate", "gold": "gold"}
    assert (d.questions.answered == "yes").all()
    assert d.commands[0][0] == ("humancert report panel.csv --format long --item trace_id --annotator rater --rater-kind source_type "
                                "--human-kinds expert --alt-test 0.1 --gold gold")
    assert len(d.commands) == 2 and "human_kinds=[\"human\", \"expert\"]" in d.commands[1][0]   # gold-status reads wide tables only
    assert run_commands(d, tmp_path) == [0, 0]


def test_no_judge_ratings_agreement_only(tmp_path, monkeypatch):
    # 1-5 ratings by four annotators, no judge, no gold: agreement only, and the others say what is missing
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(5)
    pd.DataFrame({f"rater{k}": rng.integers(1, 6, 50) for k in range(4)}).rename_axis("id").to_csv("ratings.csv")
    d = doctor("ratings.csv")
    assert d.annotators == ("rater0", "rater1", "rater2", "rater3") and d.judges == () and d.gold is None and d.clusters is None
    assert d.questions.answered.to_dict() == {"agreement": "yes", "alt-test": "no", "certificate": "no", "gold certificate": "no",
                                              "corrected score": "no"}
    assert d.questions.loc["alt-test", "why not"].startswith("no judge")
    assert [c[0] for c in d.commands] == ["humancert report ratings.csv"] and d.needs.empty
    assert run_commands(d, tmp_path) == [0]


def test_no_gold_plans_from_an_assumed_lead(tmp_path, monkeypatch):
    # no gold column: the gold plan at the assumed lead with the sd bound (gold_discordance_bound), and gold-status --order 0
    from humancert.certification.planner import plan_gold_study, gold_discordance_bound
    from humancert.data.annotations import Annotations
    monkeypatch.chdir(tmp_path)
    df = wide_file("labels.csv").drop(columns=["gold_label"])
    df.to_csv("labels.csv", index=False)
    d = doctor("labels.csv", lead=0.1)
    assert d.gold is None and d.questions.answered["gold certificate"] == "no"
    assert d.commands[1][0] == "humancert gold-status labels.csv --model gpt-4o --annotators ann_1,ann_2,ann_3 --order 0"
    ann = Annotations.from_wide(df.set_index("item")[["ann_1", "ann_2", "ann_3"]])
    sd = np.sqrt(gold_discordance_bound(ann, df.set_index("item")["gpt-4o"]) - 0.01)
    assert d.needs.needed.iloc[1] == plan_gold_study(0.1, sd).n_gold
    assert run_commands(d, tmp_path) == [0, 0]


def test_few_items_per_annotator_lowers_min_items(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wide_file("small.csv", n=12)
    d = doctor("small.csv")
    assert "--min-items 12" in d.commands[0][0]
    assert d.needs.iloc[0].needed == 3 * (30 - 12)                            # each annotator 18 items short of 30
    assert run_commands(d, tmp_path)[0] == 0


def test_judge_that_skips_items_is_left_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wide_file("skips.csv", llm_judge=lambda df: df["gpt-4o"].where(df.index % 5 != 0))
    d = doctor("skips.csv")
    assert d.judges == ("gpt-4o", "llm_judge")
    assert any("judge 'llm_judge' has no label on 12 of 60 items" in n for n in d.notes)
    assert "--model gpt-4o --annotators ann_1,ann_2,ann_3" in d.commands[0][0]
    assert run_commands(d, tmp_path)[0] == 0


def test_repeated_ids_are_clusters_and_nothing_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wide_file("runs.csv", item=lambda df: [f"x{i // 2}" for i in range(len(df))])
    d = doctor("runs.csv")
    assert d.clusters.startswith("repeated item ids in 'item' (30 rows repeat an id)")
    assert (d.questions.answered == "no").all() and d.commands == ()
    assert d.questions.loc["agreement", "why not"].startswith("item ids repeat")


def test_dataframe_commands_are_written_for_FILE():
    df = pd.read_csv(io.StringIO("item,a,b,llm\n1,x,y,x\n2,y,y,y\n3,x,x,x\n"))
    d = doctor(df)
    assert d.source == "DataFrame" and d.commands and not any(run for _, _, run in d.commands)
    assert d.commands[0][0].startswith("humancert report FILE --model llm")


def test_text_fits_and_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    wide_file("labels.csv")
    long_file("panel.csv")
    for f in ("labels.csv", "panel.csv"):
        code, out, err = cli("doctor", f)
        assert code == 0 and err == "" and out.rstrip("\n") == _text(doctor(f))
        assert max(map(len, out.splitlines())) <= WIDTH
        code, out, err = cli("doctor", f, "--json")
        js = json.loads(out)
        assert code == 0 and [c["command"] for c in js["commands"]] == [c[0] for c in doctor(f).commands]
        needed = doctor(f).needs.needed.iloc[1]
        assert js["labels_needed"][1]["needed"] == (None if pd.isna(needed) else needed)


@pytest.mark.parametrize("args, message", [
    (["doctor"], "INPUT is needed"),
    (["doctor", "missing.csv"], "no such file 'missing.csv'"),
    (["doctor", "empty.csv"], "has a header but no rows"),
    (["doctor", "notes.docx"], "is neither CSV"),
    (["doctor", "labels.csv", "--lead", "1.5"], "--lead must be a number in (0, 1)"),
    (["doctor", "labels.csv", "--epsilon", "0"], "--epsilon must be a number in (0, 1)"),
    (["doctor", "labels.csv", "--lead", "x"], "argument --lead"),
])
def test_bad_input_exit_2_one_line(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    wide_file("labels.csv")
    (tmp_path / "empty.csv").write_text("item,a,b\n")
    (tmp_path / "notes.docx").write_text("x")
    code, out, err = cli(*args)
    assert code == 2 and out == "" and message in err.splitlines()[0], err
    assert err.startswith("humancert: error: ")


def test_bad_argument_types():
    with pytest.raises(TypeError, match="`table_or_path` must be a path"): doctor(3)
    with pytest.raises(ValueError, match="`lead` must be a number in"): doctor(pd.DataFrame({"a": [1]}), lead=True)


def test_several_expert_columns_are_a_panel(tmp_path, monkeypatch):
    # expert_1..3 are three annotators, not three gold columns: no gold, a note, and the usual commands
    monkeypatch.chdir(tmp_path)
    df = wide_file("experts.csv").rename(columns={f"ann_{k}": f"expert_{k}" for k in (1, 2, 3)}).drop(columns=["gold_label"])
    df.to_csv("experts.csv", index=False)
    d = doctor("experts.csv")
    assert d.annotators == ("expert_1", "expert_2", "expert_3") and d.gold is None and d.judges == ("gpt-4o",)
    assert any("are read as annotators (a panel)" in n for n in d.notes)
    assert d.questions.answered.to_dict() == {"agreement": "yes", "alt-test": "yes", "certificate": "yes", "gold certificate": "no",
                                              "corrected score": "no"}


def test_long_without_kinds_names_the_missing_column(tmp_path, monkeypatch):
    # raters named like models in a long table without a kind column: read as annotators, and the judge questions say what to add
    monkeypatch.chdir(tmp_path)
    long_file("panel.csv", gold=False)
    pd.read_csv("panel.csv").drop(columns=["source_type"]).to_json("panel.jsonl", orient="records", lines=True)
    d = doctor("panel.jsonl")
    assert d.layout == "long" and d.judges == ("judge-a", "judge-b") and d.annotators == ("h1", "h2", "h3")
    assert d.questions.loc["alt-test", "why not"].startswith("raters named like models, but no column says each rater's kind")
    assert any("judge-a, judge-b are named like models" in n for n in d.notes)
    assert [c[0] for c in d.commands] == ["humancert report panel.jsonl --format long --item trace_id --annotator rater"]
    assert run_commands(d, tmp_path) == [0]


def test_no_annotators_says_so(tmp_path):
    # a judge and a gold column but one human column: no question the panel answers, and the reason is the panel, not the judge
    pd.DataFrame({"item": range(30), "ann": ["x", "y"] * 15, "llm": ["x", "y", "x"] * 10, "gold": ["x", None, "y", None, "x", None] * 5}
                 ).to_csv(tmp_path / "one.csv", index=False)
    d = doctor(str(tmp_path / "one.csv"))
    assert d.questions.loc["certificate", "why not"] == "needs annotators: two human labels on some item"
    assert d.questions.answered["corrected score"] == "yes"                   # judge and gold suffice for the corrected score
    assert [c[1] for c in d.commands] == [("corrected score",)] and run_commands(d, tmp_path) == [0]


def test_many_annotators_fit_and_paste_as_one_command(tmp_path, monkeypatch):
    # 150 annotators beside a covariate: --annotators is a 1,500-character list, cut after commas; bash reads it back as one word
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(7)
    df = pd.DataFrame({f"worker_{k:03d}": rng.choice(["a", "b"], 40) for k in range(150)}).assign(latency_ms=rng.random(40) * 1000)
    df.rename_axis("item").to_csv("crowd.csv")
    d = doctor("crowd.csv")
    text = _text(d)
    assert max(map(len, text.splitlines())) <= WIDTH and "  ... and 140 more annotator columns" in text
    printed = text.split("# agreement\n")[1].split("\n\n")[0]
    assert printed.count("\n") >= 10
    bash = subprocess.run(["bash", "-c", "printf '%s\\0' " + printed.strip()], capture_output=True, text=True)
    assert bash.stdout.split("\0")[:-1] == shlex.split(d.commands[0][0]) == ["humancert", "report", "crowd.csv", "--annotators",
                                                                             ",".join(df.columns[:150])]
