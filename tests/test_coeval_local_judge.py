"""CoEval on the bundled CPU judge (SmolLM2-135M-Instruct): criterion-level scoring on one item of two datasets, and
criteria lists under the judge's greedy decoding, in one eval (one model load)."""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from coeval_tasks.criteria import criteria as criteria_task
from coeval_tasks.scoring import eli5, rocstories
from judge_data.local_judge import model_args
from scorers.criteria_consistency import IDENTICAL_LISTS
from solvers.criteria_lists import CRITERIA_STORE_KEY
from tests.test_coeval_criteria import coeval_folder, minilm  # noqa: F401 (a fixture)

pytestmark = pytest.mark.local_judge

SCORED = {"eli5": "simple_language,helpfulness", "rocstories": "coherence,length"}
"""Two criteria each keep the conversations short: every turn re-reads the whole history on the CPU; two of the three
datasets (the stand-in judge covers every dataset's prompts)."""


@pytest.fixture(scope="module")
def cpu_judge_logs(judge_folder, minilm, tmp_path_factory) -> dict[str, EvalLog]:  # noqa: F811
    """Step-by-step scoring of one item of each dataset in SCORED, and ELI5's criteria lists for one task
    description with two samples; logs by dataset (``criteria`` for the lists)."""
    folder = tmp_path_factory.mktemp("coeval-cpu-judge")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("INSPECT_CACHE_DIR", str(folder / "cache"))
        tasks = [
            eli5(data_dir=str(coeval_folder("eli5")), criteria=SCORED["eli5"], n=1),
            rocstories(data_dir=str(coeval_folder("rocstories")), criteria=SCORED["rocstories"], n=1),
            criteria_task(dataset="eli5", data_dir=str(coeval_folder("eli5")), n=1, samples=2, embedder=minilm),
        ]
        logs = inspect_eval(
            tasks,
            model="hf/smollm2",
            model_args=model_args(judge_folder),
            max_tokens=16,
            log_dir=str(folder / "logs"),
            display="none",
            max_tasks=1,
        )
    return dict(zip(["eli5", "rocstories", "criteria"], logs, strict=True))


def test_step_by_step_scoring_runs_on_the_cpu_judge(cpu_judge_logs):
    for name in SCORED:
        log = cpu_judge_logs[name]
        assert log.status == "success", log.error
        assert log.eval.metadata["dataset"] == name
        metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
        criteria = list(log.eval.metadata["criteria"])
        assert {"pearson/overall", "alpha/annotators", "alpha/with_judge", "parse_failures"} <= set(metrics)
        assert len(criteria) == 2 and {f"pearson/{name}" for name in criteria} <= set(metrics)
        assert len(log.samples) == 1
        parsed = 0
        for sample in log.samples:
            answers = sample.store["judge_samples"]
            assert list(answers) == [*criteria, "overall"]
            assert all(len(texts) == 1 and texts[0].strip() for texts in answers.values())
            # one conversation: every question and every answer, in order
            assert [message.role for message in sample.messages] == ["user", "assistant"] * (len(criteria) + 1)
            score = next(iter(sample.scores.values()))
            parsed += sum(value is not None for values in score.metadata["parsed"].values() for value in values)
        assert metrics["parse_failures"] == len(criteria) + 1 - parsed


def test_greedy_judge_gets_no_criteria_consistency(cpu_judge_logs):
    """``local-judge`` loads the judge with ``do_sample=false``: inspect's hf provider then decodes greedily whatever
    temperature a request asks for, so the sampled lists repeat the reference and CC / ICC are NaN, not 1."""
    log = cpu_judge_logs["criteria"]
    assert log.status == "success", log.error
    metrics = {name: metric.value for name, metric in log.results.scores[0].metrics.items()}
    assert math.isnan(metrics["cc"]) and math.isnan(metrics["icc"])
    assert metrics["identical_lists"] == 1
    (sample,) = log.samples
    answers = sample.store[CRITERIA_STORE_KEY]
    assert answers["sampled"] == [answers["reference"]] * 2
    asked = sorted(event.config.temperature for event in sample.events if event.event == "model")
    assert asked == [0.0, 0.7, 0.7]  # the paper's temperature was asked for; the provider did not sample
    score = next(iter(sample.scores.values()))
    assert f"cc undefined: {IDENTICAL_LISTS}" in score.explanation
