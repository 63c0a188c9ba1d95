"""inspect-ai scorer and metric for FBI: parse the judge's answers per item, report failure rates.

Every number a metric needs is in the score value, with the same keys for every item of a task, so that
inspect's epoch reducer (``mean``, the default) can combine epochs: counts become counts per epoch, 0/1
indicators become the share of epochs (NaN epochs, where nothing parsed, are left out of the mean).
A pairwise item is classified in each epoch from its two verdicts, and the one-hot outcome is what is
averaged, so an item's outcome shares over epochs stay a proper distribution.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal

from inspect_ai.model import GenerateConfig, get_model, model_roles
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from judge_data.shared_options import DEFAULT_MIN_MASS, RatingScoring
from scorers.blind_spots import (
    OUTCOMES,
    FailureRecord,
    chosen_answer,
    error_rate_metrics,
    pairwise_failure,
    pairwise_item_failure,
    pairwise_outcome,
    position_rates,
    rate_with_ci,
    reference_failure,
    reference_failure_probability,
    single_failure,
    single_failure_probability,
)
from scorers.unparsed import UNANSWERED_JUDGMENTS, register_warning_hook, unparsed_record
from scorers.values import (
    JSON_FALLBACKS,
    UNANSWERED,
    MetricFamily,
    as_float,
    headlines_first,
    json_fallbacks,
    unanswered,
)
from solvers.judge import ANSWERS_STORE_KEY, PROMPTS_STORE_KEY
from solvers.logprobs import LOGPROBS_STORE_KEY
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import answer_config
from solvers.reading.logprobs import LogprobRating, rating_details, stored_rating
from solvers.reading.recorded import read_recorded, shown
from solvers.reading.shapes import VERDICT, YES_NO, AnswerShape, read_answer
from solvers.recorded import RECORDED_STORE_KEY

Paradigm = Literal["single", "pairwise", "reference"]

EXPLANATION_YES_NOER_ROLE = "explanation_checker"
"""Model role that, when bound, checks whether an explanation names the error its verdict ignored."""

GOLD_POSITION = {"gold_first": "A", "gold_second": "B"}
"""Pairwise prompt names and where the gold answer sits in them."""

OUTCOME_METRICS = {
    "gold": "gold_both_orders",
    "perturbed": "perturbed_both_orders",
    "tie": "tie_both_orders",
    "inconsistent": "flip_rate",
}
"""Metric name of each pairwise outcome's share of items."""

HEADLINES = ("error_rate", "si_error_rate", "flip_rate", "si_flip_rate", "parse_failures")
"""Shown first in inspect's results table; rates per ability and category and the intervals follow."""

FAILURE_RATES = ("error_rate", "flip_rate", "perturbed_both_orders", "tie_both_orders", "tie_rate")
"""The rates of judgments that fail to penalise an error, in every form (per category, per order, with ``si_`` for
the score-invariant edits, where failing is penalising)."""

METRIC_FAMILIES = (
    *(MetricFamily(f"{prefix}{rate}", higher_is_better=False) for prefix in ("", "si_") for rate in FAILURE_RATES),
    MetricFamily("explanation_unparsed", higher_is_better=False, count=True),
)


VERDICT_COUNTS = {"A": "verdicts_first", "B": "verdicts_second", "tie": "verdicts_tie"}

EXPLANATION_KEYS = ("explanation_checked", "explanation_caught", "explanation_unparsed")


def _nan_if_none(value: float | None) -> float:
    return math.nan if value is None else float(value)


def pairwise_judgment(verdicts: Mapping[str, str | None], invariant: bool) -> tuple[dict[str, float], dict[str, Any]]:
    """A pairwise item's values and parsed details from its verdicts with the gold answer shown first and second:
    the answer chosen in each order, the item's outcome over both, its failure and the verdict counts."""
    choices = {name: chosen_answer(verdicts[name], position) for name, position in GOLD_POSITION.items()}
    outcome = pairwise_outcome(choices["gold_first"], choices["gold_second"])
    value = {"failure": pairwise_item_failure(outcome, invariant)}
    value.update({f"failure_{name}": pairwise_failure(choices[name], invariant) for name in GOLD_POSITION})
    value.update({f"outcome_{kind}": math.nan if outcome is None else float(outcome == kind) for kind in OUTCOMES})
    value.update({key: float(list(verdicts.values()).count(verdict)) for verdict, key in VERDICT_COUNTS.items()})
    return value, {"verdicts": dict(verdicts), "choices": choices, "outcome": outcome}


def judgments(
    paradigm: Paradigm,
    answers: Mapping[str, str],
    scale: int,
    invariant: bool,
    logprob_ratings: Mapping[str, LogprobRating] | None = None,
    prompts: Mapping[str, str] | None = None,
    answer_format: AnswerFormat = "text",
    recorded: Mapping[str, Mapping[str, Any] | None] | None = None,
) -> tuple[dict[str, float], dict[str, Any]]:
    """Per-item score values and the parsed details, for one paradigm.

    ``logprob_ratings``, when given, are the single or reference ratings read from log-probabilities: the scores
    are their expected ratings and the failure is its probability under the judge's rating distributions
    (:func:`single_failure_probability`, :func:`reference_failure_probability`), since the failure rules are
    defined on discrete scores. Otherwise the ratings are read from ``answers``, each against its prompt in
    ``prompts`` (and, with
    ``answer_format="json"``, from its JSON field first; ``json_fallbacks`` counts the answers read as text).
    ``parsed["rated_equal"]`` names the judgments in which the judge rated the perturbed answer as good as the
    gold one (paper 5.3): equal scores, a pairwise tie, or the top score against the reference. ``recorded`` (recorded
    judgments, ``-T judgments=``) takes the place of ``answers``: each judgment's answer or value, read as a live
    answer would be; a judgment without one is ``unanswered``, not a parse failure.
    """
    fallbacks: list[bool] = []
    missing: list[str] = []

    def read(name: str, shape: AnswerShape) -> Any:
        prompt = (prompts or {}).get(name)
        if recorded is None:
            reading = read_answer(answers.get(name, ""), shape, prompt, answer_format)
        elif recorded.get(name) is None:
            missing.append(name)
            return None
        else:
            reading = read_recorded(recorded[name] or {}, shape, prompt, answer_format)
        fallbacks.append(reading.json_fallback)
        return reading.value

    def rating(name: str) -> float | None:
        if logprob_ratings is None:
            return read(name, AnswerShape("rating", 1, scale))
        return logprob_ratings[name].score if name in logprob_ratings else None

    def distribution(name: str) -> dict[int, float] | None:
        found = (logprob_ratings or {}).get(name)
        return None if found is None or found.failed else found.probabilities

    if paradigm == "single":
        gold, perturbed = (rating(name) for name in ("gold", "perturbed"))
        failure = (
            single_failure(gold, perturbed, invariant)
            if logprob_ratings is None
            else single_failure_probability(distribution("gold"), distribution("perturbed"), invariant)
        )
        value = {"gold_score": _nan_if_none(gold), "perturbed_score": _nan_if_none(perturbed), "failure": failure}
        parsed: dict[str, Any] = {"gold": gold, "perturbed": perturbed}
        unparsed = [name for name in ("gold", "perturbed") if parsed[name] is None]
        rated_equal = ["perturbed"] if gold is not None and perturbed == gold else []
    elif paradigm == "reference":
        perturbed = rating("perturbed")
        failure = (
            reference_failure(perturbed, scale, invariant)
            if logprob_ratings is None
            else reference_failure_probability(distribution("perturbed"), scale, invariant)
        )
        value = {"perturbed_score": _nan_if_none(perturbed), "failure": failure}
        parsed = {"perturbed": perturbed}
        unparsed = ["perturbed"] if perturbed is None else []
        rated_equal = ["perturbed"] if perturbed is not None and perturbed >= scale else []
    else:
        value, parsed = pairwise_judgment({name: read(name, VERDICT) for name in GOLD_POSITION}, invariant)
        unparsed = [name for name in GOLD_POSITION if parsed["verdicts"][name] is None]
        rated_equal = [name for name in GOLD_POSITION if parsed["verdicts"][name] == "tie"]
    unparsed = [name for name in unparsed if name not in missing]
    value["parse_failures"] = float(len(unparsed))
    if recorded is not None:
        value[UNANSWERED] = float(len(missing))
        parsed[UNANSWERED_JUDGMENTS] = missing
    if answer_format == "json":
        value[JSON_FALLBACKS] = float(sum(fallbacks))
    parsed["unparsed"] = unparsed
    parsed["rated_equal"] = rated_equal
    return value, parsed


def _shown_answers(paradigm: Paradigm, name: str, metadata: Mapping[str, Any]) -> tuple[list[tuple[str, str]], str]:
    """The answers as the judgment ``name`` showed them, labelled as in its prompt, and the flawed one's label."""
    if paradigm != "pairwise":
        return [("Answer", metadata["perturbed"])], "Answer"
    gold, perturbed = metadata["gold"], metadata["perturbed"]
    if GOLD_POSITION[name] == "A":
        return [("Answer A", gold), ("Answer B", perturbed)], "Answer B"
    return [("Answer A", perturbed), ("Answer B", gold)], "Answer A"


CheckPrompt = Callable[[str, Sequence[tuple[str, str]], str, str], str]
"""Builds the explanation check from (question, labelled answers as the judge saw them, flawed label, explanation)."""


def explanation_checks(
    paradigm: Paradigm,
    parsed: Mapping[str, Any],
    metadata: Mapping[str, Any],
    answers: Mapping[str, str],
    check_prompt: CheckPrompt,
) -> dict[str, str]:
    """The checker's prompt for each judgment of an item that rated the perturbed answer as good as the gold one
    (``parsed["rated_equal"]`` of :func:`judgments`), by judgment name: the judge's answer as the explanation, the
    answers as that judgment showed them."""
    return {
        name: check_prompt(metadata["question"], *_shown_answers(paradigm, name, metadata), answers[name])
        for name in parsed["rated_equal"]
    }


def explanation_counts(checks: Mapping[str, bool | None]) -> dict[str, float]:
    """An item's checked, caught and unparsed explanations from the checker's parsed answers (True: it names the
    error, False: it does not, None: no verdict)."""
    flags = list(checks.values())
    return {
        "explanation_checked": float(sum(flag is not None for flag in flags)),
        "explanation_caught": float(sum(flag is True for flag in flags)),
        "explanation_unparsed": float(sum(flag is None for flag in flags)),
    }


@scorer(metrics=[])
def blind_spot_judgments(
    paradigm: Paradigm,
    scale: int,
    check_prompt: CheckPrompt | None = None,
    scoring: RatingScoring = "sample",
    min_mass: float = DEFAULT_MIN_MASS,
    answer_format: AnswerFormat = "text",
) -> Scorer:
    """Parse the judge's answers for one item into failure flags (NaN where unparsable).

    With ``scoring="logprobs"`` (single and reference) each rating is the expected value over the top
    log-probabilities of the judge's one-number answer, a parse failure below ``min_mass``; the mass per
    judgment is kept as ``mass_<name>``.

    With a ``check_prompt`` (strategies whose judge explains itself) and the ``explanation_checker``
    model role bound, the explanation of every judgment that rated a perturbed answer as good as the gold
    one is shown to that model, with the answers as the judge saw them and the flawed one named; it says
    whether the explanation still points out a problem in the flawed answer.

    Answers are read against the prompts the solver stored; ``answer_format="json"`` reads JSON answers (the
    checker's too) by their field first.
    """
    register_warning_hook()
    check_config = GenerateConfig(temperature=0.0).merge(answer_config(YES_NO, answer_format))

    async def score(state: TaskState, target: Target) -> Score:
        invariant = bool(state.metadata["invariant"])
        prompts: Mapping[str, str] = state.store.get(PROMPTS_STORE_KEY) or {}
        recorded = state.store.get(RECORDED_STORE_KEY)
        logprob_ratings = {}
        if scoring == "logprobs":
            stored: dict[str, Mapping[str, Any]] = state.store.get(LOGPROBS_STORE_KEY) or {}
            answers = {name: entry.get("answer", "") for name, entry in stored.items()}
            logprob_ratings = {
                name: stored_rating(entry, 1, scale, min_mass=min_mass) for name, entry in stored.items()
            }
            value, parsed = judgments(paradigm, answers, scale, invariant, logprob_ratings)
            value.update({f"mass_{name}": rating.mass for name, rating in logprob_ratings.items()})
        else:
            answers = state.store.get(ANSWERS_STORE_KEY) or {}
            if recorded is not None:
                answers = {name: shown(judgment) for name, judgment in recorded.items() if judgment is not None}
            value, parsed = judgments(paradigm, answers, scale, invariant, None, prompts, answer_format, recorded)
        checks: dict[str, bool | None] = {}
        if check_prompt and not invariant and EXPLANATION_YES_NOER_ROLE in model_roles():
            checker = get_model(role=EXPLANATION_YES_NOER_ROLE)
            explained = {**parsed, "rated_equal": [name for name in parsed["rated_equal"] if name in prompts]}
            check_prompts = explanation_checks(paradigm, explained, state.metadata, answers, check_prompt)
            outputs = await asyncio.gather(
                *(checker.generate(prompt, config=check_config) for prompt in check_prompts.values())
            )
            checks = {
                name: read_answer(output.completion, YES_NO, check_prompts[name], answer_format).value
                for name, output in zip(check_prompts, outputs, strict=True)
            }
            value.update(explanation_counts(checks))
        else:
            value.update(dict.fromkeys(EXPLANATION_KEYS, math.nan))
        read = [None if name in parsed["unparsed"] else True for name in answers]
        return Score(
            value=value,
            answer=state.output.completion,
            metadata={
                "scoring": scoring,
                "answers": answers,
                "parsed": parsed,
                **unparsed_record(list(answers.values()), read),
                **({"recorded": recorded, UNANSWERED_JUDGMENTS: parsed[UNANSWERED_JUDGMENTS]} if recorded else {}),
                "explanation_checks": checks,
                **({"logprobs": {n: rating_details(r) for n, r in logprob_ratings.items()}} if logprob_ratings else {}),
            },
        )

    return score


def _total(values: list[float]) -> float:
    return float(sum(value for value in values if not math.isnan(value)))


@metric
def blind_spot_rates(paradigm: Paradigm) -> Metric:
    """FBI's failure rates per ability and category with Jeffreys intervals, score-invariant rates,
    parse failures, explanation checks, and for pairwise runs the outcome shares over both orders (flip rate
    included), the per-order rates and the first-position and tie rates.

    Copes with partial results: items not yet scored are simply absent.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return blind_spot_metrics(
            paradigm, ((sample_score.sample_metadata or {}, sample_score.score.value) for sample_score in scores)
        )

    return compute


def blind_spot_metrics(
    paradigm: Paradigm, samples: Iterable[tuple[Mapping[str, Any], Any]], counts: bool = False
) -> dict[str, float]:
    """The metric's numbers from ``(sample metadata, score value)`` pairs, for any harness; with ``counts``, the
    items behind each error rate too (``<rate>_n``)."""
    items = _placed(samples)
    records = (FailureRecord(*place, as_float(value.get("failure"))) for place, value in items)
    metrics = error_rate_metrics(records, counts=counts)
    if paradigm == "pairwise":
        for name in GOLD_POSITION:
            records = (FailureRecord(*place, as_float(value.get(f"failure_{name}"))) for place, value in items)
            metrics.update(error_rate_metrics(records, prefix=f"error_rate_{name}"))
        for invariant, prefix in ((False, ""), (True, "si_")):
            group = [value for place, value in items if place[2] == invariant]
            if not group:
                continue
            for kind, name in OUTCOME_METRICS.items():
                estimate = rate_with_ci([as_float(value.get(f"outcome_{kind}")) for value in group])
                metrics[f"{prefix}{name}"] = estimate.rate
                if kind == "inconsistent":
                    metrics[f"{prefix}{name}_ci_low"] = estimate.low
                    metrics[f"{prefix}{name}_ci_high"] = estimate.high
        verdicts = {key: _total([as_float(value.get(key)) for _, value in items]) for key in VERDICT_COUNTS.values()}
        metrics["first_position_rate"], metrics["tie_rate"] = position_rates(
            verdicts["verdicts_first"], verdicts["verdicts_second"], verdicts["verdicts_tie"]
        )
    metrics.update(_explanation_metrics(items))
    metrics.update(json_fallbacks(value for _, value in items))
    metrics.update(unanswered(value for _, value in items))
    metrics["parse_failures"] = _total([as_float(value.get("parse_failures")) for _, value in items])
    return headlines_first(metrics, HEADLINES)


def _placed(
    samples: Iterable[tuple[Mapping[str, Any], Any]],
) -> list[tuple[tuple[str, str, bool], Mapping[str, Any]]]:
    """``((ability, category, invariant), score value)`` of every scored item."""
    return [
        ((metadata["ability"], metadata["category"], bool(metadata["invariant"])), value)
        for metadata, value in samples
        if isinstance(value, Mapping) and "ability" in metadata
    ]


def explanation_metrics(samples: Iterable[tuple[Mapping[str, Any], Any]]) -> dict[str, float]:
    """The explanation-check numbers alone from ``(sample metadata, score value)`` pairs whose values hold
    :func:`explanation_counts` (lm-eval checks the explanations in a run of their own)."""
    return _explanation_metrics(_placed(samples))


def _explanation_metrics(items: list[tuple[tuple[str, str, bool], Mapping[str, Any]]]) -> dict[str, float]:
    """``explanation_caught_rate`` overall, per ability and per category (caught / checked explanations) and
    ``explanation_unparsed``; nothing when no checker ran."""
    checked = [(place, value) for place, value in items if not math.isnan(as_float(value.get("explanation_checked")))]
    if not checked:
        return {}
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for (ability, category, _), value in checked:
        for group in ("", f"/{ability}", f"/{ability}/{category}"):
            groups.setdefault(group, []).append(value)
    metrics = {}
    for group, values in groups.items():
        caught = _total([as_float(value.get("explanation_caught")) for value in values])
        total = _total([as_float(value.get("explanation_checked")) for value in values])
        metrics[f"explanation_caught_rate{group}"] = caught / total if total else math.nan
    metrics["explanation_unparsed"] = _total([as_float(value.get("explanation_unparsed")) for _, value in checked])
    return metrics
