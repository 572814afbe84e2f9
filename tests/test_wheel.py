"""A built wheel carries the bundled data, and a plain (non-editable) install loads every dataset from it."""
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_ships_data_and_loads(tmp_path):
    src = tmp_path / "src"          # build from a copy: setuptools leaves build/ behind, and a stale one hides changes
    src.mkdir()
    for name in ("pyproject.toml", "README.md"): shutil.copy(ROOT / name, src)
    for name in ("humancert", "data"): shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    res = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(src)],
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    wheel = next(tmp_path.glob("humancert-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for f in ("running_example", "personal_attacks", "credbank", "guessthekarma", "imagenet_real", "imagenet_real_golden", "davidson"):
        assert f"humancert/_data/{f}.csv.gz" in names
    assert "humancert/_data/README.md" in names
    assert {"humancert/py.typed", "humancert/__init__.pyi"} <= names     # package-data: where type checkers look for them
    for lic in ("surveyequivalence", "reassessed-imagenet", "davidson"): assert f"humancert/_data/LICENSE-{lic}" in names
    assert not any(n.endswith(("make_data.py", "make_imagenet.py")) for n in names)
    # unpack the wheel (what pip would install) and load every dataset from it, away from the checkout
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    code = ("import humancert, humancert.data.datasets as d; assert str(humancert.__file__).startswith(%r);"
            "print([d.load(n).annotations.n_items for n in d.DATASETS])" % str(site))
    res = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(site)!r}); {code}"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip() == "[1000, 23178, 1377, 400, 184962, 1135, 24783, 3000, 15090, 350]"
