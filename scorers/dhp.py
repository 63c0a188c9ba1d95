"""inspect-ai scorer and metric for DHP: the judge's raw answers in, discernment scores out.

The scorer parses the answers the solver stored, so ``inspect score`` can re-parse a finished log.
Everything the metric needs is a number in the score value, so inspect's epoch reducer (a NaN-skipping
mean by default) combines epochs key by key: per metric the mean parsed rating, the number of answers
and the number of unparsable answers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from judge_data.shared_options import DEFAULT_MIN_MASS
from scorers.discernment import BOOTSTRAP_RESAMPLES, Combination, ScoreRecord, discernment_report
from scorers.unparsed import UNANSWERED_JUDGMENTS, MetricNotes, register_warning_hook, unparsed_record
from scorers.values import JSON_FALLBACKS, UNANSWERED, as_float, headlines_first, json_fallbacks, unanswered
from solvers.geval import ANSWERS_STORE_KEY
from solvers.judge import PROMPTS_STORE_KEY
from solvers.reading.formats import AnswerFormat
from solvers.reading.logprobs import rating_details, stored_rating
from solvers.reading.recorded import read_recorded, shown
from solvers.reading.shapes import AnswerShape, Reading, read_answer
from solvers.recorded import RECORDED_STORE_KEY

ANSWERS_KEY = "answers/{}"
"""Score-value key: how many answers the judge gave for a metric."""

FAILURES_KEY = "parse_failures/{}"
"""Score-value key: how many of those answers had no parsable rating."""


HEADLINES = ("D_avg", "D_min", "D_avg_EW", "D_min_EW", "parse_failure_rate")
"""Shown first in inspect's results table; the per-perturbation details follow."""

MASS_KEY = "mass/{}"
"""Score-value key (``scoring=logprobs``): the probability the judge put on on-scale ratings for a metric."""

EXPERT_WEIGHTS_KEY = "expert_weights"
"""Sample-metadata key of a perturbed text's expert weights (metric -> weight), which the metric reads: as one of
its parameters they would be written with each of its ~100 values on every recomputation inspect shows."""


@metric
def dhp_discernment(
    metrics: Sequence[str],
    expert_weights: Mapping[str, Mapping[str, float]] | None = None,
    combine: Combination = "hmp",
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES,
) -> Metric:
    """D_avg, D_min (with and without expert weights), D per perturbation, their item-bootstrap intervals, p-values
    and parse failures.

    The expert weights come from each perturbed sample's metadata (:data:`EXPERT_WEIGHTS_KEY`); ``expert_weights``
    is for logs written by earlier releases, whose metric carries them (the version did not change: same numbers).

    Copes with partial results (inspect computes metrics while a run is in progress): items whose
    original or perturbed variant is not scored yet simply do not form pairs. Parse failures are
    summed over samples from the score values; with several epochs and the mean reducer each sample
    holds its mean per epoch, so ``parse_failures`` counts unparsable answers per epoch and
    ``parse_failure_rate`` (failures / answers) is exact whatever the number of epochs. Intervals that
    the bootstrap leaves NaN while their D is defined are logged once per reason, when the task ends.
    """
    said = MetricNotes()

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        report, notes = discernment_metrics(
            ((sample_score.sample_metadata or {}, sample_score.score.value) for sample_score in scores),
            metrics,
            expert_weights,
            combine,
            bootstrap_resamples,
        )
        said.latest(scores, notes)
        return report

    return compute


def discernment_metrics(
    samples: Iterable[tuple[Mapping[str, Any], Any]],
    metrics: Sequence[str],
    expert_weights: Mapping[str, Mapping[str, float]] | None = None,
    combine: Combination = "hmp",
    bootstrap_resamples: int = BOOTSTRAP_RESAMPLES,
) -> tuple[dict[str, float], list[str]]:
    """The metric's numbers from ``(sample metadata, score value)`` pairs, for any harness, and one line per reason
    why intervals are NaN although their D is defined. Without ``expert_weights``, each perturbation's weights are
    those its samples carry (equal weights where they carry none)."""
    records = []
    carried: dict[str, Mapping[str, float]] = {}
    failures = {name: 0.0 for name in metrics}
    answers = {name: 0.0 for name in metrics}
    values = []
    for metadata, value in samples:
        if not isinstance(value, Mapping) or "item_id" not in metadata:
            continue
        values.append(value)
        if EXPERT_WEIGHTS_KEY in metadata:
            carried[str(metadata["perturbation"])] = metadata[EXPERT_WEIGHTS_KEY]
        records.append(
            ScoreRecord(
                item_id=str(metadata["item_id"]),
                perturbation=str(metadata["perturbation"]),
                level=metadata.get("level"),
                scores={name: as_float(value.get(name)) for name in metrics},
            )
        )
        for name in metrics:
            failed, asked = (
                as_float(value.get(FAILURES_KEY.format(name))),
                as_float(value.get(ANSWERS_KEY.format(name))),
            )
            failures[name] += 0.0 if math.isnan(failed) else failed
            answers[name] += 0.0 if math.isnan(asked) else asked
    weights = carried if expert_weights is None else expert_weights
    dhp_report = discernment_report(records, metrics, weights, combine, bootstrap_resamples)
    report = dhp_report.as_metrics()
    report.update(json_fallbacks(values))
    report.update(unanswered(values))
    report["parse_failures"] = sum(failures.values())
    report["parse_failure_rate"] = _rate(sum(failures.values()), sum(answers.values()))
    for name in metrics:
        report[f"parse_failures/{name}"] = failures[name]
        report[f"parse_failure_rate/{name}"] = _rate(failures[name], answers[name])
    notes = [
        f"no bootstrap interval (NaN) for {_listed(names)}: {reason}"
        for reason, names in dhp_report.undefined_intervals().items()
    ]
    return headlines_first(report, HEADLINES), notes


def _listed(names: Sequence[str], shown: int = 4) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")


def _rate(failures: float, answers: float) -> float:
    return failures / answers if answers > 0 else math.nan


@scorer(metrics=[])
def mean_ratings(
    min_mass: float = DEFAULT_MIN_MASS,
    answer_format: AnswerFormat = "text",
    recorded_scale: tuple[int, int] | None = None,
) -> Scorer:
    """Parse the judge's stored answers and score a sample with numbers only, per metric.

    The value holds, per metric:
    ``<metric>`` (mean parsed rating, NaN where no answer parsed), ``answers/<metric>`` and
    ``parse_failures/<metric>``. Unparsable answers are counted and left out of the mean, never
    guessed. The metadata keeps every raw answer beside its parsed value for inspection.

    Answers stored with ``scoring="logprobs"`` are read as expected ratings over their top
    log-probabilities instead; one answer per metric, a parse failure when less than ``min_mass``
    of the probability is on on-scale ratings, and that probability as ``mass/<metric>``.

    Each answer is read against the prompt it answered (stored by the solver) and, with ``answer_format="json"``,
    from its JSON field first (``json_fallbacks`` counts the answers read as text instead).

    Recorded judgments (``-T judgments=``) are one per metric, read on ``recorded_scale`` (``(low, high)``; the live
    solver stores its own); a metric without one is NaN, counted in ``unanswered`` and not among the answers.
    """
    register_warning_hook()

    async def score(state: TaskState, target: Target) -> Score:
        recorded = state.store.get(RECORDED_STORE_KEY)
        if recorded is not None and recorded_scale is not None:
            return _recorded_score(state, recorded, recorded_scale, answer_format)
        stored = state.store.get(ANSWERS_STORE_KEY)
        if not stored:
            raise ValueError(f"sample {state.sample_id} has no judge answers in its store ({ANSWERS_STORE_KEY!r})")
        low, high = stored["low"], stored["high"]
        if stored.get("scoring") == "logprobs":
            return _logprob_score(state, stored["logprobs"], low, high, min_mass)
        prompts = state.store.get(PROMPTS_STORE_KEY) or {}
        value, ratings = rating_value(stored["answers"], low, high, prompts, answer_format)
        read = [
            (text, score)
            for rating in ratings.values()
            for text, score in zip(rating["answers"], rating["scores"], strict=True)
        ]
        return Score(
            value=value,
            answer=state.output.completion,
            metadata={"scoring": "sample", "ratings": ratings, **unparsed_record(*_columns(read))},
        )

    return score


def rating_value(
    answers: Mapping[str, Sequence[str]],
    low: int,
    high: int,
    prompts: Mapping[str, str] | None = None,
    answer_format: AnswerFormat = "text",
) -> tuple[dict[str, float], dict[str, dict[str, list]]]:
    """A sample's score value from its raw answers per metric (each read against its metric's prompt), and each
    answer beside its parsed rating."""
    shape = AnswerShape("rating", low, high)
    readings = {
        name: _read_each(texts, shape, (prompts or {}).get(name), answer_format) for name, texts in answers.items()
    }
    ratings = {
        name: {"answers": list(answers[name]), "scores": [reading.value for reading in read]}
        for name, read in readings.items()
    }
    value: dict[str, float] = {}
    if answer_format == "json":
        value[JSON_FALLBACKS] = float(sum(reading.json_fallback for read in readings.values() for reading in read))
    for name, rating in ratings.items():
        parsed = [score for score in rating["scores"] if score is not None]
        value[name] = float(np.mean(parsed)) if parsed else math.nan
    for name, rating in ratings.items():
        value[ANSWERS_KEY.format(name)] = float(len(rating["answers"]))
        value[FAILURES_KEY.format(name)] = float(sum(score is None for score in rating["scores"]))
    return value, ratings


def _recorded_score(
    state: TaskState,
    recorded: Mapping[str, Mapping[str, Any] | None],
    scale: tuple[int, int],
    answer_format: AnswerFormat,
) -> Score:
    """A text's score from its recorded judgment per metric, each read on the scale as a live answer would be."""
    shape = AnswerShape("rating", *scale)
    prompts = state.store.get(PROMPTS_STORE_KEY) or {}
    given = {name: judgment for name, judgment in recorded.items() if judgment is not None}
    readings = {
        name: read_recorded(judgment, shape, prompts.get(name), answer_format) for name, judgment in given.items()
    }
    value: dict[str, float] = {}
    for name in recorded:
        read = readings.get(name)
        value[name] = math.nan if read is None or read.value is None else float(read.value)
        value[ANSWERS_KEY.format(name)] = float(read is not None)
        value[FAILURES_KEY.format(name)] = float(read is not None and read.value is None)
    missing = [name for name in recorded if name not in given]
    value[UNANSWERED] = float(len(missing))
    if answer_format == "json":
        value[JSON_FALLBACKS] = float(sum(reading.json_fallback for reading in readings.values()))
    texts = {name: shown(judgment) for name, judgment in given.items()}
    scores = {name: reading.value for name, reading in readings.items()}
    return Score(
        value=value,
        answer=state.output.completion,
        metadata={
            "scoring": "recorded",
            "ratings": {name: {"answers": [texts[name]], "scores": [scores[name]]} for name in given},
            "recorded": dict(recorded),
            **unparsed_record(list(texts.values()), list(scores.values())),
            UNANSWERED_JUDGMENTS: missing,
        },
    )


def _read_each(
    texts: Sequence[str], shape: AnswerShape, prompt: str | None, answer_format: AnswerFormat
) -> list[Reading]:
    """Each answer read against its prompt, a text repeated among the answers (the usual case at temperature 0)
    read once: reading is a function of the text and the prompt, and it runs on inspect's event loop."""
    read = {text: read_answer(text, shape, prompt, answer_format) for text in dict.fromkeys(texts)}
    return [read[text] for text in texts]


def _logprob_score(state: TaskState, stored: Mapping[str, Mapping], low: int, high: int, min_mass: float) -> Score:
    ratings = {name: stored_rating(entry, low, high, min_mass=min_mass) for name, entry in stored.items()}
    value: dict[str, float] = {name: math.nan if r.score is None else r.score for name, r in ratings.items()}
    for name, rating in ratings.items():
        value[ANSWERS_KEY.format(name)] = 1.0
        value[FAILURES_KEY.format(name)] = float(rating.failed)
        value[MASS_KEY.format(name)] = rating.mass
    details = {name: {"answer": stored[name]["answer"], **rating_details(r)} for name, r in ratings.items()}
    unparsed = unparsed_record([stored[name]["answer"] for name in ratings], [r.score for r in ratings.values()])
    return Score(
        value=value,
        answer=state.output.completion,
        metadata={"scoring": "logprobs", "min_mass": min_mass, "ratings": details, **unparsed},
    )


def _columns(pairs: Sequence[tuple[str, Any]]) -> tuple[list[str], list[Any]]:
    return [text for text, _ in pairs], [value for _, value in pairs]
