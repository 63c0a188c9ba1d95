"""Scoring a response one criterion at a time in one conversation, then overall (CoEval, Li et al., §5.1).

The judge sees the task, the input and the response once, in the first message; each later message asks
about one more criterion, with the judge's earlier explanations and scores in the history, and the last
asks for an overall score given all of them. ``direct`` asks for the overall score alone. The prompts are
our own wording. Raw answers go to the store (as :func:`solvers.judge.sample_prompts` leaves them), so
the scorer parses them and ``inspect score`` can re-read a finished log.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Literal

from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judge_data.human import HumanCriterion
from solvers.judge import SAMPLES_STORE_KEY

Mode = Literal["step_by_step", "direct"]
MODES: tuple[Mode, ...] = ("step_by_step", "direct")

OVERALL = "overall"
"""The key of the overall score, beside the criterion names."""

Turn = tuple[str, str]
"""(key of the score asked for, text of the user message)."""


_LIST_NUMBER = re.compile(r"^\s*\d+[.)]\s*")


def _scale(low: float, high: float) -> str:
    return f"from {low:g} (lowest) to {high:g} (highest)"


def item_text(task_description: str, task_input: str, response: str) -> str:
    """What every prompt of an item opens with: the task, its input and the output to judge."""
    task = f"Task: {task_description}\n\n" if task_description else ""
    return (
        f"{task}Here is an input of this task and the output written for it.\n\n"
        f"Input:\n{task_input}\n\nOutput:\n{response}"
    )


def criterion_question(criterion: HumanCriterion) -> str:
    """One criterion: an explanation first, then the score on the last line."""
    return (
        f"Criterion: {_LIST_NUMBER.sub('', criterion.title)}\n\n"
        "In two or three sentences, explain whether the output meets this criterion. Then score it "
        f'{_scale(criterion.low, criterion.high)} on a last line of the form "Score: <number>".'
    )


def overall_question(low: float, high: float) -> str:
    """The closing question of the step-by-step conversation."""
    return (
        "You have now checked the output against every criterion. With the task, the input, the output, the "
        "criteria and the scores you gave in mind, judge the overall quality of the output. Explain briefly, "
        f'then end with a line of the form "Overall score: <number>", {_scale(low, high)}.'
    )


def direct_question(low: float, high: float) -> str:
    """The single question of direct scoring (no criteria)."""
    return f"Give the output an overall quality score {_scale(low, high)}.\nReply with the score only.\nOverall score:"


def scoring_turns(mode: Mode, opening: str, criteria: Sequence[HumanCriterion], low: float, high: float) -> list[Turn]:
    """The user messages of one item, in order: one per criterion then the overall question, or the direct one."""
    if mode == "direct":
        return [(OVERALL, f"{opening}\n\n{direct_question(low, high)}")]
    questions = [(criterion.name, criterion_question(criterion)) for criterion in criteria]
    questions.append((OVERALL, overall_question(low, high)))
    first_key, first_text = questions[0]
    return [
        (
            first_key,
            f"{opening}\n\nYou will check this output against {len(criteria)} criteria, one at a time, "
            f"and then judge its overall quality.\n\n{first_text}",
        ),
        *questions[1:],
    ]


@solver
def converse(turns: Callable[[TaskState], Sequence[Turn]], temperature: float | None = 0.0) -> Solver:
    """Ask the sample's turns in one conversation, each answer appended before the next question.

    Answers are stored as ``{key: [answer]}`` under :data:`SAMPLES_STORE_KEY` and kept in the history as the
    judge wrote them, parsable or not; the whole conversation becomes the sample's messages.
    """
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        messages: list[ChatMessage] = []
        answers: dict[str, list[str]] = {}
        for key, text in turns(state):
            messages.append(ChatMessageUser(content=text))
            output = await model.generate(messages, config=config)
            answer = output.completion
            messages.append(ChatMessageAssistant(content=answer, model=output.model))
            answers[key] = [answer]
            state.output = output
        state.messages = messages
        state.store.set(SAMPLES_STORE_KEY, answers)
        return state

    return solve
