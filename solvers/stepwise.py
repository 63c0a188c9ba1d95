"""Scoring a response one criterion at a time in one conversation, then overall (CoEval, Li et al., §5.1).

The judge sees the task, the input and the response once, in the first message; each later message asks
about one more criterion, with the judge's earlier explanations and scores in the history, and the last
asks for an overall score given all of them. ``direct`` asks for the overall score alone. The prompts are
our own wording. Raw answers go to the store (as :func:`solvers.judge.sample_prompts` leaves them), so
the scorer parses them and ``inspect score`` can re-read a finished log.

With ``scoring="logprobs"`` every turn asks for the score only (a score read from log-probabilities must
be the first thing the judge writes, so there is no explanation) and is one request for a few tokens with
their top log-probabilities, stored as :func:`solvers.reading.logprobs.logprob_prompts` leaves them. The
judge's answer kept in the history for the later turns is its most probable on-scale score (the lowest
of equally probable ones), written as a number; when the rating is a parse failure (less than
``min_mass`` on the scale) it is the text the judge generated, as an unparsable sampled answer would be.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judge_data.human import HumanCriterion
from judge_data.shared_options import DEFAULT_MIN_MASS, RatingScoring
from solvers.judge import PROMPTS_STORE_KEY, SAMPLES_STORE_KEY
from solvers.logprobs import LOGPROBS_STORE_KEY, rate_by_logprobs, stored_answer
from solvers.reading.formats import AnswerFormat
from solvers.reading.json_answers import answer_config, json_request
from solvers.reading.logprobs import LogprobRating, closing_label
from solvers.reading.shapes import AnswerShape

Mode = Literal["step_by_step", "direct"]
MODES: tuple[Mode, ...] = ("step_by_step", "direct")

OVERALL = "overall"
"""The key of the overall score, beside the criterion names."""

Turn = tuple[str, str]
"""(key of the score asked for, text of the user message)."""


_LIST_NUMBER = re.compile(r"^\s*\d+[.)]\s*")

_SCORE_ONLY = "Reply with the score only.\nScore:"
_OVERALL_ONLY = "Reply with the score only.\nOverall score:"


def _scale(low: float, high: float) -> str:
    return f"from {low:g} (lowest) to {high:g} (highest)"


def item_text(task_description: str, task_input: str, response: str) -> str:
    """What every prompt of an item opens with: the task, its input and the output to judge."""
    task = f"Task: {task_description}\n\n" if task_description else ""
    return (
        f"{task}Here is an input of this task and the output written for it.\n\n"
        f"Input:\n{task_input}\n\nOutput:\n{response}"
    )


def criterion_question(
    criterion: HumanCriterion, score_only: bool = False, answer_format: AnswerFormat = "text"
) -> str:
    """One criterion: an explanation first, then the score on the last line; or, ``score_only``, the score alone;
    or, ``answer_format="json"``, both as a JSON object."""
    asked = f"Criterion: {_LIST_NUMBER.sub('', criterion.title)}\n\n"
    if score_only:
        return f"{asked}Score the output on this criterion {_scale(criterion.low, criterion.high)}.\n{_SCORE_ONLY}"
    if answer_format == "json":
        shape = AnswerShape("rating", criterion.low, criterion.high)
        return f"{asked}Explain whether the output meets this criterion and score it. {json_request(shape)}"
    return (
        f"{asked}In two or three sentences, explain whether the output meets this criterion. Then score it "
        f'{_scale(criterion.low, criterion.high)} on a last line of the form "Score: <number>".'
    )


def overall_question(low: float, high: float, score_only: bool = False, answer_format: AnswerFormat = "text") -> str:
    """The closing question of the step-by-step conversation (``score_only``: no explanation asked)."""
    checked = (
        "You have now checked the output against every criterion. With the task, the input, the output, the "
        "criteria and the scores you gave in mind, "
    )
    if score_only:
        return f"{checked}give the output an overall quality score {_scale(low, high)}.\n{_OVERALL_ONLY}"
    if answer_format == "json":
        return f"{checked}judge the overall quality of the output. {json_request(AnswerShape('rating', low, high))}"
    return (
        f"{checked}judge the overall quality of the output. Explain briefly, "
        f'then end with a line of the form "Overall score: <number>", {_scale(low, high)}.'
    )


def direct_question(low: float, high: float, answer_format: AnswerFormat = "text") -> str:
    """The single question of direct scoring (no criteria); it asks for the score only in both scoring modes, or
    with ``answer_format="json"`` for a JSON object."""
    if answer_format == "json":
        return f"Give the output an overall quality score. {json_request(AnswerShape('rating', low, high))}"
    return f"Give the output an overall quality score {_scale(low, high)}.\n{_OVERALL_ONLY}"


def scoring_turns(
    mode: Mode,
    opening: str,
    criteria: Sequence[HumanCriterion],
    low: float,
    high: float,
    score_only: bool = False,
    answer_format: AnswerFormat = "text",
) -> list[Turn]:
    """The user messages of one item, in order: one per criterion then the overall question, or the direct one.

    ``score_only`` asks every step-by-step turn for the bare score (``scoring=logprobs``); ``answer_format="json"``
    asks every turn for a JSON object.
    """
    if mode == "direct":
        return [(OVERALL, f"{opening}\n\n{direct_question(low, high, answer_format)}")]
    questions = [(c.name, criterion_question(c, score_only, answer_format)) for c in criteria]
    questions.append((OVERALL, overall_question(low, high, score_only, answer_format)))
    first_key, first_text = questions[0]
    return [
        (
            first_key,
            f"{opening}\n\nYou will check this output against {len(criteria)} criteria, one at a time, "
            f"and then judge its overall quality.\n\n{first_text}",
        ),
        *questions[1:],
    ]


def turn_prompts(turns: Sequence[Turn]) -> dict[str, str]:
    """What the judge was asked up to each turn, by the key of the score it asks for: the user messages so far, which
    an answer to the turn is read against."""
    asked: dict[str, str] = {}
    texts: list[str] = []
    for key, text in turns:
        texts.append(text)
        asked[key] = "\n\n".join(texts)
    return asked


def history_answer(rating: LogprobRating, generated: str) -> str:
    """What a logprobs turn leaves in the history: the most probable on-scale score, or the generated text
    when the rating is a parse failure."""
    if rating.failed:
        return generated
    return str(max(sorted(rating.probabilities), key=lambda value: rating.probabilities[value]))


@solver
def converse(
    turns: Callable[[TaskState], Sequence[Turn]],
    temperature: float | None = 0.0,
    scoring: RatingScoring = "sample",
    scales: Mapping[str, tuple[int, int]] | None = None,
    min_mass: float = DEFAULT_MIN_MASS,
    shapes: Mapping[str, AnswerShape] | None = None,
    answer_format: AnswerFormat = "text",
) -> Solver:
    """Ask the sample's turns in one conversation, each answer appended before the next question.

    With ``scoring="sample"`` answers are stored as ``{key: [answer]}`` under :data:`SAMPLES_STORE_KEY` and
    kept in the history as the judge wrote them, parsable or not. With ``scoring="logprobs"`` each turn is
    one short request with top log-probabilities, read on ``scales[key]`` (``(low, high)``); the answers
    are stored under :data:`LOGPROBS_STORE_KEY` and the history gets :func:`history_answer`. The whole
    conversation becomes the sample's messages; what the judge was asked up to each turn (the user messages) goes
    to :data:`PROMPTS_STORE_KEY`. With ``answer_format="json"`` each turn passes the schema of its answer
    (``shapes[key]``) to the provider.
    """
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        messages: list[ChatMessage] = []
        answers: dict[str, Any] = {}
        asked_turns = list(turns(state))
        for key, text in asked_turns:
            messages.append(ChatMessageUser(content=text))
            if scoring == "logprobs":
                low, high = (scales or {})[key]
                rating, output = await rate_by_logprobs(model, messages, low, high, min_mass, config)
                answers[key] = stored_answer(output, closing_label(messages))
                answer = history_answer(rating, output.completion)
            else:
                shape = (shapes or {}).get(key)
                turn_config = config.merge(answer_config(shape, answer_format)) if shape else config
                output = await model.generate(messages, config=turn_config)
                answer = output.completion
                answers[key] = [answer]
            messages.append(ChatMessageAssistant(content=answer, model=output.model))
            state.output = output
        state.messages = messages
        state.store.set(PROMPTS_STORE_KEY, turn_prompts(asked_turns))
        state.store.set(LOGPROBS_STORE_KEY if scoring == "logprobs" else SAMPLES_STORE_KEY, answers)
        return state

    return solve
