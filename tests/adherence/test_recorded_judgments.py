"""Recorded judgments as the judge under test on an adherence task (``-T judgments=``): one run on HANNA's real items
with a stand-in file, its correlations recomputed with SciPy on the same items, its failures and gaps counted."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from judge_data.human import item_system, load_criteria, load_items, select_items
from judge_data.io import file_sha256
from tests.conftest import data_folder
from tests.support.inspect_runs import eval_recorded, metrics_of

CRITERIA = ("relevance", "coherence")
N = 40
OFF_SCALE = {(0, "relevance"): -1, (1, "coherence"): "0.33"}
"""Values off HANNA's 1-5 scale (the published file's failure codes): parse failures."""
UNANSWERED_ITEMS = (3, 4, 5)
"""Items the file has no row for: 6 of the run's 80 judgments, 7.5 %, above the warning's 5 %."""


def real_answers() -> dict[int, str]:
    """A real judge's written answer for each of the scores 2 and 4 (gpt-5.1 on ELYZA-tasks-100, 1-5)."""
    path = Path(__file__).parents[1] / "data" / "judge_answers" / "shaberi_elyza_gpt51_rating_1_5.jsonl"
    answers: dict[int, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        answers.setdefault(row["label"], row["answer"])
    return {label: answers[label] for label in (2, 4)}


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """One run of a file holding two judges, two prompt labels of the chosen judge, rows of items the run does not
    draw, real written answers, off-scale values and three items without rows; the warnings it logs."""
    folder = data_folder("human", "hanna")
    criteria, _ = load_criteria(folder)
    every = load_items(folder, criteria)
    items = select_items(every, N, 0)
    rng = np.random.default_rng(1)
    answers = real_answers()
    rows, expected = [], {criterion: [] for criterion in CRITERIA}
    for index, item in enumerate(items):
        for criterion in CRITERIA:
            score = float(np.clip(np.round(item.human[criterion] + rng.normal(0, 0.8), 1), 1, 5))
            row = {"id": item.id, "criterion": criterion, "judge": "Stand-in", "prompt": 1}
            rows.append({**row, "prompt": 2, "score": 6 - score})
            rows.append({**row, "judge": "Other", "score": 3})
            if index in UNANSWERED_ITEMS:
                continue
            if (index, criterion) in OFF_SCALE:
                rows.append({**row, "score": OFF_SCALE[(index, criterion)]})
            elif index == 2:
                label = 4 if criterion == "relevance" else 2
                rows.append({**row, "answer": answers[label]})
                expected[criterion].append((label, item.human[criterion], item_system(item)))
            else:
                rows.append({**row, "score": score})
                expected[criterion].append((score, item.human[criterion], item_system(item)))
    drawn = {item.id for item in items}
    rows.append({"id": next(i.id for i in every if i.id not in drawn), "criterion": "relevance", "judge": "Stand-in",
                 "prompt": 1, "score": 5})  # fmt: skip
    tmp_path = tmp_path_factory.mktemp("recorded")
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    warned: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: warned.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger("scorers.unparsed").addHandler(handler)
    try:
        log = eval_recorded(
            "adherence_tasks/hanna",
            tmp_path,
            f"data_dir={folder}",
            f"n={N}",
            f"criteria={','.join(CRITERIA)}",
            f"judgments={path}",
            "judge=Stand-in",
            "prompt=1",
        )
    finally:
        logging.getLogger("scorers.unparsed").removeHandler(handler)
    return log, expected, path, warned


def system_tau(pairs) -> float:
    systems = sorted({system for _, _, system in pairs})
    judge = [np.mean([j for j, _, s in pairs if s == system]) for system in systems]
    human = [np.mean([h for _, h, s in pairs if s == system]) for system in systems]
    return float(stats.kendalltau(judge, human).statistic)


def test_recorded_scores_give_the_correlations_scipy_gives_on_the_same_items(recorded_run):
    log, expected, _, _ = recorded_run
    metrics = metrics_of(log)
    for criterion in CRITERIA:
        judge = [j for j, _, _ in expected[criterion]]
        human = [h for _, h, _ in expected[criterion]]
        assert metrics[f"n/{criterion}"] == len(judge) == N - len(UNANSWERED_ITEMS) - 1
        assert metrics[f"pearson/{criterion}"] == pytest.approx(stats.pearsonr(judge, human).statistic, abs=1e-12)
        assert metrics[f"kendall/{criterion}"] == pytest.approx(stats.kendalltau(judge, human).statistic, abs=1e-12)
        assert metrics[f"system_tau/{criterion}"] == pytest.approx(system_tau(expected[criterion]), abs=1e-12)


def test_off_scale_values_are_parse_failures_shown_with_their_value(recorded_run):
    log, _, _, _ = recorded_run
    assert metrics_of(log)["parse_failures"] == 2
    unparsed = {
        sample.id: sample.scores["criterion_ratings"].metadata["unparsed_answers"]
        for sample in log.samples
        if sample.scores["criterion_ratings"].metadata["unparsed_answers"]
    }
    assert sorted(unparsed.values()) == [["-1"], ["0.33"]]


def test_items_without_a_row_are_counted_unanswered_and_warned_about(recorded_run):
    log, _, path, warned = recorded_run
    assert metrics_of(log)["unanswered"] == 2 * len(UNANSWERED_ITEMS)
    missing = [sample for sample in log.samples if sample.scores["criterion_ratings"].metadata["unanswered"]]
    assert len(missing) == len(UNANSWERED_ITEMS)
    assert all(math.isnan(sample.scores["criterion_ratings"].value["relevance"]) for sample in missing)
    assert [line for line in warned if "no row in the recorded judgments" in line] == [
        f"adherence_hanna_rubric: 6 of {2 * N} judgments (8%) have no row in the recorded judgments and were left "
        f"out of the statistics, e.g. {missing[0].id} relevance, {missing[0].id} coherence"
    ]


def test_written_answers_are_read_by_the_suites_parser_against_the_settings_prompt(recorded_run):
    log, _, _, _ = recorded_run
    sample = next(sample for sample in log.samples if "answer" in str(sample.store["recorded_judgments"]))
    assert sample.scores["criterion_ratings"].metadata["parsed"] == {"relevance": 4.0, "coherence": 2.0}
    assert sample.store["judge_prompts"]["relevance"].endswith("Reply with the score only.\nRelevance score:")


def test_the_log_says_the_run_is_recorded_and_no_model_was_called(recorded_run):
    log, _, path, _ = recorded_run
    assert log.eval.metadata["recorded"] == {
        "file": str(path),
        "sha256": file_sha256(path),
        "judge": "Stand-in",
        "prompt": "1",
        "rows": 2 * N - 2 * len(UNANSWERED_ITEMS) + 1,
    }
    assert log.stats.model_usage == {}
    assert all(sample.output.model == "recorded" for sample in log.samples)
