"""End-to-end ``-T scoring=logprobs``: the real ``inspect eval`` against a stand-in judge that returns top logprobs."""

from __future__ import annotations

import json
import math
import random
import re

import pytest

from adherence_tasks.adherence import select_items
from fbi_tasks.data import load_items as load_fbi_items
from judge_data.human import load_criteria, load_items
from scorers.discernment import discernment
from tests.adherence.test_adherence_integration import _ITEM, unambiguous_seed
from tests.conftest import data_folder
from tests.dhp.test_inspect_integration import INSPECT
from tests.support.fake_judge import Positions, constant, judged_text
from tests.support.inspect_runs import eval_command, eval_in_process, metrics_of, originals_of, run_command, run_inspect

pytestmark = pytest.mark.integration

_CRITERION = re.compile(r"### Criterion: (.+?) \(")

ORIGINAL: Positions = [[("5", 0.6), ("4", 0.4)]]
"""Expected rating 5 * 0.6 + 4 * 0.4 = 4.6, all the mass on the scale."""

PERTURBED: Positions = [[(" ", 0.9), ("2", 0.1)], [("2", 0.5), ("1", 0.5)]]
"""A generated space, then 2 or 1: P(2) = 0.1 + 0.9 * 0.5 = 0.55, P(1) = 0.45, expected 1.55."""

NOT_A_NUMBER: Positions = [[("The", 0.95), ("3", 0.05)]]
"""Mass 0.05: below the default min_mass of 0.1, so a parse failure; with min_mass=0.01 the rating is 3."""


def dhp_judge(originals: set[str]):
    def positions(prompt: str) -> Positions:
        if _CRITERION.search(prompt).group(1) == "Fluency":
            return NOT_A_NUMBER
        return ORIGINAL if judged_text(prompt) in originals else PERTURBED

    return positions


def test_dhp_reads_expected_ratings_and_counts_low_mass_as_parse_failures(tmp_path, dhp_data):
    folder = dhp_data("storycloze")
    originals = originals_of("storycloze", folder, 4)
    args = (f"data_dir={folder}", "n=4", "perturbations=typos", "scoring=logprobs", "repeats=5")
    log, calls = run_inspect(
        "dhp_tasks/storycloze", constant("unused"), tmp_path, *args, top_logprobs=dhp_judge(originals)
    )
    # one request per text and metric whatever repeats says: 4 items x (original + typos) x 3 metrics
    assert len(calls) == 4 * 2 * 3
    # 3 tokens for the rating, 8 for an echo of the prompt's closing label ("Coherence score:")
    assert {(c["logprobs"], c["top_logprobs"], c["max_tokens"], c.get("n")) for c in calls} == {(True, 20, 11, None)}
    assert log.eval.metadata["scoring"] == "logprobs" and log.eval.metadata["min_mass"] == 0.1
    assert log.eval.metadata["repeats"] == 1
    by_variant = {s.metadata["perturbation"]: next(iter(s.scores.values())) for s in log.samples}
    original, perturbed = by_variant["original"], by_variant["typos"]
    assert original.value["coherence"] == pytest.approx(4.6) and original.value["mass/coherence"] == pytest.approx(1)
    assert perturbed.value["consistency"] == pytest.approx(1.55)
    assert math.isnan(original.value["fluency"]) and original.value["parse_failures/fluency"] == 1
    assert original.value["mass/fluency"] == pytest.approx(0.05)
    assert original.metadata["scoring"] == "logprobs"
    assert original.metadata["ratings"]["coherence"]["probabilities"]["5"] == pytest.approx(0.6)
    metrics = metrics_of(log)
    assert metrics["parse_failures/fluency"] == 8 and metrics["parse_failures/coherence"] == 0
    assert metrics["D/typos"] == pytest.approx(discernment(1 / 16))  # every pair lower: the least p on 4 pairs

    # The stored log-probabilities are all the scorer needs: re-read them with another min_mass.
    command = [
        INSPECT, "score", log.location, "--scorer", "scorers/mean_ratings", "-S", "min_mass=0.01",
        "--action", "overwrite", "--output-file", str(tmp_path / "rescored.json"), "--display", "log",
    ]  # fmt: skip
    _, calls = run_command(command, constant("3"), tmp_path)
    assert calls == []
    rescored = json.loads((tmp_path / "rescored.json").read_text())
    values = [next(iter(sample["scores"].values()))["value"] for sample in rescored["samples"]]
    assert {value["fluency"] for value in values} == {3.0}
    assert {value["parse_failures/fluency"] for value in values} == {0.0}


def test_a_server_without_logprobs_gets_one_clear_error(tmp_path, dhp_data):
    folder = dhp_data("storycloze")
    command = eval_command("dhp_tasks/storycloze", f"data_dir={folder}", "n=1", "scoring=logprobs", display="plain")
    result, _ = run_command(command, constant("3"), tmp_path, expect_success=False)
    assert "scoring=logprobs needs top log-probabilities" in result.stdout + result.stderr


def test_a_provider_known_to_lack_logprobs_is_refused_at_task_creation(tmp_path, dhp_data):
    command = eval_command(
        "dhp_tasks/storycloze", f"data_dir={dhp_data('storycloze')}", "n=1", "scoring=logprobs", display="plain"
    )
    command[command.index("--model") + 1] = "mockllm/model"
    result, calls = run_command(command, constant("3"), tmp_path, expect_success=False)
    output = result.stdout + result.stderr
    assert "scoring=logprobs needs top log-probabilities, but mockllm/model returns none" in output
    assert "Traceback" not in output and calls == []


def humans_as_probabilities(dataset: str, n: int, seed: int):
    """A judge whose expected answer is each item's human mean: P(yes) = mean for yes/no, else split between
    the two whole scores around the mean."""
    folder = data_folder("human", dataset)
    criteria, _ = load_criteria(folder)
    human = {(item.task, item.response): item.human for item in select_items(load_items(folder, criteria), n, seed)}
    titles = sorted(((c.title, c) for c in criteria), key=lambda pair: -len(pair[0]))

    def positions(prompt: str) -> Positions:
        task, response, ask = _ITEM.search(prompt).groups()
        chosen = next(c for title, c in titles if title in ask)
        score = human[(task, response)][chosen.name]
        if chosen.binary:
            split = [("Yes", score), ("No", 1 - score)]
        else:
            low = min(math.floor(score), int(chosen.high) - 1)
            split = [(str(low), 1 - (score - low)), (str(low + 1), score - low)]
        return [[(token, p) for token, p in split if p > 0]]

    return positions


def test_adherence_logprobs_on_yes_no_and_rating_questions(tmp_path):
    folder = data_folder("human", "topicalchat")
    seed = unambiguous_seed("topicalchat", 30)
    log, calls = run_inspect(
        "adherence_tasks/topicalchat",
        constant("unused"),
        tmp_path,
        f"data_dir={folder}",
        "n=30",
        f"seed={seed}",
        "setting=criterion",
        "scoring=logprobs",
        top_logprobs=humans_as_probabilities("topicalchat", 30, seed),
    )
    metrics = metrics_of(log)
    criteria = log.eval.metadata["criteria"]
    assert {spec["scale"] for spec in criteria.values()} == {"binary", "likert"}
    for name in criteria:
        if metrics[f"n/{name}"] > 2 and not math.isnan(metrics[f"pearson/{name}"]):
            assert metrics[f"pearson/{name}"] == pytest.approx(1.0), name
    assert metrics["parse_failures"] == 0
    assert len(calls) == 30 * len(criteria)
    assert log.eval.metadata["scoring"] == "logprobs"
    score = next(iter(log.samples[0].scores.values()))
    assert score.metadata["scoring"] == "logprobs"
    assert all(score.value[f"mass/{name}"] == pytest.approx(1.0) for name in criteria)


def test_adherence_setting_perplexity_points_to_scoring_perplexity(tmp_path):
    """Version 4 moved the likelihood setting to the option every suite names it by; the old spelling says so."""
    folder = data_folder("human", "summeval")
    command = eval_command("adherence_tasks/summeval", f"data_dir={folder}", "setting=perplexity", display="plain")
    result, calls = run_command(command, constant("3"), tmp_path, expect_success=False)
    output = result.stdout + result.stderr
    assert "pass -T scoring=perplexity" in output and "Traceback" not in output and calls == []


def test_fbi_single_logprobs_asks_for_the_rating_only(tmp_path, fbi_data):
    golds = {item.gold for item in load_fbi_items(fbi_data, per_category=1).items}
    answer = re.compile(r"\[Answer\]\n(.*?)\n\nReply with the rating only", re.DOTALL)

    def positions(prompt: str) -> Positions:
        if answer.search(prompt).group(1) in golds:
            return [[("9", 0.5), ("10", 0.5)]]
        return [[("1", 0.8), ("3", 0.2)], [("0", 0.5), ("\n", 0.5)]]

    log, calls = run_inspect(
        "fbi_tasks/single",
        constant("unused"),
        tmp_path,
        f"data_dir={fbi_data}",
        "per_category=1",
        "strategy=vanilla",
        "scoring=logprobs",
        top_logprobs=positions,
    )
    prompts = [call["messages"][-1]["content"] for call in calls]
    assert not any("First explain" in prompt for prompt in prompts)
    assert {call["max_tokens"] for call in calls} == {4}
    assert log.eval.metadata["scoring"] == "logprobs"
    assert log.eval.metadata["prompt"] == "rating only, no explanation"
    metrics = metrics_of(log)
    assert metrics["parse_failures"] == 0
    value = next(s for s in log.samples if not s.metadata["invariant"]).scores["blind_spot_judgments"].value
    assert value["gold_score"] == pytest.approx(9.5)
    # "1" generated, then "0" or a newline: P(10) = 0.4, P(1) = 0.4, P(3) = 0.2
    assert value["perturbed_score"] == pytest.approx((10 * 0.4 + 1 * 0.4 + 3 * 0.2) / 1.0)
    assert value["mass_perturbed"] == pytest.approx(1.0)
    # the expected ratings 9.5 > 5.0 would say "penalised"; the failure is its probability under the judge's
    # distributions: P(S_perturbed >= S_gold) = P(perturbed 10) = 0.4 for every perturbed item
    assert value["failure"] == pytest.approx(0.4) and metrics["error_rate"] == pytest.approx(0.4)


GOLD_RATINGS = {9: 0.5, 10: 0.5}
PERTURBED_RATINGS = {10: 0.4, 2: 0.4, 3: 0.2}
"""The stand-in judge's rating distributions in the next test: P(S_perturbed >= S_gold) = 0.4."""


def test_fbi_logprob_failure_is_the_sampled_failure_rate_in_expectation(tmp_path, fbi_data):
    items = load_fbi_items(fbi_data, categories=["entity", "spelling", "copying_numbers"], per_category=4).items
    golds = {item.gold for item in items}
    answer = re.compile(r"\[Answer\]\n(.*?)\n\n(?:Reply with the rating only|First explain)", re.DOTALL)
    options = (f"data_dir={fbi_data}", "categories=entity,spelling,copying_numbers", "per_category=4")

    def distribution(prompt: str) -> dict[int, float]:
        return GOLD_RATINGS if answer.search(prompt).group(1) in golds else PERTURBED_RATINGS

    def positions(prompt: str) -> Positions:
        return [[(str(rating), p) for rating, p in distribution(prompt).items()], [("\n", 1.0)]]

    draws = random.Random(0)

    def sampled(prompt: str) -> str:
        ratings = distribution(prompt)
        return f"Rating: [[{draws.choices(list(ratings), weights=list(ratings.values()))[0]}]]"

    logprobs, _ = eval_in_process("fbi_tasks/single", constant("unused"), tmp_path / "logprobs", *options,
                                  "scoring=logprobs", top_logprobs=positions)  # fmt: skip
    sampled_log, calls = eval_in_process(
        "fbi_tasks/single", sampled, tmp_path / "sampled", *options, epochs=40, max_connections=1
    )
    expected, observed = metrics_of(logprobs)["error_rate"], metrics_of(sampled_log)["error_rate"]
    assert expected == pytest.approx(0.4)
    assert len(calls) == 40 * 2 * len(items)
    # 40 epochs x 12 items: the sampled rate's standard error is about 0.02
    assert observed == pytest.approx(expected, abs=0.06)
