"""lm-eval finds the suites in the installed package, as a user's ``lm_eval --include_path "$(judge-meta-eval-tasks)"``
does: the folder the console script prints is the installed wheel's, not this source tree, and ``lm_eval`` resolves a
task from it and runs its hooks (lm-eval's own ``dummy`` model answers, so every answer is counted as unparsed)."""

from __future__ import annotations

import json
import subprocess
import sysconfig
from pathlib import Path

import pytest

from tests.conftest import data_folder
from tests.support.commands import BIN, LM_EVAL, run_cli
from tests.support.lm_eval_runs import OFFLINE, lm_eval_results

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.integration
def test_lm_eval_resolves_the_tasks_from_the_folder_the_installed_command_prints(tmp_path):
    printed = subprocess.run([str(BIN / "judge-meta-eval-tasks")], capture_output=True, text=True, check=True).stdout
    folder = Path(printed.strip())
    assert folder.is_relative_to(sysconfig.get_paths()["purelib"]) and not folder.is_relative_to(ROOT)
    assert (folder / "dhp_storycloze.yaml").is_file() and (folder / "utils.py").is_file()
    metadata = {"data_dir": str(data_folder("dhp", "storycloze")), "n": 1, "perturbations": "typos"}
    command = [LM_EVAL, "--model", "dummy", "--tasks", "dhp_storycloze", "--include_path", str(folder),
               "--metadata", json.dumps(metadata), "--output_path", str(tmp_path / "out")]  # fmt: skip
    run_cli(command, tmp_path, OFFLINE, timeout=600)
    results = lm_eval_results(tmp_path / "out")
    # one text and its typos copy, each rated on storycloze's three metrics: six documents, each answered five times
    # (the paper's repeats), no answer parsed
    assert results["n-samples"]["dhp_storycloze"]["effective"] == 6
    assert results["results"]["dhp_storycloze"]["parse_failures,none"] == 6 * 5
