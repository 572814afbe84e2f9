"""`humancert pairwise` (issue 45 item 5): every number it prints is the pairwise part's own (position_consistency,
preference_agreement, alt_test / certify on the preference labels, rank_systems) called directly on the same file; bad
input ends with exit code 2 and one line naming the option; a --fail-on finding with exit code 3."""
import json
import re

import numpy as np
import pytest

import humancert as hc
from humancert.certification.certify import certify
from humancert.judges.alt_test import alt_test
from humancert.pairwise.judgements import simulate_pairwise, read_pairwise, tie_half_score
from report_run import command as _run


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    path = tmp_path_factory.mktemp("pairwise") / "judgements.csv"
    simulate_pairwise(120, 2, n_humans=3, human_share=0.5, judge_accuracy=0.6, position_bias=0.15, prompt_sd=0.5, seed=4).to_csv(path, index=False)
    import pandas as pd
    pw = read_pairwise(pd.read_csv(path), judges="judge")
    ann, jl = pw.preference_labels("judge")
    api = dict(pc=hc.position_consistency(pw).table.loc["judge"], pa=hc.preference_agreement(pw).table, rk=hc.rank_systems(pw, judge="judge"),
               alt=alt_test(ann, jl, epsilon=0.1, score=tie_half_score), cert=certify(ann, jl))
    return path, api


def test_json_numbers_are_the_api(study):
    path, api = study
    code, out, err = _run("pairwise", str(path), "--judge", "judge", "--format", "json")
    assert (code, err) == (0, "")
    js = json.loads(out)
    pc = js["position_consistency"][0]
    for k in ("consistency", "lower", "upper", "first preferred", "first lower", "first upper"): assert pc[k] == api["pc"][k]
    assert [r["kappa"] for r in js["agreement"]] == list(api["pa"]["kappa"])
    assert [r["chance lower"] for r in js["agreement"]] == list(api["pa"]["chance lower"])
    assert js["alt_test"]["judge"]["winning_rate"] == api["alt"].winning_rate and js["alt_test"]["judge"]["passed"] == api["alt"].passed
    assert js["certificate"]["judge"]["lower"] == api["cert"].lower and js["certificate"]["judge"]["certified"] == api["cert"].certified
    assert [r["upper"] for r in js["ranking"]["judge"]["strengths"]] == list(api["rk"].strengths.upper)
    assert js["ranking"]["judge"]["ranking"] == api["rk"].ranking and js["ranking"]["judge"]["lambda"] == api["rk"].lam


def test_text_numbers_are_the_api(study, monkeypatch):
    path, api = study
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = _run("pairwise", str(path), "--judge", "judge")
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Answer" and max(map(len, out.splitlines())) <= 80
    answer = " ".join(out.split("\n\n")[0].splitlines()[2:])
    r, c = api["pa"].loc[("judge", "tie as half")], api["pc"]
    want = [r["kappa"], r["kappa lower"], r["kappa upper"], r["agreement"], r["chance"], c["consistency"], c["lower"], c["upper"],
            c["first preferred"], c["first lower"], c["first upper"]]
    assert re.findall(r"\d\.\d{3}", answer) == [f"{v:.3f}" for v in want]
    assert "ranking (PPI++): " + " > ".join(api["rk"].ranking) in answer
    s = api["rk"].strengths
    known = {f"{v:.3f}" for v in np.r_[api["pa"].select_dtypes(float).to_numpy().ravel(), api["pc"].drop(["pairs in both orders"]).astype(float).to_numpy(),
                                       np.abs(s[["estimate", "lower", "upper"]].to_numpy().ravel()), api["rk"].lam, api["alt"].winning_rate,
                                       api["alt"].advantage_probability, api["cert"].score, api["cert"].lower, api["cert"].upper, 1.0]}
    assert set(re.findall(r"(?<![\d.])\d\.\d{3}(?!\d)", out)) <= known


@pytest.mark.parametrize("argv, option", [(["--judge", "gpt-9"], "--judge"), ([], "--judge"), (["--judge", "judge", "--format", "pdf"], "--format"),
                                          (["--judge", "judge", "--fail-on", "loud"], "--fail-on"), (["--judge", "judge", "--label-field", "verdict"], "--label-field"),
                                          (["--judge", "judge", "--clusters", "item"], "--clusters"), (["--judge", "judge", "--confidence", "1.5"], "--confidence")])
def test_bad_input_exit_2_one_line(study, argv, option):
    path, _ = study
    code, out, err = _run("pairwise", str(path), *argv)
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1 and option in err, err


def test_fail_on_and_out(study, tmp_path):
    path, api = study
    lo = api["pc"]["lower"]
    assert _run("pairwise", str(path), "--judge", "judge", "--fail-on", f"consistency:{lo + 0.01:.3f}")[0] == 3
    assert _run("pairwise", str(path), "--judge", "judge", "--fail-on", f"consistency:{lo - 0.01:.3f}")[0] == 0
    code, out, _ = _run("pairwise", str(path), "--judge", "judge", "--out", str(tmp_path / "rep"), "--format", "md")
    assert code == 0 and sorted(p.name for p in (tmp_path / "rep").iterdir()) == ["judges.csv", "pairwise.html", "pairwise.json", "pairwise.md", "pairwise.txt"]
    assert _run("pairwise", str(path), "--judge", "judge", "--out", str(tmp_path / "rep"))[0] == 2          # no overwrite without --force
    assert _run("pairwise", str(path), "--judge", "judge", "--out", str(tmp_path / "rep"), "--force")[0] == 0


def test_davidson_ties_printed_are_the_api(study):
    path, _ = study
    import pandas as pd
    rk = hc.rank_systems(read_pairwise(pd.read_csv(path), judges="judge"), judge="judge", ties="davidson")
    code, out, err = _run("pairwise", str(path), "--judge", "judge", "--ties", "davidson", "--format", "json")
    js = json.loads(out)["ranking"]["judge"]
    assert code == 0 and js["ties"] == "davidson"
    assert [r["estimate"] for r in js["tie_parameter"]] == list(rk.tie_parameter.estimate)
    assert [r["lower"] for r in js["strengths"]] == list(rk.strengths.lower)
    code, out, err = _run("pairwise", str(path), "--judge", "judge", "--ties", "davidson")
    r = rk.tie_parameter.loc["PPI++"]
    assert code == 0 and f"PPI++ {r.estimate:.3f} ({r.lower:.3f} to {r.upper:.3f})" in " ".join(out.split())
    assert _run("pairwise", str(path), "--judge", "judge", "--ties", "rao")[0] == 2


def _judges_csv(folder):
    import pandas as pd
    return pd.read_csv(folder / "judges.csv", index_col="judge", keep_default_na=False, na_values=[""])


def test_judges_csv_numbers_are_the_api(study, tmp_path):
    "judges.csv (--out): every number of the judge's row is the part's function's own, unrounded; Kendall's tau counted by hand."
    path, api = study
    code, out, err = _run("pairwise", str(path), "--judge", "judge", "--out", str(tmp_path / "rep"), "--format", "json")
    assert (code, err, json.loads(out)["judges"]) == (0, "", ["judge"])          # --out with --format json: the folder written, stdout pure JSON
    t = _judges_csv(tmp_path / "rep")
    assert list(t.index) == ["judge"]
    r = t.loc["judge"]
    pc, alt, cert, rk = api["pc"], api["alt"], api["cert"], api["rk"]
    names = {"lower": "consistency lower", "upper": "consistency upper", "first lower": "first preferred lower", "first upper": "first preferred upper"}
    assert all(r[names.get(k, k)] == pc[k] for k in pc.index)
    assert all(r[f"{k} ({s})"] == api["pa"].loc[("judge", s), k] for s in ("tie as half", "exact")
               for k in ("items", "agreement", "agreement lower", "agreement upper", "chance", "chance lower", "chance upper", "kappa", "kappa lower", "kappa upper"))
    assert (r["confidence"], r["clusters"]) == (0.95, "prompt")
    assert (r["alt-test passed"], r["alt-test winning rate"], r["alt-test advantage probability"], r["alt-test epsilon"], r["alt-test score"]) == \
           (alt.passed, alt.winning_rate, alt.advantage_probability, 0.1, "tie_half_score")
    assert (r["alt-test humans"], r["alt-test humans beaten"], r["alt-test items"]) == (alt.n_tested, alt.n_rejected, alt.n_items)
    assert (r["certified"], r["certificate S"], r["certificate L_N"], r["certificate U_N"]) == (cert.certified, cert.score, cert.lower, cert.upper)
    est = rk.strengths.estimate
    jo, ho = est["judge only"], est["humans only"][est["judge only"].index]
    signs = [np.sign((jo.iloc[a] - jo.iloc[b]) * (ho.iloc[a] - ho.iloc[b])) for a in range(len(jo)) for b in range(a)]
    assert r["Kendall tau (judge only, humans only)"] == pytest.approx(sum(signs) / len(signs), abs=1e-12) and 0 not in signs
    assert (r["top system (judge only)"], r["top system (humans only)"], r["top system (PPI++)"]) == (jo.idxmax(), ho.idxmax(), rk.ranking[0])
    assert r["same top system (judge only, humans only)"] == (jo.idxmax() == ho.idxmax())
    assert (r["PPI++ lambda"], r["systems"]) == (rk.lam, len(rk.ranking))
    assert r.drop("not computed").notna().all() and r.isna()["not computed"]          # every result computed: no empty cell, no reason


def test_judges_csv_escapes_formulas(study, tmp_path):
    "A judge named '=cmd' and a system named '@sys3' are written as text a spreadsheet does not run: a leading ' (numbers stay numbers)."
    import pandas as pd
    path, api = study
    d = pd.read_csv(path).replace({"rater": {"judge": "=cmd"}, "system_a": {"sys3": "@sys3"}, "system_b": {"sys3": "@sys3"}})
    d.to_csv(tmp_path / "f.csv", index=False)
    code, _, err = _run("pairwise", str(tmp_path / "f.csv"), "--judge", "=cmd", "--out", str(tmp_path / "rep"), "--format", "json")
    assert (code, err) == (0, "")
    raw = (tmp_path / "rep" / "judges.csv").read_text().splitlines()
    assert raw[1].startswith("'=cmd,0.95,prompt,")
    r = _judges_csv(tmp_path / "rep").loc["'=cmd"]
    assert r["top system (humans only)"] == "'@sys3" and r["kappa (tie as half)"] == api["pa"].loc[("judge", "tie as half"), "kappa"]
