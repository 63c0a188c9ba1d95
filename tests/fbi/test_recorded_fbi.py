"""Recorded judgments as the judge under test in FBI (``-T judgments=``): a grader's grades, pairwise verdicts (two of
them in a real judge's words) and single ratings, a row per item and judgment, on FBI's real items."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fbi_tasks.data import load_items
from judge_data import OptionError
from tests.conftest import data_folder
from tests.support.commands import create_task
from tests.support.inspect_runs import eval_recorded, metrics_of

ITEMS = ("abilities=factual", "per_category=2")
"""Twelve factual items, two per category, no score-invariant edit: a failure is the flawed answer not penalised."""


def written_verdicts() -> dict[str, str]:
    """GPT-4's written MT-Bench verdicts, one preferring each assistant."""
    path = Path(__file__).parents[1] / "data" / "judge_answers" / "fastchat_mtbench_gpt4_pair.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {label: next(row["answer"] for row in rows if row["label"] == label) for label in ("A", "B")}


def write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Three runs on the same items. Item 0 fails every paradigm (its flawed answer graded ``C``, preferred in both
    orders, rated as high as the gold one); item 1 has no row for one judgment; item 2 has one unreadable judgment
    (grade ``maybe``, verdict ``D``, rating 11 on 1-10); item 3 is named by its id in FBI's files, the others by their
    sample id; item 4's verdicts are written answers. The rest pass."""
    fbi_data = data_folder("fbi")
    items = load_items(fbi_data, abilities=["factual"], per_category=2).items
    verdicts = written_verdicts()
    grades, pairs, ratings = [], [], []
    for index, item in enumerate(items):
        row = {"id": item.id if index == 3 else f"{item.category}/{item.id}", "judge": "Recorded"}
        grade = {"gold": "C", "perturbed": "C" if index == 0 else "maybe" if index == 2 else "I"}
        verdict = {
            "gold_first": "B" if index == 0 else "D" if index == 2 else "A",
            "gold_second": "A" if index == 0 else "B",
        }
        score = {"gold": 8, "perturbed": 8 if index == 0 else 11 if index == 2 else 3}
        for name in ("gold", "perturbed"):
            if (index, name) != (1, "gold"):
                grades.append({**row, "judgment": name, "grade": grade[name]})
                ratings.append({**row, "judgment": name, "score": score[name]})
        for name, position in (("gold_first", "A"), ("gold_second", "B")):
            if index == 4:
                pairs.append({**row, "judgment": name, "answer": verdicts[position]})
            elif (index, name) != (1, "gold_second"):
                pairs.append({**row, "judgment": name, "verdict": verdict[name]})
    folder = tmp_path_factory.mktemp("fbi")
    options = (f"data_dir={fbi_data}", *ITEMS)
    return {
        paradigm: eval_recorded(
            f"fbi_tasks/{paradigm}",
            folder / paradigm,
            *options,
            f"judgments={write(folder / f'{paradigm}.jsonl', rows)}",
        )
        for paradigm, rows in (("grader", grades), ("pairwise", pairs), ("single", ratings))
    }


@pytest.mark.parametrize("paradigm", ["grader", "pairwise", "single"])
def test_recorded_judgments_give_the_failure_rate_of_the_items_they_judge(runs, paradigm):
    metrics = metrics_of(runs[paradigm])
    assert metrics["error_rate"] == 1 / 10  # item 0 fails; items 1 and 2 have no outcome
    assert (metrics["parse_failures"], metrics["unanswered"]) == (1, 1)
    assert runs[paradigm].stats.model_usage == {}


def test_written_verdicts_are_read_against_the_pairwise_prompt(runs):
    log = runs["pairwise"]
    sample = log.samples[4]
    assert sample.scores["blind_spot_judgments"].metadata["parsed"]["verdicts"] == {
        "gold_first": "A",
        "gold_second": "B",
    }
    assert sample.store["judge_prompts"]["gold_first"].index(sample.metadata["gold"]) < sample.store["judge_prompts"][
        "gold_first"
    ].index(sample.metadata["perturbed"])
    assert metrics_of(log)["flip_rate"] == 0


def test_unreadable_values_are_shown_with_the_value(runs):
    unparsed = {
        paradigm: [
            answer
            for sample in log.samples
            for answer in next(iter(sample.scores.values())).metadata["unparsed_answers"]
        ]
        for paradigm, log in runs.items()
    }
    assert unparsed == {"grader": ["maybe"], "pairwise": ["D"], "single": ["11"]}


def test_a_grader_run_is_named_after_its_recorded_judge_not_a_scorer(runs, fbi_data, tmp_path):
    assert "grader" not in runs["grader"].eval.metadata
    assert runs["grader"].eval.metadata["recorded"]["judge"] == "Recorded"
    path = write(tmp_path / "g.jsonl", [{"id": "x", "judgment": "gold", "judge": "J", "grade": "C"}])
    with pytest.raises(OptionError, match="-T scorer runs a grader and -T judgments holds the grades"):
        create_task("fbi_tasks/grader", f"data_dir={fbi_data}", "scorer=match", f"judgments={path}")
