"""inspect-ai scorer and metric for DHP: per-sample mean ratings in, discernment scores out."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from scorers.discernment import Combination, ScoreRecord, discernment_report
from scorers.values import as_float
from solvers.geval import RATINGS_STORE_KEY


@metric
def dhp_discernment(
    metrics: Sequence[str],
    expert_weights: Mapping[str, Mapping[str, float]] | None = None,
    combine: Combination = "hmp",
) -> Metric:
    """D_avg, D_min (with and without expert weights), D per perturbation, p-values and parse failures.

    Copes with partial results (inspect computes metrics while a run is in progress): items whose
    original or perturbed variant is not scored yet simply do not form pairs.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        records = []
        failures = {name: 0 for name in metrics}
        for sample_score in scores:
            metadata = sample_score.sample_metadata or {}
            value = sample_score.score.value
            if not isinstance(value, Mapping) or "item_id" not in metadata:
                continue
            records.append(
                ScoreRecord(
                    item_id=str(metadata["item_id"]),
                    perturbation=str(metadata["perturbation"]),
                    level=metadata.get("level"),
                    scores={name: as_float(value.get(name)) for name in metrics},
                )
            )
            for name, count in ((sample_score.score.metadata or {}).get("parse_failures") or {}).items():
                if name in failures:
                    failures[name] += int(count)
        report = discernment_report(records, metrics, expert_weights, combine).as_metrics()
        report["parse_failures"] = float(sum(failures.values()))
        for name, count in failures.items():
            report[f"parse_failures/{name}"] = float(count)
        return report

    return compute


@scorer(metrics=[])
def mean_ratings(metrics: Sequence[str]) -> Scorer:
    """Score a sample with ``{metric: mean parsed rating}`` (NaN where no answer parsed).

    Unparsable answers are counted per metric in the score's metadata (``parse_failures``) and left
    out of the mean; the raw answers stay in the metadata for inspection.
    """

    async def score(state: TaskState, target: Target) -> Score:
        ratings = state.store.get(RATINGS_STORE_KEY) or {}
        means: dict[str, float] = {}
        failures: dict[str, int] = {}
        for name in metrics:
            parsed = [value for value in ratings.get(name, {}).get("scores", []) if value is not None]
            answers = ratings.get(name, {}).get("answers", [])
            failures[name] = len(answers) - len(parsed)
            means[name] = float(np.mean(parsed)) if parsed else math.nan
        return Score(
            value=means,
            answer=state.output.completion,
            metadata={"parse_failures": failures, "ratings": ratings},
        )

    return score
