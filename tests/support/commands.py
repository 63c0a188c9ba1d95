"""The installed commands (``inspect``, ``lm_eval``, ...) run in a subprocess as a user runs them, for the
integration tests: one place for the environment, the time limit and the checks on exit status and output."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from inspect_ai import Task
from inspect_ai.log import EvalLog, read_eval_log

from judge_data.definitions import TASK_OPTIONS
from judge_data.inspect_private import parse_cli_args
from judge_suites import definitions, task_function

BIN = Path(sys.executable).parent
INSPECT = str(BIN / "inspect")
"""The installed ``inspect`` command (not ``python -m``, which would import the source tree instead)."""
LM_EVAL = str(BIN / "lm_eval")
"""The installed ``lm_eval`` command."""


def task_options(*pairs: str) -> list[str]:
    """``-T name=value`` for each pair, as ``inspect eval`` takes task options."""
    return [arg for pair in pairs for arg in ("-T", pair)]


def run_cli(
    command: list[str],
    tmp_path: Path,
    env: Mapping[str, str] | None = None,
    *,
    expect_success: bool = True,
    timeout: int = 600,
) -> subprocess.CompletedProcess:
    """Run ``command`` in ``tmp_path`` with inspect's cache and default log folder under it (``cache/``, ``logs/``)
    and a wide terminal, so rich does not wrap messages; with ``expect_success``, assert it exits 0."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    environment = dict(
        os.environ,
        INSPECT_CACHE_DIR=str(tmp_path / "cache"),
        INSPECT_LOG_DIR=str(tmp_path / "logs"),
        COLUMNS="400",
        **(env or {}),
    )
    result = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=timeout, cwd=tmp_path)
    if expect_success:
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-5000:]
    return result


def side_by_side(*runs: Callable[[], Any]) -> list[Any]:
    """Call ``runs`` four at a time, in threads, and return their results in order (the first failure is raised).
    For commands that share no files and whose stand-in judges answer by the prompt alone: a command is mostly its
    subprocess's start-up and imports, which two cores overlap."""
    with ThreadPoolExecutor(max_workers=min(len(runs), 4)) as pool:
        started = [pool.submit(run) for run in runs]
        return [run.result() for run in started]


def one_clean_message(result: subprocess.CompletedProcess) -> str:
    """The output of a command that had to fail, checked to be a non-zero exit without a traceback; its words
    joined by single spaces, so a check of a message does not depend on where the terminal wrapped it."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output
    assert "Traceback" not in output and 'File "' not in output, output
    return " ".join(output.split())


def only_log(log_dir: Path, registered: str | None = None) -> EvalLog:
    """The one JSON log in ``log_dir``, checked to be a successful run that recorded every option of its task
    (``registered``: the task's name where the run was made in this process, see :func:`options_not_logged`)."""
    logs = sorted(log_dir.glob("*.json"))
    assert len(logs) == 1, logs
    log = read_eval_log(str(logs[0]))
    assert log.status == "success", log.error
    assert options_not_logged(log, registered) == []
    return log


def options_not_logged(log: EvalLog, registered: str | None = None) -> list[str]:
    """The options the run's kind of task takes (its definition's list) that its log's ``task_args`` lack. Every
    option is recorded there with its value, defaults included; the report reads a setting from the task's metadata,
    then from ``task_args``, so an option need not be copied into the metadata to be compared or seen. A run in
    this process logs the task function's bare name: ``registered`` names it (``dhp_tasks/summeval``)."""
    function = task_function(registered or log.eval.task_registry_name or "")
    if function is None:
        return []
    definition, kind = getattr(function, TASK_OPTIONS)
    return sorted(set(definitions()[definition].tasks[kind].names) - set(log.eval.task_args))


def create_task(name: str, *task_args: str) -> Task:
    """The task ``inspect eval NAME -T ...`` creates: the plugin's task function called with the options as the
    CLI parses them. For runs in the test process, where the source tree shadows the installed package and
    inspect's registry would not find the task under its package name."""
    function = task_function(name)
    assert function is not None, f"no suite has a task {name}"
    return function(**parse_cli_args(list(task_args)))
