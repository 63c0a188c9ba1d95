"""The dry run: every request a preset would send to a judge, counted without calling it.

Each task runs through inspect exactly as in the real run, with the judge replaced by :class:`DryRunAPI`, a
provider that records every request (its prompt, how many answers it asks for, its bound on their length) and
answers ``3`` at once; nothing is scored. So the requests counted are the requests the real run sends, by the
same solvers, and the check that each judge answers before its tasks start is counted by sending it the same way.
Prompt tokens are counted with the judge's own tokenizer (and chat template) where it can be loaded,
and estimated at four characters a token where it cannot, which the table says.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    TopLogprob,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from judge_data.inspect_private import batch_providers
from judge_data.providers import answers_several_choices

CHECK_LABEL = "judge check"
"""The table's line for the request that checks a judge answers before its tasks start."""

PROVIDER = "judge-meta-eval-dry-run"
"""The provider name of :class:`DryRunAPI` (``judge-meta-eval-dry-run/<judge>``)."""

ANSWER = "3"
"""What the stand-in answers every request: one token that every rating scale reads."""

CHARACTERS_PER_TOKEN = 4
"""The estimate where the judge's tokenizer cannot be loaded (English text, common BPE vocabularies)."""

MESSAGE_OVERHEAD = 4
"""Estimated template tokens per chat message (role markers and separators)."""

BATCH_PRICE_SHARE = 0.5
"""The share of the interactive price a batch request costs: OpenAI, Anthropic, Google, Together and xAI (the
providers inspect batches for) price their batch APIs at half their interactive prices."""


def offers_batches(model: str) -> bool:
    """Whether the judge's provider has a batch API that inspect sends ``--batch`` requests through."""
    return model.split("/", 1)[0] in batch_providers()


@dataclass(frozen=True)
class Request:
    """One request the judge would get."""

    messages: tuple[tuple[str, str], ...]
    """``(role, text)`` of each chat message; a likelihood request is one ``user`` message, its text scored."""
    likelihood: bool
    """Whether it asks for the prompt's own log-probabilities (no chat template, one generated token)."""
    answers: int
    """Answers asked for in this request (``num_choices``)."""
    max_tokens: int | None
    """The bound on each answer's length; ``None`` when the request sets none."""
    earlier_answers: int
    """Judge answers already in the conversation (multi-turn scoring), each counted here as the one-token stand-in."""


REQUESTS: list[Request] = []
"""Every request :class:`DryRunAPI` received, in order; the dry run reads and clears it after each task."""


class DryRunAPI(ModelAPI):
    """A judge that records its requests and answers ``3`` at once, with log-probabilities where asked.

    Its model name is the real judge's (``hf/smollm2``): it answers several choices per call only where that
    judge's provider would.
    """

    returns_prompt_logprobs = True
    """Likelihood requests are recorded as a completions server (vLLM-style ``prompt_logprobs``) receives them."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (inspect's ModelAPI signature)
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        self.several_choices = answers_several_choices(model_name)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        """Record the request; answer it."""
        likelihood = bool(config.prompt_logprobs)
        messages = tuple((message.role, message.text) for message in input)
        answers = (config.num_choices or 1) if self.several_choices and not likelihood else 1
        earlier = sum(role == "assistant" for role, _ in messages)
        REQUESTS.append(Request(messages, likelihood, answers, 1 if likelihood else config.max_tokens, earlier))
        choices = [self._choice(config) for _ in range(answers)]
        if likelihood:
            text = "".join(text for _, text in messages)
            words = _pieces(text)
            choices[0].prompt_logprobs = Logprobs(content=[Logprob(token=word, logprob=-1.0) for word in words[1:]])
        return ModelOutput(model=self.model_name, choices=choices, usage=ModelUsage(input_tokens=0, output_tokens=1))

    @staticmethod
    def _choice(config: GenerateConfig) -> ChatCompletionChoice:
        logprobs = None
        if config.logprobs:
            top = [TopLogprob(token=ANSWER, logprob=0.0)]
            logprobs = Logprobs(content=[Logprob(token=ANSWER, logprob=0.0, top_logprobs=top)])
        message = ChatMessageAssistant(content=ANSWER, model=PROVIDER, source="generate")
        return ChatCompletionChoice(message=message, stop_reason="stop", logprobs=logprobs)

    async def count_text_tokens(self, text: str) -> int:
        """An estimate (inspect asks for counts it does not need here; the dry run counts with the judge's own)."""
        return math.ceil(len(text) / CHARACTERS_PER_TOKEN)


def _pieces(text: str) -> list[str]:
    """The text cut into word-sized pieces that join back into it (the tokens of the stand-in's prompt)."""
    return re.findall(r"\s*\S+|\s+", text) or [text]


@modelapi(name=PROVIDER)
def dry_run_api() -> type[ModelAPI]:
    """The provider's registration with inspect."""
    return DryRunAPI


@dataclass
class TokenCounter:
    """Counts a request's prompt tokens with the judge's tokenizer, or estimates them."""

    describe: str
    """Where the counts come from, for the table's note."""
    exact: bool
    tokenizer: Any = None
    encoding: Any = None

    def count(self, request: Request) -> int:
        """The request's prompt tokens as the judge's server would count them."""
        if request.likelihood:
            return self._text_tokens(request.messages[0][1])
        if self.tokenizer is not None and getattr(self.tokenizer, "chat_template", None):
            chat = [{"role": role, "content": text} for role, text in request.messages]
            ids = self.tokenizer.apply_chat_template(chat, tokenize=True, add_generation_prompt=True, return_dict=False)
            return len(ids)
        return sum(self._text_tokens(text) + MESSAGE_OVERHEAD for _, text in request.messages)

    def _text_tokens(self, text: str) -> int:
        if self.tokenizer is not None:
            return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        if self.encoding is not None:
            return len(self.encoding.encode(text, disallowed_special=()))
        return math.ceil(len(text) / CHARACTERS_PER_TOKEN)


def token_counter(model: str, model_args: Mapping[str, Any]) -> TokenCounter:
    """The judge's tokenizer where it can be loaded: ``hf/`` from its ``-M tokenizer``/``model_path`` folder (or hub
    name), ``vllm/`` and ``vllm-completions/`` from the served model's name or folder, ``openai/`` from tiktoken;
    otherwise an estimate that says so."""
    provider, _, name = model.partition("/")
    if provider == "hf":
        source = str(
            model_args.get("tokenizer") or model_args.get("tokenizer_path") or model_args.get("model_path") or name
        )
        gguf = model_args.get("gguf_file") if source == model_args.get("model_path") else None
        tokenizer = _hf_tokenizer(source, gguf)
        if tokenizer is not None:
            return TokenCounter(f"counted with the judge's tokenizer ({source})", True, tokenizer=tokenizer)
    elif provider in ("vllm", "vllm-completions"):
        tokenizer = _hf_tokenizer(name, None)
        if tokenizer is not None:
            return TokenCounter(f"counted with the judge's tokenizer ({name})", True, tokenizer=tokenizer)
    elif provider == "openai":
        encoding = _tiktoken_encoding(name)
        if encoding is not None:
            return TokenCounter(
                f"counted with tiktoken's {encoding.name} (chat template estimated)", True, encoding=encoding
            )
    return TokenCounter(
        f"estimated at {CHARACTERS_PER_TOKEN} characters a token (the judge's tokenizer could not be loaded)", False
    )


def _hf_tokenizer(source: str, gguf_file: str | None) -> Any:
    try:
        from transformers import AutoTokenizer
    except ImportError:
        return None
    options = {"gguf_file": gguf_file} if gguf_file else {}
    for local_only in (True, False):
        try:
            return AutoTokenizer.from_pretrained(source, local_files_only=local_only, **options)
        except Exception:  # noqa: BLE001 - any failure to load means: estimate instead
            continue
    return None


def _tiktoken_encoding(name: str) -> Any:
    try:
        import tiktoken

        return tiktoken.encoding_for_model(name)
    except Exception:  # noqa: BLE001 - unknown model or no network for the encoding file: estimate instead
        return None


@dataclass(frozen=True)
class TaskCount:
    """What one task asks of the judge."""

    label: str
    samples: int
    requests: int
    answers: int
    prompt_tokens: int
    generated_bound: int | None
    """At most this many generated tokens; ``None`` when some request sets no bound."""
    conversation_tokens: int
    """Tokens the judge's earlier answers add to later turns at most (beyond the one-token stand-in's)."""


def task_count(label: str, samples: int, requests: Sequence[Request], counter: TokenCounter) -> TaskCount:
    """Totals over one task's recorded requests."""
    bounds = [request.max_tokens for request in requests]
    generated = (
        None
        if any(bound is None for bound in bounds)
        else sum((bound or 0) * request.answers for bound, request in zip(bounds, requests, strict=True))
    )
    conversation = sum(request.earlier_answers * ((request.max_tokens or 1) - 1) for request in requests)
    return TaskCount(
        label,
        samples,
        len(requests),
        sum(request.answers for request in requests),
        sum(counter.count(request) for request in requests),
        generated,
        conversation,
    )


def _number(value: int | None) -> str:
    return "unbounded" if value is None else f"{value:,}"


def table(
    preset: Any,
    model: str,
    counts: Sequence[TaskCount],
    counter: TokenCounter,
    skipped: Sequence[str],
    price_in: float | None,
    price_out: float | None,
    batch_share: float | None = None,
) -> str:
    """The dry run's table for one judge: a row per task, the total, and what the numbers rest on; with prices,
    the cost, and the cost through the provider's batch API where it has one (``batch_share`` of the price)."""
    priced = price_in is not None and price_out is not None
    batched = priced and batch_share is not None
    header = ["task", "samples", "requests", "answers", "prompt tokens", "generated tokens at most"]
    header += ["cost at most ($)"] if priced else []
    header += ["with --batch ($)"] if batched else []
    rows = []
    for count in [*counts, _total(counts)]:
        samples = "-" if count.label == CHECK_LABEL else f"{count.samples:,}"
        row = [count.label, samples, f"{count.requests:,}", f"{count.answers:,}"]
        row += [f"{count.prompt_tokens:,}", _number(count.generated_bound)]
        if priced:
            row.append(_cost(count, price_in or 0.0, price_out or 0.0))
        if batched:
            row.append(
                _cost(count, (price_in or 0.0) * (batch_share or 0.0), (price_out or 0.0) * (batch_share or 0.0))
            )
        rows.append(row)
    widths = [max(len(str(row[index])) for row in [header, *rows]) for index in range(len(header))]
    lines = [f"{preset.name} (version {preset.version}) for {model}: no judge was called", ""]
    for number, row in enumerate([header, *rows]):
        cells = [
            cell.ljust(width) if index == 0 else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells))
        if number == 0 or number == len(rows) - 1:
            lines.append("  ".join("-" * width for width in widths))
    lines += ["", *LINES, f"prompt tokens: {counter.describe}"]
    if batched:
        lines.append(f"with --batch: the provider's batch API at {batch_share:.0%} of the price (answers within a day)")
    if any(count.conversation_tokens for count in counts):
        extra = sum(count.conversation_tokens for count in counts)
        lines.append(
            f"multi-turn tasks count the judge's earlier answers as one token each; at their length bound they add "
            f"up to {extra:,} prompt tokens"
        )
    if priced and any(count.generated_bound is None for count in counts):
        lines.append("some requests set no length bound: their generated tokens are not priced (set --max-tokens)")
    lines += list(skipped)
    return "\n".join(lines)


LINES = (
    f"{CHECK_LABEL}: the one request that makes sure the judge answers before its tasks start (every run sends it, "
    "a resumed one too)",
    "a task's line: the preset's task, with the options that tell its runs apart; samples: what it judges; requests: "
    "calls to the judge; answers: the answers they ask for (several in one call where the provider returns choices)",
    "total: every request the run sends to this judge; a resumed run sends only what the logs and the run's request "
    "cache do not hold, and the check",
)
"""What each line of the table is, printed under it."""


def _total(counts: Sequence[TaskCount]) -> TaskCount:
    bounds = [count.generated_bound for count in counts]
    return TaskCount(
        "total",
        sum(count.samples for count in counts),
        sum(count.requests for count in counts),
        sum(count.answers for count in counts),
        sum(count.prompt_tokens for count in counts),
        None if any(bound is None for bound in bounds) else sum(bound or 0 for bound in bounds),
        sum(count.conversation_tokens for count in counts),
    )


def _cost(count: TaskCount, price_in: float, price_out: float) -> str:
    cost = count.prompt_tokens * price_in / 1e6 + (count.generated_bound or 0) * price_out / 1e6
    return f"{cost:,.2f}"
