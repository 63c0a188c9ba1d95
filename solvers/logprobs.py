"""The log-probability request: one short answer per prompt with the top log-probabilities of each generated
position, stored for the scorers to read (:mod:`solvers.reading.logprobs` reads them)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver

from judge_data.inspect_private import PrerequisiteError
from judge_data.providers import no_logprobs_message
from judge_data.shared_options import DEFAULT_MIN_MASS
from solvers.reading.logprobs import LogprobRating, closing_label, expected_rating, label_room, max_tokens_for

LOGPROBS_STORE_KEY = "judge_logprobs"
"""Where :func:`logprob_prompts` leaves ``{prompt name: {"answer": text, "logprobs": [position dicts]}}``."""

TOP_LOGPROBS = 20
"""The most alternatives OpenAI-compatible APIs return per position (vLLM's default server cap too)."""


async def generate_with_logprobs(
    model: Model, prompt: str | list[ChatMessage], max_tokens: int, config: GenerateConfig | None = None
) -> ModelOutput:
    """One short answer with the top log-probabilities of each generated position.

    ``config`` (the task's temperature, for instance) is merged under the settings this needs.
    Raises ``PrerequisiteError`` when the provider returns no log-probabilities.
    """
    needed = GenerateConfig(max_tokens=max_tokens, logprobs=True, top_logprobs=TOP_LOGPROBS)
    output = await model.generate(prompt, config=(config or GenerateConfig()).merge(needed))
    logprobs = output.choices[0].logprobs if output.choices else None
    no_top_logprobs = logprobs is not None and logprobs.content and not any(p.top_logprobs for p in logprobs.content)
    if output.choices and (logprobs is None or no_top_logprobs):
        raise PrerequisiteError(no_logprobs_message(str(model)))
    return output


async def rate_by_logprobs(
    model: Model,
    prompt: str | list[ChatMessage],
    low: int,
    high: int,
    min_mass: float = DEFAULT_MIN_MASS,
    config: GenerateConfig | None = None,
) -> tuple[LogprobRating, ModelOutput]:
    """Ask the judge once for a short answer with top log-probabilities; return its expected rating and the output.

    Raises ``PrerequisiteError`` when the provider returns no log-probabilities.
    """
    label = closing_label(prompt)
    output = await generate_with_logprobs(model, prompt, max_tokens_for(high) + label_room(label), config)
    logprobs, stopped = (output.choices[0].logprobs, _stopped(output)) if output.choices else (None, False)
    return expected_rating(logprobs, low, high, min_mass, stopped, label), output


def _stopped(output: ModelOutput) -> bool:
    """Whether the judge ended its answer itself rather than being cut off by the token limit."""
    return bool(output.choices) and output.choices[0].stop_reason == "stop"


async def ask_logprobs(
    model: Model, prompts: Mapping[str, str], max_tokens: int, config: GenerateConfig
) -> dict[str, dict[str, Any]]:
    """One short answer per named prompt (asked concurrently), with its positions' top log-probabilities as dicts.

    ``max_tokens`` is what the answer itself needs; each request adds room for an echo of its prompt's closing label.
    """
    labels = {name: closing_label(prompt) for name, prompt in prompts.items()}
    outputs = await asyncio.gather(
        *(
            generate_with_logprobs(model, prompt, max_tokens + label_room(labels[name]), config)
            for name, prompt in prompts.items()
        )
    )
    return {name: stored_answer(output, labels[name]) for name, output in zip(prompts, outputs, strict=True)}


def stored_answer(output: ModelOutput, label: str | None = None) -> dict[str, Any]:
    """One answer as the store keeps it: its text, its positions' top log-probabilities as plain dicts, whether
    the judge stopped by itself (``stop_reason``: ``stop``) or was cut off, and the prompt's closing label."""
    logprobs = output.choices[0].logprobs if output.choices else None
    return {
        "answer": output.completion,
        "logprobs": [position.model_dump() for position in logprobs.content] if logprobs else [],
        "stop_reason": output.choices[0].stop_reason if output.choices else None,
        "label": label,
    }


@solver
def logprob_prompts(
    prompts: Callable[[TaskState], Mapping[str, str]], max_tokens: int, temperature: float | None = 0.0
) -> Solver:
    """Ask each named prompt of the sample once for ``max_tokens`` tokens with top log-probabilities; store them."""
    config = GenerateConfig(temperature=temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        stored = await ask_logprobs(model, dict(prompts(state)), max_tokens, config)
        state.store.set(LOGPROBS_STORE_KEY, stored)
        text = "\n".join(f"{name}: {entry['answer']!r}" for name, entry in stored.items())
        state.output = ModelOutput.from_content(model=str(model), content=text)
        return state

    return solve
