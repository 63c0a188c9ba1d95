"""Every error of the project's commands is one message without a traceback, naming the flag of that command that
fixes it. Each case fails before any task runs, so the cases run in seconds each, and side by side: each in its own
folder, none writing where another reads."""

from __future__ import annotations

import socket
import sys
from functools import partial
from pathlib import Path

import pytest

from tests.conftest import data_folder
from tests.support.commands import one_clean_message, run_cli, side_by_side

BIN = Path(sys.executable).parent


def _meta_eval(tmp_path: Path, *extra: str) -> list[str]:
    return [
        str(BIN / "judge-meta-eval"),
        "run",
        "--model",
        "openai-api/standin/judge-a",
        "--preset",
        "quick",
        "--log-dir",
        str(tmp_path / "logs"),
        "--report",
        str(tmp_path / "report"),
        *extra,
    ]


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: every request to it fails."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.integration
def test_every_command_error_is_one_message_naming_its_flag(tmp_path):
    data = str(data_folder())
    bad_preset = tmp_path / "mine.yaml"
    bad_preset.write_text(
        "name: mine\nversion: 1\ndescription: d\nbudget: b\ntasks:\n  - task: fbi_tasks/single\n    args: {nn: 5}\n"
    )
    no_runs = tmp_path / "no-runs"
    no_runs.mkdir()
    offline = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "STANDIN_API_KEY": "test"}
    cases = [
        (_meta_eval(tmp_path, "--suites", "fbi"), offline, "Without network, pass --data-root <folder>"),
        (_meta_eval(tmp_path, "--suites", "dhp,nope"), offline, "--suites: unknown suite(s) ['nope']"),
        (_meta_eval(tmp_path, "--preset", "fast"), offline, "--preset: unknown preset 'fast'"),
        (
            [*_meta_eval(tmp_path, "--data-root", data), "--preset", str(bad_preset)],
            offline,
            f"{bad_preset}, task 1: fbi_tasks/single takes no option(s) ['nn']",
        ),
        (
            _meta_eval(tmp_path, "--suites", "fbi", "--log-dir", "/proc/no-logs-here"),
            offline,
            "--log-dir /proc/no-logs-here: cannot write there",
        ),
        (
            _meta_eval(tmp_path, "--suites", "fbi", "--data-root", data),
            {"STANDIN_API_KEY": ""},
            "could not load the judge --model openai-api/standin/judge-a",
        ),
        (
            _meta_eval(tmp_path, "--suites", "fbi", "--data-root", data),
            {"STANDIN_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1", "STANDIN_API_KEY": "test"},
            "no answer in 2 tries from the judge --model openai-api/standin/judge-a: openai.APIConnectionError",
        ),
        (
            _meta_eval(tmp_path, "--suites", "coeval", "--data-root", data, "-T", "embedder=/nonexistent/embedder"),
            offline,
            "Give a local sentence-transformers folder or another model with -T embedder=",
        ),
        (
            _meta_eval(tmp_path, "--suites", "coeval", "--data-root", data, "--preset", "standard"),
            {**offline, "HF_HOME": str(tmp_path / "empty-hf-home")},
            "the embedder 'princeton-nlp/sup-simcse-roberta-large' could not be loaded",
        ),
        (
            [str(BIN / "judge-report"), str(no_runs), "--out", "/proc/no-report"],
            {},
            "no successful runs found",
        ),
        ([str(BIN / "local-judge"), "--cache-dir", "/proc/no-judge"], {}, "give another folder with --cache-dir"),
        (
            [str(BIN / "dhp-build"), "summeval", "-o", str(tmp_path / "s.jsonl"), "--perturbations", "typos_minor"],
            offline,
            "Without network, pass --data-dir <folder>",
        ),
    ]
    results = side_by_side(
        *(
            partial(run_cli, command, tmp_path / f"case{index}", environment, expect_success=False, timeout=300)
            for index, (command, environment, _) in enumerate(cases)
        )
    )
    for (command, _, message), result in zip(cases, results, strict=True):
        assert message in one_clean_message(result), (command, result.stdout[-2000:], result.stderr[-2000:])
