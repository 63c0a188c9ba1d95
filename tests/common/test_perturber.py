"""The shared perturber loop: the first reply a suite's rules accept, and why each refused reply was refused."""

from __future__ import annotations

import asyncio

from solvers.perturber import first_accepted


def test_the_first_accepted_reply_is_kept_after_counted_refusals():
    replies = ["", "  the original  ", "a changed text\n"]
    asked: list[tuple[str, int]] = []

    async def generate(prompt: str, attempt: int) -> str:
        asked.append((prompt, attempt))
        return replies[attempt]

    def refusal(reply: str) -> str | None:
        return "empty" if not reply else "identical" if reply == "the original" else None

    text, reasons = asyncio.run(first_accepted("rewrite", generate, refusal, max_attempts=3))
    assert (text, reasons) == ("a changed text", ["empty", "identical"])
    assert asked == [("rewrite", 0), ("rewrite", 1), ("rewrite", 2)]


def test_no_reply_after_the_last_attempt_is_none_with_every_reason():
    async def generate(prompt: str, attempt: int) -> str:
        return "  x  "

    text, reasons = asyncio.run(
        first_accepted("p", generate, lambda reply: f"refused {reply}", max_attempts=2, clean=str.upper)
    )
    assert (text, reasons) == (None, ["refused   X  ", "refused   X  "])
