"""Build the docs without Quarto: README.md from nbs/index.ipynb, and an HTML site from nbdev's processed notebooks.

Quarto cannot be installed on the project's machines, so this module does the two steps the tests need:

* `readme_text()` turns `nbs/index.ipynb` into the README's markdown (what `nbdev-readme` does with Quarto);
* `build_site(dest)` runs `nbdev-proc-nbs` (nbdev's own processing: directives, show_doc, doc links) on a copy
  of the project and renders each processed notebook to HTML with nbconvert, naming pages as Quarto does
  (`agreement/01_agreement.ipynb` -> `agreement/agreement.html`) and rewriting links to the docs site into local links. The pages
  typeset their mathematics with a local copy of MathJax 2.7 (from the dev extra's `jupyter-server-mathjax`, or
  Debian's `libjs-mathjax`), copied into the site's `mathjax/` folder, so they render with no network; Quarto's own
  build (`nbdev-docs`) keeps its CDN.

* `pyi_text()` writes the type stub `humancert/__init__.pyi` from the lazy namespace's table (`humancert._PUBLIC`), so
  IDEs and type checkers see the public names that `import humancert` only imports on first use.

    python tests/docs_site.py readme        # rewrite README.md from nbs/index.ipynb
    python tests/docs_site.py site DIR      # build the HTML site into DIR
    python tests/docs_site.py pyi           # rewrite humancert/__init__.pyi (after adding public names to nbs/99_package.ipynb)
"""
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT / "nbs"
HIDE = re.compile(r"^#\|\s*(hide|export|exporti|exports|default_exp)\b", re.M)


def _doc_url():
    "The docs site's base URL from pyproject's [project.urls] Documentation."
    m = re.search(r'^Documentation\s*=\s*"([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    return m.group(1).rstrip("/") + "/"


def page_name(nb_name):
    "Quarto's output path for a notebook, relative to the site: same folder, numeric prefix dropped, .html suffix."
    p = Path(nb_name)
    return (p.parent / (re.sub(r"^\d+_", "", p.stem) + ".html")).as_posix()


def readme_text(index=NBS / "index.ipynb"):
    "Markdown for README.md: markdown cells as they are, code cells and their text outputs as fenced blocks."
    nb = nbformat.read(index, as_version=4)
    parts = ["<!-- Generated from nbs/index.ipynb by `python tests/docs_site.py readme`; edit the notebook, not this file. -->"]
    for cell in nb.cells:
        src = cell.source.strip()
        if not src or (cell.cell_type == "code" and HIDE.search(src)): continue
        if cell.cell_type == "markdown": parts.append(src)
        elif cell.cell_type == "code":
            parts.append(f"```python\n{src}\n```")
            texts = []                                    # consecutive stream outputs (one print after another) form one block
            for out in cell.get("outputs", []):
                text = out.get("text") if out.get("output_type") == "stream" else out.get("data", {}).get("text/plain")
                if not text: continue
                if out.get("output_type") == "stream" and texts and texts[-1][0] == out.get("name"): texts[-1][1] += text
                else: texts.append([out.get("name"), text])
            parts += ["```\n" + text.rstrip("\n") + "\n```" for _, text in texts]
    return "\n\n".join(parts) + "\n"


def _sidebar(quarto_yml):
    "Notebook names listed in _quarto.yml's sidebar, in order."
    import yaml
    found = []
    def walk(x):
        if isinstance(x, str) and x.endswith(".ipynb"): found.append(x)
        elif isinstance(x, dict): [walk(v) for v in x.values()]
        elif isinstance(x, list): [walk(v) for v in x]
    walk(yaml.safe_load(Path(quarto_yml).read_text())["website"]["sidebar"])
    return found


def _nav(entries, up=""):
    "A plain navigation bar standing in for Quarto's sidebar (`up`: the way back to the site's root from the page)."
    links = " | ".join(f'<a class="site-nav" href="{up}{page_name(e)}">{Path(page_name(e)).stem}</a>' for e in entries)
    return f'<nav id="site-nav" style="padding:.5rem 1rem;border-bottom:1px solid #ccc">{links}</nav>'


def _front_matter_to_title(nb):
    "Render nbdev's front matter (title, description) as Quarto would: a heading and a summary line."
    import yaml
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "raw" and cell.source.startswith("---"):
            meta = yaml.safe_load(cell.source.strip().strip("-")) or {}
            text = f"# {meta.get('title', '')}\n\n> {meta.get('description', '')}".rstrip("> \n")
            nb.cells[i] = nbformat.v4.new_markdown_cell(text)
            return


MATHJAX_CONFIG = "TeX-AMS-MML_HTMLorMML-full,Safe"   # a combined configuration both local copies ship
MATHJAX_DONE = "data-mathjax-done"                  # set on <html> once MathJax's queue has typeset the page (value: formulas)
# Read by MathJax before its own startup (a config block placed before MathJax.js). The local copies ship only the
# STIX-Web fonts, while MathJax 2.7's HTML-CSS output defaults to its TeX fonts: without this the output falls back to
# `undefinedFamily` (system STIXGeneral, absent on most machines), losing italics, and every character that needs a
# font file it cannot find, such as the prime of `m'` or `c'`, becomes "[Math Processing Error]". TeX's end-of-proof
# squares are italic identifiers, a variant STIX-Web lacks, so they are redefined as the plain characters. The hook marks the
# page once the startup typeset has run, after nbconvert's own `Queue(["Typeset"])`, so a browser test can wait for it.
MATHJAX_SETUP = r"""<script type="text/x-mathjax-config">
MathJax.Hub.Config({"HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null},
                    SVG: {font: "STIX-Web"},
                    TeX: {Macros: {square: "{\\unicode{x25FB}}", Box: "{\\unicode{x25FB}}", blacksquare: "{\\unicode{x25FC}}"}}});
MathJax.Hub.Register.StartupHook("End", function () {
  MathJax.Hub.Queue(function () {
    document.documentElement.setAttribute("%s", String(MathJax.Hub.getAllJax().length));
  });
});
</script>
""" % MATHJAX_DONE


def with_mathjax_setup(html):
    "`html` with MATHJAX_SETUP inserted just before the page's MathJax.js script (an error if the page loads no MathJax)."
    out, n = re.subn(r'(<script[^>]*\bsrc="[^"]*mathjax/MathJax\.js)', lambda m: MATHJAX_SETUP + m.group(1), html, count=1)
    if n != 1: raise RuntimeError("the page loads no local MathJax.js: nbconvert's template changed, update with_mathjax_setup.")
    return out


def local_mathjax():
    "Folder of a local MathJax 2.7 (holding MathJax.js and config/), from jupyter-server-mathjax or Debian's libjs-mathjax."
    candidates = []
    try:
        import jupyter_server_mathjax
        candidates.append(Path(jupyter_server_mathjax.__file__).parent / "static")
    except ImportError: pass
    candidates.append(Path("/usr/share/javascript/mathjax"))
    for c in candidates:
        if (c / "MathJax.js").is_file() and (c / "config" / "TeX-AMS-MML_HTMLorMML-full.js").is_file(): return c
    raise RuntimeError("No local MathJax: install the dev extra (`pip install -e \".[dev]\"`, which brings "
                       "jupyter-server-mathjax) or Debian's libjs-mathjax, so the docs' mathematics renders offline.")


def build_site(dest):
    "Process the notebooks with nbdev and render them to HTML pages in `dest`; return the list of pages."
    from nbconvert import HTMLExporter
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        proj = Path(tmp) / "proj"
        proj.mkdir()
        for name in ("pyproject.toml", "README.md"):
            if (ROOT / name).exists(): shutil.copy(ROOT / name, proj / name)
        shutil.copytree(NBS, proj / "nbs")
        shutil.copytree(ROOT / "humancert", proj / "humancert")
        shutil.copytree(ROOT / "data", proj / "data")
        shutil.copytree(ROOT / "benchmarks", proj / "benchmarks", ignore=shutil.ignore_patterns("*.py", "__pycache__"))  # cached results notebooks read
        res = subprocess.run(["nbdev-proc-nbs"], cwd=proj, capture_output=True, text=True)
        if res.returncode != 0 or not (proj / "_proc").is_dir():
            raise RuntimeError(f"nbdev-proc-nbs failed ({res.returncode}):\n{res.stdout}\n{res.stderr}")
        from traitlets.config import Config
        c = Config()
        c.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
        c.TagRemovePreprocessor.enabled = True
        shutil.copytree(local_mathjax(), dest / "mathjax", dirs_exist_ok=True)
        exporters = {}                                            # one per folder depth: MathJax's path is relative
        base = _doc_url()
        entries = _sidebar(proj / "_proc" / "_quarto.yml")
        pages = []
        for nb_path in sorted((proj / "_proc").rglob("*.ipynb")):
            rel = nb_path.relative_to(proj / "_proc")
            if any(part.startswith((".", "_")) for part in rel.parts): continue
            up = "../" * (len(rel.parts) - 1)
            if up not in exporters:
                exporters[up] = HTMLExporter(template_name="lab", config=c, mathjax_url=f"{up}mathjax/MathJax.js?config={MATHJAX_CONFIG}")
            raw = json.loads(nb_path.read_text(encoding="utf-8"))
            for cell in raw["cells"]: cell.get("metadata", {}).pop("execution", None)   # nbdev's timing record, not valid nbformat
            nb = nbformat.reads(json.dumps(raw), as_version=4)
            _front_matter_to_title(nb)
            for cell in nb.cells:                                 # Quarto's `#| echo: false`: output without its code
                if cell.cell_type == "code" and re.search(r"^#\|\s*echo:\s*false", cell.source, re.M):
                    cell.metadata.setdefault("tags", []).append("remove_input")
                for out in cell.get("outputs", []):                # Quarto link attributes nbconvert would print as text
                    md = out.get("data", {}).get("text/markdown")
                    if md: out["data"]["text/markdown"] = re.sub(r"\{target=[^}]*\}", "", md)
            html, _ = exporters[up].from_notebook_node(nb)
            html = with_mathjax_setup(html.replace(base, up))                     # doc links -> local pages
            html = re.sub(r'href="(?:\./)?((?:[\w.-]+/)*)(\d+_)?([\w-]+)\.ipynb', r'href="\1\3.html', html)   # notebook links, as Quarto does
            html = re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + _nav(entries, up), html, count=1)
            out = dest / page_name(rel)
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(html, encoding="utf-8")
            pages.append(out)
        shutil.copy(proj / "_proc" / "_quarto.yml", dest / "_quarto.yml")
    return pages


STUB = ROOT / "humancert" / "__init__.pyi"


def pyi_text():
    "The type stub of the lazy namespace: each public name re-exported (`name as name`) from the module it is imported from."
    import importlib
    if str(ROOT) not in sys.path: sys.path.insert(0, str(ROOT))       # this checkout's package, not an installed one
    hc = importlib.import_module("humancert")
    lines = ["# Generated from humancert._PUBLIC (nbs/99_package.ipynb) by `python tests/docs_site.py pyi`; do not edit.",
             "# `import humancert` imports each public name on first use (PEP 562); this stub shows them to IDEs and type checkers.",
             "__version__: str", ""]
    for module, names in hc._PUBLIC.items():
        lines += [f"from .{module} import ("] + [f"    {n} as {n}," for n in names.split()] + [")"]
    lines += ["", "__all__ = ["] + [f"    {n!r}," for n in hc.__all__] + ["]", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    if sys.argv[1:2] == ["readme"]:
        (ROOT / "README.md").write_text(readme_text(), encoding="utf-8")
        print("wrote README.md")
    elif sys.argv[1:2] == ["pyi"]:
        STUB.write_text(pyi_text(), encoding="utf-8")
        print(f"wrote {STUB.relative_to(ROOT)}")
    elif sys.argv[1:2] == ["site"] and len(sys.argv) == 3:
        for p in build_site(sys.argv[2]): print(p)
    else:
        sys.exit(__doc__)
