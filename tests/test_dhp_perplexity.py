"""DHP with ``-T scoring=perplexity``: each text scored by the judge's likelihood of it given its context."""

from __future__ import annotations

import os
import subprocess

import pytest
from inspect_ai.log import read_eval_log

from tests import fake_completions
from tests.test_inspect_integration import INSPECT, metrics_of, originals_of

pytestmark = pytest.mark.integration


def run_with_likelihoods(tmp_path, logprob, *task_args: str):
    with fake_completions.serve(logprob=logprob) as (url, calls):
        result = subprocess.run(
            [INSPECT, "eval", "dhp_tasks/storycloze", "--model", "openai-api-completions/fakevllm/toy"]
            + [arg for pair in task_args for arg in ("-T", pair)]
            + ["-T", "scoring=perplexity", "--log-format", "json", "--display", "plain"],
            env=dict(
                os.environ,
                FAKEVLLM_BASE_URL=url,
                FAKEVLLM_API_KEY="test",
                INSPECT_CACHE_DIR=str(tmp_path / "cache"),
                INSPECT_LOG_DIR=str(tmp_path / "logs"),
            ),
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return read_eval_log(str(next((tmp_path / "logs").glob("*.json")))), calls


def test_a_model_that_finds_the_originals_likelier_discerns_every_perturbation(tmp_path, dhp_data):
    folder = dhp_data("storycloze")
    originals = originals_of("storycloze", folder, 6)

    def logprob(prompt: str, position: int) -> float:
        return -1.0 if any(prompt.endswith(text) for text in originals) else -3.0

    log, calls = run_with_likelihoods(tmp_path, logprob, f"data_dir={folder}", "n=6")
    metrics = metrics_of(log)
    perturbations = log.eval.metadata["perturbations"]
    assert log.eval.metadata["metrics"] == ["likelihood"] and log.eval.metadata["scoring"] == "perplexity"
    for perturbation in perturbations:
        assert metrics[f"p/{perturbation}/likelihood"] == pytest.approx(1 / 64)  # 6 pairs, all in the right order
        assert metrics[f"D/{perturbation}"] == metrics[f"D_EW/{perturbation}"] > 1
    assert metrics["parse_failures"] == 0
    assert len(calls) == len(log.samples) == 6 * (1 + len(perturbations))
    scored = {sample.metadata["context"] + "\n\n" + sample.metadata["response"] for sample in log.samples}
    assert {call["prompt"] for call in calls} == scored  # the context, a paragraph break, the text: no prompt


def test_a_model_indifferent_to_the_damage_has_no_discernment(tmp_path, dhp_data):
    log, _ = run_with_likelihoods(
        tmp_path,
        fake_completions.by_position,
        f"data_dir={dhp_data('storycloze')}",
        "n=5",
        "perturbations=wrong_ending",
    )
    metrics = metrics_of(log)
    assert metrics["n_pairs/wrong_ending/likelihood"] == 5
    assert 0 <= metrics["D/wrong_ending"] < 1
