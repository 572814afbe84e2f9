"""The bounds figure (issue 44 item 6): its legend covers no line, and its k axis (labels per item) has whole-number ticks.

Drawn as the report folder draws it (a 6.4 x 3.8 inch figure, constrained layout) for three label sets: the running
example (10 labels an item), and two small ones with 3 and 4 labels an item, where fractional ticks (2.25, 2.5) appeared.
Every line is sampled at 400 points along its drawn path; none may fall inside the legend's box.
"""
import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

from humancert.data.annotations import Annotations
from humancert.data.datasets import load
from humancert.report.reporting import make_report


def cases():
    re_ = load("running_example")
    yield "running_example", make_report(re_.annotations, re_.predictions["hard"], n_bootstrap=0)
    rng = np.random.default_rng(0)
    for k in (3, 4):
        counts = rng.multinomial(k, [0.7, 0.3], size=60)
        ann = Annotations.from_counts(counts, labels=["a", "b"])
        yield f"{k} labels", make_report(ann, np.where(counts[:, 0] >= counts[:, 1], "a", "b"), n_bootstrap=0)


@pytest.mark.parametrize("name,rep", list(cases()), ids=lambda x: x if isinstance(x, str) else "")
def test_bounds_figure(name, rep):
    fig = Figure(figsize=(6.4, 3.8), layout="constrained")
    ax = rep.plot_bounds(fig.subplots())
    fig.canvas.draw()
    assert all(float(x).is_integer() for x in ax.get_xticks()), ax.get_xticks()
    box = ax.get_legend().get_window_extent()
    for line in ax.lines:
        x, y = np.asarray(line.get_xdata(), float), np.asarray(line.get_ydata(), float)
        ok = np.isfinite(y)
        if ok.sum() < 2: continue
        t = np.linspace(0, ok.sum() - 1, 400)
        xs, ys = np.interp(t, np.arange(ok.sum()), x[ok]), np.interp(t, np.arange(ok.sum()), y[ok])
        pts = ax.transData.transform(np.c_[xs, ys])
        inside = (pts[:, 0] > box.x0) & (pts[:, 0] < box.x1) & (pts[:, 1] > box.y0) & (pts[:, 1] < box.y1)
        assert not inside.any(), f"{name}: the legend covers the line {line.get_label()!r}"


def test_judge_without_disagreements_says_so():
    "A judge that gives the clear human majority's label on every item with one: one row saying so, no empty table (issue 44)."
    re_ = load("running_example")
    w = re_.annotations.to_wide()
    top = w.apply(lambda r: r.value_counts().idxmax() if r.value_counts().max() > r.count() / 2 else "neg", axis=1)   # the strict majority
    judges = pd.DataFrame({"majority": top, "hard": re_.predictions["hard"]})
    rep = make_report(re_.annotations, top, judges=judges, n_bootstrap=0)
    assert len(rep.details["judges"]["majority"]["disagreements"]) == 0
    text = rep.to_text(1000)
    block = text.split("Judge 'majority': items where it disagrees with a clear human majority")[1].split("\n\n")[0]
    assert block.splitlines()[1:] == ["  items  0  none: the judge gives the majority's label on every item with a clear human majority"], block
    assert "Judge 'hard': items where it disagrees with a clear human majority (most confident majority first)" in text
