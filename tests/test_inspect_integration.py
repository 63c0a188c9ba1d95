"""End-to-end: the real ``inspect eval`` command against a stand-in judge served on 127.0.0.1."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from dhp_tasks.datasets import DATASETS
from dhp_tasks.dhp import paper_dataset_task
from tests.fake_judge import constant, knows_originals, serve

pytestmark = pytest.mark.integration

INSPECT = str(Path(sys.executable).parent / "inspect")
"""The installed ``inspect`` command (not ``python -m``, which would import the source tree instead)."""


def run_inspect(
    task: str, answer, tmp_path: Path, *task_args: str, extra_args: tuple[str, ...] = ()
) -> tuple[EvalLog, list[dict]]:
    """Run ``inspect eval`` in a subprocess against the fake judge; return the log and the judge's requests."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    with serve(answer) as (url, calls):
        env = dict(
            os.environ,
            FAKEJUDGE_BASE_URL=url,
            FAKEJUDGE_API_KEY="test",
            INSPECT_CACHE_DIR=str(tmp_path / "cache"),
            INSPECT_LOG_DIR=str(tmp_path / "logs"),
        )
        args = [arg for pair in task_args for arg in ("-T", pair)]
        result = subprocess.run(
            [
                INSPECT,
                "eval",
                task,
                "--model",
                "openai-api/fakejudge/judge",
                "--log-format",
                "json",
                "--display",
                "plain",
                *args,
                *extra_args,
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    logs = sorted((tmp_path / "logs").glob("*.json"))
    assert len(logs) == 1, logs
    log = read_eval_log(str(logs[0]))
    assert log.status == "success", log.error
    return log, calls


def metrics_of(log: EvalLog) -> dict[str, float]:
    return {name: metric.value for name, metric in log.results.scores[0].metrics.items()}


def originals_of(dataset: str, data_dir: Path, n: int) -> set[str]:
    task = paper_dataset_task(DATASETS[dataset], str(data_dir), n, 0, None, 1, 0.0, None, "hmp")
    return {sample.input for sample in task.dataset if sample.metadata["perturbation"] == "original"}


def test_constant_judge_has_no_discernment(tmp_path, dhp_data):
    log, calls = run_inspect(
        "dhp_tasks/summeval", constant("3"), tmp_path, f"data_dir={dhp_data('summeval')}", "n=5", "repeats=2"
    )
    metrics = metrics_of(log)
    d_values = {name: value for name, value in metrics.items() if name.startswith("D")}
    assert set(d_values) >= {"D_avg", "D_min", "D_avg_EW", "D_min_EW", "D/typos_minor", "D_EW/sentence_reorder_major"}
    assert all(value == 0.0 for value in d_values.values()), d_values
    assert metrics["parse_failures"] == 0
    assert metrics["p/typos_major/coherence"] == 1.0
    # 5 items x (original + 6 perturbations) x 4 metrics, each asking for its 2 ratings as choices of one call
    assert len(calls) == 5 * 7 * 4
    assert {call.get("n") for call in calls} == {2}
    assert {call.get("temperature") for call in calls} == {0}


@pytest.mark.parametrize("dataset", sorted(DATASETS))
def test_judge_that_knows_the_originals_discerns_every_perturbation(tmp_path, dhp_data, dataset):
    folder = dhp_data(DATASETS[dataset].folder)
    originals = originals_of(dataset, folder, 6)
    log, _ = run_inspect(
        f"dhp_tasks/{dataset}", knows_originals(originals), tmp_path, f"data_dir={folder}", "n=6", "repeats=1"
    )
    metrics = metrics_of(log)
    per_perturbation = {name: value for name, value in metrics.items() if name.startswith(("D/", "D_EW/"))}
    assert len(per_perturbation) == 2 * len(log.eval.metadata["perturbations"])
    assert all(value > 1 for value in per_perturbation.values()), per_perturbation
    assert metrics["D_min"] > 1 and metrics["D_min_EW"] > 1
    assert metrics["parse_failures"] == 0

    sample = log.samples[0]
    assert set(sample.metadata) >= {"item_id", "perturbation", "level", "degree", "method", "response"}
    perturbations = {s.metadata["perturbation"] for s in log.samples}
    assert "original" in perturbations
    score = next(iter(sample.scores.values()))
    assert set(score.value) == set(log.eval.metadata["metrics"])


def test_unparsable_answers_are_counted_not_guessed(tmp_path, dhp_data):
    log, _ = run_inspect(
        "dhp_tasks/storycloze",
        constant("I would rather not say."),
        tmp_path,
        f"data_dir={dhp_data('storycloze')}",
        "n=4",
        "repeats=3",
        "perturbations=typos,wrong_ending",
    )
    metrics = metrics_of(log)
    # 4 items x 3 variants x 3 metrics x 3 ratings, none parsable
    assert metrics["parse_failures"] == 4 * 3 * 3 * 3
    assert metrics["parse_failures/fluency"] == 4 * 3 * 3
    assert metrics["D_avg"] == 0.0
    assert metrics["n_pairs/typos/coherence"] == 0
    values = next(iter(log.samples[0].scores.values())).value
    assert all(math.isnan(value) for value in values.values())


def test_custom_task_with_a_metric_subset(tmp_path):
    data = tmp_path / "mine.jsonl"
    texts = [
        f"The report covers item {j}. It lists the costs in detail. Every figure is checked twice. The team signs it off."
        for j in range(6)
    ]
    data.write_text(
        "".join(
            json.dumps({"id": f"doc{j}", "text": text, "context": "An article."}) + "\n" for j, text in enumerate(texts)
        )
    )
    log, calls = run_inspect(
        "dhp_tasks/custom",
        knows_originals(set(texts)),
        tmp_path,
        f"data={data}",
        "kind=summarization",
        "metrics=coherence,fluency",
        "repeats=1",
    )
    metrics = metrics_of(log)
    assert log.eval.metadata["metrics"] == ["coherence", "fluency"]
    assert "p/typos_minor/coherence" in metrics and "p/typos_minor/relevance" not in metrics
    assert metrics["D_min"] > 1
    assert len(calls) == 6 * 7 * 2


def test_unknown_perturbation_fails_with_a_clear_message(tmp_path, dhp_data):
    with serve(constant("3")) as (url, _):
        result = subprocess.run(
            [
                INSPECT,
                "eval",
                "dhp_tasks/storycloze",
                "--model",
                "openai-api/fakejudge/judge",
                "-T",
                f"data_dir={dhp_data('storycloze')}",
                "-T",
                "perturbations=typo_minor",
                "--display",
                "none",
            ],
            env=dict(os.environ, FAKEJUDGE_BASE_URL=url, FAKEJUDGE_API_KEY="t", INSPECT_LOG_DIR=str(tmp_path)),
            capture_output=True,
            text=True,
            timeout=300,
            cwd=tmp_path,
        )
    assert result.returncode != 0
    assert "unknown perturbation(s) ['typo_minor']" in result.stdout + result.stderr
