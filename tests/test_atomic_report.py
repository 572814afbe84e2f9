"""The report folder is written atomically (issue 25): a process killed by SIGTERM or SIGINT while writing leaves the old
report, no report, or the new one, never a mix or a folder that looks complete but is not; a second concurrent writer is
refused with a message that names --out. Children are real processes; the kill times are spread over the write with a
fixed seed, and every trial's folder is checked file by file."""
import dataclasses
import json
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from humancert.report.writer import _writer_lock
from report_run import COMMAND

def _report():
    import pandas as pd
    from humancert.report.reporting import make_report
    from humancert.data.simulate import simulate_oracle_labels
    s = simulate_oracle_labels(200, [0.8, 0.7, 0.75, 0.7], seed=0)
    return make_report(s.annotations, pd.Series(s.oracle, index=s.annotations.items), n_bootstrap=0)


def _slow_disk():
    "Fault injection in the child: every PNG and text file is written in two halves with a pause between (a slow disk), so a kill often lands inside a file or between two files."
    import io
    import pathlib
    from matplotlib.figure import Figure
    savefig, write_text = Figure.savefig, pathlib.Path.write_text
    def slow_savefig(self, fname, *a, **k):
        buf = io.BytesIO()
        savefig(self, buf, *a, **k)
        data = buf.getvalue()
        with open(fname, "wb") as f:
            f.write(data[: len(data) // 2]); f.flush(); time.sleep(0.15); f.write(data[len(data) // 2:])
    def slow_write_text(self, text, *a, **k):
        with open(self, "w", encoding=k.get("encoding", "utf-8")) as f:
            f.write(text[: len(text) // 2]); f.flush(); time.sleep(0.15); f.write(text[len(text) // 2:])
        time.sleep(0.15)
    Figure.savefig, pathlib.Path.write_text = slow_savefig, slow_write_text


def _save_forever(rep, out):
    "The child: save the report again and again, with a new title each time, until a signal ends it."
    signal.signal(signal.SIGTERM, signal.SIG_DFL)                 # a fresh process's handlers, not the test runner's
    signal.signal(signal.SIGINT, signal.default_int_handler)
    _slow_disk()
    i = 0
    while True:
        i += 1
        dataclasses.replace(rep, title=f"run {i}").save(out, force=True)


def check_folder(out):
    "The folder is absent, or a whole report: report.md and report.json of the same run, every image it names complete."
    if not out.exists(): return None
    md, js = out / "report.md", out / "report.json"
    assert md.exists() and js.exists(), sorted(p.name for p in out.iterdir())
    data = json.loads(js.read_text())                         # complete JSON (a cut file does not parse)
    text = md.read_text()
    assert data["title"] in text.splitlines()[0], (data["title"], text.splitlines()[0])
    for name in re.findall(r"\]\(([^)]+\.png)\)", text):
        png = (out / name).read_bytes()
        assert png[:8] == b"\x89PNG\r\n\x1a\n" and png.endswith(b"IEND\xaeB`\x82"), name   # a whole PNG, start to end
    return data["title"]


def leftovers(folder):
    return [p.name for p in folder.iterdir() if "humancert-tmp" in p.name or "humancert-old" in p.name]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_killed_while_writing_leaves_a_whole_report(tmp_path, sig):
    "8 kills per signal at times spread over several saves (seeded); each leaves a whole report and no temporary folder."
    rng = np.random.default_rng(int(sig))
    rep = _report()
    older = tmp_path / "older"
    dataclasses.replace(rep, title="older").save(older)       # each trial starts from an older report (the --force case)
    fork = multiprocessing.get_context("fork")                 # the child starts with the report built and matplotlib loaded
    left = []
    for trial in range(8):
        out = tmp_path / f"t{trial}" / "report"
        shutil.copytree(older, out)
        child = fork.Process(target=_save_forever, args=(rep, out), daemon=True)
        child.start()
        time.sleep(rng.uniform(0.2, 2.5))                   # a save takes ~2 s here, half of it writing: the kill lands anywhere
        os.kill(child.pid, sig)
        child.join(timeout=30)
        if child.exitcode is None: child.kill(); child.join()
        assert child.exitcode not in (None, 0), child.exitcode      # the signal ended the writer
        check_folder(out)
        left.extend(out.parent / n for n in leftovers(out.parent))   # only hidden temporary folders may remain
    assert all(p.name.startswith(".") and p.is_dir() for p in left), left
    for p in {q.parent for q in left}:                             # and the next writer removes them
        dataclasses.replace(rep, title="next").save(p / "report", force=True)
        assert leftovers(p) == [] and check_folder(p / "report") == "next"


def _cli(out, *extra):
    return subprocess.Popen([*COMMAND, "report",
                             "--dataset", "running_example", "--n-bootstrap", "10", "--quiet", "--out", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_two_runs_to_one_folder(tmp_path):
    "Two started together without --force: exactly one writes; the other is refused (exit 2, naming --out); the folder is whole."
    for trial in range(1):
        out = tmp_path / f"t{trial}"
        runs = [_cli(out), _cli(out)]
        res = [(p.wait(timeout=120), p.stderr.read()) for p in runs]
        codes = sorted(c for c, _ in res)
        assert codes == [0, 2], res
        err = next(e for c, e in res if c == 2)
        assert "--out" in err.splitlines()[0], err
        assert check_folder(out) is not None and leftovers(tmp_path) == []


def test_two_forced_runs_to_one_folder(tmp_path):
    "With --force both may write, one after the other (the lock), or the second is refused; never a mixed folder."
    out = tmp_path / "r"
    runs = [_cli(out, "--force"), _cli(out, "--force")]
    res = [(p.wait(timeout=120), p.stderr.read()) for p in runs]
    assert all(c == 0 or (c == 2 and "another humancert is writing" in e) for c, e in res), res
    assert check_folder(out) is not None and leftovers(tmp_path) == []


def test_a_writer_holding_the_lock_refuses_the_command(tmp_path):
    out = tmp_path / "r"
    with _writer_lock(out.absolute()):
        p = _cli(out)
        code, err = p.wait(timeout=120), p.stderr.read()
    assert code == 2 and "--out" in err and "another humancert is writing" in err, err
    assert not out.exists()


def test_writer_lock_without_fcntl(tmp_path, monkeypatch):
    "Where fcntl does not exist (Windows) the lock is msvcrt's: a second writer is refused at once, and the first one's write goes on."
    import os
    import types
    from humancert.report.writer import _writer_lock
    held = set()

    def locking(fd, mode, nbytes):                     # msvcrt.locking's contract: OSError when another handle holds the bytes
        assert mode == 2 and nbytes == 1
        key = os.fstat(fd).st_ino
        if key in held: raise OSError(13, "Permission denied")
        held.add(key)

    monkeypatch.setitem(sys.modules, "fcntl", None)      # `import fcntl` raises ImportError, as on Windows
    monkeypatch.setitem(sys.modules, "msvcrt", types.SimpleNamespace(LK_NBLCK=2, locking=locking))
    out = tmp_path / "rep"
    with _writer_lock(out):
        with pytest.raises(ValueError, match="another humancert is writing a report"):
            with _writer_lock(out): pass
    assert held, "msvcrt.locking was not used"
