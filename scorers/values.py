"""Reading numbers back out of inspect score values."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class MetricFamily:
    """The metrics whose names start with ``prefix``, and which way a better judge moves them, declared by the
    module that computes them (as lm-eval's ``higher_is_better`` is declared with each metric): lm-eval's task files
    and ``judge-report`` read them through :mod:`scorers.directions`."""

    prefix: str
    higher_is_better: bool
    count: bool = False
    """A tally of answers (parse failures, unanswered judgments) rather than a measure of the judge: leaderboard
    exports leave it out."""


JSON_FALLBACKS = "json_fallbacks"
"""Score-value and metric key (``answer_format=json``): answers that were not the asked JSON object and were read
by the text rules instead."""

UNANSWERED = "unanswered"
"""Score-value and metric key (recorded judgments, ``-T judgments=``): judgments the task makes that the file has no
row for, left out of the statistics (not parse failures: there is no answer to read)."""

JSON_ONLY_METRICS = (JSON_FALLBACKS,)
"""Metrics an inspect run reports only with ``answer_format=json``; lm-eval lists every metric of a task in its YAML
file, so there they are NaN under ``answer_format=text``."""

METRIC_FAMILIES = (
    MetricFamily(JSON_FALLBACKS, higher_is_better=False, count=True),
    MetricFamily(UNANSWERED, higher_is_better=False, count=True),
)


def as_float(value: object) -> float:
    """A numeric score value as float; anything else (missing, text, booleans) as NaN."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan


def headlines_first(metrics: Mapping[str, float], headlines: Sequence[str]) -> dict[str, float]:
    """The same metrics with ``headlines`` (those present) first: inspect's results table follows the dict's order."""
    return {**{name: metrics[name] for name in headlines if name in metrics}, **metrics}


def json_fallbacks(values: Iterable[Any]) -> dict[str, float]:
    """``{"json_fallbacks": total}`` over the score values that count them (``answer_format=json``), else nothing."""
    return _total(values, JSON_FALLBACKS)


def unanswered(values: Iterable[Any]) -> dict[str, float]:
    """``{"unanswered": total}`` over the score values that count them (recorded judgments), else nothing."""
    return _total(values, UNANSWERED)


def _total(values: Iterable[Any], key: str) -> dict[str, float]:
    """``{key: total}`` over the score values that hold ``key``, or nothing where none does."""
    counted = [as_float(value[key]) for value in values if isinstance(value, Mapping) and key in value]
    return {key: float(sum(count for count in counted if not math.isnan(count)))} if counted else {}
