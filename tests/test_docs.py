"""The docs, checked without Quarto: README in sync with nbs/index.ipynb, and the rendered site opened in headless Chromium.

The site is built by `docs_site.build_site` (nbdev-proc-nbs + nbconvert). Starting from index.html, Chromium loads
every page reachable through internal links; the test fails on a page the sidebar lists but that was not built, a
link to a page or file that does not exist, or a Python traceback anywhere in a rendered page.
"""
import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse, unquote

import pytest

from docs_site import ROOT, build_site, readme_text, page_name, _sidebar

TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\w+Error\s+Traceback")


def test_readme_matches_index():
    "README.md is what nbs/index.ipynb renders to (regenerate with `python tests/docs_site.py readme`)."
    assert (ROOT / "README.md").read_text(encoding="utf-8") == readme_text(), \
        "README.md is out of date with nbs/index.ipynb: run `python tests/docs_site.py readme` and commit it."


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name): return shutil.which(name)
    return None


class _Links(HTMLParser):
    def __init__(self):
        super().__init__(); self.hrefs, self.srcs, self.h1 = [], [], 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"): self.hrefs.append(a["href"])
        if tag in ("img", "script") and a.get("src"): self.srcs.append(a["src"])
        if tag == "h1": self.h1 += 1


def _dump_dom(chromium, page, profile):
    "The DOM of `page` after Chromium has loaded and run it."
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", "--virtual-time-budget=3000", "--dump-dom", page.as_uri()]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"chromium failed on {page.name}: {res.stderr[-2000:]}"
    return res.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return tmp_path_factory.mktemp("site")


def test_site_in_browser(site, tmp_path):
    chromium = _chromium()
    if chromium is None:
        msg = "Chromium is not installed (Debian: apt-get install chromium); the rendered docs were not opened in a browser."
        if os.environ.get("CI"): pytest.fail(msg + " CI must install it (.ci/run does).")
        pytest.skip(msg)
    pages = build_site(site)
    built = {p.name for p in pages}
    listed = [page_name(e) for e in _sidebar(site / "_quarto.yml")]
    missing = [p for p in listed if p not in built]
    assert not missing, f"pages listed in nbs/_quarto.yml but not built: {missing}"

    seen, todo, problems = set(), ["index.html"], []
    while todo:
        name = todo.pop()
        if name in seen: continue
        seen.add(name)
        page = site / name
        if not page.is_file():
            problems.append(f"missing page {name}"); continue
        dom = _dump_dom(chromium, page, tmp_path / "profile")
        if TRACEBACK.search(dom): problems.append(f"Python traceback rendered in {name}")
        parser = _Links(); parser.feed(dom)
        if parser.h1 == 0: problems.append(f"{name} has no title (h1)")
        for ref in parser.hrefs + parser.srcs:
            u = urlparse(ref)
            if u.scheme in ("http", "https", "mailto", "data", "javascript") or u.netloc: continue
            if not u.path: continue                              # same-page anchor
            target = unquote(u.path)
            if not (site / target).is_file(): problems.append(f"broken link in {name}: {ref}")
            elif target.endswith(".html"): todo.append(target)
    assert not problems, "\n".join(problems)
    assert set(listed) <= seen, f"pages not reachable from index.html: {sorted(set(listed) - seen)}"
