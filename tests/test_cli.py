"""The installed `humancert` console script, run as a user would: exit codes, stdout and stderr."""
import subprocess
import sys

import pandas as pd
import pytest

from humancert.agreement import agreement_summary
from humancert.datasets import DATASETS, load


def humancert(*args, cwd=None):
    return subprocess.run([sys.executable, "-c", "import sys; from humancert.cli import main; sys.exit(main())", *args],
                          capture_output=True, text=True, cwd=cwd)


def test_console_script_is_installed():
    res = subprocess.run(["humancert", "--version"], capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.startswith("humancert "), res.stderr


@pytest.mark.parametrize("name", DATASETS)
def test_report_on_bundled_data(name):
    res = humancert("report", "--dataset", name)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    frame = agreement_summary(load(name).annotations).to_frame()
    for measure, row in frame.iterrows():   # every number printed is the library's, to the printed precision
        line = next(l for l in res.stdout.splitlines() if l.strip().startswith(measure + " ") or l.strip().startswith(measure))
        assert f"{row.value:.4f}" in line, (measure, line)


def test_report_long_file(tmp_path):
    df = pd.DataFrame({"task": [1, 1, 2, 2, 3, 3], "worker": list("ababab"), "answer": list("xxxyyy")})
    df.to_csv(tmp_path / "l.csv", index=False)
    res = humancert("report", str(tmp_path / "l.csv"), "--format", "long", "--item", "task", "--annotator", "worker", "--label", "answer")
    assert res.returncode == 0, res.stderr
    assert "percent" in res.stdout and "0.6667" in res.stdout   # 2 of 3 items agree: P-bar = 2/3


def test_parquet_input(tmp_path):
    pytest.importorskip("pyarrow")
    load("running_example").annotations.to_counts().to_parquet(tmp_path / "c.parquet")
    res = humancert("report", str(tmp_path / "c.parquet"), "--format", "counts")
    assert res.returncode == 0, res.stderr
    assert "1000" in res.stdout


@pytest.mark.parametrize("args,msg", [
    (["report"], "exactly one of INPUT"),
    (["report", "--dataset", "nope"], "unknown dataset"),
    (["report", "missing.csv"], "no such file"),
    (["frobnicate"], "unknown command"),
])
def test_bad_input_exit_2(args, msg, tmp_path):
    res = humancert(*args, cwd=tmp_path)
    assert res.returncode == 2
    assert res.stdout == ""
    assert msg in res.stderr.splitlines()[0]


def test_wide_file_with_bad_labels(tmp_path):
    (tmp_path / "w.csv").write_text("item,a,b\n1,1,x\n2,x,1\n")   # read as strings: fine; mixed ints and str would not be
    assert humancert("report", str(tmp_path / "w.csv")).returncode == 0
    (tmp_path / "one.csv").write_text("item,a\n1,x\n2,y\n")
    res = humancert("report", str(tmp_path / "one.csv"))
    assert res.returncode == 2 and "one annotator" in res.stderr
