"""Headless Chromium for tests: find it, and read a page's DOM after it has loaded and run its scripts."""
import os
import shutil
import subprocess

import pytest


def chromium_or_skip(what):
    "Path of Chromium; without it skip (fail in CI) with a message saying what was not checked."
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name): return shutil.which(name)
    msg = f"Chromium is not installed (Debian: apt-get install chromium); {what} was not opened in a browser."
    if os.environ.get("CI"): pytest.fail(msg + " CI must install it (.ci/run does).")
    pytest.skip(msg)


def dump_dom(chromium, page, profile, budget_ms=3000):
    "The DOM of `page` after Chromium has loaded it and run its scripts for `budget_ms` of virtual time."
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={profile}", f"--virtual-time-budget={budget_ms}", "--dump-dom", page.as_uri()]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, f"chromium failed on {page.name}: {res.stderr[-2000:]}"
    return res.stdout
