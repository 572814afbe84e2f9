"""DuckDB's memory and spill directory through the Python API (issue 36, item 14): out of memory is a ValueError naming
`memory_limit`, never DuckDB's own exception from inside the package; and each connection spills to a directory of its
own (tempfile.mkdtemp), removed afterwards, so a plain file at the old fixed `<tmp>/humancert-duckdb` breaks nothing."""
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from humancert.data.annotations import Annotations
from humancert.data.tables import profiles_from_table, connect_engine



@pytest.mark.parametrize("limit", ["40MB", "10MB"])
def test_small_limit_spills_like_the_cli(mid_table, limit):
    """At 40MB the API, like the CLI, runs with one thread and spills; at 10MB, too small for one query, it runs in parts of
    disjoint items (issue 42 item 7). Either way the profiles are the in-memory ones."""
    p, df = mid_table
    got = profiles_from_table(p, memory_limit=limit)
    counts = pd.crosstab(df["item"], df["label"]).to_numpy()          # independent of humancert
    want = pd.Series(map(tuple, counts)).value_counts()
    assert sorted(zip(map(tuple, got.counts.tolist()), got.weight.tolist())) == sorted(want.items())


@pytest.mark.parametrize("call", [lambda p: profiles_from_table(p, memory_limit="2MB"),
                                  lambda p: Annotations.from_table(p, memory_limit="2MB")])
def test_out_of_memory_names_memory_limit(mid_table, call):
    "Was: duckdb.OutOfMemoryException raised from inside profiles_from_table. 2MB is below what even one part needs."
    with pytest.raises(ValueError, match=r"`memory_limit`='2MB' is too small for this table"):
        call(mid_table[0])


def test_each_connection_spills_to_its_own_directory_removed_afterwards():
    import gc
    from pathlib import Path
    a, b = connect_engine("1GB", None), connect_engine("1GB", None)
    q = "select current_setting('temp_directory')"
    da, db = (Path(c.execute(q).fetchone()[0]) for c in (a, b))
    assert da != db and da.is_dir() and db.is_dir() and da.name.startswith("humancert-duckdb-")
    del a, b
    gc.collect()
    assert not da.exists() and not db.exists()
    assert Path(connect_engine("1GB", None, temp_directory="/some/where").execute(q).fetchone()[0]) == Path("/some/where")


def test_a_plain_file_at_the_old_fixed_path_breaks_nothing(mid_table, tmp_path):
    "In a process whose temporary directory holds a plain file named humancert-duckdb, a run that spills (20MB) still works and leaves no directory behind (was: IOException, or 'could not be read')."
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp / "humancert-duckdb").write_text("not a directory")
    code = ("import sys; from humancert.data.tables import profiles_from_table\n"
            "p = profiles_from_table(sys.argv[1], memory_limit='20MB'); print(p.n_items)")
    res = subprocess.run([sys.executable, "-c", code, str(mid_table[0])], capture_output=True, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)})
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["50000"]
    assert sorted(os.listdir(tmp)) == ["humancert-duckdb"]               # the spill directory was removed
