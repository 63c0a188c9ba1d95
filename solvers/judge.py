"""Asking the judge free-form prompts and keeping its raw answers for the scorer, which parses them.

Parsing in the scorer means ``inspect score`` can re-read a finished log with another parser without
calling the judge again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from inspect_ai.model import GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judge_data import OptionError

ANSWERS_STORE_KEY = "judge_answers"
"""Where :func:`answer_prompts` leaves ``{prompt name: raw answer}``."""

SAMPLES_STORE_KEY = "judge_samples"
"""Where :func:`sample_prompts` leaves ``{prompt name: [raw answers]}``."""


async def sample_answers(model: Model, prompt: str, repeats: int, config: GenerateConfig) -> list[str]:
    """``repeats`` answers to one prompt, asking for them as choices of one call where the provider allows.

    Providers that ignore ``num_choices`` return one choice per call; the remaining answers are
    then asked for in further calls.
    """
    answers: list[str] = []
    for _ in range(repeats):
        missing = repeats - len(answers)
        if missing == 0:
            break
        call_config = config.merge(GenerateConfig(num_choices=missing)) if missing > 1 else config
        output = await model.generate(prompt, config=call_config)
        answers.extend(choice.message.text for choice in output.choices)
    return answers[:repeats]


async def ask_prompts(
    model: Model, prompts: Mapping[str, str], repeats: int, config: GenerateConfig
) -> dict[str, list[str]]:
    """``repeats`` answers to each named prompt, the prompts asked concurrently."""
    if repeats < 1:
        raise OptionError(f"repeats must be at least 1, got {repeats}")
    answer_lists = await asyncio.gather(
        *(sample_answers(model, prompt, repeats, config) for prompt in prompts.values())
    )
    return dict(zip(prompts, answer_lists))


def _transcript(model: Model, answers: Mapping[str, list[str]]) -> ModelOutput:
    text = "\n\n".join(f"[{name}]\n" + "\n---\n".join(texts) for name, texts in answers.items())
    return ModelOutput.from_content(model=str(model), content=text)


@solver
def answer_prompts(prompts: Callable[[TaskState], Mapping[str, str]], temperature: float | None = 0.0) -> Solver:
    """Send each named prompt of the sample to the judge once (concurrently); store the answers.

    Used where one sample needs several independent judgments: the gold and the perturbed answer rated
    separately, or a pair judged in both orders.
    """
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        answers = await ask_prompts(model, dict(prompts(state)), 1, config)
        state.store.set(ANSWERS_STORE_KEY, {name: texts[0] for name, texts in answers.items()})
        state.output = _transcript(model, answers)
        return state

    return solve


@solver
def sample_prompts(
    prompts: Callable[[TaskState], Mapping[str, str]], repeats: int = 1, temperature: float | None = 0.0
) -> Solver:
    """Ask each named prompt of the sample ``repeats`` times (as choices of one call where the provider allows)."""
    if repeats < 1:
        raise OptionError(f"repeats must be at least 1, got {repeats}")
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        answers = await ask_prompts(model, dict(prompts(state)), repeats, config)
        state.store.set(SAMPLES_STORE_KEY, answers)
        state.output = _transcript(model, answers)
        return state

    return solve
