"""Issue 45 item 4 in the report: with two judges or more, the "Judge against judge" matrices (Holm-adjusted exact McNemar
against the gold labels, or the clear human majority without them; paired bootstrap on agreement and advantage), their
report.json record and judges.csv's lists of the judges each one is significantly ahead of and behind.

Every number is checked against `JudgeBoard.pairs()` called directly on a board built here from the same labels (not the
report's own board), and one pair's McNemar p against statsmodels on the raw labels. Three simulated judges, 85%, 75% and
55% accurate against a known truth, on 300 items labelled by four annotators.
"""
import json

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from humancert.data.simulate import simulate_oracle_labels
from humancert.judges.board import compare_judges
from report_run import command as run

B = 60          # bootstrap resamples, the report's --n-bootstrap


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    d = tmp_path_factory.mktemp("pairs")
    sim = simulate_oracle_labels(300, [0.75] * 4, n_classes=3, seed=4)
    rng = np.random.default_rng(1)
    noisy = lambda acc: np.where(rng.random(300) < acc, sim.oracle, (sim.oracle + rng.integers(1, 3, 300)) % 3)
    J = pd.DataFrame({"good": noisy(0.85), "fair": noisy(0.75), "poor": noisy(0.55)}, index=sim.annotations.items)
    sim.annotations.to_wide().join(J).to_csv(d / "three.csv", index_label="item")
    gold = pd.Series(sim.oracle, index=sim.annotations.items, name="gold")
    gold.to_csv(d / "gold.csv", index_label="item")
    return d, sim, J.astype(object), gold


@pytest.fixture(scope="module")
def reports(case):
    "with_gold -> (report folder, printed text) of the three judges' report with the alt-test, made once per module."
    d, *_ = case
    made = {}
    def make(with_gold):
        if with_gold not in made:
            extra = ["--gold", str(d / "gold.csv")] if with_gold else []
            out = d / ("rep_gold" if with_gold else "rep_majority")
            code, text, err = run("report", str(d / "three.csv"), "--model", "good,fair,poor", "--alt-test", "0.1", "--n-bootstrap", str(B),
                                  *extra, "--out", str(out))
            assert (code, err) == (0, ""), err
            made[with_gold] = (out, text)
        return made[with_gold]
    return make


def matrix_row(line):
    "(judge, [cell, ...]) of a printed matrix row '  1 good  .  5e-06 +*  ...': a cell is '.' or (p text, side text)."
    tok = line.split()
    name, rest, cells = tok[1], tok[2:], []
    while rest:
        if rest[0] == ".": cells.append("."); rest = rest[1:]
        else: cells.append((rest[0], rest[1])); rest = rest[2:]
    return name, cells


def direct(sim, J, gold, alt):
    "JudgeBoard.pairs() on a board built here from the same labels, at the report's level, resamples and seed."
    board = compare_judges(sim.annotations, J, epsilon=0.1 if alt else None, n_bootstrap=B, seed=0)
    return board.pairs("majority" if gold is None else gold, n_bootstrap=B, confidence=0.95, seed=0).table


@pytest.mark.parametrize("with_gold", [True, False])
def test_report_pairs_equal_judge_pairs(case, reports, with_gold):
    d, sim, J, gold = case
    out, text = reports(with_gold)
    want = direct(sim, J, gold if with_gold else None, True)
    rec = json.loads((out / "report.json").read_text())["judge_pairs"]
    assert rec["reference"] == ("gold" if with_gold else "majority") and rec["alpha"] == 0.05 and rec["n_bootstrap"] == B
    got = pd.DataFrame(rec["pairs"]).set_index(["A", "B"])
    assert list(got.index) == list(want.index)
    for col in ("compared", "A right, B wrong", "A wrong, B right", "McNemar p", "McNemar p Holm", "agreement A-B", "agreement p Holm",
                "advantage A-B", "advantage p Holm"):
        np.testing.assert_allclose(got[col].to_numpy(float), want[col].to_numpy(float), rtol=1e-12, err_msg=col)
    # the printed matrices: each cell's p is the direct Holm p (as printed: 4 decimals, or 1 significant digit below 1e-4)
    names = ["good", "fair", "poor"]
    for fam, title in (("McNemar", "accuracy against " + ("the gold labels" if with_gold else "the clear human majority")),
                       ("agreement", "agreement with the humans"), ("advantage", "advantage probability")):
        lines = text.split(f"Judge against judge: {title} (")[1].splitlines()
        rows = dict(matrix_row(ln) for ln in lines[2:5])
        for (a, b), r in want.iterrows():
            q = r[f"{fam} p Holm"]
            shown, side = rows[a][names.index(b)]
            assert shown == (f"{q:.4f}" if q >= 1e-4 else f"{q:.0e}"), (fam, a, b, shown, q)
            lead = r["accuracy A"] - r["accuracy B"] if fam == "McNemar" else r[f"{fam} A-B"]
            assert side.rstrip("*") == ("+" if lead > 0 else "-" if lead < 0 else "=") and side.endswith("*") == (q < 0.05)
    block = text[text.index("Judge against judge"):]
    block = block[:block.index("\n\n", block.rindex("Judge against judge"))]
    assert max(map(len, block.splitlines())) <= 100
    for f in ("report.md", "report.html"): assert "Judge against judge: agreement with the humans" in (out / f).read_text()
    # judges.csv: per judge, the judges it is significantly ahead of / behind, from the direct Holm p-values
    csv = pd.read_csv(out / "judges.csv", index_col=0, keep_default_na=False)
    assert list(csv.columns[-8:]) == ["significantly more accurate than", "significantly less accurate than",
                                      "significantly closer to the humans than", "significantly further from the humans than",
                                      "significantly higher advantage than", "significantly lower advantage than",
                                      "paired tests reference", "paired tests alpha"]
    for fam, (up, down) in {"McNemar": ("significantly more accurate than", "significantly less accurate than"),
                            "agreement": ("significantly closer to the humans than", "significantly further from the humans than"),
                            "advantage": ("significantly higher advantage than", "significantly lower advantage than")}.items():
        ahead = {n: set() for n in names}; behind = {n: set() for n in names}
        for (a, b), r in want.iterrows():
            lead = r["accuracy A"] - r["accuracy B"] if fam == "McNemar" else r[f"{fam} A-B"]
            if r[f"{fam} p Holm"] < 0.05 and lead != 0:
                (ahead if lead > 0 else behind)[a].add(b); (behind if lead > 0 else ahead)[b].add(a)
        for n in names:
            assert set(filter(None, csv.loc[n, up].split("; "))) == ahead[n], (fam, n)
            assert set(filter(None, csv.loc[n, down].split("; "))) == behind[n], (fam, n)
    if with_gold:                                       # the design: every pair differs in accuracy against the truth
        assert csv.loc["good", "significantly more accurate than"] == "fair; poor"


def test_one_pair_equals_statsmodels(case, reports):
    "McNemar p of good against fair in the report equals statsmodels' exact test on the 2 x 2 table of the raw labels against gold."
    d, sim, J, gold = case
    rec = json.loads((reports(True)[0] / "report.json").read_text())["judge_pairs"]["pairs"]
    row = next(r for r in rec if (r["A"], r["B"]) == ("good", "fair"))
    ra, rb = J["good"].to_numpy() == sim.oracle, J["fair"].to_numpy() == sim.oracle
    table = [[int((ra & rb).sum()), int((ra & ~rb).sum())], [int((~ra & rb).sum()), int((~ra & ~rb).sum())]]
    assert row["McNemar p"] == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
    assert (row["A right, B wrong"], row["A wrong, B right"]) == (table[0][1], table[1][0])


def test_without_alt_test_no_advantage_family(case):
    d, sim, J, gold = case
    code, text, err = run("report", str(d / "three.csv"), "--model", "good,fair,poor", "--n-bootstrap", str(B))
    assert (code, err) == (0, "")
    assert "Judge against judge: advantage" not in text
    assert "advantage probability not compared: the board did not run the alternative annotator test" in text
    want = direct(sim, J, None, False)
    lines = text.split("Judge against judge: accuracy against the clear human majority (")[1].splitlines()
    q = want.loc[("good", "poor"), "McNemar p Holm"]
    assert matrix_row(lines[2])[1][2][0] == (f"{q:.4f}" if q >= 1e-4 else f"{q:.0e}")
