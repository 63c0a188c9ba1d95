"""CoEval criterion-level scoring on the bundled CPU judge (SmolLM2-135M-Instruct), two items of each dataset."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval

from coeval_tasks.scoring import eli5, rocstories
from tests.coeval.test_coeval_criteria import coeval_folder

pytestmark = pytest.mark.local_judge


def test_step_by_step_scoring_runs_on_the_cpu_judge(hf_judge, tmp_path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    # two criteria each keep the conversations short: every turn re-reads the whole history on the CPU; two of the
    # three datasets (the stand-in judge covers every dataset's prompts)
    tasks = {
        "eli5": (eli5, "simple_language,helpfulness"),
        "rocstories": (rocstories, "coherence,length"),
    }
    logs = inspect_eval(
        [make(data_dir=str(coeval_folder(name)), criteria=criteria, n=1) for name, (make, criteria) in tasks.items()],
        model=hf_judge,
        max_tokens=16,
        log_dir=str(tmp_path / "logs"),
        display="log",
        max_tasks=1,
    )
    assert [log.eval.metadata["dataset"] for log in logs] == list(tasks)
    for log in logs:
        assert log.status == "success", log.error
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
