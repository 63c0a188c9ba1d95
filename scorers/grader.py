"""Reading what a grader under test (any inspect scorer, :mod:`solvers.grader`) gave, into the suites' statistics.

A grade is read with inspect's own conversion (:func:`inspect_ai.scorer.value_to_float`: ``C`` 1, ``P`` 0.5, ``I`` and
``N`` 0, yes/no and true/false, numbers, booleans). What the conversion cannot read (a dict or list value, any other
text), an unscored value (NaN, inspect's ``Score.unscored``), no score, or an exception is no grade: counted, and left
out of the statistics, never taken as a pass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    NOANSWER,
    PARTIAL,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    metric,
    scorer,
    value_to_float,
)
from inspect_ai.solver import TaskState

from judge_data.inspect_private import PrerequisiteError
from scorers.blind_spots import single_failure
from scorers.dhp import ANSWERS_KEY, FAILURES_KEY
from scorers.fbi import blind_spot_metrics
from scorers.unparsed import UNANSWERED_JUDGMENTS, UNPARSED_ANSWERS, register_warning_hook, unparsed_record
from scorers.values import UNANSWERED, MetricFamily, as_float
from solvers.grader import GRADES_STORE_KEY, grading_in_this_process
from solvers.recorded import RECORDED_STORE_KEY

_TO_FLOAT = value_to_float()
_GRADE_LETTERS = (CORRECT, INCORRECT, PARTIAL, NOANSWER)
_GRADE_WORDS = ("yes", "no", "true", "false")

SCORER_ERRORS = "scorer_errors"
"""Score-value and metric key: submissions whose grading raised an exception (``parse_failures`` counts the grades
that could not be read, apart from these)."""

METRIC_FAMILIES = (MetricFamily(SCORER_ERRORS, higher_is_better=False, count=True),)


def grade_value(value: Any) -> float | None:
    """A grader's score value as a number by inspect's conversion, or ``None`` where it gives no grade."""
    if isinstance(value, (bool, int, float)):
        number = float(value)
        return number if math.isfinite(number) else None
    if isinstance(value, str):
        text = value.strip()
        if text in _GRADE_LETTERS or text.lower() in _GRADE_WORDS or _finite_number(text):
            return _TO_FLOAT(text)
    return None


def _finite_number(text: str) -> bool:
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _ungraded_text(result: Mapping[str, Any]) -> str:
    """What an ungraded submission's grader said, for the unparsed-answers warning."""
    return str(result.get("error") or result.get("explanation") or result.get("reason") or result.get("value"))


def read_grades(
    grades: Mapping[str, Mapping[str, Any]], names: tuple[str, ...]
) -> tuple[dict[str, float | None], dict[str, Any]]:
    """Each named submission's grade (``None``: no grade), and the score metadata: the unparsed-answers record of
    the grades that could not be read (an exception is not one), the count of submissions whose grading raised an
    exception (:data:`SCORER_ERRORS`), and the submissions without a grade to read (recorded grades without a
    row)."""
    given = [name for name in names if name in grades]
    values = {name: grade_value(grades[name].get("value")) if name in grades else None for name in names}
    raised = [name for name in given if grades[name].get("error")]
    read = [name for name in given if name not in raised]
    record = {
        **unparsed_record([_ungraded_text(grades[name]) for name in read], [values[name] for name in read]),
        SCORER_ERRORS: len(raised),
    }
    missing = [name for name in names if name not in grades]
    return values, {**record, UNANSWERED_JUDGMENTS: missing} if missing else record


def stored_grades(state: TaskState) -> tuple[Mapping[str, Mapping[str, Any]], dict[str, float]]:
    """What the grader gave each submission of the sample, as :mod:`solvers.grader` keeps it, or the recorded grades
    (``-T judgments=``) in its place; and for a recorded run, the score value's count of submissions the file has no
    grade for (``unanswered``)."""
    recorded = state.store.get(RECORDED_STORE_KEY)
    if recorded is None:
        return dict(state.store.get(GRADES_STORE_KEY) or {}), {}
    grades = {
        name: {"value": judgment["value"], "explanation": None, "reason": None, "error": None}
        for name, judgment in recorded.items()
        if judgment is not None
    }
    return grades, {UNANSWERED: float(len(recorded) - len(grades))}


def refuse_regrading(name: str) -> None:
    """A grader task's scorer reads the grades its run's solver gave; made in a process that runs no grader task
    (``inspect score`` on a finished log) it would re-read them, not re-grade: refuse, with one line."""
    if not grading_in_this_process():
        raise PrerequisiteError(
            f"{name} reads the grades the grader gave while the task ran (the grader is called by the task's "
            "solver), so inspect score cannot re-grade a grader log; to grade again, run the task again with the "
            "grader: inspect eval <task> -T scorer=... --model-role grader=<model>"
        )


def _nan_if_none(value: float | None) -> float:
    return math.nan if value is None else value


@scorer(metrics=[])
def grader_blind_spots() -> Scorer:
    """FBI's single-answer failure of the grader under test: the perturbed answer graded no lower than the gold one
    (score-invariant edits: graded lower), NaN where either has no grade."""
    refuse_regrading("grader_blind_spots")
    register_warning_hook()

    async def score(state: TaskState, target: Target) -> Score:
        grades, unanswered = stored_grades(state)
        values, record = read_grades(grades, ("gold", "perturbed"))
        gold, perturbed = values["gold"], values["perturbed"]
        return Score(
            value={
                "gold_score": _nan_if_none(gold),
                "perturbed_score": _nan_if_none(perturbed),
                "failure": single_failure(gold, perturbed, bool(state.metadata["invariant"])),
                "parse_failures": float(len(record[UNPARSED_ANSWERS])),
                SCORER_ERRORS: float(record[SCORER_ERRORS]),
                **unanswered,
            },
            answer=state.output.completion,
            metadata=record,
        )

    return score


GRADE = "grade"
"""The one grade of a sample (DHP's one metric under a grader, the labels task's grade): the scorer's value."""


@scorer(metrics=[])
def grader_grades() -> Scorer:
    """The grader's value for the sample's one submission, ``grade`` (NaN where it gave none: counted as a parse
    failure where it could not be read, as a scorer error where the grader raised), in the score-value shape of
    DHP's rating scorers (the labels task reads ``grade`` alone)."""
    refuse_regrading("grader_grades")
    register_warning_hook()

    async def score(state: TaskState, target: Target) -> Score:
        grades, unanswered = stored_grades(state)
        values, record = read_grades(grades, (GRADE,))
        failed = float(len(record[UNPARSED_ANSWERS]))
        return Score(
            value={
                GRADE: _nan_if_none(values[GRADE]),
                ANSWERS_KEY.format(GRADE): float(GRADE in grades),
                FAILURES_KEY.format(GRADE): failed,
                "parse_failures": failed,
                SCORER_ERRORS: float(record[SCORER_ERRORS]),
                **unanswered,
            },
            answer=state.output.completion,
            metadata=record,
        )

    return score


@metric
def grader_blind_spot_rates() -> Metric:
    """FBI's single-answer rates (per ability and category, score-invariant, intervals, the items each rests on as
    ``<rate>_n``, unreadable grades as ``parse_failures``) and the count of submissions whose grading raised an
    exception."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        samples = [(sample_score.sample_metadata or {}, sample_score.score.value) for sample_score in scores]
        metrics = blind_spot_metrics("single", samples, counts=True)
        errors = [as_float(value.get(SCORER_ERRORS)) for _, value in samples if isinstance(value, Mapping)]
        metrics[SCORER_ERRORS] = float(sum(error for error in errors if not math.isnan(error)))
        return metrics

    return compute


@metric
def scorer_error_count() -> Metric:
    """``scorer_errors``: the submissions whose grading raised an exception, summed over the samples (DHP's
    discernment metric counts the unreadable grades)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [sample_score.score.value for sample_score in scores]
        errors = [as_float(value.get(SCORER_ERRORS)) for value in values if isinstance(value, Mapping)]
        return {SCORER_ERRORS: float(sum(error for error in errors if not math.isnan(error)))}

    return compute
