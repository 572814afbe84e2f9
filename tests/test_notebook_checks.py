"""Checks that cannot fail, kept out of the notebooks.

Two patterns made up most of the checks an independent review found unable to fail:

(a) an assertion comparing a call with the same call (`test_eq(f(x, seed=3), f(x, seed=3))`, `assert f(s) == f(s)`):
    it holds for any deterministic code, right or wrong;
(b) a number literal in an assertion that also appears in the same cell's stored output (`test_eq(round(v, 4), 0.7442)`
    beside an output showing 0.7442): a value read off the code's own output, which checks that the code still does what
    it did, not that it is right.

This test scans every notebook's code cells for both. A value that really comes from elsewhere (a paper, a peer library,
a hand computation) is written so that its source is visible (a comment on the line or the line above naming the paper,
the peer or the hand computation, a name such as `t_paper`, or a computation), not as the number the cell prints. Pattern (b) looks at decimal literals with four or more decimals or significant digits (how a
printed S, score or rate is copied: 0.4496, -0.0095, 0.9902); integers (counts and sizes of a dataset, which its
documentation states) and plainer decimals (0.5, 0.95, 7.63) are not flagged.
"""
import ast
import json
import pathlib
import re

import pytest

NBS = pathlib.Path(__file__).resolve().parents[1] / "nbs"
ASSERTERS = {"test_eq", "test_close", "test_ne", "test_eq_type", "assert_allclose", "assert_array_equal", "assert_equal"}
SOURCE_NAMED = re.compile(r"#.*\b(peer|paper|published|reported|by hand|hand values?)\b", re.I)   # a comment naming where a value is from
TRANSPARENT = {"round", "abs", "float", "int", "approx", "tuple", "list", "set", "array", "asarray"}


def _name(f):
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _source(cell):
    "Cell source with IPython magics and shell lines blanked, so that ast can parse it."
    src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
    return "\n".join("" if l.lstrip().startswith(("%", "!")) else l for l in src.splitlines())


def _assertions(tree):
    "Each assertion: (node, the compared operands); a for loop whose body asserts counts too (its literals feed the assertion)."
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            t = node.test
            ops = [t.left, *t.comparators] if isinstance(t, ast.Compare) and all(isinstance(o, (ast.Eq, ast.Is)) for o in t.ops) else []
            yield node, ops
        elif isinstance(node, ast.Call) and _name(node.func) in ASSERTERS:
            yield node, node.args[:2]
        elif isinstance(node, ast.For) and any(isinstance(n, ast.Assert) or (isinstance(n, ast.Call) and _name(n.func) in ASSERTERS)
                                               for b in node.body for n in ast.walk(b)):
            yield node, []


def same_call_comparisons(src):
    "Assertions whose two sides are the same expression containing a call (pattern a)."
    try: tree = ast.parse(src)
    except SyntaxError: return []
    out = []
    for node, ops in _assertions(tree):
        if len(ops) == 2 and ast.dump(ops[0]) == ast.dump(ops[1]) and any(isinstance(n, ast.Call) for n in ast.walk(ops[0])):
            out.append(ast.unparse(node)[:120])
    return out


def _literals(node):
    "Number literals among an assertion's operands, not those passed as inputs to a call (round(x, 4)'s 4 is an input too)."
    found = []
    def visit(n):
        if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
            found.append(n)
        elif isinstance(n, ast.UnaryOp):
            visit(n.operand)
        elif isinstance(n, (ast.Tuple, ast.List, ast.Set)):
            for e in n.elts: visit(e)
        elif isinstance(n, ast.Call) and _name(n.func) in TRANSPARENT:
            if n.args: visit(n.args[0])
        elif isinstance(n, ast.Compare):
            for e in (n.left, *n.comparators): visit(e)
        elif isinstance(n, ast.BoolOp):
            for e in n.values: visit(e)
    if isinstance(node, ast.Assert): visit(node.test)
    elif isinstance(node, ast.For):
        it = node.iter
        for a in (it.args if isinstance(it, ast.Call) and _name(it.func) in ("zip", "enumerate") else [it]): visit(a)
    else:
        for a in node.args[:2]: visit(a)
    return found


def _looks_copied(text):
    "A decimal literal precise enough to have been copied from an output: four or more decimals, or four or more significant digits."
    if "." not in text or "e" in text.lower(): return False             # integers (counts, sizes) and tolerances like 1e-12
    decimals = text.split(".")[1]
    significant = re.sub(r"[^0-9]", "", text).lstrip("0")
    return len(decimals) >= 4 or len(significant.rstrip("0")) >= 4


def _outputs_text(cell):
    parts = []
    for o in cell.get("outputs", []):
        if "text" in o: parts.append(o["text"] if isinstance(o["text"], str) else "".join(o["text"]))
        for k in ("text/plain", "text/markdown"):
            v = o.get("data", {}).get(k)
            if v: parts.append(v if isinstance(v, str) else "".join(v))
    return "\n".join(parts)


def literals_from_own_output(cell):
    "Literals in assertions that also appear in the cell's stored output (pattern b)."
    out_text = _outputs_text(cell)
    if not out_text: return []
    try: tree = ast.parse(_source(cell))
    except SyntaxError: return []
    plain = out_text.replace(",", "")
    lines = _source(cell).splitlines()
    hits = []
    for node, _ in _assertions(tree):
        span = "\n".join(lines[max(node.lineno - 2, 0):node.end_lineno])   # the statement and the line above it
        names = {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        if SOURCE_NAMED.search(span) or any(re.search(r"paper|peer", n) for n in names): continue
        for lit in _literals(node):
            text = ast.get_source_segment(_source(cell), lit) or repr(lit.value)
            if text is None or not isinstance(lit.value, float): continue
            text = text.replace("_", "")
            if not _looks_copied(text): continue
            if re.search(r"(?<![\d.])" + re.escape(text) + r"(?![\d])", plain):
                hits.append(f"{text} in `{ast.unparse(node)[:100]}`")
    return hits


def notebook_violations(nb):
    "Every pattern-(a) and pattern-(b) finding in one notebook (a parsed .ipynb), with the cell's first line."
    found = []
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code": continue
        src = _source(cell)
        head = src.strip().splitlines()[0][:60] if src.strip() else ""
        found += [f"cell {i} ({head!r}): compares a call with itself: {s}" for s in same_call_comparisons(src)]
        found += [f"cell {i} ({head!r}): literal copied from the cell's own output: {s}" for s in literals_from_own_output(cell)]
    return found


@pytest.mark.parametrize("path", sorted(p for p in NBS.rglob("*.ipynb") if not any(s.startswith((".", "_")) for s in p.relative_to(NBS).parts)),
                         ids=lambda p: p.relative_to(NBS).as_posix())
def test_no_check_restates_the_code(path):
    found = notebook_violations(json.loads(path.read_text()))
    assert not found, f"{path.name}:\n" + "\n".join(found)


# The detector on cells that were in the notebooks before this test existed: it must flag each of them.
OLD_CELLS = [
    ({"cell_type": "code", "source": 'test_eq(classifier_score(hard_labels, cnt, "f1", seed=3).value, classifier_score(hard_labels, cnt, "f1", seed=3).value)',
      "outputs": []}, "a"),
    ({"cell_type": "code", "source": "test_eq(Majority(2).predict(Y, seed=5).tolist(), Majority(2).predict(Y, seed=5).tolist())", "outputs": []}, "a"),
    ({"cell_type": "code", "source": "assert f(seed) == f(seed)", "outputs": []}, "a"),
    ({"cell_type": "code", "source": 'test_eq(round(scores.loc["agreement", "value"], 4), 0.7442)\nscores.round(4)',
      "outputs": [{"output_type": "execute_result", "data": {"text/plain": "agreement      0.7442     1000"}}]}, "b"),
    ({"cell_type": "code", "source": 'test_close(round(confidence(L, U, N, "oms").score, 4), -0.0095, eps=1e-12)',
      "outputs": [{"output_type": "execute_result", "data": {"text/plain": "oms (feasible)                       -0.0095"}}]}, "b"),
    ({"cell_type": "code", "source": "test_close(round(unconstrained, 4), 1.0, eps=1e-12)\ntest_close(round(confidence(L, U, N, 'optimal').score, 4), 0.4496, eps=1e-12)",
      "outputs": [{"output_type": "execute_result", "data": {"text/plain": "optimal                               0.4496"}}]}, "b"),
    ({"cell_type": "code", "source": "for got, want in zip(s[:3], (0.1955, 0.9902, 0.9978)): test_close(round(got, 4), want, eps=1e-9)\nassert s[1] > 0.9902 - 1",
      "outputs": [{"output_type": "execute_result", "data": {"text/plain": "0.9902"}}]}, "b"),
]
ACCEPTED = [
    {"cell_type": "code", "source": "test_eq(f(x, seed=3), g(x, seed=3))\ntest_close(v, 0.5, eps=1e-3)\nassert v < 0.9",
     "outputs": [{"output_type": "execute_result", "data": {"text/plain": "0.5 0.9"}}]},
    {"cell_type": "code", "source": "test_close(mean, 2.4714, eps=4 * se)", "outputs": [{"output_type": "stream", "name": "stdout", "text": "mean 2.46"}]},
]


@pytest.mark.parametrize("cell,pattern", OLD_CELLS)
def test_detector_flags_the_old_checks(cell, pattern):
    found = same_call_comparisons(_source(cell)) if pattern == "a" else literals_from_own_output(cell)
    assert found, cell["source"]


@pytest.mark.parametrize("cell", ACCEPTED)
def test_detector_accepts_independent_checks(cell):
    assert not same_call_comparisons(_source(cell)) and not literals_from_own_output(cell)
