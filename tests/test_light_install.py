"""A lighter install (issue 33, item 3): without the `tables` extra (DuckDB, narwhals, pyarrow), everything on a table in
memory works, and every call that needs the extra raises an ImportError that names `pip install "humancert[tables]"` and
what needed it. Each case runs in a fresh interpreter whose imports of those packages are blocked by a meta-path hook, as
if they were not installed."""
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXTRA = 'pip install "humancert[tables]"'
BLOCK = '''
import sys, importlib.abc
class _NotInstalled(importlib.abc.MetaPathFinder):
    "Any import of the tables extra fails as it does when the package is not installed."
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("duckdb", "narwhals", "pyarrow"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _NotInstalled())
'''


def run(code, *argv, cwd=None):
    return subprocess.run([sys.executable, "-c", BLOCK + code, *map(str, argv)], capture_output=True, text=True, cwd=cwd)


def test_the_hook_blocks():
    res = run("import duckdb")
    assert res.returncode != 0 and "No module named 'duckdb'" in res.stderr


def test_report_on_a_bundled_dataset_without_the_extra(tmp_path):
    "README command 1 without the extra: the report is made, and none of the three packages was needed."
    res = run("from humancert.report.cli import main\ncode = main()\n"
              "assert not {'duckdb', 'narwhals', 'pyarrow'} & set(sys.modules), sorted(sys.modules)\nsys.exit(code)",
              "report", "--dataset", "running_example", "--out", tmp_path / "out", "--quiet")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "out" / "report.json").is_file()


def test_in_memory_readers_without_the_extra():
    "Wide, long, counts, nested JSON, Label Studio, read_panel on a DataFrame, the datasets: no extra needed."
    code = '''
import pandas as pd
from humancert.data.annotations import Annotations
from humancert.data.panel import read_panel
from humancert.data.datasets import load
long = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "g", "a", "g"], "label": ["x", "x", "y", "x"],
                     "kind": ["human", "llm", "human", "llm"]})
p = read_panel(pd.concat([long, long.query("rater == 'a'").assign(rater="b")]))
a = Annotations.from_nested({"a": {1: "x"}, "b": {1: "y"}})
c = Annotations.from_crowdkit(pd.DataFrame({"task": [1, 1], "worker": ["u", "v"], "label": ["x", "y"]}))
print(p.annotations.n_annotators, list(p.judges.columns), a.n_labels.tolist(), c.n_labels.tolist(), load("running_example").annotations.n_items)
'''
    res = run(code)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["2", "['g']", "[2]", "[2]", "1000"]


@pytest.mark.parametrize("call, what", [
    ("Annotations.from_table(df)", "Annotations.from_table"),
    ("profiles_from_table(df)", "profiles_from_table"),
    ("read_panel('labels.jsonl')", "read_panel on files"),
    ("humancert.profiles_from_table(df)", "profiles_from_table"),
    ("humancert.annotator_agreement_from_table(df)", "profiles_from_table"),
    ("humancert.report_from_table(df)", "report_from_table"),
])
def test_what_needs_the_extra_says_so(call, what):
    code = f'''
import pandas as pd, humancert
from humancert.data.annotations import Annotations
from humancert.data.panel import read_panel
df = pd.DataFrame({{"item": [1, 1], "annotator": ["a", "b"], "label": ["x", "y"]}})
try:
    if "profiles_from_table(df)" == {call!r}:
        from humancert.data.tables import profiles_from_table
    {call}
except ImportError as e:
    print("ImportError:", e)
'''
    res = run(code)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("ImportError:") and EXTRA in res.stdout and what in res.stdout, res.stdout


def test_dependencies_are_the_light_ones():
    "The runtime dependencies are the six of the issue and threadpoolctl (pure Python; issue 42 item 5); the tables extra holds DuckDB, narwhals and pyarrow; seaborn is dev only."
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = lambda reqs: {r.split(">")[0].split("=")[0].split("[")[0].strip() for r in reqs}
    assert names(meta["dependencies"]) == {"numpy", "pandas", "scipy", "matplotlib", "fastcore", "tqdm", "threadpoolctl"}
    assert names(meta["optional-dependencies"]["tables"]) == {"duckdb", "narwhals", "pyarrow"}
    assert {"duckdb", "narwhals", "pyarrow", "seaborn"} <= names(meta["optional-dependencies"]["dev"])


def test_every_public_name_without_the_extra():
    "Issue 42 item 4: `humancert.X` and `from humancert import X` for every public name (the table readers included), and none of the three packages is imported by it."
    code = '''
import humancert
from humancert import Annotations, profiles_from_table, annotator_agreement_from_table, report_from_table
missing = [n for n in humancert.__all__ if getattr(humancert, n, None) is None]
exec("from humancert import " + ", ".join(humancert.__all__))
loaded = {"duckdb", "narwhals", "pyarrow"} & {m.split(".")[0] for m in sys.modules}
print(len(humancert.__all__), missing, sorted(loaded), Annotations.from_wide([[1, 2], [1, 1]]).n_items)
'''
    res = run(code)
    assert res.returncode == 0, res.stderr
    n, rest = res.stdout.split(" ", 1)
    assert int(n) > 150 and rest.split() == ["[]", "[]", "2"], res.stdout


@pytest.mark.parametrize("args, what", [
    (["report", "{dir}/long.csv", "--format", "long", "--out-of-core"], "--out-of-core"),
    (["report", "file://{dir}/long.csv", "--format", "long"], "INPUT: reading the address"),
    (["report", "{dir}/lo*.csv", "--format", "long"], "INPUT: reading the glob"),
])
def test_the_command_without_the_extra_says_so(tmp_path, args, what):
    "--out-of-core, a file:// URI and a quoted glob without the extra: exit 2 and one line naming what needed it and the install command (was rc 1 with a traceback)."
    (tmp_path / "long.csv").write_text("item,annotator,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n")
    res = run("from humancert.report.cli import main\nsys.exit(main())", *[a.format(dir=tmp_path) for a in args],
              "--out", tmp_path / "out", "--quiet")
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("humancert: error: ") and what in lines[0] and EXTRA in lines[0], res.stderr
    assert "Traceback" not in res.stderr and not (tmp_path / "out").exists()
