"""Judge prompts for FBI's eleven strategies (Doddapaneni et al., EMNLP 2024, Section 4), written for this project.

Single-answer strategies ask for ``Rating: [[n]]``, pairwise ones for ``[[A]]``, ``[[B]]`` or ``[[C]]``
(tie); strategies with an explanation ask for it before the verdict. With ``rating_only`` (used by
``scoring=logprobs``, which can only read a score that is the first thing the judge writes) the
single-answer and reference prompts keep everything they show the judge but ask for the bare number
and no explanation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judge_data.options import OptionError
from scorers.fbi import Paradigm
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import json_request
from solvers.reading.shapes import VERDICT, YES_NO, AnswerShape

RUBRIC_SCALES = (3, 5)
"""The paper's two rubric ranges."""


@dataclass(frozen=True)
class Strategy:
    """One of FBI's judging strategies (the paper's Section 4), decoded once from ``-T strategy=`` and the task's
    paradigm by :func:`fbi_strategy`: what its prompt shows and asks, whether the judge sees the gold answer as a
    reference, and its score range."""

    paradigm: Paradigm
    name: str
    explains: bool
    """The judge explains before its verdict (so the explanation check has something to check)."""
    axis: bool = False
    """The prompt shows the evaluation axis that fits the question's ability."""
    rules: bool = False
    """The prompt gives a rubric of score levels (single) or rules for comparing (pairwise)."""
    default_scale: int = 10
    """Top of the score range when ``-T scale`` is not given: the paper's 1-10, 1-3 with a rubric (1-5 is its other
    rubric range); pairwise verdicts have none (their prompts ignore it)."""

    @property
    def uses_reference(self) -> bool:
        """Whether the judge sees the gold answer as the reference (the ``reference`` paradigm)."""
        return self.paradigm == "reference"

    @property
    def rated(self) -> bool:
        """Whether the judge rates answers on a scale (single and reference) rather than picking one (pairwise)."""
        return self.paradigm != "pairwise"

    def scale(self, given: int | None) -> int:
        """The top of the score range: ``given`` (``-T scale``) or the strategy's; a rubric takes 3 or 5 only."""
        scale = given or self.default_scale
        if self.rules and self.rated and scale not in RUBRIC_SCALES:
            raise OptionError(f"{self.name} scores on 1-3 or 1-5 (the paper's two rubric ranges), not 1-{scale}")
        return scale


STRATEGIES: dict[Paradigm, dict[str, Strategy]] = {
    "single": {
        strategy.name: strategy
        for strategy in (
            Strategy("single", "vanilla_star", explains=False),
            Strategy("single", "vanilla", explains=True),
            Strategy("single", "rubric", explains=True, rules=True, default_scale=3),
            Strategy("single", "axis", explains=True, axis=True),
            Strategy("single", "axis_rubric", explains=True, axis=True, rules=True, default_scale=3),
        )
    },
    "pairwise": {
        strategy.name: strategy
        for strategy in (
            Strategy("pairwise", "pairwise_star", explains=False),
            Strategy("pairwise", "pairwise", explains=True),
            Strategy("pairwise", "rules", explains=True, rules=True),
            Strategy("pairwise", "axis", explains=True, axis=True),
            Strategy("pairwise", "axis_rules", explains=True, axis=True, rules=True),
        )
    },
    "reference": {"reference": Strategy("reference", "reference", explains=True)},
}
"""FBI's eleven strategies by paradigm, as the paper names them."""

SINGLE_STRATEGIES = tuple(STRATEGIES["single"])
PAIRWISE_STRATEGIES = tuple(STRATEGIES["pairwise"])
REFERENCE_STRATEGIES = tuple(STRATEGIES["reference"])

EXPLAINED = sorted({strategy.name for named in STRATEGIES.values() for strategy in named.values() if strategy.explains})
"""The names of the strategies whose judge writes an explanation before its verdict."""


def fbi_strategy(paradigm: str, name: str) -> Strategy:
    """The strategy ``name`` of ``paradigm`` (``-T strategy=`` of the paradigm's task, or a run's settings)."""
    by_name: Mapping[str, Strategy] = next((named for key, named in STRATEGIES.items() if key == paradigm), {})
    if name not in by_name:
        raise OptionError(f"unknown {paradigm} strategy {name!r}; choose from {list(by_name)}")
    return by_name[name]


def judged_strategy(settings: Mapping[str, Any]) -> tuple[Strategy, int]:
    """The strategy and score range a judge run's settings name (its task metadata ``paradigm``, ``strategy`` and
    ``scale``, as lm-eval's documents keep them)."""
    strategy = fbi_strategy(settings["paradigm"], settings["strategy"])
    return strategy, strategy.scale(settings["scale"])


@dataclass(frozen=True)
class Axis:
    """The evaluation axis that fits a question's ability, with rubric levels for 1-3 and 1-5 scales."""

    name: str
    question: str
    levels_3: tuple[str, str, str]
    levels_5: tuple[str, str, str, str, str]


AXES: dict[str, Axis] = {
    "long_form": Axis(
        name="Writing quality",
        question="Is the answer well written: grammatical, correctly spelled, consistent in tone and terms, "
        "logically ordered, coherent, and complete enough for the request?",
        levels_3=(
            "The writing has clear problems (errors, incoherence, missing or irrelevant content) that hurt the answer.",
            "The writing is understandable but has some noticeable lapses.",
            "The writing is clean, coherent, well ordered and complete.",
        ),
        levels_5=(
            "The writing is badly flawed: many errors, hard to follow, or largely off the point.",
            "The writing has several problems that get in the way of the content.",
            "The writing is acceptable but has noticeable lapses in correctness, flow or completeness.",
            "The writing is good, with only minor lapses.",
            "The writing is excellent: correct, coherent, well ordered and complete.",
        ),
    ),
    "factual": Axis(
        name="Factual accuracy",
        question="Are all facts, names, numbers and claims in the answer correct, and does it leave out nothing "
        "essential to a correct answer?",
        levels_3=(
            "The answer states false or invented facts, or omits something essential.",
            "The answer is mostly correct but has a minor inaccuracy or gap.",
            "Every fact in the answer is correct and nothing essential is missing.",
        ),
        levels_5=(
            "The answer is largely wrong or invented.",
            "The answer has a serious factual error or omission.",
            "The answer has a clear but limited factual error or gap.",
            "The answer is correct apart from a small imprecision.",
            "The answer is entirely accurate and complete.",
        ),
    ),
    "instruction_following": Axis(
        name="Instruction following",
        question="Does the answer do exactly what the instruction asks: all of it, nothing beyond it, in the "
        "requested format and order, without unfounded assumptions?",
        levels_3=(
            "The answer ignores or breaks part of the instruction "
            "(missing parts, extra content, wrong format or order).",
            "The answer follows the instruction with a small deviation.",
            "The answer follows every part of the instruction.",
        ),
        levels_5=(
            "The answer largely ignores the instruction.",
            "The answer misses or breaks an important part of the instruction.",
            "The answer follows the instruction with a clear deviation.",
            "The answer follows the instruction with a very small deviation.",
            "The answer follows every part of the instruction exactly.",
        ),
    ),
    "reasoning": Axis(
        name="Reasoning correctness",
        question="Is the reasoning correct: the right formula and units, the numbers from the question copied "
        "correctly, every calculation right, and a final answer that matches the working?",
        levels_3=(
            "The reasoning or the final answer contains an error.",
            "The reasoning is right but its presentation has a minor flaw that does not change the result.",
            "The reasoning and the final answer are fully correct.",
        ),
        levels_5=(
            "The reasoning is wrong throughout.",
            "The reasoning has an error that leads to a wrong final answer.",
            "The reasoning has an error, though the final answer may survive it.",
            "The reasoning is correct with a minor presentation flaw.",
            "The reasoning and the final answer are fully correct.",
        ),
    ),
}

GENERAL_LEVELS_3 = (
    "The answer has a significant problem: an error, a gap, or a failure to do what was asked.",
    "The answer is acceptable but has a minor problem.",
    "The answer is correct, complete, well written and does what was asked.",
)
GENERAL_LEVELS_5 = (
    "The answer is unusable: wrong, off-topic or badly written.",
    "The answer has a major problem.",
    "The answer is adequate but has clear problems.",
    "The answer is good with minor problems.",
    "The answer is excellent: correct, complete, well written and does exactly what was asked.",
)

PAIRWISE_RULES = (
    "Prefer the answer that is correct; an error of fact, calculation or logic outweighs style.",
    "Prefer the answer that follows the instruction exactly: nothing missing, nothing added, the requested format.",
    "Judge the content, not the length: a longer answer is not better for being longer.",
    "The order in which the answers are shown must not influence your verdict.",
    "Call a tie only when neither answer is better.",
)


def _levels(scale: int, axis: Axis | None) -> str:
    levels: tuple[str, ...]
    if scale == 3:
        levels = axis.levels_3 if axis else GENERAL_LEVELS_3
    elif scale == 5:
        levels = axis.levels_5 if axis else GENERAL_LEVELS_5
    else:
        raise ValueError(f"rubric strategies score on 1-3 or 1-5, not 1-{scale}")
    return "\n".join(f"{score}: {text}" for score, text in enumerate(levels, start=1))


def _axis_text(axis: Axis) -> str:
    return f"Evaluate only along this axis. {axis.name}: {axis.question}"


def rating_only_request(scale: int) -> str:
    """The closing request of ``rating_only`` prompts: the bare number, nothing before it."""
    return f"Reply with the rating only: one whole number from 1 (worst) to {scale} (best), with no other text."


def rating_shape(scale: int) -> AnswerShape:
    """FBI's ratings: whole numbers from 1 to ``scale``, higher is better."""
    return AnswerShape("rating", 1, scale)


def single_prompt(
    strategy: Strategy,
    question: str,
    answer: str,
    scale: int,
    axis: Axis,
    rating_only: bool = False,
    answer_format: AnswerFormat = "text",
) -> str:
    """A prompt that rates one answer to ``question`` (asking for the bare number with ``rating_only``, for a JSON
    object with ``answer_format="json"``)."""
    parts = [
        "You are judging the quality of an AI assistant's answer to a user's request.",
        f"[Request]\n{question}",
        f"[Answer]\n{answer}",
    ]
    if strategy.axis:
        parts.append(_axis_text(axis))
    if strategy.rules:
        parts.append(f"Score with this rubric:\n{_levels(scale, axis if strategy.axis else None)}")
    rating = f"Rating: [[n]], where n is a whole number from 1 (worst) to {scale} (best)"
    if rating_only:
        parts.append(rating_only_request(scale))
    elif answer_format == "json":
        parts.append(json_request(rating_shape(scale)))
    elif not strategy.explains:
        parts.append(f"Reply with the rating only, in exactly this form: {rating}.")
    else:
        parts.append(f"First explain your assessment in a few sentences. Then end with {rating}.")
    return "\n\n".join(parts)


def pairwise_prompt(
    strategy: Strategy, question: str, answer_a: str, answer_b: str, axis: Axis, answer_format: AnswerFormat = "text"
) -> str:
    """A prompt that compares two answers to ``question``, shown as A and B."""
    parts = [
        "You are comparing two AI assistants' answers to the same user request. Decide which answer is better.",
        f"[Request]\n{question}",
        f"[Answer A]\n{answer_a}",
        f"[Answer B]\n{answer_b}",
    ]
    if strategy.axis:
        parts.append(_axis_text(axis))
    if strategy.rules:
        parts.append("Follow these rules:\n" + "\n".join(f"{n}. {rule}" for n, rule in enumerate(PAIRWISE_RULES, 1)))
    verdict = "[[A]] if answer A is better, [[B]] if answer B is better, or [[C]] for a tie"
    if answer_format == "json":
        parts.append(json_request(VERDICT))
    elif not strategy.explains:
        parts.append(f"Reply with the verdict only: {verdict}.")
    else:
        parts.append(f"First explain your comparison in a few sentences. Then end with your verdict: {verdict}.")
    return "\n\n".join(parts)


def reference_prompt(
    question: str,
    reference: str,
    answer: str,
    scale: int,
    rating_only: bool = False,
    answer_format: AnswerFormat = "text",
) -> str:
    """A prompt that rates an answer against a reference answer (asking for the bare number with ``rating_only``)."""
    top_only = f"give {scale} only to an answer with no flaw"
    if rating_only:
        request = f"{rating_only_request(scale)} As a rule, {top_only}."
    elif answer_format == "json":
        request = f"{json_request(rating_shape(scale))} As a rule, {top_only}."
    else:
        request = (
            f"First explain your assessment in a few sentences. Then end with Rating: [[n]], where n is a whole "
            f"number from 1 (worst) to {scale} (best); {top_only}."
        )
    return "\n\n".join(
        [
            "You are judging an AI assistant's answer to a user's request, using a reference answer that is known "
            "to be correct.",
            f"[Request]\n{question}",
            f"[Reference answer]\n{reference}",
            f"[Answer to judge]\n{answer}",
            "Compare the answer with the reference. Identify any mistake, omission or deviation from the request.",
            request,
        ]
    )


def explanation_check_prompt(
    question: str,
    answers: Sequence[tuple[str, str]],
    flawed: str,
    explanation: str,
    answer_format: AnswerFormat = "text",
) -> str:
    """Asks a checker model whether a judge's explanation reports the planted error (paper 5.3).

    ``answers`` are ``(label, text)`` pairs exactly as the judge saw them (``Answer``, or ``Answer A`` and
    ``Answer B`` in the judge's order); ``flawed`` is the label of the one that carries the error.
    """
    alone = len(answers) == 1
    target = "the answer" if alone else flawed
    opening = (
        "Below is an evaluator's explanation of its verdict on an answer to a request."
        if alone
        else "Below is an evaluator's explanation of its comparison of two answers to a request."
    )
    question_to_checker = (
        f"An error was introduced into {target} on purpose. Does the explanation point out a mistake, error or "
        f"shortcoming in {target}, whatever verdict it reached?"
    )
    if not alone:
        question_to_checker += " Problems it finds only in the other answer do not count."
    request = (
        f'{json_request(YES_NO)} Answer "yes" if it points out a problem in {target}.'
        if answer_format == "json"
        else f"Reply with [[YES]] if it points out a problem in {target}, or [[NO]] if it does not."
    )
    return "\n\n".join(
        [
            f"{opening} {question_to_checker}",
            f"[Request]\n{question}",
            *(f"[{label}]\n{text}" for label, text in answers),
            f"[Evaluator's explanation]\n{explanation}",
            request,
        ]
    )
