"""The package is the notebooks' export: nbdev-export on a copy of the project changes nothing under humancert/."""
import filecmp
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tree(d):
    return {p.relative_to(d) for p in Path(d).rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def test_export_matches_committed_package(tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(ROOT / "pyproject.toml", proj)
    shutil.copytree(ROOT / "nbs", proj / "nbs")
    shutil.copytree(ROOT / "humancert", proj / "humancert", ignore=shutil.ignore_patterns("__pycache__"))
    res = subprocess.run(["nbdev-export"], cwd=proj, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    before, after = _tree(ROOT / "humancert"), _tree(proj / "humancert")
    assert before == after, f"files differ: added {sorted(map(str, after - before))}, missing {sorted(map(str, before - after))}"
    changed = [str(f) for f in sorted(before) if not filecmp.cmp(ROOT / "humancert" / f, proj / "humancert" / f, shallow=False)]
    assert not changed, f"nbdev-export changes {changed}: run nbdev-export and commit humancert/ (never edit it by hand)."
