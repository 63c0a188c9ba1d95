"""Asking a model to rewrite texts, for the suites that build damaged copies with one (DHP's LLM-based rows,
``dhp-build``; FBI on the user's own items, ``fbi-build``): each suite gives only its prompt, how a reply is cleaned
and why one is refused; the asking, the retries, inspect's cache and the counts are the same for both.

The first attempt is greedy (temperature 0); each retry samples (temperature 1) with the next seed, so a refused
reply is not asked for again word for word. Every request goes through inspect's cache without expiry: a rebuild
with the same perturber, prompts and seed asks nothing and writes the same bytes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

Generate = Callable[[str, int], Awaitable[str]]
"""Asks the perturber: (prompt, attempt number from 0) -> reply."""


@dataclass
class PerturberCalls:
    """The requests a build made, and how many of them inspect's cache answered (no model call, nothing paid)."""

    calls: int = 0
    cached: int = 0


@asynccontextmanager
async def perturber(
    name: str, model_args: dict[str, Any] | None, seed: int, max_tokens: int | None
) -> AsyncIterator[tuple[Generate, PerturberCalls]]:
    """A fresh client of the perturber model (not inspect's memoized one, closed when the build is done), and the
    counts of what was asked through it."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript
    from inspect_ai.model import CachePolicy, GenerateConfig, get_model

    counts = PerturberCalls()
    async with get_model(name, memoize=False, **(model_args or {})) as model:

        async def generate(prompt: str, attempt: int) -> str:
            counts.calls += 1
            config = GenerateConfig(
                temperature=0.0 if attempt == 0 else 1.0, seed=seed + attempt, max_tokens=max_tokens
            )
            seen = len(transcript().events)  # each text's attempts run in turn, in a task of their own
            output = await model.generate(prompt, config=config, cache=CachePolicy(expiry=None))
            new = transcript().events[seen:]
            counts.cached += any(isinstance(event, ModelEvent) and event.cache == "read" for event in new)
            return output.completion

        yield generate, counts


async def first_accepted(
    prompt: str,
    generate: Generate,
    refusal: Callable[[str], str | None],
    max_attempts: int,
    clean: Callable[[str], str] = str.strip,
) -> tuple[str | None, list[str]]:
    """The first reply (cleaned) that ``refusal`` finds nothing wrong with, or ``None`` after ``max_attempts``; and
    why each refused reply was refused, for the suite file's report."""
    reasons: list[str] = []
    for attempt in range(max_attempts):
        reply = clean(await generate(prompt, attempt))
        reason = refusal(reply)
        if reason is None:
            return reply, reasons
        reasons.append(reason)
    return None, reasons
