"""The report part is in rooms (issue 44 item 7): no import cycle inside it, and a room imports only the rooms before it.

A room is a module of `humancert/report`, its place the number of the notebook it is exported from (`80_sections` ... `92_gold_status`).
Every import of another room counts, at the top of the module or inside a function (a lazy import is still a cycle: before
the split `cli` imported `gold_status` for its command table and `gold_status` imported `cli` inside its functions). The one
exception to the order is the command table of the CLI: `cli` imports each command's function (`gold_status`, and later ones
such as `doctor`) to register it, and such a command module must then never import `cli` (the cycle check catches it).
"""
import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "humancert" / "report"
SOURCE = re.compile(r"File to edit: .*?/(\d+)_\w+\.ipynb")


def rooms(folder=REPORT):
    "room (module name) -> its notebook's number, for every module of the folder but __init__."
    out = {}
    for p in sorted(folder.glob("*.py")):
        if p.name == "__init__.py": continue
        m = SOURCE.search(p.read_text(encoding="utf-8"))
        assert m, f"{p.name}: no 'File to edit' line naming its notebook"
        out[p.stem] = int(m.group(1))
    return out


def room_imports(path, known, package="humancert.report"):
    "{room imported: names imported} for every import of another room anywhere in the module (top level or inside a function)."
    found = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if node.level == 1: target = mod.split(".")[0] if mod else None
            elif node.level == 0 and mod.startswith(package + "."): target = mod[len(package) + 1:].split(".")[0]
            else: continue
            names = [a.name for a in node.names]
            if target is None: targets = [(n, []) for n in names if n in known]        # from . import cli
            else: targets = [(target, names)]
            for t, ns in targets:
                if t in known: found.setdefault(t, []).extend(ns)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith(package + "."):
                    t = a.name[len(package) + 1:].split(".")[0]
                    if t in known: found.setdefault(t, [])
    return found


def command_functions(path):
    "The names the CLI's command table (COMMANDS = {...}) refers to: the commands' functions."
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "COMMANDS" for t in node.targets):
            return {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
    return set()


def graph(folder=REPORT):
    known = rooms(folder)
    return known, {r: room_imports(folder / f"{r}.py", known) for r in known}


def cycle(edges):
    "One import cycle as a list of rooms [a, b, ..., a], or None."
    state, stack = {}, []
    def visit(r):
        state[r] = 1; stack.append(r)
        for t in edges.get(r, {}):
            if t == r: continue
            if state.get(t) == 1: return stack[stack.index(t):] + [t]
            if state.get(t) is None and (c := visit(t)): return c
        state[r] = 2; stack.pop()
        return None
    for r in sorted(edges):
        if state.get(r) is None and (c := visit(r)): return c
    return None


def upward(folder=REPORT):
    "Imports of a later room by an earlier one, other than the CLI's command table registering a command's function."
    known, edges = graph(folder)
    commands = command_functions(folder / "cli.py") if (folder / "cli.py").exists() else set()
    bad = []
    for r, targets in edges.items():
        for t, names in targets.items():
            if known[t] <= known[r]: continue
            if r == "cli" and names and set(names) <= commands: continue
            bad.append(f"{r} (notebook {known[r]}) imports {t} (notebook {known[t]}): {names}")
    return bad


def test_report_part_has_no_import_cycle():
    known, edges = graph()
    assert {"reporting", "cli", "gold_status"} <= set(known), sorted(known)
    c = cycle(edges)
    assert c is None, "import cycle inside humancert/report: " + " -> ".join(c)


def test_report_rooms_import_only_earlier_rooms():
    bad = upward()
    assert not bad, "a room imports a later room:\n" + "\n".join(bad)


def test_the_forms_are_functions_of_the_sections():
    "Each form imports the sections and no other form; the report imports each form (its methods call them)."
    _, edges = graph()
    forms = ("text_form", "markdown_form", "html_form", "json_form")
    for f in forms:
        assert "sections" in edges[f] and not set(edges[f]) & (set(forms) - {f}), (f, edges[f])
    assert set(forms) <= set(edges["reporting"]), edges["reporting"]


def _module(folder, name, number, body):
    (folder / f"{name}.py").write_text(f'"""x"""\n# AUTOGENERATED! DO NOT EDIT! File to edit: ../../nbs/report/{number}_{name}.ipynb.\n{body}\n')


def test_checks_see_a_lazy_cycle_and_an_upward_import(tmp_path):
    "The checks on a made-up part: a lazy import inside a function closes a cycle; an upward import is found; a command is allowed."
    _module(tmp_path, "cli", 90, "from .gold import gold\nCOMMANDS = {'gold': (gold, [])}")
    _module(tmp_path, "gold", 92, "def gold():\n    from humancert.report.cli import COMMANDS\n    return COMMANDS")
    _module(tmp_path, "low", 80, "import humancert.report.high")
    _module(tmp_path, "high", 85, "from . import low")
    known, edges = graph(tmp_path)
    assert edges["gold"] == {"cli": ["COMMANDS"]} and edges["high"] == {"low": []} and edges["low"] == {"high": []}
    assert cycle(edges) in (["cli", "gold", "cli"], ["gold", "cli", "gold"], ["high", "low", "high"], ["low", "high", "low"])
    assert cycle({k: v for k, v in edges.items() if k not in ("low", "high")}) in (["cli", "gold", "cli"], ["gold", "cli", "gold"])
    assert upward(tmp_path) == ["low (notebook 80) imports high (notebook 85): []"]      # cli -> gold is the command table
    (tmp_path / "gold.py").write_text((tmp_path / "gold.py").read_text().replace("from humancert.report.cli import COMMANDS", "COMMANDS = {}"))
    assert cycle({k: v for k, v in graph(tmp_path)[1].items() if k not in ("low", "high")}) is None
