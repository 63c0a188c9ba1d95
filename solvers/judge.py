"""Asking the judge free-form prompts and keeping its raw answers for the scorer, which parses them.

Parsing in the scorer means ``inspect score`` can re-read a finished log with another parser without
calling the judge again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

from inspect_ai.model import GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

ANSWERS_STORE_KEY = "judge_answers"
"""Where :func:`answer_prompts` leaves ``{prompt name: raw answer}``."""

SAMPLES_STORE_KEY = "judge_samples"
"""Where :func:`sample_prompts` leaves ``{prompt name: [raw answers]}``."""

PROMPTS_STORE_KEY = "judge_prompts"
"""Where every judge solver leaves ``{prompt name: the prompt the judge answered}``: the parsers compare an answer
with its prompt to tell copied instructions from the judge's own statements."""


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
    model: Model,
    prompts: Mapping[str, str],
    repeats: int,
    config: GenerateConfig,
    configs: Mapping[str, GenerateConfig] | None = None,
) -> dict[str, list[str]]:
    """``repeats`` answers to each named prompt, the prompts asked concurrently (``configs``: settings per name)."""
    answer_lists = await asyncio.gather(
        *(
            sample_answers(model, prompt, repeats, config.merge((configs or {}).get(name, GenerateConfig())))
            for name, prompt in prompts.items()
        )
    )
    return dict(zip(prompts, answer_lists, strict=True))


def _transcript(model: Model, answers: Mapping[str, list[str]]) -> ModelOutput:
    text = "\n\n".join(f"[{name}]\n" + "\n---\n".join(texts) for name, texts in answers.items())
    return ModelOutput.from_content(model=str(model), content=text)


@solver
def answer_prompts(
    prompts: Callable[[TaskState], Mapping[str, str]],
    temperature: float | None = 0.0,
    config: GenerateConfig | None = None,
) -> Solver:
    """Send each named prompt of the sample to the judge once (concurrently); store the answers and the prompts.

    Used where one sample needs several independent judgments: the gold and the perturbed answer rated
    separately, or a pair judged in both orders. ``config`` adds generation settings (a response schema).
    """
    config = GenerateConfig(temperature=temperature).merge(config or GenerateConfig())

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        asked = dict(prompts(state))
        answers = await ask_prompts(model, asked, 1, config)
        state.store.set(PROMPTS_STORE_KEY, asked)
        state.store.set(ANSWERS_STORE_KEY, {name: texts[0] for name, texts in answers.items()})
        state.output = _transcript(model, answers)
        return state

    return solve


@solver
def sample_prompts(
    prompts: Callable[[TaskState], Mapping[str, str]],
    repeats: int = 1,
    temperature: float | None = 0.0,
    configs: Mapping[str, GenerateConfig] | None = None,
) -> Solver:
    """Ask each named prompt of the sample ``repeats`` times (as choices of one call where the provider allows).

    ``configs`` adds generation settings per prompt name (a response schema).
    """
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        asked = dict(prompts(state))
        answers = await ask_prompts(model, asked, repeats, config, configs)
        state.store.set(PROMPTS_STORE_KEY, asked)
        state.store.set(SAMPLES_STORE_KEY, answers)
        state.output = _transcript(model, answers)
        return state

    return solve
