"""Recorded judgments as the judge under test in CoEval's criterion-level scoring (``-T judgments=``): one
step-by-step run on ELI5's real items, a criterion score per row, ChatGPT's real written evaluations among them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from coeval_tasks import data
from judge_data.human import select_items
from solvers.stepwise import OVERALL
from tests.coeval.test_coeval_criteria import coeval_folder
from tests.support.inspect_runs import eval_recorded, metrics_of

N = 12


def chatgpt_answers() -> list[dict]:
    """ChatGPT's written CoEval evaluations (1-5, the score stated in its prose) with the scores its authors read."""
    path = Path(__file__).parents[1] / "data" / "judge_answers" / "coeval_chatgpt_criteria.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][:3]


@pytest.fixture(scope="module")
def recorded_run(tmp_path_factory):
    """Each item of a draw scored on every criterion and overall; item 0's criteria in ChatGPT's written
    evaluations, item 1's overall off the scale (6), item 2's overall without a row."""
    folder = coeval_folder("eli5")
    source = data.load_human_scores("eli5", folder)
    items = select_items(source.items, N, 0)
    keys = [criterion.name for criterion in source.criteria] + [OVERALL]
    rng = np.random.default_rng(3)
    written = chatgpt_answers()
    rows, judge = [], {}
    for index, item in enumerate(items):
        for key in keys:
            row = {"id": item.id, "criterion": key, "judge": "ChatGPT"}
            if index == 0 and key != OVERALL and written:
                answer = written.pop()
                rows.append({**row, "answer": answer["answer"]})
                judge[(item.id, key)] = float(answer["label"])
            elif (index, key) == (1, OVERALL):
                rows.append({**row, "score": 6})
            elif (index, key) != (2, OVERALL):
                score = float(rng.integers(1, 6))
                rows.append({**row, "score": score})
                judge[(item.id, key)] = score
    tmp_path = tmp_path_factory.mktemp("coeval")
    path = tmp_path / "judgments.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    log = eval_recorded("coeval_tasks/eli5", tmp_path, f"data_dir={folder}", f"n={N}", f"judgments={path}")
    return log, judge, keys


def test_recorded_scores_correlate_with_the_annotators_mean_as_scipy_says(recorded_run):
    log, judge, keys = recorded_run
    metrics = metrics_of(log)
    human = {sample.id: sample.metadata["human"] for sample in log.samples}
    for key in keys:
        pairs = [(judge[(item, key)], human[item][key]) for item in human if (item, key) in judge]
        expected = stats.pearsonr(*zip(*pairs, strict=True)).statistic
        assert metrics[f"n/{key}"] == len(pairs)
        assert metrics[f"pearson/{key}"] == pytest.approx(expected, abs=1e-12)
    assert metrics["n/overall"] == N - 2


def test_written_evaluations_are_read_against_the_conversation_and_gaps_are_counted(recorded_run):
    log, judge, _ = recorded_run
    metrics = metrics_of(log)
    assert (metrics["parse_failures"], metrics["unanswered"]) == (1, 1)
    by_id = {sample.id: sample for sample in log.samples}
    first, second, third = (by_id[item] for item in list(dict.fromkeys(item for item, _ in judge))[:3])
    parsed = first.scores["criterion_ratings"].metadata["parsed"]
    assert {key: value for key, value in parsed.items() if key != OVERALL} == {
        key: judge[(first.id, key)] for key in parsed if key != OVERALL
    }
    prompts = first.store["judge_prompts"]
    assert list(prompts) == ["simple_language", "relatable_examples", "factual_correctness"]
    assert prompts["factual_correctness"].count("Criterion: ") == 3  # the conversation up to the third turn
    assert second.scores["criterion_ratings"].metadata["unparsed_answers"] == ["6"]
    assert math.isnan(third.scores["criterion_ratings"].value[OVERALL])
    assert third.scores["criterion_ratings"].metadata["unanswered"] == [OVERALL]
