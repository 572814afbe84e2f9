"""What IDEs, type checkers and `help()` see of the lazy namespace (issue 33 item 2).

* `humancert/__init__.pyi` is what `python tests/docs_site.py pyi` writes, names exactly `humancert.__all__`, and each
  name it re-exports is the object the namespace returns; `py.typed` marks the package as typed, and both ship in the
  wheel through pyproject's package-data.
* `help()` shows each public function's parameters: the numpy-style sections the namespace adds hold, for every
  parameter, the comment fastcore's `docments` (the peer parser, imported here only) reads from the same source.
"""
import ast
import importlib
import pydoc
import subprocess
import sys
import tomllib

import pytest

import humancert
from docs_site import ROOT, STUB, pyi_text


def _stub_exports(text):
    "(module, name) pairs the stub re-exports, and its `__all__` list, read with ast."
    tree = ast.parse(text)
    pairs = [(node.module, a.name) for node in tree.body if isinstance(node, ast.ImportFrom)
             for a in node.names if a.asname == a.name]                    # `name as name`: an explicit re-export
    all_ = next(ast.literal_eval(n.value) for n in tree.body
                if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets))
    return pairs, all_


def test_stub_is_current():
    "The committed stub is the generated one (after adding public names: `python tests/docs_site.py pyi`)."
    assert STUB.is_file(), "humancert/__init__.pyi is missing: run `python tests/docs_site.py pyi` and commit it."
    assert STUB.read_text(encoding="utf-8") == pyi_text(), \
        "humancert/__init__.pyi is out of date with humancert._PUBLIC: run `python tests/docs_site.py pyi` and commit it."


def test_stub_names_the_namespace():
    "Every name in humancert.__all__, once each, re-exported from the module whose object the namespace returns."
    pairs, all_ = _stub_exports(STUB.read_text(encoding="utf-8"))
    names = [n for _, n in pairs]
    assert sorted(names) == sorted(set(names)), "a name is exported twice"
    assert set(names) == set(humancert.__all__) == set(all_)
    for module, name in pairs:
        assert getattr(importlib.import_module(f"humancert.{module}"), name) is getattr(humancert, name), (module, name)


def test_stub_checker_can_fail():
    "The checks above can fail: a stub that misses a name differs from the namespace and from the generated text."
    broken = pyi_text().replace("    alt_test as alt_test,\n", "")
    assert {n for _, n in _stub_exports(broken)[0]} != set(humancert.__all__)
    assert broken != pyi_text()                                        # and the staleness check would see it


def test_typed_marker_and_package_data():
    "py.typed exists, and pyproject ships it and the stub with the package."
    assert (ROOT / "humancert" / "py.typed").is_file()
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["humancert"]
    assert "py.typed" in data and "*.pyi" in data


def _public_functions():
    import inspect
    return [n for n in humancert.__all__ if inspect.isfunction(getattr(humancert, n))]


@pytest.mark.parametrize("name", _public_functions())
def test_help_lists_every_documented_parameter(name):
    "help(humancert.NAME) holds a Parameters section with each parameter's docments comment, as fastcore's parser reads it."
    from fastcore.docments import docments
    fn = getattr(humancert, name)
    notes = {k: v for k, v in docments(fn).items() if v and k != "return"}
    text = pydoc.render_doc(fn, renderer=pydoc.plaintext)
    if not notes:
        assert "Parameters\n" not in text; return
    section = text.split("Parameters\n")[1]
    for param, note in notes.items():
        assert f"{param}" in section and " ".join(note.split()) in " ".join(section.split()), (name, param, note)


def test_help_without_docments_import_in_a_fresh_interpreter():
    "The sections are built without importing fastcore.docments (0.65 s), and `import humancert` still loads no module."
    code = ("import sys, humancert; before = sorted(m for m in sys.modules if m.startswith('humancert.')); "
            "doc = humancert.certify.__doc__; "
            "print(before, 'Parameters' in doc, 'fastcore.docments' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[] True False"
