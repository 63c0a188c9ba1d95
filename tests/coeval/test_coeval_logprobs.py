"""CoEval scoring with ``-T scoring=logprobs`` against a stand-in judge returning top logprobs: runs in this process,
and the real ``inspect eval`` for what a user sees when the provider has none."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from coeval_tasks import data
from coeval_tasks.scoring import custom, eli5
from judge_data.options import OptionError
from solvers.reading.logprobs import LogprobRating, stored_rating
from solvers.stepwise import OVERALL, history_answer
from tests.coeval.test_coeval_criteria import coeval_folder
from tests.coeval.test_coeval_scoring import _criterion_names
from tests.support.fake_judge import Positions, constant, reads_conversation
from tests.support.inspect_runs import eval_command, eval_in_process, metrics_of, run_command

SPACE_THEN_DIGIT: Positions = [[(" ", 0.6), ("4", 0.4)], [("3", 0.5), ("2", 0.5)]]
"""P(4) = 0.4, P(3) = P(2) = 0.6 * 0.5 = 0.3: expected 4 * 0.4 + 3 * 0.3 + 2 * 0.3 = 3.1 on mass 1. The judge
generates " 3", but the most probable score, the one the history keeps, is 4."""

NOT_A_NUMBER: Positions = [[("I", 0.95), ("2", 0.05)]]
"""Mass 0.05, below the default min_mass of 0.1: a parse failure, and the history keeps the generated "I"."""


def around(score: float, high: int = 5) -> Positions:
    """One position whose expected score is ``score``: split between the two whole scores around it."""
    low = min(math.floor(score), high - 1)
    split = [(str(low), 1 - (score - low)), (str(low + 1), score - low)]
    return [[(token, p) for token, p in split if p > 0]]


def logprob_judge(dataset: str, by_criterion: dict[str, Positions]):
    """Answers a criterion turn with ``by_criterion``'s positions and the overall turn around the human overall."""
    source = data.load_human_scores(dataset, coeval_folder(dataset))
    names = _criterion_names(dataset)

    @reads_conversation
    def positions(messages: list[dict]) -> Positions:
        first, last = messages[0]["content"], messages[-1]["content"]
        asked = re.search(r"Criterion: (.*?)\n\n", last)
        if asked:
            return by_criterion[names[asked.group(1)]]
        [item] = [item for item in source.items if f"\n\nOutput:\n{item.response}\n\n" in first]
        return around(float(np.mean(list(item.human.values()))))

    return positions


@pytest.mark.integration
def test_step_by_step_reads_each_turn_by_logprobs_and_keeps_the_most_probable_score(tmp_path):
    judge = logprob_judge("eli5", {"simple_language": SPACE_THEN_DIGIT, "helpfulness": NOT_A_NUMBER})
    log, calls = eval_in_process(
        "coeval_tasks/eli5",
        constant("unused"),
        tmp_path,
        f"data_dir={coeval_folder('eli5')}",
        "criteria=simple_language,helpfulness",
        "n=4",
        "scoring=logprobs",
        top_logprobs=judge,
    )
    # one conversation per item, each turn one request with top logprobs: 3 tokens for the score, and room for an
    # echo of the turn's closing label ("Score:" 5, "Overall score:" 8)
    assert len(calls) == 4 * 3
    asked = {(c["logprobs"], c["top_logprobs"], c["max_tokens"], c.get("n")) for c in calls}
    assert asked == {(True, 20, 8, None), (True, 20, 11, None)}
    asked = [call["messages"][-1]["content"] for call in calls]
    assert all(text.endswith("Reply with the score only.\nScore:") for text in asked if "Criterion: " in text)
    assert not any("explain" in text.lower() for text in asked)
    overall_turns = [call for call in calls if len(call["messages"]) == 5]
    assert len(overall_turns) == 4
    assert all(text.endswith("Overall score:") for text in (call["messages"][-1]["content"] for call in overall_turns))
    assert {(call["messages"][1]["content"], call["messages"][3]["content"]) for call in overall_turns} == {("4", "I")}
    assert log.eval.metadata["scoring"] == "logprobs" and log.eval.metadata["min_mass"] == 0.1
    for sample in log.samples:
        score = sample.scores["criterion_ratings"]
        value = score.value
        assert value["simple_language"] == pytest.approx(3.1) and value["mass/simple_language"] == pytest.approx(1.0)
        assert math.isnan(value["helpfulness"]) and value["mass/helpfulness"] == pytest.approx(0.05)
        assert value["overall"] == pytest.approx(sample.metadata["human"][OVERALL])
        assert value["mass/overall"] == pytest.approx(1.0)
        assert value["parse_failures"] == 1
        assert score.metadata["scoring"] == "logprobs"
        assert score.metadata["parsed"]["simple_language"]["answer"] == " 3"
        assert set(sample.store["judge_logprobs"]) == {"simple_language", "helpfulness", OVERALL}
        human_overall = sample.metadata["human"][OVERALL]
        assert [m.text for m in sample.messages[1:4:2]] == ["4", "I"]
        assert sample.messages[5].text in {str(math.floor(human_overall)), str(math.ceil(human_overall))}
    metrics = metrics_of(log)
    assert metrics["parse_failures"] == 4
    assert metrics["n/helpfulness"] == 0 and metrics["n/simple_language"] == 4
    assert metrics["pearson/overall"] == pytest.approx(1.0, abs=1e-9)
    assert math.isnan(metrics["pearson/simple_language"])  # the same 3.1 for every item


@pytest.mark.integration
def test_direct_logprobs_asks_once_and_min_mass_decides_the_parse_failures(tmp_path):
    folder = coeval_folder("self_instruct")
    source = data.load_human_scores("self_instruct", folder)
    overall_of = {item.response: float(np.mean(list(item.human.values()))) for item in source.items}

    def positions(prompt: str) -> Positions:
        response = re.search(r"\n\nOutput:\n(.*)\n\nGive the output", prompt, re.DOTALL).group(1)
        # a quarter of the probability on the scale, the rest on prose
        return [[("The", 0.75), *((token, p / 4) for token, p in around(overall_of[response])[0])]]

    log, calls = eval_in_process(
        "coeval_tasks/custom",
        constant("unused"),
        tmp_path,
        f"data_dir={folder}",
        "mode=direct",
        "n=5",
        "scoring=logprobs",
        "min_mass=0.3",
        top_logprobs=positions,
    )
    assert len(calls) == 5 and {len(call["messages"]) for call in calls} == {1}
    assert log.eval.metadata["min_mass"] == 0.3
    values = [sample.scores["criterion_ratings"].value for sample in log.samples]
    assert all(value["mass/overall"] == pytest.approx(0.25) and math.isnan(value["overall"]) for value in values)
    assert metrics_of(log)["parse_failures"] == 5 and metrics_of(log)["n/overall"] == 0

    # The stored log-probabilities are all a re-reading needs: with the default min_mass each is the human overall.
    for sample in log.samples:
        stored = sample.store["judge_logprobs"][OVERALL]
        assert stored["answer"] == "The" and sample.messages[1].text == "The"
        assert stored_rating(stored, 1, 5).score == pytest.approx(sample.metadata["human"][OVERALL])


@pytest.mark.integration
def test_providers_without_logprobs_get_one_clear_error(tmp_path):
    folder = f"data_dir={coeval_folder('eli5')}"
    command = eval_command("coeval_tasks/eli5", folder, "n=1", "scoring=logprobs", display="plain")
    command[command.index("--model") + 1] = "mockllm/model"
    result, calls = run_command(command, constant("3"), tmp_path / "mockllm", expect_success=False)
    output = result.stdout + result.stderr
    assert "scoring=logprobs needs top log-probabilities, but mockllm/model returns none" in output
    assert "Traceback" not in output and calls == []

    # A server not known in advance to lack them is found out on its first answer; the run stops there.
    command = eval_command("coeval_tasks/eli5", folder, "n=1", "mode=direct", "scoring=logprobs", display="plain")
    result, calls = run_command(command, constant("3"), tmp_path / "server", expect_success=False)
    output = " ".join((result.stdout + result.stderr).split())  # rich wraps the message
    assert "scoring=logprobs needs top log-probabilities, but openai-api/fakejudge/judge returns none" in output
    assert "no samples completed" in output and len(calls) == 1


def test_logprob_options_are_checked_at_task_creation(tmp_path):
    eli5_folder = str(coeval_folder("eli5"))
    with pytest.raises(OptionError, match="unknown scoring 'logprob'"):
        eli5(data_dir=eli5_folder, scoring="logprob")
    with pytest.raises(OptionError, match="min_mass must be from 0 to 1, got 1.5"):
        eli5(data_dir=eli5_folder, scoring="logprobs", min_mass=1.5)
    folder = tmp_path / "custom"
    folder.mkdir()
    criterion = {"range": [0, 2.5], "scale": "likert", "higher_is_better": True, "group": "Content"}
    (folder / "criteria.json").write_text(json.dumps({"criteria": [{"name": "depth", **criterion}]}))
    (folder / "items.jsonl").write_text(json.dumps({"id": "a", "task": "t", "response": "r", "criteria": {}}) + "\n")
    assert custom(data_dir=str(folder), scoring="sample").metadata["scoring"] == "sample"
    with pytest.raises(OptionError, match="whole-number ratings; depth scores on 0-2.5"):
        custom(data_dir=str(folder), scoring="logprobs")


def test_history_keeps_the_most_probable_score_or_the_generated_text_of_a_failure():
    rating = LogprobRating(score=3.0, mass=0.6, unresolved_mass=0.0, probabilities={2: 0.2, 3: 0.2, 4: 0.2})
    assert history_answer(rating, " 4") == "2"  # equally probable: the lowest
    failed = LogprobRating(score=None, mass=0.05, unresolved_mass=0.0, probabilities={1: 0.05, 2: 0.0})
    assert history_answer(failed, "Well") == "Well"
