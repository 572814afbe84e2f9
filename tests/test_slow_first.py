"The longest modules and notebooks are scheduled first (tests/slow_first.txt, read by tests/conftest.py): every entry names a file that exists, once."
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_slow_first_names_existing_files():
    lines = (ROOT / "tests" / "slow_first.txt").read_text().splitlines()
    names = [l.strip() for l in lines if l.strip() and not l.startswith("#")]
    assert names, "tests/slow_first.txt lists nothing: the long modules would again be scheduled in collection order"
    missing = [s for s in names if not (ROOT / s).is_file()]
    assert not missing, f"tests/slow_first.txt names files that do not exist (renamed? update the list): {missing}"
    assert len(set(names)) == len(names), "tests/slow_first.txt names a file twice"
