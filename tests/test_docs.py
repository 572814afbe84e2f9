"""The docs, checked without Quarto: README in sync with nbs/index.ipynb, and the rendered site opened in headless Chromium.

The site is built by `docs_site.build_site` (nbdev-proc-nbs + nbconvert). Starting from index.html, Chromium loads
every page reachable through internal links; the test fails on a page the sidebar lists but that was not built, a
link to a page or file that does not exist, or a Python traceback anywhere in a rendered page. On every page it waits
for MathJax to finish (the page marks `<html>` when MathJax's queue has run, see `docs_site.MATHJAX_SETUP`) and fails
on any formula MathJax could not render ("[Math Processing Error]", a TeX error or undefined macro shown in red), on
mathematics drawn in the fallback font instead of the web fonts (no italics), and on TeX left as raw text.
"""
import re
import shutil
from html.parser import HTMLParser
import posixpath
from urllib.parse import urlparse, unquote

import pytest

from browser import chromium_or_skip, dump_dom
from docs_site import ROOT, MATHJAX_DONE, build_site, local_mathjax, readme_text, page_name, _sidebar, with_mathjax_setup

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\w+Error\s+Traceback")
MATH_PAGES = ("certification/upper_bound.html", "certification/confidence.html")   # theory pages, dense in inline and display maths


def raw_tex(dom):
    "TeX left as visible text in a page's DOM: `$...$` or `\\(...\\)` spans holding a backslash command, a prime, `_` or `^`, outside code."
    text = re.sub(r"(?s)<script.*?</script>|<style.*?</style>|<pre.*?</pre>|<code.*?</code>", " ", dom)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.findall(r"\$[^$\n]{0,200}?(?:\\[A-Za-z]+|[A-Za-z]'|[_^])[^$\n]{0,200}?\$|\\\([^\n]{0,200}?\\\)", text)


def math_problems(dom):
    "What is wrong with a page's mathematics once loaded in a browser; empty when MathJax finished and rendered every formula."
    done = re.search(r'<html[^>]*\b%s="(\d+)"' % MATHJAX_DONE, dom)
    if not done: return ["MathJax did not finish typesetting (no completion mark on <html>)"]
    problems = []
    errors = dom.count("[Math Processing Error]") + len(re.findall(r'class="MathJax_Error"', dom))
    if errors: problems.append(f"{errors} '[Math Processing Error]'")
    tex_errors = len(re.findall(r'class="noError"', dom))                 # noErrors extension: TeX that did not parse
    if tex_errors: problems.append(f"{tex_errors} TeX errors shown as source")
    undefined = re.findall(r'<span class="mtext"[^>]*color: red;?"[^>]*>([^<]*)', dom)   # noUndefined: macro name in red
    if undefined: problems.append(f"undefined macros {sorted(set(undefined))}")
    fallback = len(re.findall(r'style="[^"]*font-family: STIXGeneral', dom))   # web fonts missing: no italics, boxes
    if fallback: problems.append(f"{fallback} pieces of mathematics in the fallback font (MathJax found no web font)")
    left = raw_tex(dom)
    if left: problems.append(f"{len(left)} formulas left as raw TeX, e.g. {left[:3]}")
    return problems


def test_raw_tex_detector():
    "The check below can fail: it finds untypeset TeX and ignores TeX that MathJax has replaced or that sits in code."
    assert raw_tex("<p>bound $\\mathcal L_N$ here</p>") == ["$\\mathcal L_N$"]
    assert raw_tex('<p><span class="MathJax">L</span><script type="math/tex">\\mathcal L_N</script></p>') == []
    assert raw_tex("<pre>x = '$\\alpha$'</pre><p>costs $5 and $6</p>") == []
    assert raw_tex("<p>label $c'$ and $x_i$ left</p>") == ["$c'$", "$x_i$"]


def test_math_problems_detector():
    "Each kind of failure is reported, and a finished clean page gives none."
    ok = f'<html {MATHJAX_DONE}="2"><body><span class="MathJax">x</span></body></html>'
    assert math_problems(ok) == []
    assert "did not finish" in math_problems("<html><body>$x$</body></html>")[0]
    for bad, what in [('<span class="MathJax_Error">[Math Processing Error]</span>', "Math Processing Error"),
                      ('<span class="noError">\\frac{a</span>', "TeX errors"),
                      ('<span class="mtext" style="font-family: STIXMathJax_Main; color: red;">\\foo</span>', "undefined macros"),
                      ('<span style="font-family: STIXGeneral, serif">x</span>', "fallback font"),
                      ("<p>$\\mathcal L$</p>", "raw TeX")]:
        found = math_problems(ok.replace("x</span>", "x</span>" + bad))
        assert len(found) == 1 and what in found[0], (bad, found)


PROBE = (r"A prime $m'$, $\mathbf M_{c,c'}$, an underline $\underline{S}_\delta$, $\mathbb E[P'] = P$, an end of proof $\square$; "
         r"display $$\sum_i p_i(y_i)$$")


def _probe_page(folder, setup):
    "A page shaped like the site's (MathJax.js loaded from a relative folder) holding PROBE, with or without the site's setup."
    (folder / "mathjax").exists() or shutil.copytree(local_mathjax(), folder / "mathjax")
    html = ('<html><head><script src="mathjax/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"></script>'
            '<script type="text/x-mathjax-config">MathJax.Hub.Config({tex2jax: {inlineMath: [["$", "$"]]}}); '
            'MathJax.Hub.Queue(["Typeset", MathJax.Hub]);</script></head>'
            f"<body><h1>probe</h1><p>{PROBE}</p></body></html>")
    page = folder / ("with.html" if setup else "without.html")
    page.write_text(with_mathjax_setup(html) if setup else html.replace("<html>", f'<html {MATHJAX_DONE}="0">'), encoding="utf-8")
    return page


def test_mathjax_setup_in_browser(tmp_path):
    "The site's MathJax setup renders primes, underlines, squares and italics in Chromium; MathJax's defaults (the old render) fail the check."
    chromium = chromium_or_skip("the MathJax setup")
    good = dump_dom(chromium, _probe_page(tmp_path, True), tmp_path / "profile", budget_ms=20000)
    assert math_problems(good) == [], math_problems(good)
    assert f'{MATHJAX_DONE}="6"' in good                               # the six formulas of PROBE, typeset
    assert "STIXMathJax_Normal-italic" in good                          # italic letters from the web font
    bad = dump_dom(chromium, _probe_page(tmp_path, False), tmp_path / "profile", budget_ms=20000)
    found = " ".join(math_problems(bad))
    assert "Math Processing Error" in found and "fallback font" in found, found


def test_readme_matches_index():
    "README.md is what nbs/index.ipynb renders to (regenerate with `python tests/docs_site.py readme`)."
    assert (ROOT / "README.md").read_text(encoding="utf-8") == readme_text(), \
        "README.md is out of date with nbs/index.ipynb: run `python tests/docs_site.py readme` and commit it."


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(); self.hrefs, self.srcs, self.h1 = [], [], 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"): self.hrefs.append(a["href"])
        if tag in ("img", "script") and a.get("src"): self.srcs.append(a["src"])
        if tag == "h1": self.h1 += 1


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return tmp_path_factory.mktemp("site")


def test_site_in_browser(site, tmp_path):
    chromium = chromium_or_skip("the rendered docs")
    pages = build_site(site)
    built = {p.relative_to(site).as_posix() for p in pages}
    listed = [page_name(e) for e in _sidebar(site / "_quarto.yml")]
    missing = [p for p in listed if p not in built]
    assert not missing, f"pages listed in nbs/_quarto.yml but not built: {missing}"

    assert (site / "mathjax" / "MathJax.js").is_file(), "the site has no local MathJax"
    seen, todo, problems = set(), ["index.html"], []
    while todo:
        name = todo.pop()
        if name in seen: continue
        seen.add(name)
        page = site / name
        if not page.is_file():
            problems.append(f"missing page {name}"); continue
        dom = dump_dom(chromium, page, tmp_path / "profile", budget_ms=30000)
        if TRACEBACK.search(dom): problems.append(f"Python traceback rendered in {name}")
        problems += [f"{name}: {p}" for p in math_problems(dom)]
        if name in MATH_PAGES:
            typeset = len(re.findall(r'class="MathJax(?:_Display)?"', dom))
            if typeset < 20: problems.append(f"{name}: only {typeset} formulas typeset by MathJax")
        parser = _Links(); parser.feed(dom)
        if parser.h1 == 0: problems.append(f"{name} has no title (h1)")
        for ref in parser.hrefs + parser.srcs:
            u = urlparse(ref)
            if u.scheme in ("http", "https", "mailto", "data", "javascript") or u.netloc: continue
            if not u.path: continue                              # same-page anchor
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), unquote(u.path)))   # relative to the page
            if not (site / target).is_file(): problems.append(f"broken link in {name}: {ref}")
            elif target.endswith(".html"): todo.append(target)
    assert not problems, "\n".join(problems)
    assert set(listed) <= seen, f"pages not reachable from index.html: {sorted(set(listed) - seen)}"
    assert set(MATH_PAGES) <= seen, f"theory pages not reached: {sorted(set(MATH_PAGES) - seen)}"
