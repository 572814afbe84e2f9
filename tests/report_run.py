"""`humancert report` run in-process for the report tests: main's exit code and what it printed."""
import contextlib
import io

from humancert.report.cli import main


def run(*args):
    "The command in-process: (exit code, stdout, or stderr on a usage error)."
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(["report", *args])
    assert code in (0, 2), err.getvalue()[-2000:]
    return code, out.getvalue() if code == 0 else err.getvalue()
