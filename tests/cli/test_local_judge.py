"""The bundled CPU judge (SmolLM2-135M-Instruct via inspect's hf/ provider), run for real, as a user would."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval

from fbi_tasks.fbi import pairwise, reference, single
from fbi_tasks.prompts import PAIRWISE_STRATEGIES, SINGLE_STRATEGIES
from judge_data.local_judge import GGUF_FILE, inspect_model_args

pytestmark = pytest.mark.local_judge


def test_prepared_folder_holds_tokenizer_and_weights(judge_folder):
    assert (judge_folder / "tokenizer_config.json").is_file()
    assert (judge_folder / GGUF_FILE).stat().st_size > 50_000_000
    args = inspect_model_args(judge_folder)
    assert f"model_path={judge_folder}" in args and f"gguf_file={GGUF_FILE}" in args


def test_every_fbi_paradigm_runs_on_the_cpu_judge(hf_judge, fbi_data, tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    # one item per task: the stand-in judge covers every strategy and the score-invariant path; here each paradigm
    # goes through the real hf/ provider, with its longest prompt (axis_rubric, axis_rules), and both scoring modes
    options = {"data_dir": str(fbi_data), "categories": "entity", "per_category": 1}
    tasks = [
        single(strategy=SINGLE_STRATEGIES[-1], **options),
        pairwise(strategy=PAIRWISE_STRATEGIES[-1], **options),
        reference(**options),
        single(strategy="vanilla", scoring="logprobs", **options),
    ]
    logs = inspect_eval(
        tasks,
        model=hf_judge,
        max_tokens=12,  # enough for a verdict or a rating; every answer is parsed or counted either way
        log_dir=str(tmp_path / "logs"),
        display="log",
        max_tasks=1,
    )
    assert len(logs) == 4
    for log in logs[3:]:
        assert log.eval.metadata["scoring"] == "logprobs"
        for sample in log.samples:
            score = next(iter(sample.scores.values()))
            masses = [details["mass"] for details in score.metadata["logprobs"].values()]
            assert masses and all(0 <= mass <= 1 + 1e-6 for mass in masses)
            assert score.value["parse_failures"] == sum(mass < 0.1 for mass in masses)
    for log in logs:
        assert log.status == "success", log.error
        metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
        assert "parse_failures" in metrics
        assert len(log.samples) == 1
        for sample in log.samples:
            answers = next(iter(sample.scores.values())).metadata["answers"]
            assert answers and all(answer.strip() for answer in answers.values())


def test_every_adherence_setting_runs_on_the_cpu_judge(hf_judge, tmp_path, monkeypatch):
    from adherence_tasks.adherence import summeval as adherence_summeval
    from tests.conftest import data_folder

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    folder = str(data_folder("human", "summeval"))
    settings = ("generic", "criterion", "rubric")
    logs = inspect_eval(
        [
            adherence_summeval(scoring="perplexity", data_dir=folder, n=2),
            *(adherence_summeval(setting=setting, data_dir=folder, n=2) for setting in settings),
        ],
        model=hf_judge,
        max_tokens=8,
        log_dir=str(tmp_path / "logs"),
        display="log",
        max_tasks=1,
    )
    # the hf/ provider's log-probabilities are read on the CPU judge by the FBI and DHP tests here
    assert [log.eval.metadata["setting"] for log in logs] == ["perplexity", *settings]
    for log in logs:
        assert log.status == "success", log.error
        metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
        assert {"pearson", "pearson/group/Content", "pearson/fluency", "n/fluency", "parse_failures"} <= set(metrics)
        assert len(log.samples) == 2
    likelihoods = [next(iter(sample.scores.values())).value["fluency"] for sample in logs[0].samples]
    assert all(-20 < value < 0 for value in likelihoods) and len(set(likelihoods)) == 2
    asked = {len(sample.store["judge_samples"]) for sample in logs[1].samples}
    assert asked == {1}  # generic: one question serves the four 1-5 criteria
    assert {len(sample.store["judge_samples"]) for sample in logs[3].samples} == {4}


def test_storycloze_by_likelihood_on_the_cpu_judge(hf_judge, dhp_data, tmp_path, monkeypatch):
    from dhp_tasks.dhp import storycloze

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    folder = str(dhp_data("storycloze"))
    log, by_logprobs = inspect_eval(
        [
            storycloze(data_dir=folder, n=6, perturbations="typos,random_ending", scoring="perplexity"),
            storycloze(data_dir=folder, n=2, perturbations="typos", scoring="logprobs"),
        ],
        model=hf_judge,
        log_dir=str(tmp_path / "logs"),
        display="log",
        max_tasks=1,
    )
    assert log.status == "success", log.error
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    assert metrics["n_pairs/typos/likelihood"] == 6 and metrics["parse_failures"] == 0
    assert metrics["D/typos"] > 1  # every typo'd ending is less likely than its original
    assert by_logprobs.status == "success", by_logprobs.error
    for sample in by_logprobs.samples:
        score = next(iter(sample.scores.values()))
        assert score.metadata["scoring"] == "logprobs"
        for name, rating in score.metadata["ratings"].items():
            assert 0 <= rating["mass"] <= 1 + 1e-6
            assert rating["score"] is None or 1 <= rating["score"] <= 5
            assert score.value[f"parse_failures/{name}"] == (rating["score"] is None)
