"""`humancert score` (issue 43 item 7, issue 44 item 4): the command's printed and written numbers equal the library's
(`corrected_score`, `compare_scores` called directly on the same Series, never the command's own output), its exit codes
(0 done, 2 bad input on one line naming the option, 3 a finding of --fail-on), and its report folder."""
import json

import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.system_score.compare import compare_scores
from humancert.system_score.corrected_score import corrected_score
from report_run import command as cli


def _study(n=240, seed=3, rate=0.7, gold_share=0.4):
    "One row per item: a judge (sensitivity 0.9, specificity 0.6), a human label on a random share, a topic, a conversation, a 3-annotator panel, a second version."
    rng = np.random.default_rng(seed)
    truth = (rng.random(n) < rate).astype(int)
    judge = lambda t: np.where(t == 1, rng.random(n) < 0.9, rng.random(n) < 0.4).astype(int)
    lab = rng.random(n) < gold_share
    truth_b = np.where(rng.random(n) < 0.85, truth, 0)
    noisy = lambda: np.where(lab, np.where(rng.random(n) < 0.85, truth, 1 - truth), np.nan)
    return pd.DataFrame({"item": [f"i{k:04d}" for k in range(n)], "llm": judge(truth), "human": np.where(lab, truth, np.nan),
                         "topic": np.where(rng.random(n) < 0.5, "math", "code"), "conv": rng.integers(0, n // 4, n),
                         "a1": noisy(), "a2": noisy(), "a3": noisy(),
                         "llm_b": judge(truth_b), "human_b": np.where(lab, truth_b, np.nan)})


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    d = tmp_path_factory.mktemp("score")
    df = _study()
    df.to_csv(d / "study.csv", index=False)
    return d, df, df.set_index("item")


def _headline(cs):
    lo, hi = cs.ci
    return f"{cs.estimate:.3f} ({lo:.3f}-{hi:.3f}, 95 %"


def test_answer_and_table_equal_the_library(study):
    d, _, s = study
    code, out, err = cli("score", d / "study.csv", "--judge", "llm", "--gold", "human")
    cs = corrected_score(s.llm, s.human)
    assert (code, err) == (0, "")
    first = out.splitlines()[2]
    assert first == (f"The system's corrected pass rate is {_headline(cs)}, finite-sample) from {cs.n_gold} gold of {len(s)} items; "
                     f"the judge alone says {s.llm.mean():.3f}."), first
    for r in cs.to_frame().itertuples():                                   # every method's row, as the table prints it
        assert f"{r.estimate:.4f}  {r.lower:.4f}  {r.upper:.4f}" in out, r.method


def test_json_equals_the_library(study):
    d, _, s = study
    code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--gold", "human", "--format", "json", "--confidence", "0.9")
    got = json.loads(out)
    cs = corrected_score(s.llm, s.human, confidence=0.9)
    assert code == 0
    assert (got["score"]["estimate"], got["score"]["lower"], got["score"]["upper"]) == (cs.estimate, *cs.ci)
    assert pd.DataFrame(got["score"]["methods"])[["estimate", "lower", "upper", "n"]].to_dict("list") == \
        cs.to_frame()[["estimate", "lower", "upper", "n"]].to_dict("list")


def test_gold_file_joined_by_item_id(study, tmp_path):
    d, df, s = study
    df.loc[df.human.notna(), ["item", "human"]].sample(frac=1, random_state=0).to_csv(tmp_path / "gold.csv", index=False)
    code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--gold", tmp_path / "gold.csv", "--format", "json")
    cs = corrected_score(s.llm, s.human)
    assert code == 0 and json.loads(out)["score"]["lower"] == cs.ci[0]
    (tmp_path / "gold.jsonl").write_text("".join(json.dumps({"item": i, "label": int(v)}) + "\n" for i, v in s.human.dropna().items()))
    code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--gold", tmp_path / "gold.jsonl", "--format", "json")
    assert code == 0 and json.loads(out)["score"]["upper"] == cs.ci[1]


def test_panel_clusters_strata_by(study):
    d, df, s = study
    panel = Annotations.from_wide(s[["a1", "a2", "a3"]].dropna(how="all"), raters_in_rows=False)
    for est, name in (("majority", "majority"), ("average-annotator", "average annotator"), ("oracle", "oracle")):
        code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--panel", "a1,a2,a3", "--estimand", est, "--format", "json")
        cs = corrected_score(s.llm, panel, estimand=name)
        assert code == 0 and json.loads(out)["score"]["estimate"] == cs.estimate and json.loads(out)["score"]["estimand"] == cs.estimand
    code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--gold", "human", "--clusters", "conv", "--format", "json")
    cs = corrected_score(s.llm, s.human, clusters=s.conv)
    assert code == 0 and (json.loads(out)["score"]["lower"], json.loads(out)["score"]["headline"]) == (cs.ci[0], "PPI++")
    code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--gold", "human", "--strata", "topic", "--format", "json")
    assert json.loads(out)["score"]["upper"] == corrected_score(s.llm, s.human, strata=s.topic).ci[1]
    code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--gold", "human", "--by", "topic", "--format", "json")
    for sl in json.loads(out)["slices"]:
        m = (s.topic == sl["slice"]).to_numpy()
        assert sl["score"]["lower"] == corrected_score(s.llm[m], s.human[m]).ci[0], sl["slice"]


def test_positive_label_and_rating(tmp_path):
    df = _study(seed=4)
    df["verdict"], df["gold"] = np.where(df.llm == 1, "pass", "fail"), df.human.map({1.0: "pass", 0.0: "fail"})
    df["stars"] = df.llm * 3 + 2
    df["stars_h"] = df.human * 3 + 2
    df.to_csv(tmp_path / "s.csv", index=False)
    s = df.set_index("item")
    code, out, _ = cli("score", tmp_path / "s.csv", "--judge", "verdict", "--gold", "gold", "--positive", "pass")
    assert code == 0 and _headline(corrected_score(s.verdict, s.gold, positive="pass")) in out
    code, out, _ = cli("score", tmp_path / "s.csv", "--judge", "stars", "--gold", "stars_h", "--scale", "1,5", "--format", "json")
    cs = corrected_score(s.stars, s.stars_h, scale=(1, 5))
    assert code == 0 and json.loads(out)["score"]["estimate"] == cs.estimate and cs.kind == "rating"


def test_compare_two_columns_and_system_rows(study, tmp_path):
    d, df, s = study
    c = compare_scores(s.llm, s.human, s.llm_b, s.human_b, names=("llm", "llm_b"))
    code, out, _ = cli("score", d / "study.csv", "--compare", "llm,llm_b", "--gold", "human,human_b")
    assert f"the corrected difference is {c.estimate:+.3f} ({c.ci[0]:+.3f} to {c.ci[1]:+.3f}, 95 %, asymptotic)" in out
    assert code == 0
    long = pd.concat([df[["item", "llm", "human", "topic"]].assign(system="v1"),
                      df[["item", "llm_b", "human_b", "topic"]].set_axis(["item", "llm", "human", "topic"], axis=1).assign(system="v2")])
    long.to_csv(tmp_path / "long.csv", index=False)
    code, out, _ = cli("score", tmp_path / "long.csv", "--judge", "llm", "--gold", "human", "--system", "system", "--compare", "v1,v2",
                       "--by", "topic", "--format", "json")
    got = json.loads(out)["comparison"]
    assert got["rows"][0]["estimate"] == compare_scores(s.llm, s.human, s.llm_b, s.human_b).estimate
    byc = compare_scores(s.llm, s.human, s.llm_b, s.human_b, by=s.topic, names=("v1", "v2")).to_frame()
    assert [r["adjusted_p"] for r in got["by_slice"]] == byc.adjusted_p.tolist()


def test_fail_on_exit_codes(study):
    d, _, s = study
    cs = corrected_score(s.llm, s.human)
    lo = cs.ci[0]
    base = ("score", d / "study.csv", "--judge", "llm", "--gold", "human")
    code, out, _ = cli(*base, "--fail-on", f"below:{lo - 0.01:.4f}")
    assert code == 0 and "Finding" not in out
    code, out, _ = cli(*base, "--fail-on", f"below:{lo + 0.01:.4f}")
    assert code == 3 and f"lower limit {lo:.3f} is under" in out and "exit code 3 (--fail-on below:" in out
    assert cli(*base, "--fail-on", f"below:{lo + 0.01:.4f}", "--quiet")[:2] == (3, "")       # quiet: nothing printed, the code still says it
    c = compare_scores(s.llm, s.human, s.llm_b, s.human_b)
    code, out, _ = cli("score", d / "study.csv", "--compare", "llm,llm_b", "--gold", "human,human_b", "--fail-on", "regressed")
    assert code == (3 if c.ci[1] < 0 else 0) and c.ci[1] < 0                                   # B truly worse by 0.1 on 96 paired gold items
    code, out, _ = cli("score", d / "study.csv", "--compare", "llm_b,llm", "--gold", "human_b,human", "--fail-on", "regressed")
    assert code == 0 and "Finding" not in out                                                  # the other way round: improved, no finding


@pytest.mark.parametrize("args, option", [
    ((), "--judge is needed"),
    (("--judge", "llm"), "exactly one of --gold"),
    (("--judge", "nope", "--gold", "human"), "--judge: 'nope' is not a column"),
    (("--judge", "llm", "--gold", "blank"), "--gold: column 'blank' of INPUT is blank on every item"),
    (("--judge", "llm", "--gold", "GOLDFILE"), "--gold: 2 item id(s)"),
    (("--judge", "llm", "--panel", "a1,a2"), "--estimand is needed with --panel"),
    (("--judge", "llm", "--panel", "a1,a2,a3", "--estimand", "truth"), "--estimand must be majority, average-annotator or oracle"),
    (("--judge", "llm", "--panel", "a1,a2,a3", "--estimand", "oracle", "--fail-on", "below:0.5"), "--fail-on below:X with --estimand oracle"),
    (("--judge", "llm", "--gold", "human", "--fail-on", "worse"), "--fail-on takes regressed or below:X"),
    (("--judge", "llm", "--gold", "human", "--fail-on", "regressed"), "--fail-on regressed needs --compare"),
    (("--judge", "llm", "--gold", "human", "--clusters", "nope"), "--clusters: 'nope' is not a column"),
    (("--compare", "llm,llm_b", "--gold", "human"), "needs two gold columns"),
    (("--judge", "llm", "--gold", "human", "--format", "pdf"), "--format must be one of"),
])
def test_bad_input_one_line_naming_the_option(study, tmp_path, args, option):
    d, df, _ = study
    df.assign(blank=np.nan).to_csv(tmp_path / "s.csv", index=False)
    pd.DataFrame({"item": ["i0001", "zz", "yy"], "label": [1, 0, 1]}).to_csv(tmp_path / "gold.csv", index=False)
    args = [str(tmp_path / "gold.csv") if a == "GOLDFILE" else a for a in args]
    code, out, err = cli("score", tmp_path / "s.csv", *args)
    assert (code, out, err.count("\n")) == (2, "", 1), err
    assert err.startswith("humancert: error: ") and option in err, err


def test_report_folder_md_json_html(study, tmp_path):
    d, _, s = study
    code, out, _ = cli("score", d / "study.csv", "--judge", "llm", "--gold", "human", "--out", tmp_path / "rep")
    cs = corrected_score(s.llm, s.human)
    assert code == 0 and out.rstrip().endswith("report.html")
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["score"]["estimate"] == cs.estimate
    md, html = (tmp_path / "rep" / "report.md").read_text(), (tmp_path / "rep" / "report.html").read_text()
    assert _headline(cs) in md and _headline(cs) in html and html.startswith("<!DOCTYPE html>") and "| betting (headline) |" in md
    code, _, err = cli("score", d / "study.csv", "--judge", "llm", "--gold", "human", "--out", tmp_path / "rep")
    assert code == 2 and "already holds a report" in err                                       # the report writer's refusal
    assert cli("score", d / "study.csv", "--judge", "llm", "--gold", "human", "--out", tmp_path / "rep", "--force")[0] == 0


def test_help_documents_exit_code_3():
    code, out, _ = cli("score", "--help")
    assert code == 0 and "exit code 3" in out and "--fail-on" in out and "below:X" in out


# ---------------------------------------------------------------- humancert report: --fail-on and --pass-label

@pytest.fixture(scope="module")
def panel_file(tmp_path_factory):
    "A wide labels file: three annotators (accuracy 0.8), a judge (0.9), gold on half the items."
    rng = np.random.default_rng(11)
    m = 200
    t = (rng.random(m) < 0.6).astype(int)
    flip = lambda acc: np.where(rng.random(m) < acc, t, 1 - t)
    df = pd.DataFrame({"item": range(m), "a1": flip(0.8), "a2": flip(0.8), "a3": flip(0.8), "llm": flip(0.9), "weak": flip(0.55)})
    df["human"] = np.where(rng.random(m) < 0.5, t, np.nan)
    p = tmp_path_factory.mktemp("panel") / "panel.csv"
    df.to_csv(p, index=False)
    return p, df.set_index("item")


def test_report_pass_label_section_equals_the_library(panel_file, tmp_path):
    p, s = panel_file
    code, out, _ = cli("report", p, "--model", "llm", "--gold", "human", "--annotators", "a1,a2,a3", "--pass-label", "1",
                       "--n-bootstrap", "10", "--out", tmp_path / "rep")
    cs = corrected_score(s.llm, s.human.dropna(), positive=1.0)
    assert code == 0 and f"The system's corrected pass rate is {_headline(cs)}, finite-sample)" in out
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["corrected_score"]["lower"] == cs.ci[0]
    assert "## Corrected score of the judged system" in (tmp_path / "rep" / "report.md").read_text()
    code, _, err = cli("report", p, "--model", "llm", "--annotators", "a1,a2,a3", "--pass-label", "1")
    assert code == 2 and "--pass-label needs --gold and --model" in err and err.count("\n") == 1


def test_report_fail_on_exit_codes(panel_file):
    from humancert.certification.gold_certificate import certify_with_gold
    from humancert.judges.board import compare_judges
    p, s = panel_file
    ann = Annotations.from_wide(s[["a1", "a2", "a3"]], raters_in_rows=False)
    base = ("report", p, "--annotators", "a1,a2,a3", "--n-bootstrap", "10")
    for judge in ("llm", "weak"):
        lib = certify_with_gold(ann, s[judge], s.human.dropna())
        code, out, _ = cli(*base, "--model", judge, "--gold", "human", "--fail-on", "not-certified")
        assert code == (0 if lib.certified else 3) and (("Finding: not-certified" in out) == (not lib.certified)), judge
    assert not certify_with_gold(ann, s.weak, s.human.dropna()).certified                       # the gate fires at least once
    board = compare_judges(ann, s[["llm", "weak"]], epsilon=0.2, n_bootstrap=0)
    passed = board.table["alt-test passed"]
    code, out, _ = cli(*base, "--model", "llm,weak", "--alt-test", "0.2", "--fail-on", "not-passed")
    assert code == (0 if passed.all() else 3) and not passed["weak"] and "judge 'weak' does not pass" in out
    for args, msg in ((("--fail-on", "not-passed", "--model", "llm"), "--fail-on not-passed needs the alternative annotator test"),
                      (("--fail-on", "regressed", "--model", "llm"), "not-certified or not-passed for report"),
                      (("--fail-on", "not-certified"), "--fail-on not-certified needs a judge")):
        code, out, err = cli(*base[:4], *args)
        assert (code, out, err.count("\n")) == (2, "", 1) and msg in err, err


def test_stdout_forms_and_slices_below_min_gold(study):
    d, _, s = study
    cs = corrected_score(s.llm, s.human)
    base = ("score", d / "study.csv", "--judge", "llm", "--gold", "human")
    md, html = cli(*base, "--format", "md")[1], cli(*base, "--format", "html")[1]
    assert md.startswith("# humancert score: ") and _headline(cs) in md
    assert html.startswith("<!DOCTYPE html>") and _headline(cs) in html
    code, out, _ = cli(*base, "--by", "topic", "--min-gold", "1000", "--format", "json")       # no slice has 1000 gold items
    assert code == 0 and [sl["score"] for sl in json.loads(out)["slices"]] == [None, None]
    assert json.loads(out)["score"]["estimate"] == cs.estimate                                 # the whole data keeps its interval
