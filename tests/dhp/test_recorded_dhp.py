"""Recorded judgments as the judge under test in DHP (``-T judgments=``): a rating run and a grader run on SummEval's
real texts, a row per text and metric (or per text, for a grader's grade), keyed by item and perturbation."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from tests.conftest import data_folder
from tests.support.commands import create_task
from tests.support.inspect_runs import eval_recorded, metrics_of

N = 4
PERTURBATIONS = ("typos_major", "sentence_reorder_major")
METRICS = ("coherence", "consistency", "fluency", "relevance")
D_FOUR_PAIRS = math.log(1 / 16) / math.log(0.05)
"""D of a judge that rates all 4 originals above their copies: the one-sided Wilcoxon p of 4 positive pairs is 1/16."""


def real_five() -> str:
    """A real judge's written answer that rates 5 (gpt-5.1 on ELYZA-tasks-100, 1-5)."""
    path = Path(__file__).parents[1] / "data" / "judge_answers" / "shaberi_elyza_gpt51_rating_1_5.jsonl"
    return next(row["answer"] for line in path.read_text().splitlines() if (row := json.loads(line))["label"] == 5)


def write(path: Path, rows: list[dict]) -> Path:
    """A JSONL file, or a CSV file with the same columns."""
    if path.suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    else:
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The rating run: originals rated 5 (one in a real judge's words), copies 2; on sentence_reorder_major one
    copy's coherence off the scale (0) and one copy without a fluency row. The grader run, from a CSV file:
    originals ``C``, copies ``I``, one copy ungraded."""
    folder = data_folder("dhp", "summeval")
    options = (f"data_dir={folder}", f"n={N}", f"perturbations={','.join(PERTURBATIONS)}")
    task = tmp_path_factory.mktemp("dhp")
    items = sorted({sample.metadata["item_id"] for sample in create_task("dhp_tasks/summeval", *options).dataset})
    ratings, grades = [], []
    for index, item in enumerate(items):
        for text in ("original", *PERTURBATIONS):
            grade = {"id": item, "perturbation": text, "judge": "Recorded grader"}
            if (index, text) != (1, "typos_major"):
                grades.append({**grade, "grade": "C" if text == "original" else "I"})
            for metric in METRICS:
                row = {"id": item, "perturbation": text, "criterion": metric, "judge": "Recorded"}
                if (index, text, metric) == (0, "sentence_reorder_major", "coherence"):
                    rows = [{**row, "score": 0}]
                elif (index, text, metric) == (1, "sentence_reorder_major", "fluency"):
                    rows = []
                elif (index, text, metric) == (2, "original", "relevance"):
                    rows = [{**row, "answer": real_five()}]
                else:
                    rows = [{**row, "score": 5 if text == "original" else 2}]
                ratings += rows
    rated = eval_recorded(
        "dhp_tasks/summeval", task / "rating", *options, f"judgments={write(task / 'r.jsonl', ratings)}"
    )
    graded = eval_recorded("dhp_tasks/grader", task / "grader", *options, f"judgments={write(task / 'g.csv', grades)}")
    return rated, graded, items


def test_recorded_ratings_give_the_discernment_of_their_pairs(runs):
    rated, _, _ = runs
    metrics = metrics_of(rated)
    assert metrics["D/typos_major"] == pytest.approx(D_FOUR_PAIRS)
    assert metrics["n_pairs/sentence_reorder_major/coherence"] == 3
    assert metrics["n_pairs/sentence_reorder_major/fluency"] == 3
    assert (metrics["parse_failures"], metrics["parse_failures/coherence"], metrics["unanswered"]) == (1, 1, 1)
    assert metrics["parse_failure_rate/coherence"] == 1 / (N * 3)


def test_a_written_answer_is_read_against_the_g_eval_prompt(runs):
    rated, _, items = runs
    sample = next(sample for sample in rated.samples if sample.id == f"{items[2]}:original")
    assert sample.scores["mean_ratings"].value["relevance"] == 5.0
    assert list(sample.store["judge_prompts"]) == ["relevance"]
    assert sample.store["judge_prompts"]["relevance"].endswith("one number from 1 to 5.\nRelevance score:")
    assert rated.eval.metadata["recorded"]["judge"] == "Recorded"


def test_recorded_grades_stand_in_for_the_graders(runs):
    _, graded, _ = runs
    metrics = metrics_of(graded)
    assert metrics["D/sentence_reorder_major"] == pytest.approx(D_FOUR_PAIRS)
    assert metrics["n_pairs/typos_major/grade"] == 3
    assert (metrics["parse_failures"], metrics["unanswered"]) == (0, 1)
    assert "grader" not in graded.eval.metadata and graded.eval.metadata["recorded"]["judge"] == "Recorded grader"
