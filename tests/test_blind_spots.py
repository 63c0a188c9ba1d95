import math

import numpy as np
import pytest
from scipy import stats

from scorers.blind_spots import (
    FailureRecord,
    chosen_answer,
    error_rate_metrics,
    pairwise_failure,
    rate_with_ci,
    reference_failure,
    single_failure,
)


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


def test_rate_with_ci_matches_scipy_bootstrap():
    failures = [1, 0, 1, 1, 0, 1, 0, 1, 1, 1, math.nan]
    estimate = rate_with_ci(failures, seed=3)
    values = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 1], dtype=float)
    expected = stats.bootstrap((values,), np.mean, n_resamples=2000, method="percentile", rng=np.random.default_rng(3))
    assert estimate.rate == pytest.approx(0.7)
    assert estimate.n == 10
    assert estimate.low == pytest.approx(expected.confidence_interval.low)
    assert estimate.high == pytest.approx(expected.confidence_interval.high)
    assert estimate.low < 0.7 < estimate.high


def test_rate_with_ci_degenerate_cases():
    assert rate_with_ci([1.0, 1.0, 1.0]) == rate_with_ci([1.0, 1.0, 1.0])
    same = rate_with_ci([1.0, 1.0, 1.0])
    assert (same.rate, same.low, same.high, same.n) == (1.0, 1.0, 1.0, 3)
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
    assert metrics["error_rate_ci_low/reasoning"] == 0.0 and metrics["error_rate_ci_high/reasoning"] == 0.0
    assert metrics["error_rate_ci_low"] <= 0.5 <= metrics["error_rate_ci_high"]
    assert "si_error_rate_ci_low" in metrics
