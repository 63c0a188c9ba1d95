"""Asking the judge several free-form prompts per sample and keeping its raw answers for the scorer."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from inspect_ai.model import GenerateConfig, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from solvers.geval import sample_answers

ANSWERS_STORE_KEY = "judge_answers"
"""Where :func:`answer_prompts` leaves ``{prompt name: raw answer}``."""


@solver
def answer_prompts(prompts: Callable[[TaskState], Mapping[str, str]], temperature: float | None = 0.0) -> Solver:
    """Send each named prompt of the sample to the judge in its own call (concurrently); store the answers.

    Used where one sample needs several independent judgments: the gold and the perturbed answer rated
    separately, or a pair judged in both orders.
    """
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        named = dict(prompts(state))
        outputs = await asyncio.gather(*(model.generate(prompt, config=config) for prompt in named.values()))
        answers = {name: output.completion for name, output in zip(named, outputs)}
        state.store.set(ANSWERS_STORE_KEY, answers)
        transcript = "\n\n".join(f"[{name}]\n{answer}" for name, answer in answers.items())
        state.output = ModelOutput.from_content(model=str(model), content=transcript)
        return state

    return solve


SAMPLES_STORE_KEY = "judge_samples"
"""Where :func:`sample_prompts` leaves ``{prompt name: [raw answers]}``."""


@solver
def sample_prompts(
    prompts: Callable[[TaskState], Mapping[str, str]], repeats: int = 1, temperature: float | None = 0.0
) -> Solver:
    """Ask each named prompt of the sample ``repeats`` times (as choices of one call where the provider allows).

    The raw answers are stored for the scorer, which parses them, so ``inspect score`` can re-read a log
    with another parser without calling the judge again.
    """
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, got {repeats}")
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        named = dict(prompts(state))
        answer_lists = await asyncio.gather(
            *(sample_answers(model, prompt, repeats, config) for prompt in named.values())
        )
        answers = dict(zip(named, answer_lists))
        state.store.set(SAMPLES_STORE_KEY, answers)
        transcript = "\n\n".join(f"[{name}]\n" + "\n---\n".join(texts) for name, texts in answers.items())
        state.output = ModelOutput.from_content(model=str(model), content=transcript)
        return state

    return solve
