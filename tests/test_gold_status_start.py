"""`humancert gold-status` before any gold label: `--order S` alone starts the informative design (the items to label first,
and with `--lead` the planner's numbers); the old code refused any call without --gold."""
import numpy as np
import pandas as pd
import pytest

from humancert.certification.active_gold import informative_design
from humancert.data.annotations import Annotations
from humancert.report.cli import gold_status_main


@pytest.fixture(scope="module")
def labels_file(tmp_path_factory):
    rng = np.random.default_rng(5)
    n = 200
    truth = rng.integers(0, 3, n)
    wide = pd.DataFrame({f"a{k}": np.where(rng.random(n) < 0.6, truth, rng.integers(0, 3, n)) for k in range(3)},
                        index=pd.Index([f"t{i}" for i in range(n)], name="item"))
    model = np.where(rng.random(n) < 0.7, truth, rng.integers(0, 3, n))
    path = tmp_path_factory.mktemp("gs") / "labels.csv"
    wide.assign(judge=model).to_csv(path)
    return path, Annotations.from_wide(wide), pd.Series(model, index=wide.index)


def test_order_alone_lists_the_first_items(labels_file, capsys):
    path, ann, model = labels_file
    assert gold_status_main([str(path), "--model", "judge", "--order", "3", "--next-items", "7"]) == 0
    out = capsys.readouterr().out
    d = informative_design(ann, model, seed=3)
    first = [str(x) for x in d.items[d.order[:7]]]
    assert "Label these first (the design's order): " + ", ".join(first) + " ..." in out
    known = int(np.isclose(np.ptp(np.stack([((model.to_numpy() == c).astype(float) - (ann.to_wide() == c).mean(axis=1).to_numpy())
                                            for c in range(3)]), axis=0), 0).sum())   # items whose D(c) is the same for every class, by hand
    assert f"never asks for the {known} of 200 items" in out
    assert "planner expects" not in out                                   # no --lead: no plan


def test_lead_gives_the_planners_numbers(labels_file, capsys):
    path, _, _ = labels_file
    assert gold_status_main([str(path), "--model", "judge", "--order", "3", "--lead", "0.1", "--reps", "60"]) == 0
    assert "the planner expects about" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    ([], "--gold is needed"),
    (["--order", "3", "--next-items", "0"], "--next-items must be an integer >= 1"),
    (["--order", "3", "--lead", "0.1", "--gold", "nofile.csv"], "--lead plans the informative design before any gold"),
    (["--lead", "0.1"], "--gold is needed"),
])
def test_refusals_name_the_option(labels_file, capsys, args, message):
    path, _, _ = labels_file
    assert gold_status_main([str(path), "--model", "judge", *args]) == 2
    assert message in capsys.readouterr().err
