"""A stand-in vLLM completions server on 127.0.0.1 that returns ``prompt_logprobs`` in vLLM's JSON shape.

It tokenizes with a toy rule (:func:`toy_tokens`: each token is a word or a punctuation mark with the
whitespace before it) and gives the prompt token at position i (counting a leading BOS) the
log-probability ``-(i + 1)``, so tests know every value by hand. As in vLLM, position 0 has no
log-probability (``null``), each position is a dict from token id to ``{logprob, rank, decoded_token}``
with the prompt token first, and odd positions also carry a better-ranked alternative (what
``prompt_logprobs=1`` returns when the prompt token is not the most likely one).

Given a Hugging Face tokenizer it tokenizes text prompts with it instead (as vLLM does: the tokenizer's
default special tokens), also takes prompts of token ids (lm-eval's ``local-completions`` sends those), and
answers ``echo=true, logprobs=N`` requests in the OpenAI completions shape lm-eval reads: ``logprobs`` with
``tokens``, ``token_logprobs`` (``null`` first) and ``top_logprobs`` over the prompt and the one generated
token. The log-probability callable then sees the decoded prompt, so both kinds of request for the same
tokens get the same numbers.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.fake_judge import serving

BOS = "<s>"
_TOKEN = re.compile(r"\s*(?:\w+|[^\w\s])|\s+")


def toy_tokens(text: str) -> list[str]:
    """The fake server's tokenization; the tokens concatenate back to ``text``."""
    return _TOKEN.findall(text)


def by_position(prompt: str, position: int) -> float:
    """The default log-probability of the prompt token at ``position``: ``-(position + 1)``."""
    return -(position + 1.0)


def _echo_logprobs(prompt: str, tokens: list[str], logprob: Callable[[str, int], float]) -> dict:
    """OpenAI's ``echo`` shape: every prompt token (the first without a log-probability), then the generated one."""
    values = [None] + [logprob(prompt, position) for position in range(1, len(tokens))] + [-0.5]
    texts = [*tokens, " the"]
    offsets = [sum(len(token) for token in tokens[:position]) for position in range(len(texts))]
    return {
        "tokens": texts,
        "token_logprobs": values,
        "top_logprobs": [None if value is None else {text: value} for text, value in zip(texts, values, strict=True)],
        "text_offset": offsets,
    }


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
    tokenizer: Any
    with_prompt_logprobs: bool
    logprob: Callable[[str, int], float]
    calls: list[dict]

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.calls.append({"path": self.path, **body})
        if not self.path.endswith("/completions") or self.path.endswith("/chat/completions"):
            self._reply(404, {"error": {"message": f"{self.path} is not served here"}})
            return
        prompts = body["prompt"] if isinstance(body["prompt"], list) and body["prompt"] else [body["prompt"]]
        if isinstance(prompts[0], int):  # one prompt of token ids
            prompts = [prompts]
        choices = []
        for index, prompt in enumerate(prompts):
            text, tokens = self._tokenize(prompt)
            choice = {"index": index, "text": " the", "logprobs": None, "finish_reason": "length", "stop_reason": None}
            if self.with_prompt_logprobs and body.get("prompt_logprobs"):
                choice["prompt_logprobs"] = _prompt_logprobs(text, tokens, self.logprob)
            if body.get("echo") and body.get("logprobs"):
                choice["logprobs"] = _echo_logprobs(text, tokens, self.logprob)
            choices.append(choice)
        self._reply(
            200,
            {
                "id": f"cmpl-{len(self.calls)}",
                "object": "text_completion",
                "created": 0,
                "model": body.get("model", "toy"),
                "choices": choices,
                "usage": {"prompt_tokens": len(tokens), "completion_tokens": 1, "total_tokens": len(tokens) + 1},
            },
        )

    def _tokenize(self, prompt: str | list[int]) -> tuple[str, list[str]]:
        """The prompt's text and its tokens' texts (a token that ends inside a character decodes to U+FFFD)."""
        if self.tokenizer is None:
            return prompt, ([BOS] if self.bos else []) + toy_tokens(prompt)
        ids = self.tokenizer(prompt)["input_ids"] if isinstance(prompt, str) else prompt
        return self.tokenizer.decode(ids), [self.tokenizer.decode([token]) for token in ids]

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
    bos: bool = True,
    prompt_logprobs: bool = True,
    logprob: Callable[[str, int], float] = by_position,
    tokenizer: Any = None,
) -> Iterator[tuple[str, list[dict]]]:
    """Run the fake server; yields its base URL and the requests it received.

    Args:
        bos: Start every prompt with a BOS token, as vLLM does for tokenizers that add one (toy tokens only).
        prompt_logprobs: Answer ``prompt_logprobs`` requests (False: ignore them, as llama.cpp's server does).
        logprob: The log-probability of the prompt token at a position, from the prompt and the position.
        tokenizer: A Hugging Face tokenizer to tokenize with instead of the toy rule.
    """
    calls: list[dict] = []
    handler = type(
        "FakeCompletionsHandler",
        (_Handler,),
        {
            "bos": bos,
            "tokenizer": tokenizer,
            "with_prompt_logprobs": prompt_logprobs,
            "logprob": staticmethod(logprob),
            "calls": calls,
        },
    )
    with serving(handler) as url:
        yield url, calls
