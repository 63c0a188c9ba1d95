"""Likelihood scoring: the log-likelihood of a response given its context, under the judge model.

No prompt and no chat template: the model reads ``context + SEPARATOR + response`` (the response
alone when there is no context) and we sum log P(token | all tokens before it) over the tokens that
follow the context, exactly the tokens lm-eval's ``loglikelihood`` request sums for the continuation
``SEPARATOR + response`` (see :func:`continuation_split`): the separator's tokens are scored with
the response's. The sum is then normalised per token or per UTF-8 byte of the response
(``scorers.likelihood.normalized_logprob``).

Two ways to reach the judge, both through the model inspect already holds:

- inspect's ``hf/`` provider: forward passes on the provider's own ``model`` (weights are never
  loaded again), off the event loop; on an accelerator the texts that wait together share a padded pass
  (:func:`likelihood_batch_size`), on CPU each text has its own.
- an OpenAI-compatible completions server that returns vLLM-style ``prompt_logprobs`` (vLLM's
  server does), through inspect's ``vllm-completions/`` or ``openai-api-completions/`` providers:
  one request with ``max_tokens=1, prompt_logprobs=1``. It is an ordinary generate call, so
  ``--cache`` caches it (the key includes the prompt and ``prompt_logprobs``).

Any other provider gets a :class:`PrerequisiteError` naming these. The llama.cpp server's
``echo`` log-probabilities are refused on purpose: they are off by one token (measured: token i gets
the log-probability of the distribution that predicts token i+1).
"""

from __future__ import annotations

import copy
import inspect as pyinspect
import math
import sys
import threading
import weakref
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import asdict, dataclass, field
from typing import Any

import anyio
from inspect_ai.model import GenerateConfig, Model, ModelAPI, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import registry_info

from judge_data.inspect_private import (
    VLLMAPI,
    OpenAICompatibleAPI,
    OpenAICompatibleCompletionsAPI,
    PrerequisiteError,
    VLLMCompletionsAPI,
    active_model,
    is_hf_api,
)

SEPARATOR = "\n\n"
"""Between the context and the response: a paragraph break, neutral for any kind of text."""

STORE_KEY = "likelihood"
"""``state.store`` key under which :func:`score_likelihood` keeps the :class:`Likelihood` fields (a dict)."""

SUPPORTED_PROVIDERS = (
    "hf/ (inspect's transformers provider), vllm-completions/, and openai-api-completions/ "
    "against a server that returns vLLM-style prompt_logprobs (vLLM's OpenAI-compatible server does)"
)
LLAMA_CPP_NOTE = (
    "The llama.cpp server's echo log-probabilities are not used: they are off by one token "
    "(token i gets the log-probability meant for token i+1)."
)


@dataclass(frozen=True)
class Likelihood:
    """Log-likelihood of the continuation's tokens; ``mean_logprob`` is NaN when no token could be scored."""

    mean_logprob: float
    """``total_logprob / n_tokens``: the mean per token (the ``token`` normalisation)."""
    total_logprob: float
    n_tokens: int
    """Tokens scored: the separator's and the response's. The very first token of the text has nothing before it
    and is never scored; that happens to the response's first token only without context on a completions server
    that adds no BOS token (hf/ then conditions on BOS or EOS, as lm-eval does)."""
    n_bytes: int
    """UTF-8 bytes of the response alone, the denominator of the ``byte`` normalisation (lm-eval's convention)."""
    truncated_context_tokens: int
    """Context tokens cut from the left to fit the model's maximum length (hf/ only)."""
    truncated_response_tokens: int
    """Response tokens cut from the end when the response alone exceeds the maximum length (hf/ only)."""
    token_logprobs: tuple[float, ...]
    tokens: tuple[str, ...]
    """Text of each scored token (separator tokens first; a straddling token's text includes context characters)."""


def _likelihood(
    response: str,
    token_logprobs: list[float],
    tokens: list[str],
    truncated_context: int = 0,
    truncated_response: int = 0,
) -> Likelihood:
    total = math.fsum(token_logprobs)
    return Likelihood(
        mean_logprob=total / len(token_logprobs) if token_logprobs else math.nan,
        total_logprob=total,
        n_tokens=len(token_logprobs),
        n_bytes=response_bytes(response),
        truncated_context_tokens=truncated_context,
        truncated_response_tokens=truncated_response,
        token_logprobs=tuple(token_logprobs),
        tokens=tuple(tokens),
    )


def response_bytes(response: str) -> int:
    """The response's length in UTF-8 bytes, the denominator of the per-byte normalisation in both harnesses."""
    return len(response.encode("utf-8"))


def scored_text(context: str | None, response: str) -> tuple[str, int]:
    """The text the model reads and the character offset where the scored continuation starts.

    The continuation is what lm-eval scores for the request ``(context, SEPARATOR + response)``: its
    ``_encode_pair`` moves the context's trailing whitespace into the continuation, so it starts right
    after ``context.rstrip()``. No context (or an empty one) means the response alone, from offset 0.
    """
    if not context:
        return response, 0
    return context + SEPARATOR + response, len(context.rstrip())


def _provider(model: Model) -> str:
    return registry_info(model.api).name.split("/")[-1]


def _is_completions(api: ModelAPI) -> bool:
    """A completions server's API, or any API that declares it returns vLLM-style ``prompt_logprobs``."""
    return isinstance(api, (VLLMCompletionsAPI, OpenAICompatibleCompletionsAPI)) or bool(
        getattr(api, "returns_prompt_logprobs", False)
    )


def check_likelihood_support(model: Model) -> None:
    """Raise :class:`PrerequisiteError` unless ``model``'s provider can give prompt log-likelihoods."""
    if is_hf_api(model.api) or _is_completions(model.api):
        return
    provider = _provider(model)
    if isinstance(model.api, VLLMAPI):
        hint = (
            " vllm/ sends chat messages, so its prompt log-probabilities would include the chat template; "
            f"use vllm-completions/{model.name} (same server and -M options) instead."
        )
    elif isinstance(model.api, OpenAICompatibleAPI):
        hint = (
            f" {provider}/ is a chat provider; for a server that returns vLLM-style prompt_logprobs on "
            "/v1/completions use openai-api-completions/<service>/<model>."
        )
    else:
        hint = ""
    raise PrerequisiteError(
        f"Likelihood scoring needs log-probabilities of the prompt's own tokens, which the {provider}/ provider "
        f"cannot give.{hint} Providers that can: {SUPPORTED_PROVIDERS}. {LLAMA_CPP_NOTE}"
    )


async def response_likelihood(model: Model, context: str | None, response: str) -> Likelihood:
    """The log-probability of each continuation token given the text before it, in ``context + SEPARATOR + response``.

    Only the response (and the separator) is scored; the context conditions it.
    """
    check_likelihood_support(model)
    if not response:
        return _likelihood(response, [], [])
    if is_hf_api(model.api):
        return await anyio.to_thread.run_sync(_hf_likelihood, model.api, context, response)
    return await _completions_likelihood(model, context, response)


# hf/ -------------------------------------------------------------------------------------------------

_FORWARD_LOCK = threading.Lock()
"""Serialises our forward passes. hf.py has no lock to share: its generation runs on its own batch thread.
Our pass is read-only (inference mode, no KV cache), so it may overlap that thread's generation safely."""

LIKELIHOOD_BATCH_SIZE = 32
"""Most texts in one forward pass on an accelerator, unless the provider's ``-M batch_size`` says otherwise (hf.py's
own default batch is also 32). Measured on an H200 (bfloat16, 400-1,000 tokens): batches of 32 score 3.5 times as
many texts per second as one at a time for an 8B Llama shape, 20 times for the bundled judge's 135M shape."""

MAX_BATCH_TOKENS = 16384
"""Most padded tokens in one batched forward pass (texts x the longest text): bounds the activations and the logits
a batch holds at once. A longer text still gets its own pass."""

_QUEUE_LOCK = threading.Lock()
"""Guards the per-model tables below, never held during a forward pass."""

_TOKENIZERS: weakref.WeakKeyDictionary[ModelAPI, Any] = weakref.WeakKeyDictionary()
"""A private copy of each provider's tokenizer: a fast tokenizer is not safe to call from two threads while
one of them changes its padding settings, which hf.py's batch thread does on every batch."""


def _tokenizer(api: Any) -> Any:
    with _QUEUE_LOCK:
        if api not in _TOKENIZERS:
            _TOKENIZERS[api] = copy.deepcopy(api.tokenizer)
        return _TOKENIZERS[api]


def _max_length(api: Any) -> int:
    """The longest sequence the model takes: its position limit or the tokenizer's (not its 'no limit' sentinel)."""
    limits = [getattr(api.model.config, "max_position_embeddings", None), api.tokenizer.model_max_length]
    finite = [limit for limit in limits if isinstance(limit, int) and 0 < limit < 10**7]
    return min(finite) if finite else sys.maxsize


def likelihood_batch_size(api: Any) -> int:
    """How many waiting texts share a forward pass: one on CPU, where padded batches were slower than one text at a
    time (0.6-0.9x on 2 cores, ``benchmarks/likelihood_batching.py``); on an accelerator the provider's
    ``batch_size`` or :data:`LIKELIHOOD_BATCH_SIZE`."""
    if api.model.device.type == "cpu":
        return 1
    return int(getattr(api, "batch_size", None) or LIKELIHOOD_BATCH_SIZE)


def continuation_split(tokenizer: Any, context: str | None, response: str) -> tuple[list[int], list[int], list[str]]:
    """The token ids before the continuation, the continuation's ids, and the continuation tokens' texts.

    The same split as lm-eval's ``loglikelihood`` for the request ``(context, SEPARATOR + response)`` with its
    hf backend: the whole text is tokenized as the tokenizer does by default and cut after as many tokens as
    ``context.rstrip()`` alone has (``_encode_pair``); where a token straddles the boundary, that count decides
    which tokens are scored, as in lm-eval (at a paragraph break byte-level BPE never straddles). Without
    context the response, tokenized without special tokens, is conditioned on the BOS token (EOS when there is
    none), unless the response already starts with it.
    """
    text, boundary = scored_text(context, response)
    try:
        encoding = tokenizer(text, add_special_tokens=bool(boundary), return_offsets_mapping=True)
    except NotImplementedError as error:
        raise PrerequisiteError(
            f"Likelihood scoring with hf/ needs a fast tokenizer (with offsets); {type(tokenizer).__name__} is not."
        ) from error
    ids: list[int] = list(encoding["input_ids"])
    offsets: list[tuple[int, int]] = [tuple(span) for span in encoding["offset_mapping"]]
    if boundary:
        n_context = len(tokenizer(text[:boundary])["input_ids"])
    else:
        prefix = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
        if prefix is not None and ids[0] != prefix:
            ids, offsets = [prefix, *ids], [(0, 0), *offsets]
        n_context = 1
    tokens = [text[start:end] for start, end in offsets[n_context:]]
    return ids[:n_context], ids[n_context:], tokens


@dataclass(frozen=True)
class _Scored:
    """A text ready for the model: its token ids, the index of the first scored one, the scored tokens' texts."""

    sequence: list[int]
    first: int
    tokens: list[str]
    truncated_context: int
    truncated_response: int


def _scored_sequence(api: Any, context: str | None, response: str) -> _Scored:
    """The ids the model reads, cut to its maximum length: the context from the left, an overlong response at its
    end, a leading special token (BOS) kept."""
    tokenizer = _tokenizer(api)
    context_ids, response_ids, tokens = continuation_split(tokenizer, context, response)
    if not response_ids:
        raise ValueError(f"the tokenizer gives the response no tokens of its own: {response!r}")
    # a leading special token (BOS) is kept through truncation
    lead = context_ids[:1] if context_ids[0] in tokenizer.all_special_ids else []
    context_ids = context_ids[len(lead) :]

    budget = _max_length(api) - len(lead) - len(response_ids)
    truncated_response = max(0, -budget)
    if truncated_response:
        response_ids, tokens = response_ids[:budget], tokens[:budget]
    kept_context = context_ids[len(context_ids) - min(max(budget, 0), len(context_ids)) :]
    sequence = lead + kept_context + response_ids
    first = len(lead) + len(kept_context)
    if first == 0:  # nothing before the continuation's first token: it cannot be scored
        first, tokens = 1, tokens[1:]
    return _Scored(sequence, first, tokens, len(context_ids) - len(kept_context), truncated_response)


def _hf_likelihood(api: Any, context: str | None, response: str) -> Likelihood:
    scored = _scored_sequence(api, context, response)
    token_logprobs = _queued_forward(api, scored)
    return _likelihood(response, token_logprobs, scored.tokens, scored.truncated_context, scored.truncated_response)


@dataclass
class _Waiting:
    scored: _Scored
    result: Future[list[float]] = field(default_factory=Future)


_WAITING: weakref.WeakKeyDictionary[ModelAPI, deque[_Waiting]] = weakref.WeakKeyDictionary()
"""Per model, the texts waiting for a forward pass, oldest first (changed under ``_QUEUE_LOCK``)."""


def _queued_forward(api: Any, scored: _Scored) -> list[float]:
    """The scored tokens' log-probabilities, from a forward pass shared with the texts waiting beside this one.

    Whichever waiting thread holds the forward lock scores the oldest waiting texts together (up to
    :func:`likelihood_batch_size` of them and :data:`MAX_BATCH_TOKENS` padded tokens) and hands each thread its
    result; texts that arrive meanwhile wait for the next pass. No pass waits for company, so a lone text is
    scored at once, and with a batch size of one every text gets its own pass, in turn.
    """
    waiting = _Waiting(scored)
    with _QUEUE_LOCK:
        _WAITING.setdefault(api, deque()).append(waiting)
    with _FORWARD_LOCK:
        while not waiting.result.done():
            _score_batch(api, _next_batch(api))
    return waiting.result.result()


def _next_batch(api: Any) -> list[_Waiting]:
    limit = likelihood_batch_size(api)
    with _QUEUE_LOCK:
        queue = _WAITING[api]
        batch = [queue.popleft()]
        longest = len(batch[0].scored.sequence)
        while queue and len(batch) < limit:
            longest = max(longest, len(queue[0].scored.sequence))
            if longest * (len(batch) + 1) > MAX_BATCH_TOKENS:
                break
            batch.append(queue.popleft())
    return batch


def _score_batch(api: Any, batch: list[_Waiting]) -> None:
    """Score a batch in one pass and hand out the results; a batch the accelerator has no memory for is scored one
    text at a time instead."""
    import torch

    try:
        results = _forward(api, [waiting.scored for waiting in batch])
    except Exception as error:
        if isinstance(error, torch.OutOfMemoryError) and len(batch) > 1:
            torch.cuda.empty_cache()
            for waiting in batch:
                _score_batch(api, [waiting])
        else:
            for waiting in batch:
                waiting.result.set_exception(error)
        return
    for waiting, token_logprobs in zip(batch, results, strict=True):
        waiting.result.set_result(token_logprobs)


def _forward(api: Any, batch: Sequence[_Scored]) -> list[list[float]]:
    """Each text's log P(token | tokens before it) for its scored tokens, from one forward pass over the batch.

    Shorter texts are padded on the right and masked, so every text's tokens keep the positions and the context they
    have alone; one text is read exactly as it is, unpadded. Only the logits from the earliest scored position on
    are computed where the model allows (``logits_to_keep``)."""
    import torch

    width = max(len(scored.sequence) for scored in batch)
    keep = width - min(scored.first for scored in batch) + 1  # the last position predicts nothing, kept for slicing
    offset = width - keep
    with torch.inference_mode():
        input_ids = torch.zeros((len(batch), width), dtype=torch.long, device=api.model.device)
        attention_mask = torch.zeros_like(input_ids)
        for row, scored in enumerate(batch):
            input_ids[row, : len(scored.sequence)] = torch.tensor(scored.sequence)
            attention_mask[row, : len(scored.sequence)] = 1
        options: dict[str, Any] = {"use_cache": False}
        if "logits_to_keep" in pyinspect.signature(api.model.forward).parameters:
            options["logits_to_keep"] = keep
        logits = api.model(input_ids=input_ids, attention_mask=attention_mask, **options).logits[:, -keep:]
        results = []
        for row, scored in enumerate(batch):
            logprobs = torch.log_softmax(
                logits[row, scored.first - 1 - offset : len(scored.sequence) - 1 - offset].float(), dim=-1
            )
            targets = input_ids[row, scored.first : len(scored.sequence)]
            results.append(logprobs.gather(-1, targets[:, None])[:, 0].tolist())
    return results


# completions servers ---------------------------------------------------------------------------------


async def _completions_likelihood(model: Model, context: str | None, response: str) -> Likelihood:
    text, boundary = scored_text(context, response)
    output = await model.generate(text, config=GenerateConfig(max_tokens=1, num_choices=1, prompt_logprobs=1))
    prompt_logprobs = output.choices[0].prompt_logprobs if output.choices else None
    if prompt_logprobs is None:
        raise PrerequisiteError(
            f"The server behind {model} returned no prompt_logprobs, so likelihoods cannot be computed. "
            f"Likelihood scoring works with {SUPPORTED_PROVIDERS}. {LLAMA_CPP_NOTE}"
        )
    tokens = [logprob.token for logprob in prompt_logprobs.content]
    first = response_token_start(text, boundary, tokens)
    return _likelihood(response, [logprob.logprob for logprob in prompt_logprobs.content[first:]], tokens[first:])


def response_token_start(text: str, boundary: int, tokens: list[str]) -> int:
    """Index of the first token holding a character at or after ``boundary``, matching decoded tokens to ``text``
    from its end.

    ``boundary`` is where the continuation starts (:func:`scored_text`). The server tokenized the text itself,
    so the context's own token count is unknown here; this character rule gives lm-eval's split whenever the
    context tokenized alone is a prefix of the whole text's tokens (true of byte-level BPE at a paragraph break).
    ``tokens`` are the decoded prompt tokens that came with a log-probability, in order (vLLM gives none
    to the first prompt token). Only the tokens from the boundary to the end of the text must
    reproduce it exactly; the context may hold characters split across byte-level tokens, which decode to
    U+FFFD one token at a time. When the tokens run out before the boundary, the text's first token
    (which has no log-probability) holds it, and every returned token is a continuation token.
    """
    end = len(text)
    for index in range(len(tokens) - 1, -1, -1):
        start = end - len(tokens[index])
        if start < 0 or text[start:end] != tokens[index]:
            raise ValueError(
                f"the server's prompt tokens do not reproduce the scored text: token {index} of {len(tokens)} "
                f"decodes to {tokens[index]!r} where the text has {text[max(start, 0) : end]!r} "
                f"(characters {max(start, 0)}-{end}); the response's tokens cannot be located"
            )
        if start <= boundary:
            return index
        end = start
    return 0


# solver ----------------------------------------------------------------------------------------------


@solver
def score_likelihood(model: str | Model | None = None) -> Solver:
    """Score ``metadata["response"]`` given ``metadata["context"]`` (optional) by its log-likelihood.

    The :class:`Likelihood` fields go to ``state.store[STORE_KEY]`` (the scorer normalises them per token or
    per byte); ``state.output`` gets a one-line summary.

    Args:
        model: The model that scores (default: the model being evaluated).
    """
    if model is not None or active_model() is not None:
        # fail at task creation, where inspect shows a PrerequisiteError as one clean message
        check_likelihood_support(get_model(model))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        response = state.metadata.get("response")
        context = state.metadata.get("context")
        if not isinstance(response, str) or not (context is None or isinstance(context, str)):
            raise ValueError(
                f"sample {state.sample_id}: likelihood scoring needs metadata 'response' (text) and optionally "
                f"'context' (text); got response={type(response).__name__}, context={type(context).__name__}"
            )
        scorer = get_model(model)
        likelihood = await response_likelihood(scorer, context, response)
        state.store.set(STORE_KEY, asdict(likelihood))
        state.output = ModelOutput.from_content(
            model=str(scorer),
            content=(
                f"mean token log-likelihood {likelihood.mean_logprob:.4f} over {likelihood.n_tokens} tokens "
                f"(sum {likelihood.total_logprob:.4f}, response {likelihood.n_bytes} bytes)"
            ),
        )
        return state

    return solve
