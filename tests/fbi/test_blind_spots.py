import math

import numpy as np
import pytest
from inspect_ai.scorer import SampleScore, Score, mean_score
from scipy import integrate

from scorers.blind_spots import (
    FailureRecord,
    chosen_answer,
    error_rate_metrics,
    pairwise_failure,
    pairwise_item_failure,
    pairwise_outcome,
    position_rates,
    rate_with_ci,
    reference_failure,
    reference_failure_probability,
    single_failure,
    single_failure_probability,
)
from scorers.fbi import blind_spot_metrics, blind_spot_rates, judgments

PERTURBED = {"ability": "factual", "category": "entity", "invariant": False}
INVARIANT = {"ability": "score_invariant", "category": "score_invariant", "invariant": True}


def pairwise_score(gold_first: str, gold_second: str, metadata=PERTURBED) -> SampleScore:
    """One pairwise item's score from the judge's raw answers in the two orders."""
    value, _ = judgments("pairwise", {"gold_first": gold_first, "gold_second": gold_second}, 10, metadata["invariant"])
    return SampleScore(score=Score(value=value), sample_metadata=metadata)


def test_single_failure_rules():
    assert single_failure(8, 8, invariant=False) == 1.0  # not penalised
    assert single_failure(8, 9, invariant=False) == 1.0
    assert single_failure(8, 5, invariant=False) == 0.0
    assert single_failure(8, 5, invariant=True) == 1.0  # penalising an invariant edit is the mistake
    assert single_failure(8, 8, invariant=True) == 0.0
    assert math.isnan(single_failure(None, 5, invariant=False))


def test_pairwise_failure_and_positions():
    assert chosen_answer("A", "A") == "gold" and chosen_answer("A", "B") == "perturbed"
    assert chosen_answer("tie", "A") == "tie" and chosen_answer(None, "A") is None
    assert pairwise_failure("gold", invariant=False) == 0.0
    assert pairwise_failure("tie", invariant=False) == 1.0
    assert pairwise_failure("perturbed", invariant=False) == 1.0
    assert pairwise_failure("gold", invariant=True) == 1.0
    assert pairwise_failure("tie", invariant=True) == 0.0
    assert math.isnan(pairwise_failure(None, invariant=False))


def test_reference_failure_is_a_perfect_score():
    assert reference_failure(10, 10, invariant=False) == 1.0
    assert reference_failure(9, 10, invariant=False) == 0.0
    assert reference_failure(9, 10, invariant=True) == 1.0
    assert math.isnan(reference_failure(None, 10, invariant=False))


def _posterior_tail(rate: float, failed: float, n: int) -> float:
    """The mass below ``rate`` of the posterior under Jeffreys' prior, Beta(1/2, 1/2), integrated numerically."""
    density = lambda p: p ** (failed - 0.5) * (1 - p) ** (n - failed - 0.5)  # noqa: E731
    return integrate.quad(density, 0, rate)[0] / integrate.quad(density, 0, 1)[0]


def test_rate_interval_is_the_jeffreys_posterior_interval():
    failures = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1, math.nan]
    estimate = rate_with_ci(failures)
    assert estimate.rate == pytest.approx(0.7)
    assert estimate.n == 10
    # equal tails: 2.5 % of the posterior below the lower bound, 97.5 % below the upper one
    assert _posterior_tail(estimate.low, 7, 10) == pytest.approx(0.025, abs=1e-6)
    assert _posterior_tail(estimate.high, 7, 10) == pytest.approx(0.975, abs=1e-6)
    assert estimate.low < 0.7 < estimate.high
    shares = rate_with_ci([0.5, 1.0, 0.0, 0.25])  # epoch shares count as their part of an item: 1.75 of 4
    assert _posterior_tail(shares.low, 1.75, 4) == pytest.approx(0.025, abs=1e-6)


def test_rate_with_ci_degenerate_cases():
    assert rate_with_ci([1.0, 1.0, 1.0]) == rate_with_ci([1.0, 1.0, 1.0])
    same = rate_with_ci([1.0, 1.0, 1.0])  # every item failed: the upper bound is 1, the lower one is not
    assert (same.rate, same.high, same.n) == (1.0, 1.0, 3)
    assert _posterior_tail(same.low, 3, 3) == pytest.approx(0.025, abs=1e-6) and same.low < 0.6
    none = rate_with_ci([0.0] * 10)  # no failure in 10 items is not certainty: [0, 0.217]
    assert none.low == 0.0 and none.high == pytest.approx(0.2172, abs=1e-4)
    empty = rate_with_ci([math.nan])
    assert empty.n == 0 and math.isnan(empty.rate)


def test_error_rate_metric_names_and_values():
    records = [
        FailureRecord("factual", "entity", False, 1.0),
        FailureRecord("factual", "entity", False, 0.0),
        FailureRecord("factual", "number_errors", False, 1.0),
        FailureRecord("reasoning", "calculations", False, 0.0),
        FailureRecord("reasoning", "calculations", False, math.nan),
        FailureRecord("score_invariant", "score_invariant", True, 0.0),
        FailureRecord("score_invariant", "score_invariant", True, 1.0),
    ]
    metrics = error_rate_metrics(records)
    assert metrics["error_rate"] == pytest.approx(2 / 4)
    assert metrics["error_rate/factual"] == pytest.approx(2 / 3)
    assert metrics["error_rate/factual/entity"] == pytest.approx(0.5)
    assert metrics["error_rate/reasoning/calculations"] == 0.0
    assert metrics["si_error_rate"] == pytest.approx(0.5)
    # one parsed item, no failure: from 0 to the 97.5th percentile of Beta(1/2, 3/2), not the point 0
    assert metrics["error_rate_ci_low/reasoning"] == 0.0
    assert _posterior_tail(metrics["error_rate_ci_high/reasoning"], 0, 1) == pytest.approx(0.975, abs=1e-6)
    assert metrics["error_rate_ci_low"] <= 0.5 <= metrics["error_rate_ci_high"]
    assert "si_error_rate_ci_low" in metrics


def test_pairwise_outcome_follows_the_authors_classification():
    assert pairwise_outcome("gold", "gold") == "gold"
    assert pairwise_outcome("perturbed", "perturbed") == "perturbed"
    assert pairwise_outcome("tie", "tie") == "tie"
    assert pairwise_outcome("gold", "perturbed") == "inconsistent"  # always answer A
    assert pairwise_outcome("gold", "tie") == "inconsistent"  # a tie in one order only
    assert pairwise_outcome(None, "gold") is None and pairwise_outcome("gold", None) is None


def test_pairwise_item_failure():
    assert pairwise_item_failure("gold", invariant=False) == 0.0
    assert all(pairwise_item_failure(kind, invariant=False) == 1.0 for kind in ("perturbed", "tie", "inconsistent"))
    assert pairwise_item_failure("gold", invariant=True) == 1.0
    assert all(pairwise_item_failure(kind, invariant=True) == 0.0 for kind in ("perturbed", "tie", "inconsistent"))
    assert math.isnan(pairwise_item_failure(None, invariant=False))


def test_position_rates_leave_ties_out_of_the_first_position_rate():
    assert position_rates(1, 1, 2) == (0.5, 0.5)  # ties half the time, no side preferred
    assert position_rates(3, 1, 0) == (0.75, 0.0)
    first, tie = position_rates(0, 0, 2)
    assert math.isnan(first) and tie == 1.0
    assert all(math.isnan(rate) for rate in position_rates(0, 0, 0))


def test_constant_first_answer_judge_fails_every_pairwise_item():
    metrics = blind_spot_rates("pairwise")([pairwise_score("[[A]]", "[[A]]") for _ in range(4)])
    assert metrics["error_rate"] == 1.0
    assert metrics["error_rate/factual/entity"] == 1.0
    assert metrics["flip_rate"] == 1.0
    assert metrics["gold_both_orders"] == metrics["perturbed_both_orders"] == metrics["tie_both_orders"] == 0.0
    assert metrics["error_rate_gold_first"] == 0.0 and metrics["error_rate_gold_second"] == 1.0
    assert metrics["first_position_rate"] == 1.0 and metrics["tie_rate"] == 0.0
    assert metrics["parse_failures"] == 0.0


def test_pairwise_outcome_shares_and_score_invariant_items():
    scores = [
        pairwise_score("[[A]]", "[[B]]"),  # gold both
        pairwise_score("[[B]]", "[[A]]"),  # perturbed both
        pairwise_score("[[C]]", "[[C]]"),  # tie both
        pairwise_score("[[A]]", "[[C]]"),  # flips
        pairwise_score("[[A]]", "no verdict"),  # left out, counted
        pairwise_score("[[A]]", "[[B]]", INVARIANT),  # penalises a harmless edit
        pairwise_score("[[C]]", "[[C]]", INVARIANT),
    ]
    metrics = blind_spot_rates("pairwise")(scores)
    assert metrics["error_rate"] == pytest.approx(3 / 4)
    shares = ("gold_both_orders", "perturbed_both_orders", "tie_both_orders", "flip_rate")
    assert [metrics[name] for name in shares] == [0.25] * 4
    assert metrics["si_error_rate"] == 0.5 and metrics["si_gold_both_orders"] == 0.5
    assert metrics["si_tie_both_orders"] == 0.5 and metrics["si_flip_rate"] == 0.0
    # verdicts over all 13 parsed answers: A 5, B 3, tie 5
    assert metrics["first_position_rate"] == pytest.approx(5 / 8)
    assert metrics["tie_rate"] == pytest.approx(5 / 13)
    assert metrics["parse_failures"] == 1.0
    assert metrics["error_rate_gold_second"] == pytest.approx(3 / 4)  # B (gold) chosen once in 4 parsed


def test_pairwise_rate_intervals_count_items():
    outcomes = [("[[A]]", "[[B]]")] * 6 + [("[[A]]", "[[A]]")] * 4
    metrics = blind_spot_rates("pairwise")([pairwise_score(*pair) for pair in outcomes])
    assert metrics["error_rate"] == pytest.approx(0.4)
    assert _posterior_tail(metrics["error_rate_ci_low"], 4, 10) == pytest.approx(0.025, abs=1e-6)
    assert _posterior_tail(metrics["error_rate_ci_high"], 4, 10) == pytest.approx(0.975, abs=1e-6)


def test_epochs_average_each_item_outcome_not_each_order():
    """Epoch 1: gold both orders; epoch 2: answer A both times (a flip); epoch 3: unparsed (left out)."""
    epochs = [pairwise_score("[[A]]", "[[B]]"), pairwise_score("[[A]]", "[[A]]"), pairwise_score("?", "?")]
    reduced = mean_score()([epoch.score for epoch in epochs])
    assert reduced.value["failure"] == 0.5
    assert reduced.value["outcome_gold"] == 0.5 and reduced.value["outcome_inconsistent"] == 0.5
    assert reduced.value["parse_failures"] == pytest.approx(2 / 3)
    metrics = blind_spot_rates("pairwise")([SampleScore(score=reduced, sample_metadata=PERTURBED)])
    assert metrics["error_rate"] == 0.5 and metrics["flip_rate"] == 0.5 and metrics["tie_rate"] == 0.0
    assert metrics["first_position_rate"] == pytest.approx(3 / 4)


def test_single_explanation_checks_only_equal_ratings():
    _, equal = judgments("single", {"gold": "Rating: [[7]]", "perturbed": "Rating: [[7]]"}, 10, False)
    _, higher = judgments("single", {"gold": "Rating: [[7]]", "perturbed": "Rating: [[9]]"}, 10, False)
    _, top = judgments("reference", {"perturbed": "Rating: [[10]]"}, 10, False)
    _, ties = judgments("pairwise", {"gold_first": "[[C]]", "gold_second": "[[B]]"}, 10, False)
    assert equal["rated_equal"] == ["perturbed"] and higher["rated_equal"] == []
    assert top["rated_equal"] == ["perturbed"] and ties["rated_equal"] == ["gold_first"]


# ---- issue 17: failures under log-probabilities are probabilities, not comparisons of expected ratings ----


def test_single_failure_probability_by_hand():
    same = {9: 0.5, 10: 0.5}
    # P(S_p < S_g) = P(g=10) P(p=9) = 0.25, so the judge fails to penalise with probability 0.75
    assert single_failure_probability(same, same, invariant=False) == pytest.approx(0.75)
    assert single_failure_probability(same, same, invariant=True) == pytest.approx(0.25)
    # unnormalised distributions are renormalised: mass 0.5 on {8, 9}
    assert single_failure_probability({9: 0.4, 10: 0.4}, {8: 0.25, 9: 0.25}, invariant=False) == pytest.approx(0.25)
    assert math.isnan(single_failure_probability(None, same, invariant=False))
    assert math.isnan(single_failure_probability(same, {}, invariant=False))


def test_a_judge_whose_most_likely_rating_does_not_move_fails_as_often_as_when_sampled():
    gold = perturbed = {7: 0.6, 6: 0.4}
    # the old rule compared expected ratings (6.6 and 6.6); the sampled protocol draws one rating of each
    probability = single_failure_probability(gold, perturbed, invariant=False)
    assert probability == pytest.approx(1 - 0.6 * 0.4)
    rng = np.random.default_rng(0)
    draws = rng.choice([7, 6], p=[0.6, 0.4], size=(2, 200_000))
    assert np.mean(draws[1] >= draws[0]) == pytest.approx(probability, abs=0.005)


def test_reference_failure_probability_is_the_top_score_probability():
    # expected 9.97 < 10 never failed before; the judge gives the top score 97 % of the time
    assert reference_failure_probability({10: 0.97, 9: 0.03}, 10, invariant=False) == pytest.approx(0.97)
    assert reference_failure_probability({10: 0.97, 9: 0.03}, 10, invariant=True) == pytest.approx(0.03)
    assert reference_failure_probability({10: 0.3, 8: 0.3}, 10, invariant=False) == pytest.approx(0.5)
    assert math.isnan(reference_failure_probability(None, 10, invariant=False))


# ---- issue 25, item 5: the paper's orientation and the authors' deviations ----


def test_si_error_rate_is_one_minus_the_papers_si_column():
    # Table 4: reference-based Llama-3-70B "awards perfect scores only in 13% of the cases", SI 0.13 (a success
    # rate); 13 of 100 score-invariant items given the top score is si_error_rate 0.87 here
    answers = ["Close to the reference. Rating: [[10]]"] * 13 + ["One step is missing. Rating: [[9]]"] * 87
    samples = [(INVARIANT, judgments("reference", {"perturbed": answer}, 10, True)[0]) for answer in answers]
    assert blind_spot_metrics("reference", samples)["si_error_rate"] == pytest.approx(0.87)


def test_fractional_ratings_are_compared_as_given_not_truncated():
    # the authors' script compares int(8) < int(8.5), 8 < 8: unchanged, a failure; here 8 < 8.5 is a pass
    value, _ = judgments("single", {"gold": "Rating: [[8.5]]", "perturbed": "Rating: [[8]]"}, 10, False)
    assert value["failure"] == 0.0 and value["parse_failures"] == 0


def test_the_authors_fourth_verdict_is_a_parse_failure():
    # [[D]], "both answers are unacceptable", is not offered by this project's prompts: the item is left out
    answers = {"gold_first": "Answer A is better, but both are wrong.\n\n[[D]]", "gold_second": "[[B]]"}
    value, parsed = judgments("pairwise", answers, 10, False)
    assert parsed["verdicts"] == {"gold_first": None, "gold_second": "B"}
    assert value["parse_failures"] == 1 and math.isnan(value["failure"])
