"""Repository-wide pytest setup.

nbdev-clean blanks every execution count, and nbval 0.11 then refuses each cell that has stored
outputs ("Unrun reference cell has outputs"). Notebooks here are committed cleaned *and* with
outputs, so when nbval reads a notebook we number its code cells that have outputs, in order.
Nothing is written back to disk.
"""
import types

import nbformat

try:
    import nbval.plugin as _nbval_plugin
except ImportError:  # nbval not installed: notebooks are simply not collected
    _nbval_plugin = None

def _read_numbered(fp, *args, **kwargs):
    nb = _nbformat_read(fp, *args, **kwargs)
    n = 0
    for cell in nb.cells:
        if cell.get("cell_type") == "code":
            n += 1
            if cell.get("outputs") and cell.get("execution_count") is None: cell["execution_count"] = n
    return nb

if _nbval_plugin is not None:
    class _NbformatShim(types.ModuleType):
        "nbformat as nbval sees it: the real module, except `read` numbers unnumbered cells."
        def __getattr__(self, name): return getattr(nbformat, name)
    _nbformat_read = nbformat.read
    _nbval_plugin.nbformat = _NbformatShim("nbformat")
    _nbval_plugin.nbformat.read = _read_numbered
