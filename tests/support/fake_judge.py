"""A stand-in judge for offline integration tests: a tiny OpenAI-compatible server on 127.0.0.1.

inspect reaches it through its own ``openai-api/`` provider, exactly as it would reach a real
OpenAI-compatible endpoint. The server's answer is a function of the prompt, so tests can build
judges with known behaviour (a constant score, a judge that recognises the original texts, ...).
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = Callable[[str], str]

Positions = list[list[tuple[str, float]]]
"""Generated positions, each its top alternatives as (token, probability); the first one is the generated token."""

TopLogprobs = Callable[[str], Positions]

_JUDGED_TEXT = re.compile(r"### (?:Summary|Ending|Answer|Translation)\n(.*)\n\nReply with", re.DOTALL)


def judged_text(prompt: str) -> str:
    """The text a DHP prompt asks to rate."""
    match = _JUDGED_TEXT.search(prompt)
    if match is None:
        raise ValueError(f"not a DHP judge prompt: {prompt[:200]!r}")
    return match.group(1)


_SINGLE_ANSWER = re.compile(
    r"\[Answer\]\n(.*?)\n\n(?:Evaluate only along this axis|Score with this rubric|Reply with the rating only|First explain)",
    re.DOTALL,
)
_PAIR = re.compile(
    r"\[Answer A\]\n(.*?)\n\n\[Answer B\]\n(.*?)\n\n(?:Evaluate only along|Follow these rules|Reply with the verdict|First explain)",
    re.DOTALL,
)
_REFERENCED = re.compile(r"\[Answer to judge\]\n(.*?)\n\nCompare the answer", re.DOTALL)


def knows_gold(golds: set[str]) -> Answer:
    """An FBI judge that recognises the gold answers: rates them 3 and anything else 1, and always picks them."""

    def answer(prompt: str) -> str:
        if pair := _PAIR.search(prompt):
            first, second = pair.groups()
            return "Answer A is the gold one. [[A]]" if first in golds else "[[B]]"
        judged = _SINGLE_ANSWER.search(prompt) or _REFERENCED.search(prompt)
        if judged is None:
            raise ValueError(f"not an FBI judge prompt: {prompt[:200]!r}")
        return "Rating: [[3]]" if judged.group(1) in golds else "It has an error. Rating: [[1]]"

    return answer


def constant(answer: str) -> Answer:
    return lambda prompt: answer


def knows_originals(originals: set[str], high: str = "5", low: str = "1") -> Answer:
    """Rates the unperturbed texts ``high`` and everything else ``low``."""
    return lambda prompt: high if judged_text(prompt) in originals else low


class _Handler(BaseHTTPRequestHandler):
    answer: Answer | Mapping[str, Answer]
    calls: list[dict]
    top_logprobs: TopLogprobs | None
    delay: float

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        time.sleep(self.delay)
        self.calls.append(body)
        prompt = body["messages"][-1]["content"]
        if isinstance(prompt, list):
            prompt = "".join(part.get("text", "") for part in prompt)
        n = int(body.get("n") or 1)
        answer = self.answer[body.get("model")] if isinstance(self.answer, Mapping) else self.answer
        logprobs = None
        if body.get("logprobs") and self.top_logprobs is not None:
            asked = body["messages"] if getattr(self.top_logprobs, "reads_conversation", False) else prompt
            positions = self.top_logprobs(asked)[: body.get("max_tokens") or None]
            reply = "".join(alternatives[0][0] for alternatives in positions)
            logprobs = {"content": [_position(alternatives) for alternatives in positions]}
        elif getattr(answer, "reads_request", False):
            replies = [answer({**body, "choice_index": i}) for i in range(n)]
        else:
            reply = answer(body["messages"] if getattr(answer, "reads_conversation", False) else prompt)
        if logprobs is not None or not getattr(answer, "reads_request", False):
            replies = [reply] * n
        payload = {
            "id": f"fake-{len(self.calls)}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "fake"),
            "choices": [
                {
                    "index": i,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": reply},
                    "logprobs": logprobs,
                }
                for i, reply in enumerate(replies)
            ],
            "usage": {
                "prompt_tokens": len(prompt.split()),
                "completion_tokens": n,
                "total_tokens": len(prompt.split()) + n,
            },
        }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serving(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """Serve ``handler`` on a free port of 127.0.0.1 in a thread; yields the OpenAI-style base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def _position(alternatives: list[tuple[str, float]]) -> dict:
    tops = [{"token": token, "logprob": math.log(p), "bytes": list(token.encode())} for token, p in alternatives]
    return {**tops[0], "top_logprobs": tops}


@contextmanager
def serve(
    answer: Answer | Mapping[str, Answer], top_logprobs: TopLogprobs | None = None, delay: float = 0.0
) -> Iterator[tuple[str, list[dict]]]:
    """Run the fake judge; yields its base URL and the list of requests it received.

    ``answer`` may map model names to answers: several stand-in judges behind one URL
    (``--model openai-api/fakejudge/<name>,...``). With ``top_logprobs``, a request that asks for
    log-probabilities is answered with those positions (their first tokens are the reply); without it
    such a request gets no log-probabilities, like a server that does not support them. ``delay`` seconds pass
    before each request is answered (and recorded), as with a judge that takes its time.
    """
    calls: list[dict] = []
    handler = type(
        "FakeJudgeHandler",
        (_Handler,),
        {
            "answer": staticmethod(answer),
            "calls": calls,
            "top_logprobs": staticmethod(top_logprobs) if top_logprobs else None,
            "delay": delay,
        },
    )
    with serving(handler) as url:
        yield url, calls


_PERTURBER_TEXT = re.compile(r"\n(?:Summary|Story ending|Answer|Translation):\n(.*)\n\nChanged [a-z ]+:$", re.DOTALL)


def perturber(prompt: str) -> str:
    """A stand-in perturber: invents an entity, breaks grammar, or repeats a sentence, as the prompt asks."""
    match = _PERTURBER_TEXT.search(prompt)
    if match is None:
        raise ValueError(f"not a DHP perturber prompt: {prompt[:200]!r}")
    text = match.group(1)
    if "insert a rephrased version" in prompt:
        return f"Revised summary: {text} Put another way, {text.split('.')[0].lower()}."
    first, _, rest = text.partition(" ")
    if "grammatical errors" in prompt:
        return text.replace(" is ", " are ", 1) if " is " in text else f"Them {rest}"
    return f"Zorblax {rest}"


def reads_conversation(answer: Callable[[list[dict]], Any]) -> Callable[[list[dict]], Any]:
    """Mark an answer (or top-logprobs) function that is given the request's whole conversation (OpenAI messages),
    not its last prompt."""
    answer.reads_conversation = True  # type: ignore[attr-defined]
    return answer


def reads_request(answer: Callable[[dict], str]) -> Callable[[dict], str]:
    """Mark an answer function that is given the whole request (messages, temperature, ...), not its last prompt,
    once per choice asked for (``n``), with the choice's position as ``choice_index``."""
    answer.reads_request = True  # type: ignore[attr-defined]
    return answer


def by_temperature(at_zero: str, *sampled: str) -> Answer:
    """One answer to greedy requests (temperature 0 or unset) and others to sampled ones, the choices of a call in
    turn: deterministic whatever order concurrent requests arrive in."""

    @reads_request
    def answer(request: dict) -> str:
        return sampled[request["choice_index"] % len(sampled)] if request.get("temperature") else at_zero

    return answer
