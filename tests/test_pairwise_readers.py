"""Issue 45 item 5: `read_pairwise(path)` reads the files pairwise-judge tools write (FastChat's MT-Bench pairwise
judgements, AlpacaEval's annotations, Chatbot Arena's battles), each checked on a small file written here in the tool's
layout against counts made by hand: the order shown, ties, both orders and the position consistency they give."""
import json

import pytest

from humancert.pairwise.judgements import read_pairwise, position_consistency, pairwise_layout


def _jsonl(path, recs):
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


def _fc(q, m1, m2, g1, g2, turn=1):
    return dict(question_id=q, model_1=m1, model_2=m2, g1_winner=g1, g2_winner=g2, judge=["gpt-4", "pair-v2"], turn=turn,
                g1_user_prompt="...", g1_judgment="[[A]]", g2_user_prompt="...", g2_judgment="[[B]]", tstamp=1.0)


def test_fastchat_pair_file(tmp_path):
    # q1: consistent for m1 (both orders); q2: first shown wins both times (a flip); q3: a tie, then m2 (a tie in one order only)
    recs = [_fc(1, "m1", "m2", "model_1", "model_1"), _fc(2, "m1", "m2", "model_1", "model_2"), _fc(3, "m2", "m1", "tie", "model_1")]
    pw = read_pairwise(_jsonl(tmp_path / "gpt-4_pair.jsonl", recs))
    assert pairwise_layout(recs) == "fastchat" and pw.judges == ("gpt-4",) and pw.humans == []
    t = pw.table
    assert len(t) == 6 and sorted(t.prompt.unique()) == [1, 2, 3]
    # the order shown: g1 has model_1 first, g2 model_2 first
    q3 = t[t.prompt == 3].set_index("first").winner.to_dict()
    assert q3 == {"m2": "tie", "m1": "m2"}
    r = position_consistency(pw, clusters=None).table.loc["gpt-4"]
    assert (r["pairs in both orders"], r["consistent"], r["flipped"], r["tie in one order only"]) == (3, 1, 1, 1)
    assert r["consistency"] == pytest.approx(1 / 3)
    # decisive verdicts: q1 twice (m1 first once), q2 twice (first both), q3 once (m2 with m1 first: not first) -> 3 of 5 first
    assert (r["decisive verdicts"], r["first preferred"]) == (5, pytest.approx(3 / 5))
    assert pw.verdicts("gpt-4").to_dict() == {"1 | m1 vs m2": "A", "2 | m1 vs m2": "tie", "3 | m1 vs m2": "tie"}


def test_fastchat_errors_and_turns(tmp_path):
    recs = [_fc(1, "m1", "m2", "model_1", "error"), _fc(1, "m1", "m2", "model_2", "model_2", turn=2)]
    pw = read_pairwise(_jsonl(tmp_path / "j.jsonl", recs))
    assert "1 row(s) without a verdict dropped" in pw.notes
    assert list(pw.items) == ["1 | m1 vs m2", "1 | turn 2 | m1 vs m2"]
    r = position_consistency(pw).table.loc["gpt-4"]
    assert (r["pairs in both orders"], r["consistent"]) == (1, 1)


def test_alpaca_eval_annotations(tmp_path):
    recs = [dict(instruction=f"i{k}", output_1="x", generator_1="gpt4_turbo", output_2="y", generator_2="mine", annotator="weighted_gpt4", preference=p)
            for k, p in enumerate([1, 2, 2, 1.5, 1.9, 0, None])]
    (tmp_path / "annotations.json").write_text(json.dumps(recs))
    pw = read_pairwise(tmp_path / "annotations.json")
    assert pairwise_layout(recs) == "alpaca_eval" and pw.judges == ("weighted_gpt4",)
    w = pw.table.set_index("prompt").winner
    assert w.value_counts().to_dict() == {"mine": 3, "tie": 2, "gpt4_turbo": 1}      # 2, 2, 1.9 | 1.5, 0 | 1; the failed one dropped
    assert w["i4"] == "mine" and w["i5"] == "tie" and "i6" not in w.index
    assert any("fractional" in n for n in pw.notes) and any("not in the file" in n for n in pw.notes)
    assert position_consistency(pw).table.loc["weighted_gpt4", "pairs in both orders"] == 0


def test_arena_battles(tmp_path):
    recs = [dict(question_id="q1", model_a="a", model_b="b", winner="model_a", judge="arena_user_1", anony=True),
            dict(question_id="q1", model_a="b", model_b="a", winner="tie (bothbad)", judge="arena_user_2", anony=True),
            dict(question_id="q2", model_a="b", model_b="c", winner="model_b", judge="arena_user_1", anony=True),
            dict(question_id="q1", model_a="a", model_b="b", winner="model_b", judge="gpt4_pair", anony=True),
            dict(question_id="q1", model_a="b", model_b="a", winner="model_b", judge="gpt4_pair", anony=True)]
    (tmp_path / "clean_battle.json").write_text(json.dumps(recs))
    pw = read_pairwise(str(tmp_path / "clean_battle.json"), judges="gpt4_pair")
    assert pairwise_layout(recs) == "arena"
    assert sorted(pw.humans) == ["arena_user_1", "arena_user_2"] and pw.judges == ("gpt4_pair",)
    t = pw.table
    assert t[t.rater == "arena_user_2"].winner.tolist() == ["tie"] and t[t.rater == "arena_user_2"]["first"].tolist() == ["b"]
    assert t[(t.rater == "arena_user_1") & (t.prompt == "q2")].winner.tolist() == ["c"]
    r = position_consistency(pw).table.loc["gpt4_pair"]       # b won with a first, a won with b first: the second shown both times
    assert (r["pairs in both orders"], r["flipped"], r["first preferred"]) == (1, 1, 0.0)
    # humans only: every voter an LLM judge would need naming; none named means all humans
    assert read_pairwise(tmp_path / "clean_battle.json").judges == ()


def test_file_errors(tmp_path):
    (tmp_path / "x.json").write_text(json.dumps([{"id": 1}]))
    with pytest.raises(ValueError, match="no pairwise layout"): read_pairwise(tmp_path / "x.json")
    with pytest.raises(ValueError, match="is not a file"): read_pairwise(tmp_path / "nope.json")
    (tmp_path / "y.json").write_text("{not json")
    with pytest.raises(ValueError, match="neither JSON nor JSON lines"): read_pairwise(tmp_path / "y.json")
    _jsonl(tmp_path / "z.jsonl", [_fc(1, "m1", "m2", "model_1", "model_1")])
    with pytest.raises(ValueError, match="`rater` does not apply to a file"): read_pairwise(tmp_path / "z.jsonl", rater="judge")


def test_read_eval_points_pairwise_files_to_read_pairwise(tmp_path):
    "read_eval (the data part, which cannot import the pairwise part) recognises the three pairwise layouts and names the reader."
    from humancert import read_eval
    files = {"fc.jsonl": [_fc(1, "m1", "m2", "model_1", "tie")],
             "ae.json": [dict(instruction="i", generator_1="a", generator_2="b", preference=1.0, annotator="g")],
             "arena.json": [dict(question_id="q", model_a="a", model_b="b", winner="model_a", judge="u")]}
    for name, recs in files.items():
        _jsonl(tmp_path / name, recs) if name.endswith("jsonl") else (tmp_path / name).write_text(json.dumps(recs))
        with pytest.raises(ValueError, match=r"pairwise A/B/tie judgements .*read_pairwise"): read_eval(tmp_path / name)
