"""End-to-end FBI runs: the real ``inspect eval`` command against stand-in judges on 127.0.0.1."""

from __future__ import annotations

import pytest

from fbi_tasks.data import load_items
from tests.fake_judge import constant, knows_gold
from tests.test_inspect_integration import metrics_of, run_inspect

pytestmark = pytest.mark.integration

CAP = "per_category=2"


def golds(fbi_data) -> set[str]:
    return {item.gold for item in load_items(fbi_data, per_category=2)}


@pytest.mark.parametrize("strategy", ["vanilla_star", "rubric", "axis_rubric"])
def test_constant_single_judge_never_penalises(tmp_path, fbi_data, strategy):
    log, calls = run_inspect(
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
    assert len(calls) == 2 * 23 * 2  # gold and perturbed rated in separate calls


def test_judge_that_knows_gold_never_fails_single(tmp_path, fbi_data):
    log, _ = run_inspect(
        "fbi_tasks/single", knows_gold(golds(fbi_data)), tmp_path, f"data_dir={fbi_data}", CAP, "strategy=vanilla"
    )
    metrics = metrics_of(log)
    rates = {name: value for name, value in metrics.items() if name.startswith("error_rate") and "_ci_" not in name}
    assert len(rates) == 1 + 4 + 22
    assert all(value == 0.0 for value in rates.values()), rates
    assert metrics["si_error_rate"] == 1.0  # it penalises every edit, the harmless ones too


def test_constant_pairwise_judge_shows_position_bias(tmp_path, fbi_data):
    log, calls = run_inspect(
        "fbi_tasks/pairwise", constant("[[A]]"), tmp_path, f"data_dir={fbi_data}", CAP, "strategy=pairwise_star"
    )
    metrics = metrics_of(log)
    assert metrics["first_position_rate"] == 1.0
    assert metrics["position_consistency"] == 0.0
    assert metrics["error_rate_gold_first"] == 0.0
    assert metrics["error_rate_gold_second"] == 1.0
    assert metrics["error_rate"] == 0.5
    assert metrics["si_error_rate"] == 0.5
    assert len(calls) == 2 * 23 * 2


@pytest.mark.parametrize("strategy", ["pairwise", "axis_rules"])
def test_judge_that_knows_gold_never_fails_pairwise(tmp_path, fbi_data, strategy):
    log, _ = run_inspect(
        "fbi_tasks/pairwise", knows_gold(golds(fbi_data)), tmp_path, f"data_dir={fbi_data}", CAP, f"strategy={strategy}"
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 0.0 and metrics["error_rate/reasoning/calculations"] == 0.0
    assert metrics["position_consistency"] == 1.0
    assert metrics["first_position_rate"] == 0.5


def test_reference_strategy(tmp_path, fbi_data):
    log, _ = run_inspect(
        "fbi_tasks/reference", constant("Looks right. Rating: [[10]]"), tmp_path, f"data_dir={fbi_data}", CAP
    )
    assert metrics_of(log)["error_rate"] == 1.0 and metrics_of(log)["si_error_rate"] == 0.0
    log, _ = run_inspect(
        "fbi_tasks/reference", knows_gold(golds(fbi_data)), tmp_path / "again", f"data_dir={fbi_data}", CAP
    )
    metrics = metrics_of(log)
    assert metrics["error_rate"] == 0.0 and metrics["si_error_rate"] == 1.0


def test_unparsable_verdicts_are_counted(tmp_path, fbi_data):
    log, _ = run_inspect(
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


def test_explanation_checker_role(tmp_path, fbi_data):
    """Each failing judgment's explanation goes to the explanation_checker role, which reports it names an error."""

    def judge_or_checker(prompt: str) -> str:
        return (
            "[[YES]]" if "[Evaluator's explanation]" in prompt else "There is an error, but it is minor. Rating: [[3]]"
        )

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
