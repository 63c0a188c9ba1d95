"""DHP with ``-T scoring=perplexity``: each text scored by the judge's likelihood of it given its context."""

from __future__ import annotations

import pytest

from tests.support import fake_completions
from tests.support.commands import INSPECT, only_log, run_cli, task_options
from tests.support.inspect_runs import metrics_of, originals_of

pytestmark = pytest.mark.integration


def run_with_likelihoods(tmp_path, logprob, *task_args: str):
    command = [INSPECT, "eval", "dhp_tasks/storycloze", "--model", "openai-api-completions/fakevllm/toy"]
    options = task_options(*task_args, "scoring=perplexity")
    with fake_completions.serve(logprob=logprob) as (url, calls):
        env = {"FAKEVLLM_BASE_URL": url, "FAKEVLLM_API_KEY": "test"}
        run_cli([*command, *options, "--log-format", "json", "--display", "log"], tmp_path, env)
    return only_log(tmp_path / "logs"), calls


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
