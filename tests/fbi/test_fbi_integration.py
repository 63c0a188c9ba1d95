"""End-to-end FBI runs against stand-in judges on 127.0.0.1: the real ``inspect eval`` command, and
``inspect_ai.eval`` in the test process for what a run computes."""

from __future__ import annotations

import re
import threading

import pytest

from fbi_tasks.data import load_items
from fbi_tasks.definition import FBI
from tests.support.fake_judge import Answer, constant, knows_gold
from tests.support.inspect_runs import eval_in_process, metrics_of, run_inspect

pytestmark = pytest.mark.integration

CAP = "per_category=2"
N_ITEMS = 23 * 2
"""Two items per category (items with identical answers are left out before the draw)."""

CHECKER = "[Evaluator's explanation]"


def golds(fbi_data) -> set[str]:
    return {item.gold for item in load_items(fbi_data, per_category=2).items}


def first_answer_then(first: str, later: str) -> Answer:
    """A judge that answers ``first`` the first time it sees a prompt and ``later`` every time after."""
    seen: set[str] = set()
    lock = threading.Lock()

    def answer(prompt: str) -> str:
        if CHECKER in prompt:
            return "[[YES]]"
        with lock:
            repeat = prompt in seen
            seen.add(prompt)
        return later if repeat else first

    return answer


@pytest.mark.parametrize("strategy", ["vanilla_star", "rubric", "axis_rubric"])
def test_constant_single_judge_never_penalises(tmp_path, fbi_data, strategy):
    log, calls = eval_in_process(
        "fbi_tasks/single", constant("Rating: [[3]]"), tmp_path, f"data_dir={fbi_data}", CAP, f"strategy={strategy}"
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 1.0
    assert all(
        metrics[f"error_rate/{ability}"] == 1.0
        for ability in ("long_form", "factual", "instruction_following", "reasoning")
    )
    assert metrics["error_rate/factual/entity"] == 1.0
    assert metrics["si_error_rate"] == 0.0
    assert metrics["parse_failures"] == 0
    assert len(calls) == 2 * N_ITEMS  # gold and perturbed rated in separate calls


def test_judge_that_knows_gold_never_fails_single(tmp_path, fbi_data):
    log, _ = eval_in_process(
        "fbi_tasks/single", knows_gold(golds(fbi_data)), tmp_path, f"data_dir={fbi_data}", CAP, "strategy=vanilla"
    )
    metrics = metrics_of(log)
    rates = {name: value for name, value in metrics.items() if name.startswith("error_rate") and "_ci_" not in name}
    assert len(rates) == 1 + 4 + 22
    assert all(value == 0.0 for value in rates.values()), rates
    assert metrics["si_error_rate"] == 1.0  # it penalises every edit, the harmless ones too


def test_constant_pairwise_judge_fails_every_item(tmp_path, fbi_data):
    """Always answering A picks gold in one order and the perturbed answer in the other: every item flips (in this
    process: test_explanation_checker_role runs the command line)."""
    log, calls = eval_in_process(
        "fbi_tasks/pairwise", constant("[[A]]"), tmp_path, f"data_dir={fbi_data}", CAP, "strategy=pairwise_star"
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 1.0
    # Jeffreys: every item failed reaches 1 but is not certainty
    assert metrics["error_rate_ci_high"] == 1.0 and 0.8 < metrics["error_rate_ci_low"] < 1.0
    assert metrics["error_rate/factual/entity"] == 1.0
    assert metrics["flip_rate"] == 1.0 and metrics["gold_both_orders"] == 0.0
    assert metrics["si_error_rate"] == 0.0 and metrics["si_flip_rate"] == 1.0
    assert metrics["first_position_rate"] == 1.0 and metrics["tie_rate"] == 0.0
    assert metrics["error_rate_gold_first"] == 0.0
    assert metrics["error_rate_gold_second"] == 1.0
    assert len(calls) == 2 * N_ITEMS
    assert log.eval.task_version == FBI.version
    assert len(log.eval.metadata["left_out_identical"]) == 7


@pytest.mark.parametrize("strategy", ["pairwise", "axis_rules"])
def test_judge_that_knows_gold_never_fails_pairwise(tmp_path, fbi_data, strategy):
    log, _ = eval_in_process(
        "fbi_tasks/pairwise", knows_gold(golds(fbi_data)), tmp_path, f"data_dir={fbi_data}", CAP, f"strategy={strategy}"
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 0.0 and metrics["error_rate/reasoning/calculations"] == 0.0
    assert metrics["gold_both_orders"] == 1.0 and metrics["flip_rate"] == 0.0
    assert metrics["si_error_rate"] == 1.0  # it prefers the unedited answer in both orders
    assert metrics["first_position_rate"] == 0.5


def test_reference_strategy(tmp_path, fbi_data):
    log, _ = eval_in_process(
        "fbi_tasks/reference", constant("Looks right. Rating: [[10]]"), tmp_path, f"data_dir={fbi_data}", CAP
    )
    assert metrics_of(log)["error_rate"] == 1.0 and metrics_of(log)["si_error_rate"] == 0.0
    log, _ = eval_in_process(
        "fbi_tasks/reference", knows_gold(golds(fbi_data)), tmp_path / "again", f"data_dir={fbi_data}", CAP
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 0.0 and metrics["si_error_rate"] == 1.0


def test_unparsable_verdicts_are_counted(tmp_path, fbi_data):
    log, _ = eval_in_process(
        "fbi_tasks/pairwise",
        constant("Hard to say."),
        tmp_path,
        f"data_dir={fbi_data}",
        "per_category=1",
        "abilities=factual",
    )
    metrics = metrics_of(log)
    assert metrics["parse_failures"] == 6 * 2
    assert metrics["error_rate"] != metrics["error_rate"]  # NaN: nothing to rate
    assert metrics["flip_rate"] != metrics["flip_rate"]


def test_explanation_checker_role(tmp_path, fbi_data):
    """Explanations of equal ratings go to the explanation_checker role, which reports they name an error."""

    def judge_or_checker(prompt: str) -> str:
        return "[[YES]]" if CHECKER in prompt else "There is an error, but it is minor. Rating: [[3]]"

    log, calls = run_inspect(
        "fbi_tasks/single",
        judge_or_checker,
        tmp_path,
        f"data_dir={fbi_data}",
        "per_category=1",
        "abilities=factual",
        "strategy=vanilla",
        extra_args=("--model-role", "explanation_checker=openai-api/fakejudge/checker"),
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 1.0
    checker_calls = [call for call in calls if call["model"] == "checker"]
    assert len(checker_calls) == 6
    assert metrics["explanation_caught_rate"] == 1.0
    assert metrics["explanation_caught_rate/factual/entity"] == 1.0
    assert metrics["explanation_unparsed"] == 0


_SHOWN = re.compile(
    r"introduced into (Answer [AB]) on purpose.*\[Answer A\]\n(.*?)\n\n\[Answer B\]\n(.*?)\n\n\[Evaluator's explanation\]\n(.*)",
    re.DOTALL,
)


def test_pairwise_explanation_check_shows_both_answers_and_names_the_flawed_one(tmp_path, fbi_data):
    """The judge ties, blaming answer A; the checker sees both answers as the judge did and is told which one
    carries the error, so the blame counts only in the order where the perturbed answer was A."""
    items = load_items(fbi_data, per_category=1, abilities=["factual"]).items
    perturbed = {item.perturbed for item in items}
    golds_shown = {item.gold for item in items}
    seen: list[tuple[str, str, str]] = []

    def judge_or_checker(prompt: str) -> str:
        if CHECKER not in prompt:
            return "Answer A gets a fact wrong, but both are fine overall. [[C]]"
        flawed, answer_a, answer_b, explanation = _SHOWN.search(prompt).groups()
        seen.append((flawed, answer_a, answer_b))
        return "[[YES]]" if flawed == "Answer A" and "Answer A gets a fact wrong" in explanation else "[[NO]]"

    log, calls = eval_in_process(
        "fbi_tasks/pairwise",
        judge_or_checker,
        tmp_path,
        f"data_dir={fbi_data}",
        "per_category=1",
        "abilities=factual",
        roles={"explanation_checker": "checker"},
    )
    assert len(seen) == 6 * 2  # a tie in both orders of every item
    for flawed, answer_a, answer_b in seen:
        assert (answer_a, answer_b) in {(i.gold, i.perturbed) for i in items} | {(i.perturbed, i.gold) for i in items}
        assert (answer_b if flawed == "Answer B" else answer_a) in perturbed
        assert (answer_a if flawed == "Answer B" else answer_b) in golds_shown
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 1.0 and metrics["tie_both_orders"] == 1.0
    assert metrics["explanation_caught_rate"] == 0.5


def test_single_explanation_check_skips_higher_ratings(tmp_path, fbi_data):
    """Paper 5.3 checks the judgments that rated the perturbed answer equal to the gold one, not above it."""
    gold_answers = golds(fbi_data)
    rated = re.compile(r"\[Answer\]\n(.*?)\n\nFirst explain", re.DOTALL)

    def judge_or_checker(prompt: str) -> str:
        if CHECKER in prompt:
            return "[[YES]]"
        return "Rating: [[2]]" if rated.search(prompt).group(1) in gold_answers else "Rating: [[5]]"

    log, calls = eval_in_process(
        "fbi_tasks/single",
        judge_or_checker,
        tmp_path,
        f"data_dir={fbi_data}",
        CAP,
        "abilities=factual",
        "strategy=vanilla",
        roles={"explanation_checker": "checker"},
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 1.0
    assert not [call for call in calls if call["model"] == "checker"]
    assert metrics["explanation_caught_rate"] != metrics["explanation_caught_rate"]  # NaN: nothing was checked


def test_pairwise_epochs_keep_every_epoch(tmp_path, fbi_data):
    """Each prompt is answered A once, then not at all: one epoch flips, the other is unparsed and left out."""
    log, calls = eval_in_process(
        "fbi_tasks/pairwise",
        first_answer_then("[[A]]", "no verdict"),
        tmp_path,
        f"data_dir={fbi_data}",
        "per_category=1",
        "abilities=factual",
        "strategy=pairwise_star",
        epochs=2,
        max_samples=1,
    )
    metrics = metrics_of(log)
    assert len(calls) == 6 * 2 * 2
    assert metrics["error_rate"] == 1.0 and metrics["flip_rate"] == 1.0
    assert metrics["first_position_rate"] == 1.0
    assert metrics["parse_failures"] == 6  # per epoch: 12 unparsable answers over two epochs


def test_constant_pairwise_judge_with_two_epochs(tmp_path, fbi_data):
    log, calls = eval_in_process(
        "fbi_tasks/pairwise",
        constant("[[A]]"),
        tmp_path,
        f"data_dir={fbi_data}",
        "per_category=1",
        "strategy=pairwise_star",
        epochs=2,
    )
    metrics = metrics_of(log)
    assert len(calls) == 23 * 2 * 2
    assert metrics["error_rate"] == 1.0 and metrics["si_error_rate"] == 0.0 and metrics["flip_rate"] == 1.0


def test_single_epochs_with_the_explanation_checker(tmp_path, fbi_data):
    """Equal ratings in one epoch (checked), nothing parsable in the other: the score keys stay the same."""
    log, calls = eval_in_process(
        "fbi_tasks/single",
        first_answer_then("A small slip. Rating: [[4]]", "I cannot rate this."),
        tmp_path,
        f"data_dir={fbi_data}",
        "per_category=1",
        "abilities=factual",
        "strategy=vanilla",
        epochs=2,
        max_samples=1,
        roles={"explanation_checker": "checker"},
    )
    metrics = metrics_of(log)
    assert len([call for call in calls if call["model"] == "checker"]) == 6
    assert metrics["error_rate"] == 1.0
    assert metrics["explanation_caught_rate"] == 1.0
    assert metrics["parse_failures"] == 6
