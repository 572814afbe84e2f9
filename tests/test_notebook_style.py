"""House style of the notebooks, checked statically: title and summary, default_exp, and no cell mixing imports with code.

nbdev's doc processing executes every cell that contains an import; a cell that also computes something then runs
out of context and breaks `nbdev-proc-nbs` (and the docs). Imports therefore live in the setup cells only.
"""
import re
from pathlib import Path

import nbformat
import pytest

NBS = sorted(p for p in (Path(__file__).resolve().parent.parent / "nbs").rglob("[0-9]*.ipynb")
             if not any(s.startswith((".", "_")) for s in p.parts[-3:-1]))
IMPORT = re.compile(r"^(import |from \S+ import )")


@pytest.mark.parametrize("path", NBS, ids=lambda p: p.name)
def test_notebook_style(path):
    nb = nbformat.read(path, as_version=4)
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    assert md and md[0].lstrip().startswith("# "), f"{path.name}: first markdown cell must be '# Title'"
    assert "\n> " in md[0] or md[0].count("\n") >= 2 and "> " in md[0], f"{path.name}: title cell needs a '> summary' line"
    for cell in nb.cells:
        if cell.cell_type != "code" or "#| export" in cell.source: continue
        lines = [l for l in cell.source.splitlines() if l.strip() and not l.lstrip().startswith("#")]
        imports = [l for l in lines if IMPORT.match(l)]
        assert not imports or len(imports) == len(lines), \
            f"{path.name}: a cell mixes imports with code; move {imports} to the setup cell\n---\n{cell.source[:300]}"
