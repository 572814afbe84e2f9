"""The `humancert` command as the tests run it: in-process (`command`, any command: exit code, stdout, stderr; `run`, the report:
main's exit code and output) or as the installed
console script runs it, in a fresh process (`COMMAND` followed by the arguments)."""
import contextlib
import io
import sys

from humancert.report.cli import main

COMMAND = [sys.executable, "-c", "from humancert.report.console import console_script; console_script()"]   # what the installed script runs


def command(*argv):
    "humancert ARGV in-process, any command (each argument as str, so paths may be Path): (exit code, stdout, stderr)."
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main([str(a) for a in argv])
    return code, out.getvalue(), err.getvalue()


def run(*args):
    "The command in-process: (exit code, stdout, or stderr on a usage error)."
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err): code = main(["report", *args])
    assert code in (0, 2), err.getvalue()[-2000:]
    return code, out.getvalue() if code == 0 else err.getvalue()
