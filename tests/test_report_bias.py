"""Issue 45 item 6 in the report: `humancert report --covariates COL,...` adds a "Bias given the truth" block per judge, naming
the judge, with judge_bias's numbers (errors given the gold labels when --gold is given, else the panel's majority).

Each printed odds ratio, interval and p-value is checked against `judge_bias` called directly on the labels and covariates
built here; report.json's `judge_bias` record against the same call to 1e-12. A judge designed to err more on long responses
within each true class is flagged, and a report without --covariates has no bias block.
"""
import json

import numpy as np
import pandas as pd
import pytest

from humancert.data.simulate import simulate_oracle_labels
from humancert.judges.bias import judge_bias
from report_run import command as run


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    "400 items, three annotators; 'long' errs more on long responses (log-odds +1 per SD), 'flat' does not; both about 75-80% right."
    d = tmp_path_factory.mktemp("bias")
    n = 400
    sim = simulate_oracle_labels(n, [0.75] * 3, n_classes=2, seed=7)
    rng = np.random.default_rng(3)
    length = rng.normal(200, 50, n).round(1)
    z = (length - 200) / 50
    err_long = rng.random(n) < 1 / (1 + np.exp(-(-1.5 + 1.0 * z)))
    err_flat = rng.random(n) < 0.22
    w = sim.annotations.to_wide()
    w = w.assign(long=np.where(err_long, 1 - sim.oracle, sim.oracle), flat=np.where(err_flat, 1 - sim.oracle, sim.oracle),
                 length=length, family=rng.choice(["a", "b"], n))
    w.to_csv(d / "labels.csv", index_label="item")
    gold = pd.Series(sim.oracle, index=w.index, name="gold")
    gold.to_csv(d / "gold.csv", index_label="item")
    return d, w, gold


def printed(text, judge):
    "{row label: (value, comment)} of judge `judge`'s bias block in the printed report."
    head = f"Bias given the truth: judge {judge!r} ("
    block = text[text.index(head):].split("\n\n")[0].splitlines()[1:]
    out = {}
    last = None
    for ln in block:
        if ln.startswith("   "):                       # a continuation row: the comment goes on
            k, i = last
            if k == "note": out["note"][i] += " " + ln.strip()
            else: out[k] = (out[k][0], out[k][1] + " " + ln.strip())
            continue
        label, rest = ln.strip().split("  ", 1)
        last = (label, len(out.get("note", []))) if label == "note" else (label, None)
        if label == "note": out.setdefault("note", []).append(rest.strip()); continue    # a note row has no value
        value, comment = rest.strip().split("  ", 1)
        out[label] = (value, comment.strip())
    return out


@pytest.mark.parametrize("with_gold", [True, False])
def test_bias_blocks_equal_judge_bias(case, with_gold):
    d, w, gold = case
    extra = ["--gold", str(d / "gold.csv")] if with_gold else []
    out = d / ("rep_gold" if with_gold else "rep_panel")
    code, text, err = run("report", str(d / "labels.csv"), "--model", "long,flat", "--annotators", "0,1,2", "--covariates", "length,family",
                          "--n-bootstrap", "20", *extra, "--out", str(out))
    assert (code, err) == (0, ""), err
    from humancert.report.read import read_labels
    ann = read_labels(str(d / "labels.csv"), model="long,flat", annotators="0,1,2").annotations
    cov = w[["length", "family"]]
    rec = json.loads((out / "report.json").read_text())["judge_bias"]
    assert list(rec) == ["long", "flat"]
    for judge in ("long", "flat"):
        want = judge_bias(w[judge], gold if with_gold else ann, cov)
        assert want.reference == ("gold" if with_gold else "panel majority (ties left out)")
        got = pd.DataFrame(rec[judge]["terms"]).set_index(["covariate", "term"])
        for col in ("odds ratio", "lo", "hi", "p", "p Holm"):
            np.testing.assert_allclose(got[col].to_numpy(float), want.table[col].to_numpy(float), rtol=1e-12, err_msg=(judge, col))
        assert (rec[judge]["items"], rec[judge]["events"], rec[judge]["reference"]) == (want.n_items, want.n_events, want.reference)
        rows = printed(text, judge)
        assert rows.get("note", []) == list(want.notes)
        assert rows["items"][0] == str(want.n_items) and rows["items"][1].startswith(f"{want.n_events} errors")
        for (c, t), r in want.table.iterrows():
            value, comment = rows[f"{c}: {r['unit']}"]
            assert value == f"{r['odds ratio']:.3f}"
            assert comment == (f"[{r['lo']:.3f}, {r['hi']:.3f}]; p = {r['p']:.3g}, Holm p = {r['p Holm']:.3g}; "
                               + ("FLAGGED" if r["flagged"] else "not flagged"))
    if with_gold:                                         # the design: 'long' errs more on long items given the truth, 'flat' does not
        assert rec["long"]["terms"][0]["flagged"] is True and rec["long"]["terms"][0]["covariate"] == "length"
    block = text[text.index("Bias given the truth"):].split("\n\nWhat the")[0]
    assert max(map(len, block.splitlines())) <= 100
    for f in ("report.md", "report.html"): assert "Bias given the truth: judge &#x27;long&#x27;" in (out / f).read_text() or \
        "Bias given the truth: judge 'long'" in (out / f).read_text()


def test_covariates_from_a_file_and_refusals(case, tmp_path):
    d, w, gold = case
    w[["length"]].to_csv(tmp_path / "cov.csv", index_label="item")
    code, text, err = run("report", str(d / "labels.csv"), "--model", "flat", "--annotators", "0,1,2", "--covariates", str(tmp_path / "cov.csv"),
                          "--n-bootstrap", "0")
    assert (code, err) == (0, "")
    want = judge_bias(w["flat"], read_ann(d), w[["length"]])
    assert printed(text, "flat")["length: " + want.table.iloc[0]["unit"]][0] == f"{want.table.iloc[0]['odds ratio']:.3f}"
    code, text, err = run("report", str(d / "labels.csv"), "--annotators", "0,1,2", "--covariates", "length")
    assert code == 2 and "--covariates" in err and "--model" in err
    code, text, err = run("report", str(d / "labels.csv"), "--model", "flat", "--annotators", "0,1,2", "--covariates", "size")
    assert code == 2 and "--covariates: 'size' is neither a file nor columns of INPUT" in err
    code, text, err = run("report", str(d / "labels.csv"), "--model", "flat", "--annotators", "0,1,2", "--n-bootstrap", "0")
    assert code == 0 and "Bias given the truth" not in text


def read_ann(d):
    from humancert.report.read import read_labels
    return read_labels(str(d / "labels.csv"), model="flat", annotators="0,1,2").annotations
