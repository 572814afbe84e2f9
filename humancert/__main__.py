"""`python -m humancert ...`: the `humancert` command (the console script, nbs/report/91_console), for where the script is not on PATH."""
from humancert.report.console import console_script

if __name__ == "__main__": console_script()
