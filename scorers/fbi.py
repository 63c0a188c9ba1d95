"""inspect-ai scorer and metric for FBI: parse the judge's answers per item, report failure rates."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from typing import Any, Literal

from inspect_ai.model import GenerateConfig, get_model, model_roles
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from scorers.blind_spots import (
    FailureRecord,
    chosen_answer,
    error_rate_metrics,
    pairwise_failure,
    rate_with_ci,
    reference_failure,
    single_failure,
)
from scorers.values import as_float
from solvers.judge import ANSWERS_STORE_KEY
from solvers.score_parsing import parse_rating, parse_verdict, parse_yes_no

Paradigm = Literal["single", "pairwise", "reference"]

EXPLANATION_CHECKER_ROLE = "explanation_checker"
"""Model role that, when bound, checks whether a failing judgment's explanation still names the error."""

GOLD_POSITION = {"gold_first": "A", "gold_second": "B"}
"""Pairwise prompt names and where the gold answer sits in them."""


def _nan_if_none(value: float | None) -> float:
    return math.nan if value is None else float(value)


def _judgments(
    paradigm: Paradigm, answers: Mapping[str, str], scale: int, invariant: bool
) -> tuple[dict[str, float], dict[str, Any]]:
    """Per-item score values and the parsed details, for one paradigm."""
    if paradigm == "single":
        gold, perturbed = (parse_rating(answers.get(name, ""), 1, scale) for name in ("gold", "perturbed"))
        value = {
            "gold_score": _nan_if_none(gold),
            "perturbed_score": _nan_if_none(perturbed),
            "failure": single_failure(gold, perturbed, invariant),
        }
        parsed = {"gold": gold, "perturbed": perturbed}
        failing = ["perturbed"] if value["failure"] == 1.0 else []
    elif paradigm == "reference":
        perturbed = parse_rating(answers.get("perturbed", ""), 1, scale)
        value = {"perturbed_score": _nan_if_none(perturbed), "failure": reference_failure(perturbed, scale, invariant)}
        parsed = {"perturbed": perturbed}
        failing = ["perturbed"] if value["failure"] == 1.0 else []
    else:
        verdicts = {name: parse_verdict(answers.get(name, "")) for name in GOLD_POSITION}
        choices = {name: chosen_answer(verdicts[name], position) for name, position in GOLD_POSITION.items()}
        value = {f"failure_{name}": pairwise_failure(choices[name], invariant) for name in GOLD_POSITION}
        both = choices["gold_first"], choices["gold_second"]
        value["consistent"] = math.nan if None in both else float(both[0] == both[1])
        for name in GOLD_POSITION:
            value[f"first_position_{name}"] = math.nan if verdicts[name] is None else float(verdicts[name] == "A")
        parsed = {"verdicts": verdicts, "choices": choices}
        failing = [name for name in GOLD_POSITION if value[f"failure_{name}"] == 1.0]
    parsed["failing"] = failing
    return value, parsed


CheckPrompt = Callable[[str, str, str], str]
"""Builds the explanation check from (question, judged answer, judge's explanation)."""


@scorer(metrics=[])
def blind_spot_judgments(paradigm: Paradigm, scale: int, check_prompt: CheckPrompt | None = None) -> Scorer:
    """Parse the judge's answers for one item into failure flags (NaN where unparsable).

    With a ``check_prompt`` (strategies whose judge explains itself) and the ``explanation_checker``
    model role bound, every failing judgment's explanation is shown to that model, which says whether
    it still names a problem with the perturbed answer.
    """
    check_config = GenerateConfig(temperature=0.0)

    async def score(state: TaskState, target: Target) -> Score:
        answers: dict[str, str] = state.store.get(ANSWERS_STORE_KEY) or {}
        invariant = bool(state.metadata["invariant"])
        value, parsed = _judgments(paradigm, answers, scale, invariant)
        parse_failures = sum(1 for name in answers if _unparsed(paradigm, parsed, name))
        checks: dict[str, bool | None] = {}
        if check_prompt and parsed["failing"] and not invariant and EXPLANATION_CHECKER_ROLE in model_roles():
            checker = get_model(role=EXPLANATION_CHECKER_ROLE)
            question, shown = state.metadata["question"], state.metadata["perturbed"]
            outputs = await asyncio.gather(
                *(
                    checker.generate(check_prompt(question, shown, answers[name]), config=check_config)
                    for name in parsed["failing"]
                )
            )
            checks = {name: parse_yes_no(output.completion) for name, output in zip(parsed["failing"], outputs)}
            caught = [flag for flag in checks.values() if flag is not None]
            value["explanation_caught"] = float(sum(caught)) / len(caught) if caught else math.nan
        return Score(
            value=value,
            answer=state.output.completion,
            metadata={
                "answers": answers,
                "parsed": parsed,
                "parse_failures": parse_failures,
                "explanation_checks": checks,
            },
        )

    return score


def _unparsed(paradigm: Paradigm, parsed: Mapping[str, Any], name: str) -> bool:
    if paradigm == "pairwise":
        return parsed["verdicts"].get(name) is None
    return parsed.get(name) is None


@metric
def blind_spot_rates(paradigm: Paradigm) -> Metric:
    """FBI's failure rates per ability and category with bootstrap CIs, score-invariant rates, parse failures,
    and for pairwise runs the per-order rates, position consistency and first-position preference.

    Copes with partial results: items not yet scored are simply absent.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        records: list[FailureRecord] = []
        per_order: dict[str, list[FailureRecord]] = {name: [] for name in GOLD_POSITION}
        consistency: list[float] = []
        first_position: list[float] = []
        caught: dict[str, list[float]] = {}
        parse_failures = 0
        for sample_score in scores:
            metadata = sample_score.sample_metadata or {}
            value = sample_score.score.value
            if not isinstance(value, Mapping) or "ability" not in metadata:
                continue
            parse_failures += int((sample_score.score.metadata or {}).get("parse_failures", 0))
            place = (metadata["ability"], metadata["category"], bool(metadata["invariant"]))
            if paradigm == "pairwise":
                for name in GOLD_POSITION:
                    record = FailureRecord(*place, as_float(value.get(f"failure_{name}")))
                    records.append(record)
                    per_order[name].append(record)
                    first_position.append(as_float(value.get(f"first_position_{name}")))
                consistency.append(as_float(value.get("consistent")))
            else:
                records.append(FailureRecord(*place, as_float(value.get("failure"))))
            if "explanation_caught" in value and not place[2]:
                for group in ("", f"/{place[0]}", f"/{place[0]}/{place[1]}"):
                    caught.setdefault(group, []).append(as_float(value["explanation_caught"]))
        metrics = error_rate_metrics(records)
        if paradigm == "pairwise":
            for name, order_records in per_order.items():
                metrics.update(error_rate_metrics(order_records, prefix=f"error_rate_{name}"))
            metrics["position_consistency"] = rate_with_ci(consistency).rate
            metrics["first_position_rate"] = rate_with_ci(first_position).rate
        for group, flags in caught.items():
            metrics[f"explanation_caught_rate{group}"] = rate_with_ci(flags).rate
        metrics["parse_failures"] = float(parse_failures)
        return metrics

    return compute
