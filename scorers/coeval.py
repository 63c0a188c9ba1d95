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
from scorers.agreement import JUDGE, NO_DISAGREEMENT, agreement_report, pair_alpha_name
from scorers.correlation import CONSTANT_JUDGE, Method, correlation
from scorers.values import as_float, json_fallbacks

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
    for method in CORRELATIONS:
        estimate = correlation(judge, human, method)
        report[f"{method}/{key}"] = estimate.value
        report[f"{method}_ci_low/{key}"] = estimate.low
        report[f"{method}_ci_high/{key}"] = estimate.high
        report[f"n/{key}"] = float(estimate.n)
        reason = estimate.reason
    return report, reason


def _units(rows: list[Row], keys: Sequence[str]) -> tuple[dict[str, list[float | None]], list[float]]:
    """Annotators' and judge's scores over the units (sample, key): one column per unit, None where missing."""
    annotator_ids: dict[str, None] = {}
    for _, metadata in rows:
        annotator_ids.update(dict.fromkeys(metadata.get("annotator_ids") or []))
    annotators: dict[str, list[float | None]] = {annotator: [] for annotator in annotator_ids}
    judge: list[float] = []
    for value, metadata in rows:
        ids = list(metadata.get("annotator_ids") or [])
        scores = metadata.get("annotators") or {}
        for key in keys:
            given = dict(zip(ids, scores.get(key) or [None] * len(ids), strict=True))
            for annotator in annotators:
                annotators[annotator].append(given.get(annotator))
            judge.append(as_float(value.get(key)))
    return annotators, judge


def _agreement(
    rows: list[Row], keys: Sequence[str], with_judge: bool, suffix: str
) -> dict[str, tuple[float, str | None]]:
    annotators, judge = _units(rows, keys)
    if not annotators:
        return {}
    report = agreement_report(annotators, judge if with_judge else None)
    return {f"{name}{suffix}": (agreement.value, agreement.reason) for name, agreement in report.items()}


def coeval_report(
    rows: Sequence[Row], criteria: Sequence[str], criterion_scores: bool = True
) -> tuple[dict[str, float], list[tuple[str, str]]]:
    """Every statistic of :func:`coeval_agreement` from the scored rows, and ``(statistic, reason)`` for each
    one that is undefined because the judge is constant (the one computation behind both harnesses). α of the
    judge with one annotator is undefined only when both give one and the same value throughout."""
    report: dict[str, float] = {}
    constant_judge: list[tuple[str, str]] = []
    for key in [*criteria, OVERALL] if criterion_scores else [OVERALL]:
        correlations, reason = _correlations(list(rows), key)
        report.update(correlations)
        if reason is not None and reason.startswith(CONSTANT_JUDGE):
            constant_judge.append((f"the correlation for {key}", reason))
    agreements = {
        **_agreement(list(rows), criteria, criterion_scores, ""),
        **_agreement(list(rows), [OVERALL], True, f"/{OVERALL}"),
    }
    for name, (value, reason) in agreements.items():
        report[name] = value
        if reason is not None and JUDGE_CONSTANT in reason:
            constant_judge.append((name, reason.replace("the first rater", "the judge")))
        elif reason == NO_DISAGREEMENT and name.startswith(JUDGE_PAIRS):
            constant_judge.append((name, reason))
    report.update(json_fallbacks(value for value, _ in rows))
    report[PARSE_FAILURES] = float(sum(as_float(value.get(PARSE_FAILURES, 0.0)) for value, _ in rows))
    return report, constant_judge


@metric
def coeval_agreement(criteria: Sequence[str], criterion_scores: bool = True) -> Metric:
    """Correlations with the human mean per criterion and overall, Krippendorff's α (of all raters and per pair
    of raters, ``alpha/pair/<first>/<second>``) and per-annotator Pearson.

    ``criterion_scores`` is False in direct mode, where the judge gives the overall score only: then no
    criterion correlations are logged, and criterion-level agreement is the annotators' alone. Criterion-level
    α pools every (item, criterion) unit; the ``/overall`` variants use each annotator's mean over the
    criteria. Undefined values are NaN; a constant judge is named once in the task's output. Recomputed on
    whatever samples are scored so far, so a rater missing from some units only leaves those units out.
    """
    reported: set[tuple[str, str]] = set()

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        report, constant_judge = coeval_report(_rows(scores), criteria, criterion_scores)
        for name, reason in constant_judge:
            if (name, reason) not in reported:
                reported.add((name, reason))
                logger.warning("%s is undefined (NaN): %s", name, reason)
        return report

    return compute
