"""A sample of test files run one by one, each in a fresh pytest process (issue 36 item 15).

The whole suite imports every part early, so a class whose methods are attached by another module looks whole there;
`pytest tests/test_bad_inputs.py` run alone once failed three tests with `AttributeError: ... no attribute 'from_table'`.
These files are the ones that reach public classes through a single module import."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALONE = ["tests/test_bad_inputs.py", "tests/test_panel.py"]


@pytest.mark.parametrize("path", ALONE)
def test_file_passes_alone(path):
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", path],
                         cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, f"{path} fails when run alone:\n{res.stdout[-3000:]}\n{res.stderr[-2000:]}"
