"""inspect-ai scorer and metric for instruction adherence: judge scores per criterion in, correlations out."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from judge_data.shared_options import DEFAULT_MIN_MASS, RatingScoring
from scorers.correlation import CONSTANT_JUDGE, CriterionScores, agreement_report, undefined_reasons
from scorers.system_agreement import SYSTEM_JUDGE_CONSTANT, system_agreement
from scorers.unparsed import UNANSWERED_JUDGMENTS, MetricNotes, register_warning_hook, unparsed_record
from scorers.values import JSON_FALLBACKS, UNANSWERED, as_float, json_fallbacks, unanswered
from solvers.judge import PROMPTS_STORE_KEY, SAMPLES_STORE_KEY
from solvers.logprobs import LOGPROBS_STORE_KEY
from solvers.reading.formats import AnswerFormat
from solvers.reading.logprobs import LogprobRating, rating_details, stored_rating
from solvers.reading.recorded import read_recorded, shown
from solvers.reading.shapes import YES_NO, AnswerShape, Reading, read_answer
from solvers.recorded import RECORDED_STORE_KEY

PARSE_FAILURES = "parse_failures"

MASS_KEY = "mass/{}"
"""Score-value key (``scoring=logprobs``): the probability the judge put on valid answers to a question."""


@dataclass(frozen=True)
class ReadAnswer:
    """How the answers to one question are read: a rating on ``low``-``high`` or a yes/no (1/0)."""

    question: str
    low: float
    high: float
    binary: bool

    @property
    def shape(self) -> AnswerShape:
        """How this question's answers are read: yes/no, or a rating on its scale."""
        return YES_NO if self.binary else AnswerShape("rating", self.low, self.high)

    def read(self, answer: str, prompt: str | None = None, answer_format: AnswerFormat = "text") -> Reading:
        """One answer read against its prompt, as a number (yes/no as 1/0)."""
        reading = read_answer(answer, self.shape, prompt, answer_format)
        return reading._replace(value=None if reading.value is None else float(reading.value))

    def read_logprobs(self, entry: Mapping, min_mass: float) -> LogprobRating:
        """The expected rating (or ``P(yes)``) of one answer stored with its top log-probabilities."""
        return stored_rating(entry, self.low, self.high, self.binary, min_mass)


@scorer(metrics=[])
def criterion_ratings(
    readers: Mapping[str, ReadAnswer],
    scoring: RatingScoring = "sample",
    min_mass: float = DEFAULT_MIN_MASS,
    answer_format: AnswerFormat = "text",
) -> Scorer:
    """Score an item with ``{criterion: mean parsed answer}`` and the number of unparsable answers.

    ``readers`` maps each criterion to the question whose answers it is compared with (in the generic
    setting several criteria share one question). A criterion whose answers all failed to parse is NaN.
    With ``scoring="logprobs"`` each question's one answer is read from its top log-probabilities: the
    expected rating, or ``P(yes) / (P(yes) + P(no))`` for yes/no questions; below ``min_mass`` on valid
    answers it is a parse failure, and the mass is kept as ``mass/<question>``. Sampled answers are read against
    the prompts the solver stored, and with ``answer_format="json"`` from their JSON field first. Recorded judgments
    (``-T judgments=``) are one per criterion, each read on its question's scale; a criterion without one is NaN and
    counted as ``unanswered``.
    """
    register_warning_hook()

    async def score(state: TaskState, target: Target) -> Score:
        recorded = state.store.get(RECORDED_STORE_KEY)
        if recorded is not None:
            return _recorded_score(state, readers, recorded, answer_format)
        if scoring == "logprobs":
            return _logprob_score(state, readers, min_mass)
        answers: Mapping[str, Sequence[str]] = state.store.get(SAMPLES_STORE_KEY) or {}
        prompts: Mapping[str, str] = state.store.get(PROMPTS_STORE_KEY) or {}
        value, parsed = criterion_value(readers, answers, prompts, answer_format)
        texts = [text for key in parsed for text in answers.get(key, [])]
        values = [number for key in parsed for number in parsed[key]]
        return Score(
            value=value,
            answer=state.output.completion,
            metadata={"scoring": "sample", "parsed": parsed, **unparsed_record(texts, values)},
        )

    return score


def criterion_value(
    readers: Mapping[str, ReadAnswer],
    answers: Mapping[str, Sequence[str]],
    prompts: Mapping[str, str] | None = None,
    answer_format: AnswerFormat = "text",
) -> tuple[dict[str, float], dict[str, list[float | None]]]:
    """An item's score value from the raw answers per question (each read against its question's prompt), and
    each question's parsed answers."""
    readings = {
        key: [reader.read(text, (prompts or {}).get(key), answer_format) for text in answers.get(key, [])]
        for key, reader in _questions(readers)
    }
    parsed = {key: [reading.value for reading in read] for key, read in readings.items()}
    value: dict[str, float] = {}
    if answer_format == "json":
        value[JSON_FALLBACKS] = float(sum(reading.json_fallback for read in readings.values() for reading in read))
    for criterion, reader in readers.items():
        numbers = [number for number in parsed[reader.question] if number is not None]
        value[criterion] = float(np.mean(numbers)) if numbers else math.nan
    value[PARSE_FAILURES] = float(sum(number is None for numbers in parsed.values() for number in numbers))
    return value, parsed


def _recorded_score(
    state: TaskState,
    readers: Mapping[str, ReadAnswer],
    recorded: Mapping[str, Mapping[str, Any] | None],
    answer_format: AnswerFormat,
) -> Score:
    """An item's score from its recorded judgment per criterion, each read as its question's answer would be."""
    prompts: Mapping[str, str] = state.store.get(PROMPTS_STORE_KEY) or {}
    given = {criterion: judgment for criterion, judgment in recorded.items() if judgment is not None}
    readings = {
        criterion: read_recorded(judgment, readers[criterion].shape, prompts.get(criterion), answer_format)
        for criterion, judgment in given.items()
    }
    parsed = {criterion: None if r.value is None else float(r.value) for criterion, r in readings.items()}
    value: dict[str, float] = {criterion: _score_or_nan(parsed.get(criterion)) for criterion in readers}
    value[PARSE_FAILURES] = float(sum(number is None for number in parsed.values()))
    missing = [criterion for criterion in readers if criterion not in given]
    value[UNANSWERED] = float(len(missing))
    if answer_format == "json":
        value[JSON_FALLBACKS] = float(sum(reading.json_fallback for reading in readings.values()))
    return Score(
        value=value,
        answer=state.output.completion,
        metadata={
            "scoring": "recorded",
            "parsed": parsed,
            "recorded": dict(recorded),
            **unparsed_record([shown(judgment) for judgment in given.values()], list(parsed.values())),
            UNANSWERED_JUDGMENTS: missing,
        },
    )


def _logprob_score(state: TaskState, readers: Mapping[str, ReadAnswer], min_mass: float) -> Score:
    stored: Mapping[str, Mapping] = state.store.get(LOGPROBS_STORE_KEY) or {}
    ratings = {key: reader.read_logprobs(stored.get(key, {}), min_mass) for key, reader in _questions(readers)}
    value: dict[str, float] = {
        criterion: _score_or_nan(ratings[reader.question].score) for criterion, reader in readers.items()
    }
    value[PARSE_FAILURES] = float(sum(rating.failed for rating in ratings.values()))
    value.update({MASS_KEY.format(key): rating.mass for key, rating in ratings.items()})
    details = {key: {"answer": stored.get(key, {}).get("answer"), **rating_details(r)} for key, r in ratings.items()}
    generated = [str(stored.get(key, {}).get("answer") or "") for key in ratings]
    unparsed = unparsed_record(generated, [rating.score for rating in ratings.values()])
    return Score(
        value=value,
        answer=state.output.completion,
        metadata={"scoring": "logprobs", "min_mass": min_mass, "parsed": details, **unparsed},
    )


def _score_or_nan(score: float | None) -> float:
    return math.nan if score is None else score


def _questions(readers: Mapping[str, ReadAnswer]) -> list[tuple[str, ReadAnswer]]:
    return list({reader.question: reader for reader in readers.values()}.items())


@dataclass(frozen=True)
class CriterionSpec:
    """What the metric needs to know of a criterion: its taxonomy group and the expected sign of agreement."""

    name: str
    group: str | None
    sign: int


@metric
def human_agreement(criteria: Sequence[CriterionSpec]) -> Metric:
    """Pearson, Spearman and Kendall per criterion with bootstrap CIs, the oriented means per dataset and
    group, and parse failures.

    Each sample's metadata carries the human mean per criterion (``human``); items that are not scored
    yet, or whose answer did not parse, simply form no pair. Criteria whose correlation is undefined
    are NaN, counted in ``undefined``, and named once in the task's output.
    """
    said = MetricNotes()

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        report, scored, notes = agreement_metrics(
            criteria, ((sample_score.sample_metadata or {}, sample_score.score.value) for sample_score in scores)
        )
        warnings = [
            (f"correlation for {criterion}", reason)
            for criterion, reason in undefined_reasons(scored).items()
            if reason.startswith(CONSTANT_JUDGE)
        ]
        warnings += [("the interval of pearson", reason) for name, reason in notes.items() if name == "pearson_ci"]
        warnings += [
            ("system_tau", reason)
            for name, reason in notes.items()
            if name == "system_tau" and SYSTEM_JUDGE_CONSTANT in reason
        ]
        said.latest(scores, [f"{subject} is undefined (NaN): {reason}" for subject, reason in warnings])
        return report

    return compute


def agreement_metrics(
    criteria: Sequence[CriterionSpec], samples: Iterable[tuple[Mapping[str, Any], Any]]
) -> tuple[dict[str, float], list[CriterionScores], dict[str, str]]:
    """The metric's numbers from ``(sample metadata, score value)`` pairs, for any harness, the pairs used, and
    why a headline value is NaN (``{"pearson_ci": reason}``, ``{"system_tau": reason}``). The metadata's ``system``
    (who wrote the response) and ``task`` (the document it answers) give the system-level numbers."""
    pairs: dict[str, tuple[list[float], list[float]]] = {spec.name: ([], []) for spec in criteria}
    failures = 0.0
    values = []
    systems: list[str | None] = []
    documents: list[str] = []
    for metadata, value in samples:
        human = metadata.get("human") or {}
        if not isinstance(value, Mapping):
            continue
        values.append(value)
        systems.append(metadata.get("system"))
        documents.append(str(metadata.get("task")))
        failures += as_float(value.get(PARSE_FAILURES, 0.0))
        for spec in criteria:
            pairs[spec.name][0].append(as_float(value.get(spec.name)))
            pairs[spec.name][1].append(as_float(human.get(spec.name)))
    scored = [CriterionScores(spec.name, spec.group, *pairs[spec.name], spec.sign) for spec in criteria]
    notes: dict[str, str] = {}
    report = agreement_report(scored, aligned=True, notes=notes)
    report.update(system_level_report(scored, systems, documents, notes))
    report.update(json_fallbacks(values))
    report.update(unanswered(values))
    report[PARSE_FAILURES] = failures
    return report, scored, notes


def system_level_report(
    scored: Sequence[CriterionScores],
    systems: Sequence[str | None],
    documents: Sequence[str],
    notes: dict[str, str] | None = None,
) -> dict[str, float]:
    """``system_tau`` (the oriented mean over the grouped criteria, as ``pearson``) with its document-bootstrap
    interval, ``n_systems``, and ``system_tau/<criterion>``; why a value is NaN goes to ``notes``."""
    agreement = system_agreement(scored, systems, documents)
    report = {
        "system_tau": agreement.value,
        "system_tau_ci_low": agreement.low,
        "system_tau_ci_high": agreement.high,
        "n_systems": float(agreement.n_systems),
    }
    report.update({f"system_tau/{name}": tau.value for name, tau in agreement.criteria.items()})
    if notes is not None and (agreement.reason or agreement.interval_reason):
        notes["system_tau"] = agreement.reason or f"its interval: {agreement.interval_reason}"
    return report
