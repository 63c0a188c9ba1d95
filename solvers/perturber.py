"""Asking a model to rewrite texts, for the suites that build damaged copies with one (DHP's LLM-based rows,
``dhp-build``; FBI on the user's own items, ``fbi-build``): each suite gives only its requests (the prompt, the
original text, its own reasons to refuse a reply) and how a reply is cleaned; the asking, the retries, inspect's
cache, the refusals every suite makes and the counts are the same for both.

The first attempt is greedy (temperature 0); each retry samples (temperature 1) with the next seed, so a refused
reply is not asked for again word for word. Every request goes through inspect's cache without expiry: a rebuild
with the same perturber, prompts and seed asks nothing and writes the same bytes.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal

Generate = Callable[[str, int], Awaitable[str]]
"""Asks the perturber: (prompt, attempt number from 0) -> reply."""

Refusal = Callable[[str], str | None]
"""Why a cleaned reply is no perturbed text, in the suite's words, or ``None`` when it is one."""


@dataclass(frozen=True)
class PerturberSettings:
    """The perturber model and how it is asked; the same settings (and prompts) give the same suite file."""

    model: str | None
    model_args: dict[str, Any] = field(default_factory=dict)
    seed: int = 0
    max_attempts: int = 3
    max_tokens: int | None = None

    def provenance(self, prompt_version: int | str) -> dict[str, Any]:
        """What a suite file's header records about how its texts were asked for."""
        return {
            "perturber": self.model,
            "perturber_args": {name: str(value) for name, value in sorted(self.model_args.items())},
            "prompt_version": prompt_version,
            "seed": self.seed,
            "max_attempts": self.max_attempts,
        }


@dataclass(frozen=True)
class Request:
    """One text to perturb: the change (a perturbation or category, the report's key), the item, the prompt, the
    original text and the suite's own reasons to refuse a reply (checked after the shared ones)."""

    change: str
    item: str
    prompt: str
    original: str
    refusal: Refusal


def unchanged_or_empty(original: str, reply: str) -> Literal["empty", "unchanged"] | None:
    """The refusals every suite makes: an empty reply, or the original again (whitespace aside)."""
    if not reply:
        return "empty"
    if " ".join(reply.split()) == " ".join(original.split()):
        return "unchanged"
    return None


@dataclass
class PerturberReport:
    """What a build's perturber replies came to: calls made, refused replies per change and reason, texts given up
    (change, item), and how many calls inspect's cache answered (not in the file, whose bytes do not depend on the
    cache)."""

    calls: int = 0
    refused: dict[str, Counter[str]] = field(default_factory=dict)
    given_up: list[tuple[str, str]] = field(default_factory=list)
    cached: int = 0

    def refuse(self, change: str, reason: str) -> None:
        """Count a reply that was not used, by why."""
        self.refused.setdefault(change, Counter())[reason] += 1

    def refused_by_change(self) -> dict[str, dict[str, int]]:
        """Refused replies, change -> reason -> count, sorted."""
        return {change: dict(sorted(reasons.items())) for change, reasons in sorted(self.refused.items())}


@asynccontextmanager
async def perturber_client(settings: PerturberSettings, report: PerturberReport) -> AsyncIterator[Generate]:
    """A fresh client of the perturber model (not inspect's memoized one, closed when the build is done); the calls
    made through it that inspect's cache answered (no model call, nothing paid) are counted in ``report``."""
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import transcript
    from inspect_ai.model import CachePolicy, GenerateConfig, get_model

    async with get_model(str(settings.model), memoize=False, **settings.model_args) as model:

        async def generate(prompt: str, attempt: int) -> str:
            config = GenerateConfig(
                temperature=0.0 if attempt == 0 else 1.0,
                seed=settings.seed + attempt,
                max_tokens=settings.max_tokens,
            )
            seen = len(transcript().events)  # each text's attempts run in turn, in a task of their own
            output = await model.generate(prompt, config=config, cache=CachePolicy(expiry=None))
            new = transcript().events[seen:]
            report.cached += any(isinstance(event, ModelEvent) and event.cache == "read" for event in new)
            return output.completion

        yield generate


async def first_accepted(
    prompt: str,
    generate: Generate,
    refusal: Refusal,
    max_attempts: int,
    clean: Callable[[str], str] = str.strip,
) -> tuple[str | None, list[str]]:
    """The first reply (cleaned) that ``refusal`` finds nothing wrong with, or ``None`` after ``max_attempts``; and
    why each refused reply was refused."""
    reasons: list[str] = []
    for attempt in range(max_attempts):
        reply = clean(await generate(prompt, attempt))
        reason = refusal(reply)
        if reason is None:
            return reply, reasons
        reasons.append(reason)
    return None, reasons


async def perturb_one(
    request: Request,
    generate: Generate,
    report: PerturberReport,
    max_attempts: int,
    clean: Callable[[str], str] = str.strip,
    words: dict[str, str] | None = None,
) -> str | None:
    """The first reply (cleaned) that neither the shared refusals nor the suite's own refuse, or ``None`` after
    ``max_attempts`` (given up); every call and refused reply is counted in ``report``, the shared reasons ("empty",
    "unchanged") in the suite's ``words`` where it has its own."""

    def refusal(reply: str) -> str | None:
        shared = unchanged_or_empty(request.original, reply)
        return (words or {}).get(shared, shared) if shared else request.refusal(reply)

    reply, reasons = await first_accepted(request.prompt, generate, refusal, max_attempts, clean)
    report.calls += len(reasons) + (reply is not None)
    for reason in reasons:
        report.refuse(request.change, reason)
    if reply is None:
        report.given_up.append((request.change, request.item))
    return reply


async def perturb_all(
    requests: Sequence[Request],
    settings: PerturberSettings,
    report: PerturberReport,
    clean: Callable[[str], str] = str.strip,
    words: dict[str, str] | None = None,
) -> dict[tuple[str, str], str]:
    """The accepted texts, (change, item) -> text in the order of ``requests`` (a text given up is absent), counted
    in ``report`` (texts given up in the order of ``requests``); no requests, no model."""
    if not requests:
        return {}
    async with perturber_client(settings, report) as generate:
        texts = await asyncio.gather(
            *(perturb_one(request, generate, report, settings.max_attempts, clean, words) for request in requests)
        )
    order = {(request.change, request.item): index for index, request in enumerate(requests)}
    report.given_up.sort(key=lambda key: order.get(key, -1))
    return {(r.change, r.item): text for r, text in zip(requests, texts, strict=True) if text is not None}
