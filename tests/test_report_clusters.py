"""`humancert report --clusters COL` and make_report(..., clusters=) (issue 45, item 1): every interval the report prints is the
API's own with clusters= on the same data (survey equivalence, the judges' board and alt-test, the paired tests, the gold
certificate, the coefficients of a rating scale); the report says clusters were used (how many, mean size), and warns once when
item ids look clustered and none were given."""
import json

import numpy as np
import pandas as pd
import pytest

import humancert as h
from humancert.report.reporting import make_report, add_gold
from report_run import command as _run

G, M, K = 12, 3, 4          # clusters, items per cluster, annotators: small, so each report takes a fraction of a second


def _data(seed=1, classes=2):
    "Wide labels with a shared truth per cluster (items of one cluster related), two judges, the cluster column and ids 'rG_eJ'."
    rng = np.random.default_rng(seed)
    items = [f"r{g}_e{j}" for g in range(G) for j in range(M)]
    truth = np.repeat(rng.integers(0, classes, G), M)
    flip = lambda p: np.where(rng.random(len(items)) < p, rng.integers(0, classes, len(items)), truth)
    wide = pd.DataFrame({f"a{k}": flip(0.4) for k in range(K)}, index=pd.Index(items, name="item"))
    judges = pd.DataFrame({"j1": flip(0.2), "j2": flip(0.5)}, index=wide.index)
    return wide, judges, pd.Series(truth, index=wide.index), h.id_prefix(items)


@pytest.fixture(scope="module")
def case():
    wide, judges, truth, cl = _data()
    ann = h.Annotations.from_wide(wide)
    rep = make_report(ann, judges["j1"], judges=judges, alt_test=0.2, n_bootstrap=20, min_items_per_annotator=5, tolerance=False, clusters=cl)
    gold = truth.iloc[::2]
    return ann, judges, cl, gold, rep, add_gold(rep, ann, judges["j1"], gold)


def test_numbers_are_the_apis_with_clusters(case):
    ann, judges, cl, gold, rep, rg = case
    board = h.compare_judges(ann, judges, epsilon=0.2, n_bootstrap=20, seed=0, min_items_per_annotator=5, clusters=cl)
    pd.testing.assert_frame_equal(rep.judges.table, board.table)
    assert board.parameters["n_clusters"] == G
    e = h.survey_equivalence(judges["j1"], ann, "plurality", "agreement", n_bootstrap=20, seed=0, clusters=cl)
    assert (rep.equivalence.value, rep.equivalence.interval, rep.equivalence.n_clusters) == (e.value, e.interval, G)
    p = h.judge_pairs(board, "majority", n_bootstrap=20, seed=0, clusters=cl)
    pd.testing.assert_frame_equal(rep.pairs.table, p.table)
    g = h.certify_with_gold(ann, judges["j1"], gold, clusters=cl)
    assert g.n_clusters is not None and (rg.gold.score, rg.gold.n_clusters) == (g.score, g.n_clusters)
    pg = h.judge_pairs(board, gold, n_bootstrap=20, seed=0, clusters=cl)
    pd.testing.assert_frame_equal(rg.pairs.table, pg.table)
    assert {n: j.score for n, j in rg.gold_judges.items()} == {n: h.certify_with_gold(ann, judges[n], gold, clusters=cl).score for n in judges}


def test_agreement_only_certificate_is_certify_with_clusters(case):
    "The report's agreement-only certificates (default tails and the paper's) are certify(..., clusters=) called directly."
    ann, judges, cl, gold, rep, rg = case
    c = h.certify(ann, judges["j1"], clusters=cl)
    p = h.certify(ann, judges["j1"], clusters=cl, tails=("hoeffding", "hoeffding"))
    assert c.n_clusters == G and rep.certificate.n_clusters == G and rep.paper_certificate.n_clusters == G
    assert (rep.certificate.score, rep.certificate.tails) == (c.score, c.tails) and rep.paper_certificate.score == p.score
    assert rep.certificate.score != h.certify(ann, judges["j1"]).score       # the clusters reach the certificate


def test_effective_judges_resample_clusters(case):
    "The report's effective judges are effective_judges(..., clusters=) called directly: whole clusters resampled, and it says so."
    ann, judges, cl, gold, rep, rg = case
    e = h.effective_judges(judges, ann, n_bootstrap=20, seed=0, clusters=cl)
    assert rep.effective.n_clusters == G and (rep.effective.value, rep.effective.ci) == (e.value, e.ci)
    text = " ".join(rep.to_text(width=100).split())
    assert f"20 resamples of {G} clusters" in text and "whole clusters resampled" in text and "not the clusters" not in text


def test_clusters_change_the_intervals(case):
    "The clusters reach the numbers: without them the same report's intervals differ (so the equalities above are not vacuous)."
    ann, judges, cl, gold, rep, rg = case
    plain = make_report(ann, judges["j1"], judges=judges, alt_test=0.2, n_bootstrap=20, min_items_per_annotator=5, tolerance=False,
                        clusters=np.arange(ann.n_items))                # every item its own cluster: the items are the units
    assert rep.equivalence.interval != plain.equivalence.interval
    assert not np.allclose(rep.judges.table["agreement lo"], plain.judges.table["agreement lo"])


def test_rating_coefficients_use_clusters():
    wide, judges, truth, cl = _data(seed=2, classes=3)
    ann = h.Annotations.from_wide(wide).with_level("ordinal")
    rep = make_report(ann, judges["j1"], n_bootstrap=0, clusters=cl)
    a = h.krippendorff_alpha(ann, level="ordinal", ci_method="analytic", clusters=cl)
    k = h.fleiss_kappa(ann, weights="quadratic", ci_method="analytic", clusters=cl)
    for r in (a, k):
        row = rep.agreement.loc[r.measure]
        assert (row.ci_low, row.ci_high) == tuple(r.ci) and f"cluster-robust over {G} clusters" in row.over
    assert tuple(h.krippendorff_alpha(ann, level="ordinal", ci_method="analytic").ci) != tuple(a.ci)


def test_report_says_clusters_were_used(case):
    rep, rg = case[4], case[5]
    text = rg.to_text(width=100)
    assert rep.parameters["clusters"] == G and rep.parameters["mean_cluster_size"] == M
    assert "\nClusters\n" in text and f"  clusters                 {G}  mean size {M:.2f} items" in text
    says = {"Survey equivalence": f"clusters: {G} (mean size {M:.2f} items)", "Gold certificate": f"the units are {rg.gold.n_clusters} gold clusters",
            "Judge against judge: agreement": f"clusters: {G} (mean size", "Judge against judge: accuracy": f"t-test over {G} clusters",
            "Judges (ranked by verdict": f"intervals and alt-test over {G} clusters"}
    for head, words in says.items():
        line = next(l for l in text.split("\n\n") if l.startswith(head)).split("\n  ")[0].replace("\n", " ")
        assert words in line, (head, line)
    assert f"the units are {rep.certificate.n_clusters} clusters (tails on cluster totals)" in text.replace("\n", " ")   # the agreement-only certificate
    assert "clusters not used" not in text and "the agreement-only certificate: it has no cluster form" not in text
    flat = " ".join(text.split())
    assert "each judge's certificate on the board" in flat and "still takes the items" not in flat
    assert "warning" not in text.lower().split("notes")[0]
    md, html = rg.to_markdown(), rg.to_html()
    assert "Clusters" in md and f"mean size {M:.2f} items" in md and f"mean size {M:.2f} items" in html
    assert json.loads(json.dumps(rg.to_dict()))["parameters"]["clusters"] == G


def test_warning_only_when_ids_look_clustered(case):
    ann, judges = case[0], case[1]
    rep = make_report(ann, judges["j1"], n_bootstrap=0)
    text = rep.to_text(width=100)
    warn = [n for n in rep.notes if n.startswith("warning: item ids look clustered")]
    assert len(warn) == 1 and "'r" in warn[0] and "'_'" in warn[0] and "--clusters" in warn[0]
    assert text.count("item ids look clustered") == 1 and "\nClusters\n  warning  none given" in text
    plain = h.Annotations.from_wide(ann.to_wide().reset_index(drop=True))   # ids 0..n-1: nothing to warn about
    assert "Clusters" not in make_report(plain, judges["j1"].to_numpy(), n_bootstrap=0).to_text(width=100)


def test_cli_clusters_column(tmp_path, case):
    ann, judges, cl = case[0], case[1], case[2]
    wide = ann.to_wide().assign(j1=judges["j1"], grp=cl)
    wide.index.name = "item"
    wide.to_csv(tmp_path / "wide.csv")
    code, out, err = _run("report", str(tmp_path / "wide.csv"), "--model", "j1", "--clusters", "grp", "--n-bootstrap", "20")
    assert code == 0, err
    e = h.survey_equivalence(judges["j1"], ann, "plurality", "agreement", n_bootstrap=20, seed=0, clusters=cl)
    flat = " ".join(out.split())
    assert f"percentile interval [{e.interval[0]:.2f}, {e.interval[1]:.2f}] (20 resamples of {G} clusters" in flat
    assert f"annotators {K} " in flat and "item ids look clustered" not in out          # the cluster column is no annotator
    long = wide.drop(columns="j1").reset_index().melt(id_vars=["item", "grp"], var_name="annotator", value_name="label").dropna()
    long.to_csv(tmp_path / "long.csv", index=False)
    code, out, err = _run("report", str(tmp_path / "long.csv"), "--format", "long", "--clusters", "grp")
    assert code == 0 and f"clusters                 {G}" in out
    code, out, err = _run("report", str(tmp_path / "long.csv"), "--format", "long")
    assert code == 0 and out.count("item ids look clustered") == 1 and "--clusters" in out


def test_cli_clusters_refused(tmp_path, case):
    ann = case[0]
    ann.to_wide().to_csv(tmp_path / "w.csv")
    for argv, words in ((["--clusters", "nope"], "--clusters: 'nope' is neither a file nor a column"),
                        (["--clusters", "a0", "--format", "counts"], "--clusters: give a file")):
        code, out, err = _run("report", str(tmp_path / "w.csv"), *argv)
        assert code == 2 and words in err.splitlines()[0], err
    code, out, err = _run("report", "--dataset", "running_example", "--clusters", "x")
    assert code == 2 and "--clusters: 'x' is no file; with a bundled --dataset give a file" in err
    pd.Series(np.arange(1000) // 4, index=pd.RangeIndex(1000, name="item"), name="c").to_csv(tmp_path / "c.csv")
    code, out, err = _run("report", "--dataset", "running_example", "--clusters", str(tmp_path / "c.csv"), "--n-bootstrap", "0")
    assert code == 0 and "clusters 250 mean size 4.00 items" in " ".join(out.split())
