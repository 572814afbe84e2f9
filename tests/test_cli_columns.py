"""Issue 42 item 6 groups 3, 12 and 14 through the command, as a user runs it (a fresh process, report_run.COMMAND):
number columns taken for annotators (refused, --annotators to choose), files that are cut short or not UTF-8, and column
names with commas. Every failure is exit 2 with one line that names INPUT or the option."""
import gzip
import json
import subprocess

import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from report_run import COMMAND


def cli(*args):
    return subprocess.run([*COMMAND, *map(str, args)], capture_output=True, text=True)


def one_line_error(res):
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr[-2000:]
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("humancert: error: "), res.stderr
    return lines[0]


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    "300 items, four annotators and a model on two classes, a column named 'x,y' of labels, and two token-count columns."
    rng = np.random.default_rng(0)
    n = 300
    df = pd.DataFrame({"item": range(n), **{a: rng.choice(["neg", "pos"], n) for a in "abcd"}, "model": rng.choice(["neg", "pos"], n),
                       "x,y": rng.choice(["neg", "pos"], n), "tokens_in": rng.permutation(np.arange(1000, 1000 + n)),
                       "tokens_out": rng.integers(0, 150, n)})
    path = tmp_path_factory.mktemp("wide") / "wide.csv"
    df.to_csv(path, index=False)
    return path, df


def test_token_counts_refused_naming_the_column(wide):
    path, _ = wide
    msg = one_line_error(cli("report", path, "--model", "model", "--n-bootstrap", "0"))
    assert "INPUT: column(s) ['tokens_in'] hold 300 distinct numbers (over 200)" in msg and "--annotators" in msg
    assert "tokens_out" not in msg.split("hold")[0]                      # 150 distinct values at most: not named


def test_annotators_option_picks_the_columns(wide):
    path, df = wide
    res = cli("report", path, "--model", "model", "--annotators", "a,b,c,d", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr[-2000:]
    ref = Annotations.from_wide(df.set_index("item")[list("abcd")])
    assert f"annotators                   {ref.n_annotators}" in res.stdout
    msg = one_line_error(cli("report", path, "--model", "model", "--annotators", "a,b,zz"))
    assert msg.startswith("humancert: error: --annotators: 'zz' is not a column of INPUT (in 'a,b,zz')")
    msg = one_line_error(cli("report", path, "--format", "long", "--annotators", "a"))
    assert "--annotators applies to --format wide" in msg


def test_annotators_keeps_the_gold_column(wide):
    path, _ = wide
    res = cli("report", path, "--model", "model", "--annotators", "a,b,c", "--gold", "d", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "300 gold items of 300" in res.stdout


def test_column_with_a_comma_is_a_model(wide):
    path, _ = wide
    res = cli("report", path, "--model", "x,y", "--annotators", "a,b,c,d", "--n-bootstrap", "0")
    assert res.returncode == 0, res.stderr[-2000:]
    assert "is judge 'x,y' better" in res.stdout
    both = cli("report", path, "--model", '"x,y",model', "--annotators", "a,b,c,d", "--n-bootstrap", "0")
    assert both.returncode == 0, both.stderr[-2000:]
    rows = [l.split()[0] for l in both.stdout.split("Judges (ranked by verdict)")[1].splitlines()[2:4]]
    assert sorted(rows) == ["model", "x,y"]


def test_model_list_names_only_the_missing_column(wide):
    path, _ = wide
    msg = one_line_error(cli("report", path, "--model", "model,nope", "--annotators", "a,b"))
    assert msg.startswith("humancert: error: --model: 'nope' is not a column of INPUT (in 'model,nope')")


def test_force_in_command_words(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    (out / "report.json").write_text("{}")                            # a folder that already holds a report
    msg = one_line_error(cli("report", "--dataset", "running_example", "--n-bootstrap", "0", "--out", out))
    assert "pass --force to overwrite it" in msg and "force=True" not in msg and "`" not in msg


def _long_rows(n=50):
    return [{"item": i, "annotator": a, "label": "café" if (i + k) % 3 else "thé"} for i in range(n) for k, a in enumerate("abc")]


def test_truncated_jsonl_gz(tmp_path):
    data = "".join(json.dumps(r) + "\n" for r in _long_rows(400)).encode()
    whole = gzip.compress(data)
    (tmp_path / "cut.jsonl.gz").write_bytes(whole[: len(whole) // 2])
    msg = one_line_error(cli("report", tmp_path / "cut.jsonl.gz", "--format", "long"))
    assert f"INPUT: '{tmp_path / 'cut.jsonl.gz'}' is truncated or damaged (EOFError" in msg and "download or compress it again" in msg
    (tmp_path / "cut.csv.gz").write_bytes(gzip.compress(pd.DataFrame(_long_rows(400)).to_csv(index=False).encode())[:1500])
    msg = one_line_error(cli("report", tmp_path / "cut.csv.gz", "--format", "long"))
    assert "is truncated or damaged" in msg


@pytest.mark.parametrize("name", ["l1.jsonl", "l1.csv"])
def test_latin1_named_with_what_to_do(tmp_path, name):
    rows = _long_rows()
    text = ("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows) if name.endswith("jsonl")
            else pd.DataFrame(rows).to_csv(index=False))
    (tmp_path / name).write_bytes(text.encode("latin-1"))
    msg = one_line_error(cli("report", tmp_path / name, "--format", "long"))
    assert f"INPUT: '{tmp_path / name}' is not UTF-8 text (byte 0xe9" in msg and "re-save it as UTF-8" in msg
    if name.endswith("jsonl"): assert "at line 1" in msg
    (tmp_path / ("u8_" + name)).write_text(text, encoding="utf-8")        # the advice works: the same file as UTF-8 is read
    assert cli("report", tmp_path / ("u8_" + name), "--format", "long").returncode == 0


def test_column_with_a_comma_out_of_core(tmp_path):
    "--out-of-core reads the model's column where the table lives: 'x,y' quoted (by its exact name: test above), the same report as in memory."
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(1)
    n = 120
    truth = rng.choice(["neg", "pos"], n)
    rows = pd.DataFrame([{"item": i, "annotator": a, "label": truth[i] if rng.random() < 0.8 else "pos"} for i in range(n) for a in "abc"])
    rows["x,y"] = rows["item"].map(dict(enumerate(truth)))
    rows.to_csv(tmp_path / "long.csv", index=False)
    base = ["report", tmp_path / "long.csv", "--format", "long", "--n-bootstrap", "0"]
    outs = [cli(*base, "--model", '"x,y"', *extra) for extra in ([], ["--out-of-core"])]
    assert all(r.returncode == 0 for r in outs), [r.stderr[-1000:] for r in outs]
    assert all("is judge 'x,y' better" in r.stdout for r in outs)
    cert = lambda r: next(l for l in r.stdout.splitlines() if l.strip().startswith("agreement-only certificate"))
    assert len({cert(r) for r in outs}) == 1


def test_long_label_column_of_numbers_refused(tmp_path):
    "A long table whose --label column is a score (300 distinct numbers): refused naming --label; the same table with 5 values is read."
    rows = pd.DataFrame({"item": np.repeat(np.arange(150), 2), "annotator": ["a", "b"] * 150, "label": np.arange(300) * 7})
    rows.to_csv(tmp_path / "long.csv", index=False)
    msg = one_line_error(cli("report", tmp_path / "long.csv", "--format", "long"))
    assert msg.startswith("humancert: error: --label: column 'label' holds 300 distinct numbers (over 200)")
    small = rows.assign(label=rows["label"] % 5)
    small.to_csv(tmp_path / "small.csv", index=False)
    assert cli("report", tmp_path / "small.csv", "--format", "long").returncode == 0
