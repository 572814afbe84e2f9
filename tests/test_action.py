"""The composite GitHub Action (`action.yml`, issue 44 item 4), run locally: its `run:` steps are executed as GitHub runs a
`shell: bash` step (bash --noprofile --norc -eo pipefail FILE), with the inputs given as the step's `env:` maps them, in a
temporary folder, on TweetEval (a bundled dataset). The setup-python step is skipped (this interpreter is the Python), and so
is the install step, since humancert is importable here (its command line is checked instead: it installs the action's own
checkout, with the extras when given)."""
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest
import yaml

from humancert.data.datasets import load

ROOT = Path(__file__).resolve().parent.parent
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS = ACTION["runs"]["steps"]


def scripts_folder():
    "The folder of this environment's `humancert` script (the installed console script)."
    for folder in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        if shutil.which("humancert", path=folder): return folder
    pytest.skip(f"no `humancert` script beside {sys.executable}")


def step_env(step, inputs):
    "The step's env: with `${{ inputs.X }}` replaced by the input given, or its default."
    given = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()} | inputs
    sub = lambda s: re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: given[m.group(1)], str(s))
    assert "${{" not in step["run"], "inputs reach the shell through env:, never pasted into the script"
    return {k: sub(v) for k, v in step.get("env", {}).items()}


def run_step(step, inputs, cwd, path=None):
    "One `run:` step as GitHub runs a bash step: the script in a file, bash --noprofile --norc -eo pipefail; (exit code, output)."
    script = cwd / "step.sh"
    script.write_text(step["run"])
    env = os.environ | step_env(step, inputs) | {"GITHUB_ACTION_PATH": str(ROOT),
                                                 "PATH": os.pathsep.join([path or scripts_folder(), os.environ["PATH"]])}
    r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], capture_output=True, text=True, cwd=cwd, env=env)
    return r.returncode, r.stdout + r.stderr


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    "A workspace with TweetEval's labels (the LLM as a column) and 100 / 1,500 gold labels."
    tmp = tmp_path_factory.mktemp("action")
    tw = load("tweeteval")
    tw.annotations.to_wide().assign(llm=tw.predictions["llm"]).to_csv(tmp / "labels.csv", index_label="item")
    gold = tw.extra["gold"].iloc[np.random.default_rng(0).permutation(tw.annotations.n_items)].rename("gold").rename_axis("item")
    gold.iloc[:100].to_csv(tmp / "gold_100.csv")
    gold.iloc[:1500].to_csv(tmp / "gold 1500.csv")                            # a space in the name: args keep their quotes
    return tmp


def test_structure():
    assert ACTION["runs"]["using"] == "composite"
    assert sorted(ACTION["inputs"]) == ["args", "command", "extras", "file", "python-version"]
    assert STEPS[0]["uses"].startswith("actions/setup-python@") and STEPS[0]["with"]["python-version"] == "${{ inputs.python-version }}"
    assert [s.get("shell") for s in STEPS[1:]] == ["bash", "bash"]


def test_install_step_installs_the_action_checkout(tmp_path):
    # not run (humancert is importable here, and installing would change this environment): its command, with a stand-in pip
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "python").write_text('#!/bin/sh\necho "$@"\n')
    (fake / "python").chmod(0o755)
    for extras, target in (("", str(ROOT)), ("tables", f"{ROOT}[tables]")):
        code, out = run_step(STEPS[1], {"extras": extras}, tmp_path, path=str(fake))
        assert code == 0 and out.split()[-1] == target, out


@pytest.mark.parametrize("inputs, code, message", [
    ({"command": "gold-status", "file": "labels.csv", "args": "--model llm --gold 'gold 1500.csv' --reps 50 --fail-on not-certified"},
     0, "humancert gold-status: done (exit 0)"),
    ({"command": "gold-status", "file": "labels.csv", "args": "--model llm --gold gold_100.csv --reps 50 --fail-on not-certified"},
     3, "::error title=humancert finding::"),
    ({"command": "gold-status", "file": "labels.csv", "args": "--model llm --gold gold_100.csv --reps 50"}, 0, "done (exit 0)"),
    ({"command": "gold-status", "file": "missing.csv", "args": "--model llm --gold gold_100.csv"}, 2, "::error title=humancert bad input::"),
    ({"command": "report", "file": "", "args": "--dataset running_example --quiet"}, 0, "humancert report: done (exit 0)"),
    ({"command": "doctor", "file": "labels.csv"}, 0, "humancert doctor: done (exit 0)"),
    ({"command": "report", "file": "labels.csv", "args": "--model 'llm"}, 2, "args: No closing quotation; check the quotes"),
])
def test_run_step_exit_codes(work, inputs, code, message):
    got, out = run_step(STEPS[2], inputs, work)
    assert got == code and message in out, out[-2000:]


def test_internal_error_is_reported(tmp_path):
    # exit 1 (an internal error) from a stand-in humancert: the step fails with exit 1 and says so
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "humancert").write_text("#!/bin/sh\necho 'Traceback (most recent call last):' >&2\nexit 1\n")
    (fake / "humancert").chmod(0o755)
    code, out = run_step(STEPS[2], {"command": "report", "file": "x.csv"}, tmp_path, path=str(fake))
    assert code == 1 and "::error title=humancert internal error::humancert report failed unexpectedly (exit 1)" in out
