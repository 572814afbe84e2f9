"""Every public class is whole however it is imported (issue 36, item 15): imported alone from its own module in a fresh
interpreter, it has the same methods, properties and signatures as after `import humancert` has loaded every module.
(Methods attached by `@patch` from another module used to appear only once that module was imported:
`from humancert.data.annotations import Annotations` gave a class without `from_table`.)"""
import json
import subprocess
import sys

import pytest

import humancert

CLASSES = sorted(n for n in humancert.__all__ if isinstance(getattr(humancert, n), type))

SURFACE = r'''
import inspect, json, sys
def surface(cls):
    "Name -> (kind, signature) of every public attribute of the class."
    out = {}
    for name in dir(cls):
        if name.startswith("__") and name not in ("__init__", "__repr__", "__eq__", "__len__", "__float__", "__call__"): continue
        raw = inspect.getattr_static(cls, name)
        kind = type(raw).__name__
        try: sig = str(inspect.signature(getattr(cls, name)))
        except (TypeError, ValueError): sig = None
        out[name] = (kind, sig)
    return out
'''


def run(code):
    res = subprocess.run([sys.executable, "-c", SURFACE + code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


@pytest.fixture(scope="module")
def loaded():
    "The classes' surfaces after `import humancert` and every public name resolved (every module imported)."
    return run("import humancert\n[getattr(humancert, n) for n in humancert.__all__]\n"
               f"print(json.dumps({{n: surface(getattr(humancert, n)) for n in {CLASSES!r}}}))")


def test_classes_found():
    assert {"Annotations", "Profiles", "LabelStudioExport", "Report"} <= set(CLASSES)


FORKS = r'''
import os, sys
import numpy, pandas, scipy.stats, scipy.optimize, scipy.special, scipy.integrate, scipy.interpolate, fastcore.basics
assert not [m for m in sys.modules if m.split(".")[0] == "humancert"], "the parent imported humancert"
by_module = json.loads(sys.argv[1])
children = {}
for m, names in by_module.items():
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            import importlib
            mod = importlib.import_module("humancert." + m)
            out = json.dumps({n: surface(getattr(mod, n)) for n in names})
        except BaseException as e:
            out = json.dumps({"error": f"{m}: {e!r}"})
        with os.fdopen(w, "w") as f: f.write(out)
        os._exit(0)
    os.close(w)
    children[m] = (pid, r)
result = {}
for m, (pid, r) in children.items():
    with os.fdopen(r) as f: got = json.loads(f.read())
    os.waitpid(pid, 0)
    if "error" in got: sys.exit(got["error"])
    result |= got
print(json.dumps(result))
'''


@pytest.fixture(scope="module")
def alone():
    """Each module's classes' surfaces, the module imported alone in a fresh interpreter: one process loads the
    third-party libraries (numpy, pandas, scipy, fastcore; no humancert module, which it checks) and forks one child
    per module, which imports only that humancert module (39 cold interpreters cost a minute of CPU)."""
    by_module = {}
    for n in CLASSES: by_module.setdefault(humancert._MODULE_OF[n], []).append(n)
    res = subprocess.run([sys.executable, "-c", SURFACE + FORKS, json.dumps(by_module)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) == set(CLASSES)
    return out


@pytest.mark.parametrize("name", CLASSES)
def test_class_is_whole_from_its_own_module(name, loaded, alone):
    module = humancert._MODULE_OF[name]
    alone = alone[name]
    missing = sorted(set(loaded[name]) - set(alone))
    assert not missing, f"{name} imported from humancert.{module} alone lacks {missing}"
    assert alone == loaded[name]


def test_annotations_constructors_without_the_package():
    "The three methods of the issue, and from_nested, called after importing the class's module alone."
    code = ("from humancert.data.annotations import Annotations\nimport pandas as pd\n"
            "df = pd.DataFrame({'task': [1, 1], 'worker': ['a', 'b'], 'label': ['x', 'y']})\n"
            "a = Annotations.from_crowdkit(df)\n"
            "b = Annotations.from_table(df, item='task', annotator='worker')\n"
            "c = Annotations.from_nested({'a': {1: 'x'}, 'b': {1: 'y'}})\n"
            "ls = [{'id': 1, 'annotations': [{'completed_by': w, 'result': [{'from_name': 's', 'type': 'choices', "
            "'value': {'choices': [l]}}]} for w, l in (('a', 'x'), ('b', 'y'))]}]\n"
            "d = Annotations.from_label_studio(ls)\n"
            "print(json.dumps([x.counts.tolist() for x in (a, b, c, d)]))")
    assert run(code) == [[[1, 1]]] * 4
