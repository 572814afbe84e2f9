"""Issue 42 item 6 group 13: the command where its output cannot go. A stream closed at start (>&-, 2>&-, as daemons and
cron start a process) drops what would go there; a reader that left (a closed pipe) is not an error; a write that fails
(> /dev/full) is one line on stderr and exit 1; the report folder asked for with --out is written in every case; Ctrl-C
is one line and exit 130. Each run is a fresh process started as the installed script starts (report_run.COMMAND)."""
import os
import signal
import subprocess
import sys
import time

import pytest

from report_run import COMMAND

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX descriptors and signals")
REPORT = ["report", "--dataset", "running_example", "--n-bootstrap", "0"]
FILES = {"report.md", "report.json", "report.html", "bounds_vs_annotators.png", "confidence_vs_margin.png", "power_curve.png"}


def _run(args, stdout=None, stderr=None, close=()):
    "The command with fd 1 and/or 2 closed (`close`) or sent to the given files; (exit code, stderr text or '')."
    def closing():
        for fd in close: os.close(fd)
    res = subprocess.run([*COMMAND, *args], stdout=subprocess.DEVNULL if stdout is None else stdout,
                         stderr=subprocess.PIPE if stderr is None else stderr, preexec_fn=closing if close else None)
    return res.returncode, (res.stderr or b"").decode()


def _no_traceback(err): assert "Traceback" not in err and "Exception ignored" not in err, err


def test_closed_stdout_report_written(tmp_path):
    code, err = _run([*REPORT, "--out", str(tmp_path / "r")], close=(1,))
    _no_traceback(err)
    assert (code, err) == (0, "")
    assert FILES <= {p.name for p in (tmp_path / "r").iterdir()}


def test_closed_stderr_keeps_exit_codes(tmp_path):
    assert _run([*REPORT, "--out", str(tmp_path / "r")], close=(2,))[0] == 0
    assert FILES <= {p.name for p in (tmp_path / "r").iterdir()}
    assert _run(["report", str(tmp_path / "none.csv")], close=(1, 2))[0] == 2    # bad input, both streams closed


def test_full_disk_stdout_is_one_line_and_exit_1(tmp_path):
    if not os.path.exists("/dev/full"): pytest.skip("no /dev/full")
    with open("/dev/full", "wb") as full:
        code, err = _run([*REPORT, "--out", str(tmp_path / "r")], stdout=full)
        _no_traceback(err)
        assert code == 1 and len(err.splitlines()) == 1 and "could not be written to stdout (No space left on device)" in err
        assert FILES <= {p.name for p in (tmp_path / "r").iterdir()}         # the report is written before anything is printed
        code, err = _run(["--version"], stdout=full)
        assert code == 1 and len(err.splitlines()) == 1
        assert _run(["report", "--bogus"], stderr=full)[0] == 2               # the message is lost, the code is not


@pytest.mark.parametrize("args", [["--version"], ["--help"], REPORT])
def test_closed_pipe_is_not_an_error(args):
    "A reader that left before the first byte (its end of the pipe closed): exit 0, no traceback."
    r, w = os.pipe()
    os.close(r)
    try: code, err = _run(args, stdout=w)
    finally: os.close(w)
    _no_traceback(err)
    assert (code, err) == (0, "")


@pytest.mark.parametrize("delay", [0.2, 2.5])
def test_ctrl_c_is_one_line_and_130(delay):
    "SIGINT while the modules load (0.2 s) and while the report is computed (2.5 s, a 10^5-resample bootstrap)."
    p = subprocess.Popen([*COMMAND, "report", "--dataset", "running_example", "--n-bootstrap", "100000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    _no_traceback(err)
    assert p.returncode == 130 and len(err.splitlines()) == 1 and err.startswith("humancert: interrupted"), err
