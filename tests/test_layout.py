"""The layout stays readable: small export cells, and parts that import only the parts below them.

Two numbers from issue #27 are kept here so they cannot drift back: every `#| export` cell of every notebook has at most
60 lines (the directive included), and the median export cell at most 20. And the package's folders are its parts
(`humancert/data`, `humancert/agreement`, ...): a part imports only the parts listed before it in `PARTS`, never a
private (`_name`) helper of another part, and never the package's top-level namespace (only `__version__` from it).
"""
import ast
import json
import re
import statistics
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NBS, PKG = ROOT / "nbs", ROOT / "humancert"
PARTS = ("data", "agreement", "sparse_agreement", "certification", "survey", "ceiling", "judges", "system_score", "pairwise", "report")
MAX_LINES, MAX_MEDIAN = 60, 20
EXPORT = re.compile(r"^#\|\s*export[is]?\s*$")


def notebooks(root=NBS):
    "Every notebook under `root`, outside hidden or generated folders."
    return sorted(p for p in root.rglob("*.ipynb") if not any(s.startswith((".", "_")) for s in p.relative_to(root).parts))


def export_cells(root=NBS):
    "(notebook, cell's first code line, number of lines) for every export cell under `root`."
    found = []
    for p in notebooks(root):
        for c in json.loads(p.read_text(encoding="utf-8"))["cells"]:
            lines = "".join(c["source"]).splitlines()
            if c["cell_type"] == "code" and lines and EXPORT.match(lines[0].strip()):
                first = next((l for l in lines[1:] if l.strip() and not l.startswith("#")), "")
                found.append((p.relative_to(root).as_posix(), first[:60], len(lines)))
    return found


def test_export_cells_are_small():
    cells = export_cells()
    assert len(cells) > 100, "the notebooks' export cells were not found"
    big = [f"{nb}: {n} lines ({first})" for nb, first, n in cells if n > MAX_LINES]
    assert not big, f"export cells over {MAX_LINES} lines; split them into a helper or formula per cell:\n" + "\n".join(big)
    median = statistics.median(n for *_, n in cells)
    assert median <= MAX_MEDIAN, f"the median export cell has {median} lines (goal: at most {MAX_MEDIAN})"


def test_cell_count_sees_a_long_cell_in_a_part_folder(tmp_path):
    "The count the check relies on: a 61-line export cell in a part's folder is found with its size; other cells are not."
    cell = lambda src, kind="code": {"cell_type": kind, "source": src, "metadata": {}, "outputs": []}
    nb = {"cells": [cell(["#| export\n"] + ["x = 1\n"] * 60), cell(["#| export\n", "y = 2"]), cell(["x = 1\n"] * 70),
                    cell(["#| export\n"] * 3, "markdown")], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "part").mkdir()
    (tmp_path / "part" / "01_big.ipynb").write_text(json.dumps(nb))
    (tmp_path / "_proc").mkdir()
    (tmp_path / "_proc" / "01_big.ipynb").write_text(json.dumps(nb))         # generated copies are not counted
    assert export_cells(tmp_path) == [("part/01_big.ipynb", "x = 1", 61), ("part/01_big.ipynb", "y = 2", 2)]


def _imports(path):
    "(part imported, names imported) for each `from ..part.module import names` of a module, and whether it imports the package."
    tree = ast.parse(path.read_text(encoding="utf-8"))
    edges, package = [], False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 2 and mod: edges.append((mod.split(".")[0], [a.name for a in node.names]))
            elif node.level == 2 and not mod and [a.name for a in node.names] != ["__version__"]: package = True
            elif node.level == 0 and mod.startswith("humancert."): edges.append((mod.split(".")[1], [a.name for a in node.names]))
            elif node.level == 0 and mod == "humancert": package = True
        elif isinstance(node, ast.Import) and any(a.name == "humancert" for a in node.names): package = True
    return edges, package


def modules():
    return sorted(p for part in PARTS for p in (PKG / part).glob("*.py") if p.name != "__init__.py")


def test_every_module_is_in_a_part():
    loose = sorted(p.name for p in PKG.glob("*.py") if p.name not in ("__init__.py", "__main__.py", "_modidx.py", "_showdoc.py"))
    assert not loose, f"modules outside the parts: {loose}"
    assert {p.parent.name for p in modules()} == set(PARTS)


@pytest.mark.parametrize("path", modules(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_parts_import_only_parts_below_them(path):
    part = path.parent.name
    edges, package = _imports(path)
    assert not package, f"{part}/{path.name} imports the humancert namespace; import from the module that defines the name"
    for other, names in edges:
        assert other in PARTS, f"{part}/{path.name} imports from unknown part {other!r}"
        assert PARTS.index(other) <= PARTS.index(part), f"{part}/{path.name} imports {other}, a part above it: {names}"
        private = [n for n in names if n.startswith("_")]
        assert other == part or not private, f"{part}/{path.name} imports private names of {other}: {private}"
