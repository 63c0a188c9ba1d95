"""Runs of ``inspect eval`` against a stand-in judge on 127.0.0.1, in a subprocess as a user runs them or in this
process where a test checks what a run computes, and what the tests read from their logs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from unittest.mock import patch

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model

from tests.support.commands import INSPECT, create_task, only_log, run_cli, task_options
from tests.support.fake_judge import serve


def run_command(
    command: list[str], answer, tmp_path: Path, expect_success: bool = True, top_logprobs=None
) -> tuple[subprocess.CompletedProcess, list[dict]]:
    """Run an ``inspect`` command in a subprocess against the fake judge; return its result and the judge's requests."""
    with serve(answer, top_logprobs) as (url, calls):
        env = {"FAKEJUDGE_BASE_URL": url, "FAKEJUDGE_API_KEY": "test"}
        result = run_cli(command, tmp_path, env, expect_success=expect_success)
    return result, calls


def eval_command(task: str, *task_args: str, extra_args: tuple[str, ...] = (), display: str = "log") -> list[str]:
    """``inspect eval TASK`` against the fake judge. The ``log`` display, because the tests read the log: the
    rich and plain displays draw the metrics table at the end of a run, seconds for a suite with a hundred metrics;
    a test of what a failing run prints asks for ``plain``, the display it checks."""
    return [
        INSPECT, "eval", task, "--model", "openai-api/fakejudge/judge", "--log-format", "json", "--display", display,
        *task_options(*task_args), *extra_args,
    ]  # fmt: skip


def run_inspect(
    task: str, answer, tmp_path: Path, *task_args: str, extra_args: tuple[str, ...] = (), top_logprobs=None
) -> tuple[EvalLog, list[dict]]:
    """Run ``inspect eval`` in a subprocess against the fake judge; return the log and the judge's requests."""
    command = eval_command(task, *task_args, extra_args=extra_args)
    _, calls = run_command(command, answer, tmp_path, top_logprobs=top_logprobs)
    return only_log(tmp_path / "logs"), calls


def eval_in_process(
    task: str,
    answer,
    tmp_path: Path,
    *task_args: str,
    top_logprobs=None,
    roles: dict[str, str] | None = None,
    **options,
) -> tuple[EvalLog, list[dict]]:
    """What :func:`run_inspect` gives, run by ``inspect_ai.eval`` in this process, for tests of what a run computes
    rather than of the command: the same task and options, the fake judge reached through the same ``openai-api/``
    provider (``roles`` maps model roles to other names served by it), and the JSON log read back from its file.
    Its scorers are registered without the installed package's name (the source tree shadows the package here),
    so a log that ``inspect score`` reads again comes from :func:`run_inspect`."""
    with serve(answer, top_logprobs) as (url, calls):

        def fake(name: str) -> Model:
            return get_model(f"openai-api/fakejudge/{name}", base_url=url, api_key="test", memoize=False)

        with patch.dict(os.environ, {"INSPECT_CACHE_DIR": str(tmp_path / "cache")}):
            inspect_eval(
                create_task(task, *task_args),
                model=fake("judge"),
                model_roles={role: fake(name) for role, name in (roles or {}).items()} or None,
                log_dir=str(tmp_path / "logs"),
                log_format="json",
                display="log",  # "none" still draws the metrics table, unseen: see eval_command
                **options,
            )
    return only_log(tmp_path / "logs", task), calls


def eval_recorded(task: str, tmp_path: Path, *task_args: str) -> EvalLog:
    """A run of recorded judgments (``-T judgments=``) by ``inspect_ai.eval`` in this process, on inspect's ``none``
    model (no model is called), and its JSON log read back."""
    with patch.dict(os.environ, {"INSPECT_CACHE_DIR": str(tmp_path / "cache")}):
        inspect_eval(
            create_task(task, *task_args),
            model="none",
            log_dir=str(tmp_path / "logs"),
            log_format="json",
            display="log",
        )
    return only_log(tmp_path / "logs", task)


def metrics_of(log: EvalLog) -> dict[str, float]:
    return {name: metric.value for name, metric in log.results.scores[0].metrics.items()}


def originals_of(dataset: str, data_dir: Path, n: int) -> set[str]:
    task = create_task(f"dhp_tasks/{dataset}", f"data_dir={data_dir}", f"n={n}", "repeats=1")
    return {sample.input for sample in task.dataset if sample.metadata["perturbation"] == "original"}
