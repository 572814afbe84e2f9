"""The docs, checked without Quarto: README in sync with nbs/index.ipynb, and the rendered site opened in headless Chromium.

The site is built by `docs_site.build_site` (nbdev-proc-nbs + nbconvert). Starting from index.html, Chromium loads
every page reachable through internal links; the test fails on a page the sidebar lists but that was not built, a
link to a page or file that does not exist, or a Python traceback anywhere in a rendered page. On two theory pages it
also checks that the mathematics was typeset by the local MathJax: MathJax's output elements are there and no TeX
source is left as text.
"""
import re
from html.parser import HTMLParser
import posixpath
from urllib.parse import urlparse, unquote

import pytest

from browser import chromium_or_skip, dump_dom
from docs_site import ROOT, build_site, readme_text, page_name, _sidebar

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\w+Error\s+Traceback")
MATH_PAGES = ("certification/upper_bound.html", "certification/confidence.html")   # theory pages, dense in inline and display maths


def raw_tex(dom):
    "TeX left as visible text in a page's DOM: `$...$` or `\\(...\\)` spans holding a backslash command, outside code."
    text = re.sub(r"(?s)<script.*?</script>|<style.*?</style>|<pre.*?</pre>|<code.*?</code>", " ", dom)
    text = re.sub(r"<[^>]+>", " ", text)
    return re.findall(r"\$[^$\n]{0,200}?\\[A-Za-z]+[^$\n]{0,200}?\$|\\\([^\n]{0,200}?\\\)", text)


def test_raw_tex_detector():
    "The check below can fail: it finds untypeset TeX and ignores TeX that MathJax has replaced or that sits in code."
    assert raw_tex("<p>bound $\\mathcal L_N$ here</p>") == ["$\\mathcal L_N$"]
    assert raw_tex('<p><span class="MathJax">L</span><script type="math/tex">\\mathcal L_N</script></p>') == []
    assert raw_tex("<pre>x = '$\\alpha$'</pre><p>costs $5 and $6</p>") == []


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
        dom = dump_dom(chromium, page, tmp_path / "profile", budget_ms=20000 if name in MATH_PAGES else 3000)
        if TRACEBACK.search(dom): problems.append(f"Python traceback rendered in {name}")
        if name in MATH_PAGES:
            typeset = len(re.findall(r'class="MathJax(?:_Display)?"', dom))
            left = raw_tex(dom)
            if typeset < 20: problems.append(f"{name}: only {typeset} formulas typeset by MathJax")
            if left: problems.append(f"{name}: {len(left)} formulas left as raw TeX, e.g. {left[:3]}")
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
