"""The installed `humancert` console script, run as a user would: exit codes, stdout and stderr, the report folder
(its JSON against the library, its markdown rendered in headless Chromium with every image loaded)."""
import contextlib
import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from browser import chromium_or_skip, dump_dom
from humancert.agreement.measures import agreement_summary
from humancert.report.cli import main
from humancert.judges.alt_test import alt_test
from humancert.data.annotations import Annotations
from humancert.certification.certify import certify
from humancert.data.datasets import DATASETS, load
from humancert.report.reporting import dataset_case
from humancert.sparse_agreement.spa import spa
from humancert.survey.survey_equivalence import survey_equivalence
from humancert.report.console import THREAD_SETTINGS
from report_run import COMMAND


def humancert(*args, cwd=None, env=None):
    "Run the command in-process (`main`, what the console script calls), or, with `cwd` set, as the installed console script runs it, in a subprocess."
    if cwd is not None:
        return subprocess.run([*COMMAND, *args],
                              capture_output=True, text=True, cwd=cwd, env=env)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(list(args))
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def installed_command():
    "The installed `humancert` script beside the interpreter running the tests (venv/bin, or Scripts on Windows), not the first on PATH."
    import os, shutil, sysconfig
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        found = shutil.which("humancert", path=folder)
        if found: return found
    pytest.fail(f"no `humancert` script beside {sys.executable}: install the package in this environment (pip install -e .)")


def test_console_script_is_installed():
    # issue 42: with pytest started as venv/bin/python -m pytest and the venv's bin not on PATH, "humancert" was not found
    res = subprocess.run([installed_command(), "--version"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("humancert "), res.stderr
    from importlib.metadata import entry_points
    (script,) = entry_points(group="console_scripts", name="humancert")
    assert script.value == "humancert.report.console:console_script"             # one BLAS thread, no teardown (notebook 91)


def test_console_script_writes_everything_and_cleans_up(tmp_path):
    "The command leaves with os._exit: the report folder is whole, the output complete through a pipe, DuckDB's spill folder removed."
    import os
    ds = load("running_example")
    ds.annotations.to_long().merge(ds.predictions["hard"].rename("model"), left_on="item", right_index=True).to_parquet(tmp_path / "long.parquet")
    tmp = tmp_path / "tmp"; tmp.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "TMPDIR" and k not in THREAD_SETTINGS} | {"TMPDIR": str(tmp)}
    res = humancert("report", str(tmp_path / "long.parquet"), "--format", "long", "--model", "model", "--n-bootstrap", "0",
                    "--out-of-core", "--out", str(tmp_path / "outA"), cwd=tmp_path, env=env)
    assert res.returncode == 0 and res.stderr == "", res.stderr
    ref = humancert("report", str(tmp_path / "long.parquet"), "--format", "long", "--model", "model", "--n-bootstrap", "0",
                    "--out-of-core", "--out", str(tmp_path / "outB"))                    # main in this process
    assert res.stdout.replace("outA", "outB") == ref.stdout                   # the same text, whole through the pipe
    for f in ("report.md", "report.json"):
        assert (tmp_path / "outA" / f).read_text().replace("outA", "outB") == (tmp_path / "outB" / f).read_text()
    got = json.loads((tmp_path / "outA" / "report.json").read_text())
    assert round(got["certificate"]["score"], 4) == round(certify(ds.annotations, ds.predictions["hard"]).score, 4)
    assert list(tmp.iterdir()) == []                                           # the spill folder went with the exit handlers


def _line(out, label):
    return next(l for l in out.splitlines() if l.strip().startswith(label))


@pytest.mark.parametrize("name", DATASETS)
def test_report_on_bundled_data(name):
    has_model = any(m is not None for m in dataset_case.__globals__["_DEFAULT_MODELS"][name])
    res = humancert("report", "--dataset", name, *(["--n-bootstrap", "10"] if has_model else []))
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    ann, hard, soft, _ = dataset_case(name)
    frame = agreement_summary(ann).to_frame()
    for measure, row in frame.iterrows():   # every number printed is the library's, to the printed precision
        assert f"{row.value:.4f}" in _line(res.stdout, measure + " "), measure
    assert f"{spa(ann, 'annotations').value:.4f}" in _line(res.stdout, "SPA")
    if hard is None and soft is None:                                # no classifier comes with it: agreement only
        assert "no model given" in res.stdout and "Certificate" not in res.stdout
        return
    label = hard if hard is not None else soft.idxmax(axis=1)
    c = certify(ann, label)
    assert f"{c.lower:.4f}" in _line(res.stdout, "L_N")
    assert f"S = {c.score:.4f}" in _line(res.stdout, "verdict")
    assert ("NOT CERTIFIED" in res.stdout) == (not c.certified)
    assert "Assumptions you must judge" in res.stdout


def _files(tmp_path):
    "The running example as wide, long and counts files, with the model in columns and in files of its own."
    ds = load("running_example")
    a, hard, soft = ds.annotations, ds.predictions["hard"], ds.predictions["calibrated"]
    a.to_wide().assign(model=hard, p_pos=soft["pos"]).to_csv(tmp_path / "wide.csv")
    long = a.to_long()
    long.assign(model=hard.loc[long["item"]].to_numpy(), p_pos=soft["pos"].loc[long["item"]].to_numpy()).to_csv(tmp_path / "long.csv", index=False)
    a.to_counts().to_csv(tmp_path / "counts.csv")
    hard.rename_axis("item").to_csv(tmp_path / "model.csv")
    soft.add_prefix("prob_").rename_axis("item").to_csv(tmp_path / "soft.csv")
    return a, hard, soft


def test_three_layouts_give_the_library_numbers(tmp_path):
    a, hard, soft = _files(tmp_path)
    c = certify(a, hard, seed=4)                         # the seed breaks ties and draws the betting orders
    e = survey_equivalence(soft, a, "abc", "cross_entropy", n_bootstrap=30, seed=4)
    runs = [("wide.csv", "--model", "model", "--soft-model", "p_pos"),
            ("long.csv", "--format", "long", "--model", "model", "--soft-model", "p_pos"),
            ("counts.csv", "--format", "counts", "--model", str(tmp_path / "model.csv"), "--soft-model", str(tmp_path / "soft.csv"))]
    for f, *opts in runs:
        res = humancert("report", str(tmp_path / f), *opts, "--n-bootstrap", "30", "--seed", "4")
        assert res.returncode == 0, (f, res.stderr)
        assert f"S = {c.score:.4f}" in _line(res.stdout, "verdict"), f
        assert f"{c.upper_theoretical:.4f}" in _line(res.stdout, "U_N^(t)"), f
        assert f"{e.value:.2f}" in _line(res.stdout, "equivalence") and f"[{e.interval[0]:.2f}, {e.interval[1]:.2f}]" in res.stdout, f


def test_parquet_input(tmp_path):
    pytest.importorskip("pyarrow")
    ds = load("running_example")
    ds.annotations.to_counts().assign(model=ds.predictions["hard"]).to_parquet(tmp_path / "c.parquet")
    res = humancert("report", str(tmp_path / "c.parquet"), "--format", "counts", "--model", "model", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr
    assert f"{certify(ds.annotations, ds.predictions['hard']).score:.4f}" in _line(res.stdout, "S optimal (binomial/betting)")


def test_glob_input(tmp_path):
    "A quoted glob of Parquet parts is one table (DuckDB reads it); the numbers are those of the single file."
    a, hard, _ = _files(tmp_path)
    import pandas as pd
    long = pd.read_csv(tmp_path / "long.csv")
    (tmp_path / "parts").mkdir()
    for j, part in enumerate((long.iloc[:3000], long.iloc[3000:7000], long.iloc[7000:])):
        part.to_parquet(tmp_path / "parts" / f"part-{j}.parquet")
    res = humancert("report", str(tmp_path / "parts" / "part-*.parquet"), "--format", "long", "--model", "model", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr
    assert f"{certify(a, hard).score:.4f}" in _line(res.stdout, "S optimal (binomial/betting)")
    assert f"{a.n_items:,}" in res.stdout or str(a.n_items) in res.stdout
    res = humancert("report", str(tmp_path / "parts" / "nothing-*.parquet"), "--format", "long", "--n-bootstrap", "0")
    assert res.returncode == 2 and "INPUT: the glob" in res.stderr and "could not be read" in res.stderr, res.stderr
    res = humancert("report", str(tmp_path / "parts" / "part-*.json"), "--format", "long", "--n-bootstrap", "0")
    assert res.returncode == 2 and "the glob must end in .parquet, .csv or .jsonl" in res.stderr, res.stderr


def test_report_json_equals_library(tmp_path):
    out = tmp_path / "rep"
    res = humancert("report", "--dataset", "running_example", "--n-bootstrap", "40", "--seed", "7", "--delta", "0.1", "--out", str(out))
    assert res.returncode == 0, res.stderr
    d = json.loads((out / "report.json").read_text())
    ds = load("running_example")
    c = certify(ds.annotations, ds.predictions["hard"], delta=0.1, seed=7)
    p = certify(ds.annotations, ds.predictions["hard"], delta=0.1, seed=7, tails=("hoeffding", "hoeffding"))
    e = survey_equivalence(ds.predictions["calibrated"], ds.annotations, "abc", "cross_entropy", n_bootstrap=40, seed=7)
    assert d["parameters"]["delta"] == 0.1 and d["parameters"]["seed"] == 7 and d["parameters"]["n_bootstrap"] == 40
    assert d["humancert_version"] and d["title"] == "dataset running_example"
    assert d["certificate"]["score"] == c.score and d["certificate"]["certified"] == c.certified
    assert d["certificate"]["L_N"] == c.lower and d["certificate"]["U_N_theoretical"] == c.upper_theoretical
    assert d["paper_certificate"]["S"] == {m: v.score for m, v in p.scores.items()}
    assert d["survey_equivalence"]["value"] == e.value and d["survey_equivalence"]["interval"] == list(e.interval)
    assert [r["c_k"] for r in d["survey_equivalence"]["curve"]] == e.curve.values.tolist()
    summary = agreement_summary(ds.annotations).to_frame()
    for m, row in summary.iterrows():
        assert d["agreement"][m]["value"] == row.value
    first = d["confidence_by_margin"][0]
    assert first["tau"] == 0 and first["S"] == c.score


def test_quiet_and_force(tmp_path):
    out = tmp_path / "rep"
    res = humancert("report", "--dataset", "guessthekarma", "--n-bootstrap", "0", "--out", str(out), "--quiet")
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "")
    again = humancert("report", "--dataset", "guessthekarma", "--n-bootstrap", "0", "--out", str(out))
    assert again.returncode == 2 and "already holds a report" in again.stderr.splitlines()[0]
    assert humancert("report", "--dataset", "guessthekarma", "--n-bootstrap", "0", "--out", str(out), "--force").returncode == 0


_MD_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>report</title></head><body>{body}
<script>
window.addEventListener("load", () => {{
  const imgs = [...document.images];
  document.body.setAttribute("data-images", imgs.length);
  document.body.setAttribute("data-loaded", imgs.filter(i => i.complete && i.naturalWidth > 0).length);
}});
</script></body></html>"""


def test_markdown_report_renders_in_browser(tmp_path):
    chromium = chromium_or_skip("the markdown report")
    import mistune
    out = tmp_path / "rep"
    res = humancert("report", "--dataset", "running_example", "--n-bootstrap", "0", "--out", str(out))
    assert res.returncode == 0, res.stderr
    md = (out / "report.md").read_text()
    pngs = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", md)
    assert sorted(pngs) == ["bounds_vs_annotators.png", "confidence_vs_margin.png", "power_curve.png"]
    html = mistune.create_markdown(plugins=["table"])(md)
    page = out / "md_page.html"
    page.write_text(_MD_PAGE.format(body=html), encoding="utf-8")
    dom = dump_dom(chromium, page, tmp_path / "profile")
    n = re.search(r'data-images="(\d+)"', dom); loaded = re.search(r'data-loaded="(\d+)"', dom)
    assert n and loaded, "the page's load handler did not run"
    assert int(n.group(1)) == 3 and int(loaded.group(1)) == 3, (n.group(1), loaded.group(1))
    assert dom.count("<table") >= 4 and "Agreement-only certificate" in dom and "Survey equivalence" in dom


def test_missing_image_is_caught(tmp_path):
    "The browser check can fail: a report whose plot is gone loads 2 of 3 images."
    chromium = chromium_or_skip("the markdown report")
    import mistune
    out = tmp_path / "rep"
    assert humancert("report", "--dataset", "running_example", "--n-bootstrap", "0", "--out", str(out)).returncode == 0
    (out / "power_curve.png").unlink()
    page = out / "md_page.html"
    page.write_text(_MD_PAGE.format(body=mistune.create_markdown(plugins=["table"])((out / "report.md").read_text())))
    dom = dump_dom(chromium, page, tmp_path / "profile")
    assert 'data-loaded="2"' in dom and 'data-images="3"' in dom


@pytest.mark.parametrize("args,msg", [
    (["report"], "exactly one of INPUT"),
    (["report", "--dataset", "nope"], "unknown dataset"),
    (["report", "missing.csv"], "no such file"),
    (["report", "--dataset", "running_example", "--format", "json"], None),   # --format only matters for INPUT
    (["frobnicate"], "unknown command"),
    (["report", "--dataset", "running_example", "--delta", "2"], "--delta must lie strictly between 0 and 1"),
    (["report", "--dataset", "running_example", "--n-bootstrap", "many"], "argument --n-bootstrap: invalid int value"),
])
def test_bad_input_exit_2(args, msg, tmp_path):
    res = humancert(*args, cwd=tmp_path)
    if msg is None: return
    assert res.returncode == 2
    assert res.stdout == ""
    assert msg in res.stderr.splitlines()[0]


@pytest.mark.parametrize("name,content,args,msg", [
    ("e.csv", "", [], "is empty"),
    ("h.csv", "item,a,b\n", [], "has a header but no rows"),
    ("x.json", "{}", [], "is not a layout read_eval knows"),   # issue 44 item 1: a .json INPUT is an eval tool's file (read_eval)
    ("bin.parquet", "not parquet at all", [], "could not be read as PARQUET"),
    ("w.csv", "item,a,b\n1,x,y\n2,x,x\n", ["--format", "tall"], "--format: unknown format 'tall'"),
    ("l.csv", "item,annotator,answer\n1,a,x\n", ["--format", "long"], "column 'label' is not in the table"),
    ("w.csv", "item,a,b\n1,x,y\n2,x,x\n", ["--model", "m"], "--model: 'm' is neither a column of INPUT nor a file"),
    # one label outside the humans' classes is accepted (it agrees with nobody); a model with no label in them is refused
    ("w.csv", "item,a,b,m\n1,x,y,z\n2,x,x,w\n", ["--model", "m"], "--model has labels ['z', 'w'] that are not classes"),
    ("w.csv", "item,a,b\n1,x,y\n2,x,x\n", ["--delta", "0.1"], "--delta needs a model"),
    ("w.csv", "item,a,b\n1,x,y\n2,x,x\n", ["--n-bootstrap", "5"], "--n-bootstrap needs a model"),
    ("w.csv", "item,a,b,m\n1,x,y,x\n2,x,x,x\n", ["--model", "m", "--clip", "0.01"], "--clip applies to the ABC curve"),
    ("w.csv", "item,a,b,p\n1,x,y,0.2\n2,x,x,\n", ["--soft-model", "p"], "--soft-model: no prediction for 1 of 2 item(s), first 2"),
    ("w.csv", "item,a,b,p,q\n1,x,y,0.2,0.8\n2,x,x,0.5,0.5\n", ["--soft-model", "p,q"], "--soft-model: column 'p' is not named after a class"),
    ("w.csv", "item,a,b,p_x,p_y\n1,x,y,0.2,0.9\n2,x,x,0.5,0.5\n", ["--soft-model", "p_x,p_y"], "--soft-model: 1 row(s) do not sum to 1 (first: item 1"),
])
def test_bad_files_exit_2(tmp_path, name, content, args, msg):
    (tmp_path / name).write_text(content)
    res = humancert("report", str(tmp_path / name), *args)
    assert res.returncode == 2, res.stdout + res.stderr
    assert res.stdout == ""
    assert msg in res.stderr.splitlines()[0], res.stderr


def test_existing_out_dir_without_force_is_refused_before_work(tmp_path):
    (tmp_path / "rep").mkdir()
    (tmp_path / "rep" / "report.json").write_text("{}")
    res = humancert("report", "--dataset", "running_example", "--out", str(tmp_path / "rep"))
    assert res.returncode == 2 and res.stderr.splitlines()[0].startswith("humancert: error: --out:")
    assert (tmp_path / "rep" / "report.json").read_text() == "{}"       # nothing lost


def test_unexpected_error_exit_1(tmp_path, monkeypatch):
    "A bug (not bad input) gives exit code 1 and a traceback to report."
    code = ("import sys, humancert.report.cli as c\n"
            "def boom(*a, **k): raise RuntimeError('boom')\n"
            "c.make_report = boom\n"
            "sys.exit(c.main(['report', '--dataset', 'running_example']))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 1 and "unexpected error" in res.stderr and "RuntimeError: boom" in res.stderr


def test_wide_file_with_bad_labels(tmp_path):
    (tmp_path / "w.csv").write_text("item,a,b\n1,1,x\n2,x,1\n")   # read as strings: fine; mixed ints and str would not be
    assert humancert("report", str(tmp_path / "w.csv")).returncode == 0
    (tmp_path / "one.csv").write_text("item,a\n1,x\n2,y\n")
    res = humancert("report", str(tmp_path / "one.csv"))
    assert res.returncode == 2 and "one annotator" in res.stderr


def test_input_not_mutated(tmp_path):
    a, hard, soft = _files(tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert humancert("report", str(tmp_path / "wide.csv"), "--model", "model", "--soft-model", "p_pos", "--n-bootstrap", "0").returncode == 0
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


@pytest.mark.parametrize("name,content,args,msg", [
    ("dup.csv", "item,a,a\n1,x,y\n2,x,x\n", [], "INPUT: the header of"),
    ("dup.csv", "item,a,a\n1,x,y\n2,x,x\n", [], "names 'a' more than once"),
    ("blank.csv", "item,a,,b\n1,x,y,x\n2,x,x,y\n", [], "column 3 of"),
    ("long.csv", "item,annotator,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n", [], "looks like long data (one row per label); pass --format long"),
    ("one.csv", "item,a\n1,x\n2,y\n", [], "If INPUT has one row per label, pass --format long."),
    ("mixed.csv", "item,a,b\n1,1,x\n2,2,y\n", [], "INPUT: labels of types ['int', 'str'] do not compare"),
    ("mixed.csv", "item,a,b\n1,1,x\n2,2,y\n", [], "pass --labels with the order you want"),
    ("w.csv", "item,a,b,m\n1,x,y,0.7\n2,x,x,0.2\n", ["--model", "m"], "--model looks like probabilities"),
    ("w.csv", "item,a,b,m\n1,x,y,0.7\n2,x,x,0.2\n", ["--model", "m"], "as a soft model (--soft-model)"),
    ("w.csv", "item,a,b\n1,x,y\n2,x,x\n", ["--labels", "x"], "--labels misses 1 label(s) present in the data: ['y']"),
])
def test_messages_name_the_command_line(tmp_path, name, content, args, msg):
    "Errors name INPUT and the options (--labels, --format long, --soft-model), never the library's internal argument names."
    (tmp_path / name).write_text(content)
    res = humancert("report", str(tmp_path / name), *args)
    assert res.returncode == 2 and res.stdout == "", res.stdout + res.stderr
    first = res.stderr.splitlines()[0]
    assert msg in first, first
    assert not re.search(r"`(x|df|counts|ann)`|labels=", first), first


def test_labels_option_orders_classes(tmp_path):
    (tmp_path / "mixed.csv").write_text("item,a,b\n1,1,x\n2,2,y\n3,1,x\n")
    res = humancert("report", str(tmp_path / "mixed.csv"), "--labels", "x,y,1,2")
    assert res.returncode == 0, res.stderr
    assert humancert("report", "--dataset", "running_example", "--labels", "pos,neg").returncode == 2


def test_report_skips_what_its_text_does_not_show(tmp_path):
    "Issue 35 item 4: the command imports no fastcore.script (its parser is argparse) and, printing text only, runs no margin sweep; --out still writes the margins."
    code = ("import sys; import humancert.report.reporting as R; calls = []; f = R._margins\n"
            "R._margins = lambda c: calls.append(1) or f(c)\n"
            "from humancert.report.cli import main; main(sys.argv[1:])\n"
            "print('fastcore.script' in sys.modules, len(calls))")
    run = lambda *a: subprocess.run([sys.executable, "-c", code, "report", "--dataset", "running_example", "--quiet", *a],
                                    capture_output=True, text=True, cwd=tmp_path)
    res = run()
    assert res.returncode == 0 and res.stdout.split() == ["False", "0"], res.stderr
    res = run("--out", str(tmp_path / "rep"))
    assert res.returncode == 0 and res.stdout.split() == ["False", "1"], res.stderr
    assert json.loads((tmp_path / "rep" / "report.json").read_text())["confidence_by_margin"][0]["tau"] == 0.0


def test_seed_and_help(tmp_path):
    res = humancert("report", "--dataset", "running_example", "--seed=-1")
    assert res.returncode == 2 and "--seed must be an int >= 0" in res.stderr.splitlines()[0], res.stderr
    res = humancert("report", "--help")
    assert res.returncode == 0 and "exit codes: 0 done; 2 bad input" in " ".join(res.stdout.split())
    assert "exit codes" in humancert("--help").stdout


def test_unwritable_out_is_refused_before_work(tmp_path):
    (tmp_path / "afile").write_text("x")
    res = humancert("report", "--dataset", "running_example", "--out", str(tmp_path / "afile" / "rep"))
    assert res.returncode == 2 and res.stderr.splitlines()[0].startswith("humancert: error: --out: cannot write"), res.stderr
    assert "Traceback" not in res.stderr


def test_closed_pipe_is_quiet(tmp_path):
    "`humancert report ... | true`: the reader leaves before the report is printed; no BrokenPipeError, exit code of the pipe 0."
    res = subprocess.run(["sh", "-c", "humancert report --dataset running_example --n-bootstrap 0 | true; echo done"],
                         capture_output=True, text=True)
    assert "done" in res.stdout and "BrokenPipe" not in res.stderr and "Traceback" not in res.stderr, res.stderr


def test_report_survives_abc_without_precedent(tmp_path):
    "A soft model whose ABC curve fails at k = 1: the rest of the report is computed, the note names --clip."
    rows = ["item,a,b,c,p_y"] + [f"{i},x,x,x,0.1" for i in range(30)] + ["30,y,y,x,0.5"]   # no other item has a y label
    (tmp_path / "rare.csv").write_text("\n".join(rows) + "\n")
    res = humancert("report", str(tmp_path / "rare.csv"), "--soft-model", "p_y", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr
    assert "survey equivalence not computed" in res.stdout and "--clip 0.01" in res.stdout
    assert "L_N" in res.stdout and "--max-k 0" not in res.stdout


def test_single_class_data_marks_kappa_undefined(tmp_path):
    (tmp_path / "one.csv").write_text("item,a,b,m\n1,x,x,x\n2,x,x,x\n3,x,x,x\n")
    res = humancert("report", str(tmp_path / "one.csv"), "--model", "m", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr
    assert "n/a" in _line(res.stdout, "fleiss_kappa") and "undefined" in _line(res.stdout, "fleiss_kappa")


def _label_studio_export(path):
    "A small Label Studio JSON export: 6 tasks, 3 annotators (one skips a task), model versions v1 (all tasks) and v2 (four)."
    labels = [["pos", "pos", "neg"], ["neg", "neg", "neg"], ["pos", "neg", None], ["pos", "pos", "pos"], ["neg", "pos", "neg"],
              ["pos", "pos", "pos"]]
    v1, v2 = ["pos", "neg", "pos", "pos", "neg", "pos"], ["pos", "neg", None, "pos", None, "neg"]
    res = lambda c: [{"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [c]}}]
    tasks = []
    for t, row in enumerate(labels):
        anns = [{"id": 100 * t + a, "completed_by": a + 1, "was_cancelled": c is None, "result": [] if c is None else res(c)}
                for a, c in enumerate(row)]
        preds = [{"model_version": v, "score": 0.9, "result": res(p[t])} for v, p in (("v1", v1), ("v2", v2)) if p[t] is not None]
        tasks.append({"id": t + 1, "data": {"text": f"t{t}"}, "annotations": anns, "predictions": preds})
    path.write_text(json.dumps(tasks))
    return labels, v1, v2


def test_label_studio_export(tmp_path):
    "--format label-studio: the annotators' labels, --model picks a model version, and one that skipped tasks is restricted."
    from humancert.data.imports import read_label_studio
    _label_studio_export(tmp_path / "export.json")
    ls = read_label_studio(tmp_path / "export.json")
    res = humancert("report", str(tmp_path / "export.json"), "--format", "label-studio", "--model", "v1", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr
    c = certify(ls.annotations, ls.model("v1"))
    assert f"{c.lower:.4f}" in _line(res.stdout, "L_N") and "cancelled annotations" in res.stdout
    res2 = humancert("report", str(tmp_path / "export.json"), "--format", "label-studio", "--model", "v2", "--n-bootstrap", "0")
    assert res2.returncode == 0 and "model 'v2' predicted 4 of 6 tasks; the report covers those" in res2.stdout, res2.stderr
    assert _line(res2.stdout, "items").split()[-1] == "4"
    for args, msg in ((["--model", "v3"], "--model: no model version 'v3' in INPUT; its versions are ['v1', 'v2']"),
                      (["--soft-model", "v1"], "--soft-model: Label Studio stores predictions as labels"),
                      (["--from-name", "topic"], "--from-name: no Choices question 'topic'")):
        bad = humancert("report", str(tmp_path / "export.json"), "--format", "label-studio", *args)
        assert bad.returncode == 2 and msg in bad.stderr.splitlines()[0], bad.stderr


def test_crowdkit_columns_in_long_format(tmp_path):
    a = load("running_example").annotations
    a.to_long().rename(columns={"item": "task", "annotator": "worker"}).to_csv(tmp_path / "ck.csv", index=False)
    res = humancert("report", str(tmp_path / "ck.csv"), "--format", "long")
    assert res.returncode == 0, res.stderr
    assert "crowd-kit's column names" in res.stdout
    assert f"{agreement_summary(a).to_frame().loc['krippendorff_alpha', 'value']:.4f}" in _line(res.stdout, "krippendorff_alpha")


def test_judge_label_outside_the_classes(tmp_path):
    "A model (judge) label no annotator used is accepted without --labels and counted; it agrees with nobody (issue 22 item 3)."
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(7)
    n = 80
    df = pd.DataFrame({"item": range(n), **{a: rng.choice(["x", "y"], n) for a in "abc"}})
    df["judge"] = np.where(rng.random(n) < 0.25, "ignore", df["a"])
    path = tmp_path / "j.csv"
    df.to_csv(path, index=False)
    res = humancert("report", str(path), "--model", "judge", "--n-bootstrap", "5")
    assert res.returncode == 0, res.stderr
    n_out = int((df["judge"] == "ignore").sum())
    assert f"model: {n_out} item(s) have a label no annotator used (ignore)" in res.stdout
    majority = np.where((df[list("abc")] == "x").sum(axis=1) >= 2, "x", "y")      # three labels, two classes: always a strict majority
    assert f"{(df['judge'].to_numpy() == majority).mean():.4f}" in _line(res.stdout, "L_N")
    assert "classes                      2" in res.stdout                  # the humans' classes, not the judge's
    df["judge"] = "ignore"                                                   # no label shared with the humans: a wrong column
    df.to_csv(path, index=False)
    res = humancert("report", str(path), "--model", "judge")
    assert res.returncode == 2 and "none of its labels is one" in res.stderr, res.stderr


def test_gold_certificate_in_the_report(tmp_path):
    "--gold: the gold certificate beside the agreement-only one, its numbers from plain numpy on the raw labels, in text and JSON."
    import numpy as np
    tw = load("tweeteval")
    res = humancert("report", "--dataset", "tweeteval", "--model", "llm", "--gold", "gold", "--n-bootstrap", "0",
                    "--out", str(tmp_path / "rep"))
    assert res.returncode == 0, res.stderr
    assert "Gold certificate (confidence 0.95, delta = 0.05)" in res.stdout and "uniformly random subset" in res.stdout
    wide, gold, llm = tw.annotations.to_wide(), tw.extra["gold"], tw.predictions["llm"]
    q = (wide.to_numpy() == gold.loc[wide.index].to_numpy()[:, None]).mean(1)      # share of an item's 4 labels that are right
    right = (llm.loc[wide.index] == gold.loc[wide.index]).to_numpy()
    g = json.loads((tmp_path / "rep" / "report.json").read_text())["gold_certificate"]
    assert g["n_gold"] == 3000 and g["n_items"] == 3000 and g["certified"] is True
    assert abs(g["model_accuracy"] - right.mean()) < 1e-12 and abs(g["annotator_accuracy"] - q.mean()) < 1e-12
    assert abs(g["estimate"] - (right - q).mean()) < 1e-12
    assert "3000 gold items out of 3000" in (tmp_path / "rep" / "report.md").read_text()
    plain = humancert("report", "--dataset", "tweeteval", "--model", "llm", "--n-bootstrap", "0")
    assert plain.returncode == 0 and "Gold certificate" not in plain.stdout


def test_gold_from_a_file_and_bad_gold(tmp_path):
    import numpy as np
    re_ = load("running_example")
    re_.annotations.to_wide().to_csv(tmp_path / "wide.csv")
    hard = re_.predictions["hard"]
    hard.rename("model").to_csv(tmp_path / "model.csv")
    pick = np.sort(np.random.default_rng(1).choice(len(hard), 200, replace=False))
    hard.iloc[pick].rename("gold").to_csv(tmp_path / "gold.csv")
    res = humancert("report", str(tmp_path / "wide.csv"), "--model", str(tmp_path / "model.csv"), "--gold", str(tmp_path / "gold.csv"),
                    "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr
    assert "200 gold items out of 1000" in res.stdout
    shifted = hard.iloc[pick].rename("gold"); shifted.index = shifted.index + 5000      # ids that are no items: refused, not aligned by position
    shifted.to_csv(tmp_path / "gold_bad.csv")
    bad = humancert("report", str(tmp_path / "wide.csv"), "--model", str(tmp_path / "model.csv"), "--gold", str(tmp_path / "gold_bad.csv"))
    assert bad.returncode == 2 and "never by position" in bad.stderr.splitlines()[0], bad.stderr
    nomodel = humancert("report", str(tmp_path / "wide.csv"), "--gold", str(tmp_path / "gold.csv"))
    assert nomodel.returncode == 2 and "--gold compares a model's labels" in nomodel.stderr.splitlines()[0]


def _tweeteval_file(tmp_path):
    "TweetEval-Annotated as one wide CSV: the four annotators, then the LLM's and the author's emoji."
    tw = load("tweeteval")
    wide = tw.annotations.to_wide().assign(llm=tw.predictions["llm"], author=tw.extra["gold"])
    path = tmp_path / "tweeteval.csv"
    wide.to_csv(path, index_label="item")
    return path, wide


def test_several_judges_and_alt_test(tmp_path):
    "--model with several columns (comma-separated or repeated) and --alt-test add a ranked judges section (issue 22 item 4)."
    path, wide = _tweeteval_file(tmp_path)
    res = humancert("report", str(path), "--model", "llm,author", "--alt-test", "0.2", "--n-bootstrap", "10", "--out", str(tmp_path / "rep"))
    assert res.returncode == 0, res.stderr
    head = "Judges (ranked by verdict; alternative annotator test at epsilon = 0.2, q = 0.05, score accuracy)"   # issue 44 item 5: the score named
    assert res.stdout.splitlines()[2] == head                              # the verdict table opens the report
    sec = [l for l in res.stdout.split(head + "\n")[1].split("\n\n")[0].splitlines()[1:] if not l.startswith("  - ")]   # rows, not the foot
    assert [l.split()[0] for l in sec] == ["llm", "author"]
    H = wide[[c for c in wide if c.startswith("annotator_")]].to_numpy()
    for line, j in zip(sec, ("llm", "author")):
        assert f" {(H == wide[j].to_numpy()[:, None]).mean():.3f} [" in line        # eq. J1, every item has 4 labels
        assert line.split()[1] == "passed"
    data = json.loads((tmp_path / "rep" / "report.json").read_text())
    assert [r["judge"] for r in data["judges"]["table"]] == ["llm", "author"]
    assert (tmp_path / "rep" / "judges.png").stat().st_size > 0
    assert "](judges.png)" in (tmp_path / "rep" / "report.md").read_text()
    again = humancert("report", str(path), "--model", "llm", "--model", "author", "--alt-test", "0.2", "--n-bootstrap", "10")
    assert again.returncode == 0 and head in again.stdout
    assert again.stdout.split(head)[1].split("\n\n")[0] == res.stdout.split(head)[1].split("\n\n")[0]


def test_judges_file_and_existing_outputs_unchanged(tmp_path):
    path, wide = _tweeteval_file(tmp_path)
    humans = tmp_path / "humans.csv"
    wide.drop(columns=["llm", "author"]).to_csv(humans, index_label="item")
    judges = tmp_path / "judges.csv"
    wide[["llm", "author"]].to_csv(judges, index_label="item")
    res = humancert("report", str(humans), "--model", str(judges), "--n-bootstrap", "10")
    assert res.returncode == 0, res.stderr
    assert "Judges (ranked by verdict)" in res.stdout                     # several judges, no --alt-test: the verdict table, in the verdict's order
    one = humancert("report", str(humans), "--model", str(judges), "--n-bootstrap", "10")
    assert one.stdout == res.stdout                                      # reproducible
    plain = humancert("report", str(path), "--model", "llm", "--n-bootstrap", "10")
    assert plain.returncode == 0 and "Judges" not in plain.stdout         # one model, no --alt-test: the report as before


@pytest.mark.parametrize("args, msg", [
    (["--model", "llm", "--score", "neg_mae"], "--score applies to --alt-test"),
    (["--alt-test", "0.2"], "--alt-test needs a judge"),
    (["--model", "llm", "--alt-test", "1.5"], "--alt-test: EPSILON must be in [0, 1)"),
])
def test_judge_option_errors_exit_2(tmp_path, args, msg):
    path, _ = _tweeteval_file(tmp_path)
    res = humancert("report", str(path), *args)
    assert res.returncode == 2, res.stdout
    assert msg in res.stderr.splitlines()[0], res.stderr


def test_gold_certificate_for_each_judge(tmp_path):
    import numpy as np
    re_ = load("running_example")
    wide = re_.annotations.to_wide()
    hard = re_.predictions["hard"]
    wide["judge_a"] = hard
    wide["judge_b"] = np.where(np.arange(len(hard)) % 7 == 0, "neg", hard)
    wide.to_csv(tmp_path / "wide.csv")
    pick = np.sort(np.random.default_rng(2).choice(len(hard), 250, replace=False))
    hard.iloc[pick].rename("gold").to_csv(tmp_path / "gold.csv")
    res = humancert("report", str(tmp_path / "wide.csv"), "--model", "judge_a,judge_b", "--gold", str(tmp_path / "gold.csv"), "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr
    assert "250 gold items out of 1000" in res.stdout
    assert "judge judge_a: S (control betting test)" in res.stdout and "judge judge_b: S (control betting test)" in res.stdout   # test='auto': 250 gold items and 750 without: control betting
    assert "(approximate, no verdict)" in res.stdout and "PPI++ (asymptotic)" not in res.stdout


def test_jsonl_input_equals_wide(tmp_path):
    "A long table as JSON lines (plain and .jsonl.gz) gives the report the wide CSV gives: same certificate, same agreement."
    import gzip
    ds = load("running_example")
    a, hard = ds.annotations, ds.predictions["hard"]
    a.to_wide().assign(model=hard).to_csv(tmp_path / "wide.csv", index_label="item")
    long = a.to_long().merge(hard.rename("model"), left_on="item", right_index=True)
    lines = "".join(json.dumps({k: (v.item() if hasattr(v, "item") else v) for k, v in r.items()}) + "\n" for r in long.to_dict("records"))
    (tmp_path / "long.jsonl").write_text(lines)
    with gzip.open(tmp_path / "long.jsonl.gz", "wt") as fh: fh.write(lines)
    wide = humancert("report", str(tmp_path / "wide.csv"), "--model", "model", "--n-bootstrap", "0")
    assert wide.returncode == 0, wide.stderr
    for name in ("long.jsonl", "long.jsonl.gz"):
        res = humancert("report", str(tmp_path / name), "--format", "long", "--model", "model", "--n-bootstrap", "0")
        assert res.returncode == 0, res.stderr
        assert _line(res.stdout, "S optimal (binomial/betting)") == _line(wide.stdout, "S optimal (binomial/betting)")
        assert f"{certify(a, hard).score:.4f}" in _line(res.stdout, "S optimal (binomial/betting)")
        assert _line(res.stdout, "krippendorff_alpha") == _line(wide.stdout, "krippendorff_alpha")
    res = humancert("report", str(tmp_path / "long.jsonl"), "--format", "long", "--model", "model", "--n-bootstrap", "0", "--out-of-core")
    assert res.returncode == 0, res.stderr                                     # reduced where it lives, by DuckDB
    assert _line(res.stdout, "S optimal (binomial/betting)") == _line(wide.stdout, "S optimal (binomial/betting)")
    (tmp_path / "bad.jsonl").write_text('{"item": 1, "annotator": "a", "label": "x"}\n["not", "an", "object"]\n')
    res = humancert("report", str(tmp_path / "bad.jsonl"), "--format", "long")
    assert res.returncode == 2 and "INPUT: line 2 of" in res.stderr and "not an object" in res.stderr, res.stderr


def test_uri_reaches_duckdb_unchanged(monkeypatch):
    "hf://, s3:// and https:// paths go to DuckDB as typed (not hf:/...); without the httpfs extension the error names INPUT and what to do."
    import duckdb
    import pandas as pd
    seen = []

    class Rel:
        def df(self): return pd.DataFrame({"item": [1, 1, 2, 2], "annotator": ["a", "b", "a", "b"], "label": ["x", "x", "y", "x"]})

    monkeypatch.setattr(duckdb, "read_parquet", lambda p, *a, **k: (seen.append(p), Rel())[1])
    res = humancert("report", "hf://datasets/org/panel/labels.parquet", "--format", "long")
    assert res.returncode == 0, res.stderr
    assert seen == ["hf://datasets/org/panel/labels.parquet"]

    def no_httpfs(p, *a, **k): raise duckdb.Error("An error occurred while trying to automatically install the required extension 'httpfs'")
    monkeypatch.setattr(duckdb, "read_csv", no_httpfs)
    res = humancert("report", "s3://bucket/labels.csv", "--format", "long")
    assert res.returncode == 2 and "INPUT: reading 's3://bucket/labels.csv' needs a DuckDB extension" in res.stderr, res.stderr


@pytest.mark.parametrize("extra,msg", [
    (["--combiner", "mean"], "--combiner mean scores numeric ratings, but the labels are text"),
    (["--scorer", "neg_mae"], "--scorer neg_mae scores numeric ratings, but the labels are text"),
    (["--model", "model"], "--model: 'model' is named twice in 'model,model'; name each judge once."),
    (["--alt-test", "0.1", "--min-items", "100"], "no annotator has --min-items 100 kept items"),
    (["--min-items", "10"], "--min-items applies to --alt-test"),
])
def test_options_named_in_cli_terms(tmp_path, extra, msg):
    "Issue 36 items 10 and 13: an explicit option that cannot apply exits 2, and every message names options, not Python parameters."
    ds = load("running_example")
    ds.annotations.to_wide().iloc[:60].assign(model=ds.predictions["hard"].iloc[:60]).to_csv(tmp_path / "w.csv", index_label="item")
    res = humancert("report", str(tmp_path / "w.csv"), "--model", "model", *extra, "--n-bootstrap", "0")
    assert res.returncode == 2 and msg in res.stderr.splitlines()[0], res.stderr
    assert "min_items_per_annotator" not in res.stderr and "`judges`" not in res.stderr


def test_label_studio_duplicate_in_cli_terms(tmp_path):
    "A Label Studio export with one annotator answering a task twice: the message names INPUT and --duplicates, and prints plain values."
    ch = lambda v: [{"from_name": "c", "to_name": "t", "type": "choices", "value": {"choices": [v]}}]
    tasks = [{"id": 1, "data": {"text": "a"}, "annotations": [{"completed_by": 1, "result": ch("pos")}, {"completed_by": 1, "result": ch("neg")},
                                                             {"completed_by": 2, "result": ch("neg")}]}]
    (tmp_path / "ls.json").write_text(json.dumps(tasks))
    res = humancert("report", str(tmp_path / "ls.json"), "--format", "label-studio")
    assert res.returncode == 2 and res.stderr.startswith("humancert: error: INPUT has 1 (item, annotator) pair(s)"), res.stderr
    assert "--duplicates first" in res.stderr and "np.int64" not in res.stderr and "`df`" not in res.stderr


def test_rater_kind_long_table_equals_wide(tmp_path):
    "--rater-kind: one long table of humans and judges (MLflow's source_type shape, as JSONL) gives the verdict the wide file with --model gives."
    tw = load("tweeteval")
    wide = tw.annotations.to_wide().assign(llm=tw.predictions["llm"], author=tw.extra["gold"]).iloc[:400]
    wide.to_csv(tmp_path / "wide.csv", index_label="item")
    long = wide.rename_axis("item").reset_index().melt("item", var_name="source", value_name="value").dropna()
    long["source_type"] = np.where(long["source"].isin(["llm", "author"]), "LLM_JUDGE", "HUMAN")
    long.to_json(tmp_path / "panel.jsonl", orient="records", lines=True)
    args = ("--alt-test", "0.2", "--n-bootstrap", "0")
    ref = humancert("report", str(tmp_path / "wide.csv"), "--model", "llm,author", *args)
    res = humancert("report", str(tmp_path / "panel.jsonl"), "--format", "long", "--annotator", "source", "--label", "value",
                    "--rater-kind", "source_type", "--judge-kinds", "llm_judge", *args)
    assert ref.returncode == 0 and res.returncode == 0, (ref.stderr, res.stderr)
    head = "Judges (ranked by verdict"
    block = lambda out: out.split(head)[1].split("\n\n")[0]
    assert block(res.stdout) == block(ref.stdout)
    direct = alt_test(tw.annotations.to_wide().iloc[:400].pipe(Annotations.from_wide), wide["llm"], epsilon=0.2)
    assert f"{direct.advantage_probability:.3f}" in [l for l in block(res.stdout).splitlines() if l.strip().startswith("llm")][0]
    bad = humancert("report", str(tmp_path / "panel.jsonl"), "--format", "long", "--annotator", "source", "--label", "value",
                    "--rater-kind", "source_type", "--judge-kinds", "gpt")
    assert bad.returncode == 2 and "--judge-kinds" in bad.stderr.splitlines()[0] and "`" not in bad.stderr.splitlines()[0], bad.stderr
    assert humancert("report", str(tmp_path / "wide.csv"), "--judge-kinds", "llm").returncode == 2


def test_report_path_does_not_load_the_planner(tmp_path):
    "`humancert report` loads no scipy.stats and no planner: gold-status (registered by the CLI) imported the planner, and with it scipy.stats, at load."
    code = ("import sys\nfrom humancert.report.cli import main; main(sys.argv[1:])\n"
            "print(*[m in sys.modules for m in ('humancert.certification.planner', 'scipy.stats')])")
    res = subprocess.run([sys.executable, "-c", code, "report", "--dataset", "running_example", "--quiet"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0 and res.stdout.split() == ["False", "False"], (res.stdout, res.stderr)
