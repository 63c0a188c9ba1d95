"""inspect-ai metric for CoEval's criterion-level scoring: the judge against the human mean and each annotator.

Scores come from :func:`scorers.adherence.criterion_ratings` (one value per criterion and ``overall``); the
statistics are :mod:`scorers.correlation` (Pearson and Spearman with bootstrap CIs, the paper's Tables 5-7)
and :mod:`scorers.agreement` (Krippendorff's α of all raters and of each pair of raters, and the judge's Pearson
with each annotator: its Figures 5-7 and Table 10). Each sample's metadata carries ``human`` (criterion or
``overall`` -> human mean), ``annotators`` (the same keys -> one score per annotator, aligned with
``annotator_ids``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, metric

from scorers.adherence import PARSE_FAILURES
from scorers.agreement import (
    ALPHA_ANNOTATORS,
    ALPHA_WITH_JUDGE,
    JUDGE,
    NO_DISAGREEMENT,
    UNDEFINED_RESAMPLES,
    agreement_report,
    alpha_interval,
    pair_alpha_name,
)
from scorers.correlation import CONSTANT_JUDGE, Method, correlations
from scorers.discernment import interval_names
from scorers.values import as_float, json_fallbacks, unanswered

logger = logging.getLogger(__name__)

OVERALL = "overall"
CORRELATIONS: tuple[Method, ...] = ("pearson", "spearman")
JUDGE_CONSTANT = "first rater gives every shared item the same score"
"""How :func:`scorers.agreement.pearson` says that the judge (its first rater) is constant."""
JUDGE_PAIRS = pair_alpha_name(JUDGE, "")
"""The prefix of α between the judge and one annotator (``alpha/pair/judge/<id>``)."""

Row = tuple[Mapping[str, Any], Mapping[str, Any]]
"""A scored sample: its score value and its metadata."""


def _rows(scores: list[SampleScore]) -> list[Row]:
    rows: list[Row] = []
    for sample_score in scores:
        value = sample_score.score.value
        metadata = sample_score.sample_metadata or {}
        if isinstance(value, Mapping) and isinstance(metadata.get("human"), Mapping):
            rows.append((value, metadata))
    return rows


def _correlations(rows: list[Row], key: str) -> tuple[dict[str, float], str | None]:
    """Pearson and Spearman of the judge's ``key`` score with the human mean, CIs and pair count."""
    judge, human = [], []
    for value, metadata in rows:
        if key in metadata["human"]:
            judge.append(as_float(value.get(key)))
            human.append(float(metadata["human"][key]))
    report: dict[str, float] = {}
    reason = None
    for method, estimate in correlations(judge, human, CORRELATIONS).items():
        report[f"{method}/{key}"] = estimate.value
        report[f"{method}_ci_low/{key}"] = estimate.low
        report[f"{method}_ci_high/{key}"] = estimate.high
        report[f"n/{key}"] = float(estimate.n)
        reason = estimate.reason
    return report, reason


def _units(rows: list[Row], keys: Sequence[str]) -> tuple[dict[str, list[float | None]], list[float], list[int]]:
    """Annotators' and judge's scores over the units (sample, key): one column per unit, None where missing, and
    each unit's sample (its position in ``rows``)."""
    annotator_ids: dict[str, None] = {}
    for _, metadata in rows:
        annotator_ids.update(dict.fromkeys(metadata.get("annotator_ids") or []))
    annotators: dict[str, list[float | None]] = {annotator: [] for annotator in annotator_ids}
    judge: list[float] = []
    unit_items: list[int] = []
    for index, (value, metadata) in enumerate(rows):
        ids = list(metadata.get("annotator_ids") or [])
        scores = metadata.get("annotators") or {}
        for key in keys:
            given = dict(zip(ids, scores.get(key) or [None] * len(ids), strict=True))
            for annotator in annotators:
                annotators[annotator].append(given.get(annotator))
            judge.append(as_float(value.get(key)))
            unit_items.append(index)
    return annotators, judge, unit_items


def _agreement(
    rows: list[Row], keys: Sequence[str], with_judge: bool, suffix: str
) -> tuple[dict[str, tuple[float, str | None]], list[tuple[str, str]]]:
    """The agreement statistics over these units with their reasons, the item-bootstrap interval of
    ``alpha/annotators`` and ``alpha/with_judge`` (``alpha_ci_low/annotators``, ...), and ``(subject, reason)``
    for each such interval that is NaN because too many item resamples have no α. An interval on fewer than two
    items, or of an undefined α, is NaN without a warning: partial results pass through both while a run scores."""
    annotators, judge, unit_items = _units(rows, keys)
    if not annotators:
        return {}, []
    report = agreement_report(annotators, judge if with_judge else None)
    agreements = {f"{name}{suffix}": (agreement.value, agreement.reason) for name, agreement in report.items()}
    undefined = []
    raters: dict[str, list[Sequence[float | None]]] = {ALPHA_ANNOTATORS: list(annotators.values())}
    if with_judge:
        raters[ALPHA_WITH_JUDGE] = [*annotators.values(), judge]
    for name, ratings in raters.items():
        interval = alpha_interval(ratings, unit_items)
        low, high = interval_names(f"{name}{suffix}")
        agreements[low], agreements[high] = (interval.low, None), (interval.high, None)
        if interval.reason is not None and UNDEFINED_RESAMPLES in interval.reason:
            undefined.append((f"the interval of {name}{suffix}", interval.reason))
    return agreements, undefined


def coeval_report(
    rows: Sequence[Row], criteria: Sequence[str], criterion_scores: bool = True
) -> tuple[dict[str, float], list[tuple[str, str]]]:
    """Every statistic of :func:`coeval_agreement` from the scored rows (the one computation behind both
    harnesses), and ``(statistic, reason)`` for each one that is undefined because the judge is constant, and for
    each α interval that is undefined because too many of its item resamples are. α of the judge with one
    annotator is undefined only when both give one and the same value throughout."""
    report: dict[str, float] = {}
    undefined: list[tuple[str, str]] = []
    for key in [*criteria, OVERALL] if criterion_scores else [OVERALL]:
        correlations, reason = _correlations(list(rows), key)
        report.update(correlations)
        if reason is not None and reason.startswith(CONSTANT_JUDGE):
            undefined.append((f"the correlation for {key}", reason))
    criterion_level, criterion_intervals = _agreement(list(rows), criteria, criterion_scores, "")
    overall, overall_intervals = _agreement(list(rows), [OVERALL], True, f"/{OVERALL}")
    for name, (value, reason) in {**criterion_level, **overall}.items():
        report[name] = value
        if reason is not None and JUDGE_CONSTANT in reason:
            undefined.append((name, reason.replace("the first rater", "the judge")))
        elif reason == NO_DISAGREEMENT and name.startswith(JUDGE_PAIRS):
            undefined.append((name, reason))
    undefined += criterion_intervals + overall_intervals
    report.update(json_fallbacks(value for value, _ in rows))
    report.update(unanswered(value for value, _ in rows))
    report[PARSE_FAILURES] = float(sum(as_float(value.get(PARSE_FAILURES, 0.0)) for value, _ in rows))
    return report, undefined


@metric
def coeval_agreement(criteria: Sequence[str], criterion_scores: bool = True) -> Metric:
    """Correlations with the human mean per criterion and overall, Krippendorff's α (of all raters and per pair
    of raters, ``alpha/pair/<first>/<second>``; α of all raters with its item-bootstrap interval) and
    per-annotator Pearson.

    ``criterion_scores`` is False in direct mode, where the judge gives the overall score only: then no
    criterion correlations are logged, and criterion-level agreement is the annotators' alone. Criterion-level
    α pools every (item, criterion) unit; the ``/overall`` variants use each annotator's mean over the
    criteria. Undefined values are NaN; a constant judge is named once in the task's output. Recomputed on
    whatever samples are scored so far, so a rater missing from some units only leaves those units out.
    """
    reported: set[tuple[str, str]] = set()

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        report, undefined = coeval_report(_rows(scores), criteria, criterion_scores)
        for name, reason in undefined:
            if (name, reason) not in reported:
                reported.add((name, reason))
                logger.warning("%s is undefined (NaN): %s", name, reason)
        return report

    return compute
