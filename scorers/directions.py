"""Which way a better judge moves each metric: the families each scorer module declares beside the metrics it
computes (``METRIC_FAMILIES``), read by lm-eval's task files and by ``judge-report``. A metric of no family is
higher-is-better (agreement, discernment) or a neutral description of the run (item counts)."""

from __future__ import annotations

from scorers import consistency, correlation, criteria_consistency, discernment, fbi, grader, unparsed, values
from scorers.values import MetricFamily

FAMILIES: tuple[MetricFamily, ...] = (
    *values.METRIC_FAMILIES,
    *unparsed.METRIC_FAMILIES,
    *correlation.METRIC_FAMILIES,
    *discernment.METRIC_FAMILIES,
    *criteria_consistency.METRIC_FAMILIES,
    *fbi.METRIC_FAMILIES,
    *grader.METRIC_FAMILIES,
    *consistency.METRIC_FAMILIES,
)


def family(metric: str) -> MetricFamily | None:
    """The family of a metric name (its longest matching prefix), ``None`` for a metric of none."""
    matches = [found for found in FAMILIES if metric.startswith(found.prefix)]
    return max(matches, key=lambda found: len(found.prefix)) if matches else None


def higher_is_better(metric: str) -> bool:
    """Whether a better judge has a larger value of ``metric``."""
    found = family(metric)
    return found is None or found.higher_is_better


def is_count(metric: str) -> bool:
    """Whether ``metric`` tallies answers (parse failures, unanswered judgments) rather than measuring the judge."""
    found = family(metric)
    return found is not None and found.count
