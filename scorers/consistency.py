"""A grader's agreement with itself across epochs (``inspect eval --epochs N``): Krippendorff's α of its grades
with the epochs as raters, and the share of graded submissions whose grade changes from one epoch to another.

The metric takes inspect's unreduced scores (``@metric(scores="unreduced")``: one score per sample and epoch), so it
sees every epoch's grade where the reduced view would see their mean. With one epoch it reports nothing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, metric

from scorers.agreement import alpha_interval, interval_alpha
from scorers.values import MetricFamily, as_float

SELF_ALPHA = "self_alpha"
"""α of the grades with the epochs as raters (interval metric; with 0/1 grades the same as nominal)."""

GRADES_CHANGED = "grades_changed"
"""The share of submissions graded in two epochs or more whose grades are not all equal."""

METRIC_FAMILIES = (MetricFamily(GRADES_CHANGED, higher_is_better=False),)


def consistency_metrics(units: Sequence[Sequence[float]], unit_items: Sequence[int]) -> dict[str, float]:
    """:data:`SELF_ALPHA` with its item-bootstrap interval (the submissions of one sample drawn together) and
    :data:`GRADES_CHANGED` with the number of submissions it is over; nothing where no submission has two epochs."""
    if not units or max(len(grades) for grades in units) < 2:
        return {}
    epochs = max(len(grades) for grades in units)
    matrix = np.full((epochs, len(units)), np.nan)
    for column, grades in enumerate(units):
        matrix[: len(grades), column] = grades
    alpha = interval_alpha(matrix)
    interval = alpha_interval(matrix, np.asarray(unit_items))
    finite = [[grade for grade in grades if math.isfinite(grade)] for grades in units]
    repeated = [grades for grades in finite if len(grades) >= 2]
    changed = [float(len(set(grades)) > 1) for grades in repeated]
    return {
        SELF_ALPHA: alpha.value,
        f"{SELF_ALPHA}_ci_low": interval.low,
        f"{SELF_ALPHA}_ci_high": interval.high,
        GRADES_CHANGED: float(np.mean(changed)) if changed else math.nan,
        f"{GRADES_CHANGED}_n": float(len(repeated)),
    }


@metric(scores="unreduced")
def grade_consistency(keys: list[str]) -> Metric:
    """The grader's agreement with itself across epochs on the score-value ``keys`` that hold its grades (FBI: the
    gold and the perturbed answer's; DHP and the labels task: the one grade), from the unreduced scores."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        units: dict[tuple[str, str], list[float]] = {}
        items: dict[str, int] = {}
        for sample_score in scores:
            value = sample_score.score.value
            if not isinstance(value, Mapping):
                continue
            sample = str(sample_score.sample_id)
            items.setdefault(sample, len(items))
            for key in keys:
                units.setdefault((sample, key), []).append(as_float(value.get(key)))
        return consistency_metrics(list(units.values()), [items[sample] for sample, _ in units])

    return compute
