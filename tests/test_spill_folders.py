"""DuckDB's spill folders (issue 42 item 6, group 15) and CSV headers read by DuckDB (group 6).

A folder is named with its process id: one left by a process killed with SIGKILL is swept by the next connection, one
of a process ended by SIGTERM (even inside a DuckDB query) is removed by the process itself; without a writable
temporary folder --out-of-core names TMPDIR, not INPUT. A repeated name in a CSV header is refused whether the file is
given as a path, a file:// URI or a glob, in memory or --out-of-core."""
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from humancert.data.tables import connect_engine, SPILL_PREFIX
from humancert.report.cli import main

CHILD = """
from humancert.data.tables import connect_engine
con = connect_engine("1GB", None)
print(con.execute("select current_setting('temp_directory')").fetchall()[0][0], flush=True)
con.execute("SELECT sum(hash(i)) FROM range(40000000000) t(i)").fetchall()   # minutes: it is ended before
"""


def _child(tmp_path):
    "A fresh process that opens an engine, prints its spill folder and runs a long query; its TMPDIR is tmp_path."
    env = dict(os.environ, TMPDIR=str(tmp_path), PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, text=True, env=env)
    folder = Path(p.stdout.readline().strip())
    assert folder.is_dir() and folder.name.startswith(f"{SPILL_PREFIX}{p.pid}-"), folder
    time.sleep(1)                                                      # inside the query
    return p, folder


def test_sigterm_removes_the_spill_folder(tmp_path):
    p, folder = _child(tmp_path)
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=60) == -signal.SIGTERM                       # it still ends by the signal
    assert not folder.exists()


def test_folder_of_a_killed_process_is_swept(tmp_path, monkeypatch):
    p, folder = _child(tmp_path)
    p.kill(); p.wait(timeout=60)
    assert folder.exists()                                             # SIGKILL: nothing can run
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    live = tmp_path / f"{SPILL_PREFIX}{os.getpid()}-x"; live.mkdir()  # a live process's folder stays
    con = connect_engine("1GB", None)
    assert not folder.exists() and live.exists()
    del con


def test_no_writable_temporary_folder_names_tmpdir(tmp_path, monkeypatch, capsys):
    f = tmp_path / "labels.csv"
    f.write_text("item,annotator,label\n1,a,x\n1,b,y\n")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "missing" / "folder"))
    assert main(["report", str(f), "--format", "long", "--out-of-core"]) == 2
    err = capsys.readouterr().err
    assert "set TMPDIR to a writable folder" in err and "INPUT" not in err, err


@pytest.mark.parametrize("how", ["path", "file://", "glob"])
def test_repeated_header_name_refused_on_every_path(tmp_path, capsys, how):
    f = tmp_path / "wide.csv"
    f.write_text("item,r0,r0,r2\n1,a,b,a\n2,a,a,b\n")
    given = {"path": str(f), "file://": f"file://{f}", "glob": str(tmp_path / "w*.csv")}[how]
    assert main(["report", given]) == 2
    assert "names 'r0' more than once" in capsys.readouterr().err


@pytest.mark.parametrize("how", ["path", "glob"])
def test_repeated_header_name_refused_out_of_core(tmp_path, capsys, how):
    f = tmp_path / "long.csv"
    f.write_text("item,annotator,label,label\n1,a,x,y\n1,b,x,x\n")
    given = {"path": str(f), "glob": str(tmp_path / "l*.csv")}[how]
    assert main(["report", given, "--format", "long", "--out-of-core"]) == 2
    assert "names 'label' more than once" in capsys.readouterr().err


def test_help_says_how_much_temporary_disk(capsys):
    "`humancert report --help` tells how much temporary disk --out-of-core needs, and where (TMPDIR)."
    assert main(["report", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "needs free temporary disk (TMPDIR) of about half a CSV INPUT's size" in out, out[-2000:]
