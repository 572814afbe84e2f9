import pytest
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))   # tests/ helpers (docs_site) importable from test modules

@pytest.fixture(scope="session")
def mid_table(tmp_path_factory):
    "50,000 items x about 8 labels (393,011 rows) as Parquet, and the frame: DuckDB needs to spill at 40MB, runs in parts of items at 10MB and cannot run at 2MB."
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(0)
    n, k = 50_000, 8
    df = pd.DataFrame({"item": np.repeat(np.arange(n), k), "annotator": rng.integers(0, 200, n * k),
                       "label": rng.choice(["a", "b"], n * k)}).drop_duplicates(["item", "annotator"])
    p = tmp_path_factory.mktemp("mid") / "mid.parquet"
    df.to_parquet(p)
    return p, df


@pytest.fixture(autouse=True)
def unwrapped_report_text(monkeypatch):
    "The printed report wraps to the terminal's width (COLUMNS, issue 44); the tests compare and parse its text, so they read it unwrapped. Tests of the wrapping set COLUMNS themselves (test_report_width.py, test_report_golden.py)."
    monkeypatch.setenv("COLUMNS", "10000")



def pytest_collection_modifyitems(config, items):
    """The longest test modules and notebooks first, in the order of tests/slow_first.txt (see there); within a module or
    notebook the order is unchanged, and everything else keeps the collection order."""
    path = Path(__file__).with_name("slow_first.txt")
    names = [l.strip() for l in path.read_text().splitlines() if l.strip() and not l.startswith("#")]
    rank = {s: i for i, s in enumerate(names)}
    def scope(item):
        try: return item.path.relative_to(config.rootpath).as_posix()
        except ValueError: return ""
    items.sort(key=lambda item: rank.get(scope(item), len(rank)))
