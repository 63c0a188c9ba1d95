"""A stand-in vLLM completions server on 127.0.0.1 that returns ``prompt_logprobs`` in vLLM's JSON shape.

It tokenizes with a toy rule (:func:`toy_tokens`: each token is a word or a punctuation mark with the
whitespace before it) and gives the prompt token at position i (counting a leading BOS) the
log-probability ``-(i + 1)``, so tests know every value by hand. As in vLLM, position 0 has no
log-probability (``null``), each position is a dict from token id to ``{logprob, rank, decoded_token}``
with the prompt token first, and odd positions also carry a better-ranked alternative (what
``prompt_logprobs=1`` returns when the prompt token is not the most likely one).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BOS = "<s>"
_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])|\s+")


def toy_tokens(text: str) -> list[str]:
    """The fake server's tokenization; the tokens concatenate back to ``text``."""
    return _TOKEN.findall(text)


def by_position(prompt: str, position: int) -> float:
    """The default log-probability of the prompt token at ``position``: ``-(position + 1)``."""
    return -(position + 1.0)


def _prompt_logprobs(prompt: str, tokens: list[str], logprob: Callable[[str, int], float]) -> list[dict | None]:
    vocabulary: dict[str, int] = {}
    entries: list[dict | None] = [None]
    for position, token in enumerate(tokens[1:], start=1):
        token_id = vocabulary.setdefault(token, 100 + len(vocabulary))
        entry = {str(token_id): {"logprob": logprob(prompt, position), "rank": 1, "decoded_token": token}}
        if position % 2:
            entry[str(token_id)]["rank"] = 2
            entry["7"] = {"logprob": -0.25, "rank": 1, "decoded_token": " likely"}
        entries.append(entry)
    return entries


class _Handler(BaseHTTPRequestHandler):
    bos: bool
    with_prompt_logprobs: bool
    logprob: Callable[[str, int], float]
    calls: list[dict]

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.calls.append({"path": self.path, **body})
        if not self.path.endswith("/completions") or self.path.endswith("/chat/completions"):
            self._reply(404, {"error": {"message": f"{self.path} is not served here"}})
            return
        tokens = ([BOS] if self.bos else []) + toy_tokens(body["prompt"])
        choice = {"index": 0, "text": " the", "logprobs": None, "finish_reason": "length", "stop_reason": None}
        if self.with_prompt_logprobs and body.get("prompt_logprobs"):
            choice["prompt_logprobs"] = _prompt_logprobs(body["prompt"], tokens, self.logprob)
        self._reply(
            200,
            {
                "id": f"cmpl-{len(self.calls)}",
                "object": "text_completion",
                "created": 0,
                "model": body.get("model", "toy"),
                "choices": [choice],
                "usage": {"prompt_tokens": len(tokens), "completion_tokens": 1, "total_tokens": len(tokens) + 1},
            },
        )

    def _reply(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve(
    bos: bool = True, prompt_logprobs: bool = True, logprob: Callable[[str, int], float] = by_position
) -> Iterator[tuple[str, list[dict]]]:
    """Run the fake server; yields its base URL and the requests it received.

    Args:
        bos: Start every prompt with a BOS token, as vLLM does for tokenizers that add one.
        prompt_logprobs: Answer ``prompt_logprobs`` requests (False: ignore them, as llama.cpp's server does).
        logprob: The log-probability of the prompt token at a position, from the prompt and the position.
    """
    calls: list[dict] = []
    handler = type(
        "FakeCompletionsHandler",
        (_Handler,),
        {"bos": bos, "with_prompt_logprobs": prompt_logprobs, "logprob": staticmethod(logprob), "calls": calls},
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", calls
    finally:
        server.shutdown()
        server.server_close()
