"""Likelihood scoring: alignment of the response's tokens, the completions-server path, refusals, and the hf/ path
checked token by token against a direct transformers computation on the bundled model."""

from __future__ import annotations

import asyncio
import functools
import json
import math
import random
from collections import deque
from pathlib import Path
from types import SimpleNamespace

import pytest
from inspect_ai.model import get_model

from judge_data.inspect_private import PrerequisiteError
from solvers import likelihood
from solvers.likelihood import SEPARATOR, STORE_KEY, response_likelihood, response_token_start, scored_text
from tests.support.commands import INSPECT, one_clean_message, only_log, run_cli
from tests.support.fake_completions import serve, toy_tokens

TASK_FILE = Path(__file__).resolve().parents[1] / "support" / "likelihood_task.py"


def score(model, context, response):
    return asyncio.run(response_likelihood(model, context, response))


# which tokens belong to the response -------------------------------------------------------------------


def test_scored_text_joins_context_and_response_with_the_separator():
    assert SEPARATOR == "\n\n"
    # the continuation starts where lm-eval's does: after the context without its trailing whitespace
    assert scored_text("Tom ran.", "He fell.") == ("Tom ran.\n\nHe fell.", 8)
    assert scored_text("Tom ran. \n", "He fell.") == ("Tom ran. \n\n\nHe fell.", 8)
    assert scored_text(None, "He fell.") == ("He fell.", 0)
    assert scored_text("", "He fell.") == ("He fell.", 0)


def test_the_continuation_starts_at_the_token_holding_its_first_character():
    text, start = scored_text("Tom ran.", "He fell.")
    # the first prompt token ("Tom") has no log-probability and is not in the list; the separator is scored
    assert response_token_start(text, start, [" ran", ".", "\n\n", "He", " fell", "."]) == 2
    # a token straddling the boundary holds continuation characters: it is scored
    assert response_token_start(text, start, [" ran", ".\n", "\nHe", " fell", "."]) == 1
    # tokens ran out: the unscored first token holds the response's start
    text, start = scored_text(None, "He fell.")
    assert response_token_start(text, start, [" fell", "."]) == 0


def test_context_characters_split_across_tokens_do_not_matter():
    text, start = scored_text("他跑了。", "He ran.")
    tokens = ["\ufffd", "\ufffd", "了", "。", "\n\n", "He", " ran", "."]
    assert response_token_start(text, start, tokens) == 4


def test_tokens_that_do_not_reproduce_the_response_are_refused():
    text, start = scored_text("Tom ran.", "He fell.")
    with pytest.raises(ValueError, match=r"decodes to 'Ġfell' where the text has ' fell' \(characters 12-17\)"):
        response_token_start(text, start, [" ran", ".", "\n\n", "He", "Ġfell", "."])


# an OpenAI-compatible completions server returning vLLM-style prompt_logprobs ----------------------------


@pytest.fixture(params=["openai-api-completions", "vllm-completions"])
def completions_model(request, monkeypatch):
    """A factory for a model on the fake server, through either of inspect's completions providers."""

    def make(url):
        if request.param == "vllm-completions":
            # inspect keeps one server record per vLLM model name: a name per fake server
            port = url.split(":")[-1].split("/")[0]
            return get_model(f"vllm-completions/toy-{port}", base_url=url, api_key="test", memoize=False)
        monkeypatch.setenv("FAKEVLLM_BASE_URL", url)
        monkeypatch.setenv("FAKEVLLM_API_KEY", "test")
        return get_model("openai-api-completions/fakevllm/toy", memoize=False)

    return make


@pytest.mark.parametrize(
    ("bos", "context", "expected_tokens", "expected_logprobs"),
    [
        # <s> Tom ran . \n\nHe fell down .   -> positions 4..7 are the response: log-probabilities -5..-8
        (True, "Tom ran.", ["\n\nHe", " fell", " down", "."], [-5, -6, -7, -8]),
        (False, "Tom ran.", ["\n\nHe", " fell", " down", "."], [-4, -5, -6, -7]),
        (True, None, ["He", " fell", " down", "."], [-2, -3, -4, -5]),
        # without BOS and context the response's first token is the prompt's first: nothing predicts it
        (False, None, [" fell", " down", "."], [-2, -3, -4]),
    ],
)
def test_completions_server_scores_exactly_the_response_tokens(
    completions_model, bos, context, expected_tokens, expected_logprobs
):
    with serve(bos=bos) as (url, calls):
        result = score(completions_model(url), context, "He fell down.")
    assert result.tokens == tuple(expected_tokens)
    assert result.token_logprobs == tuple(expected_logprobs)
    assert result.n_tokens == len(expected_logprobs)
    assert result.total_logprob == sum(expected_logprobs)
    assert result.mean_logprob == pytest.approx(sum(expected_logprobs) / len(expected_logprobs))
    assert (result.truncated_context_tokens, result.truncated_response_tokens) == (0, 0)
    (call,) = calls
    assert call["path"] == "/v1/completions"
    assert call["prompt"] == ("" if context is None else "Tom ran.\n\n") + "He fell down."
    assert (call["max_tokens"], call["prompt_logprobs"], call["n"]) == (1, 1, 1)


def test_toy_tokens_straddle_the_boundary_as_the_test_above_assumes():
    assert toy_tokens("Tom ran.\n\nHe fell down.") == ["Tom", " ran", ".", "\n\nHe", " fell", " down", "."]


def test_empty_response_scores_no_tokens_without_a_request(completions_model):
    with serve() as (url, calls):
        result = score(completions_model(url), "Tom ran.", "")
    assert calls == [] and result.n_tokens == 0 and math.isnan(result.mean_logprob)


def test_server_without_prompt_logprobs_is_refused(completions_model):
    with serve(prompt_logprobs=False) as (url, _):
        with pytest.raises(PrerequisiteError) as raised:
            score(completions_model(url), "Tom ran.", "He fell down.")
    message = raised.value.message
    assert "returned no prompt_logprobs" in message and "vllm-completions/" in message and "llama.cpp" in message


# providers that cannot give log-likelihoods -------------------------------------------------------------


def test_chat_and_mock_providers_are_refused_naming_those_that_can(monkeypatch):
    monkeypatch.setenv("FAKEVLLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("FAKEVLLM_API_KEY", "test")
    models = {
        "mockllm": get_model("mockllm/model", memoize=False),
        "openai-api-completions/<service>/<model>": get_model("openai-api/fakevllm/toy", memoize=False),
        "use vllm-completions/toy": get_model("vllm/toy", base_url="http://127.0.0.1:9/v1", api_key="x", memoize=False),
    }
    for hint, model in models.items():
        with pytest.raises(PrerequisiteError) as raised:
            score(model, "Tom ran.", "He fell down.")
        message = raised.value.message
        assert hint in message
        assert "hf/" in message and "vllm-completions/" in message and "openai-api-completions/" in message
        assert "echo log-probabilities are not used: they are off by one token" in message


def run_task(tmp_path: Path, model: str, env: dict[str, str], expect_success: bool = True):
    command = [INSPECT, "eval", f"{TASK_FILE}@likelihood_check", "--model", model, "--display", "plain"]
    return run_cli([*command, "--log-format", "json"], tmp_path, env, expect_success=expect_success)


@pytest.mark.integration
def test_inspect_eval_shows_the_refusal_without_a_traceback(tmp_path):
    output = one_clean_message(run_task(tmp_path, "mockllm/model", {}, expect_success=False))
    assert "Likelihood scoring needs log-probabilities of the prompt's own tokens" in output


@pytest.mark.integration
def test_inspect_eval_stores_the_likelihood_of_each_sample(tmp_path):
    with serve() as (url, calls):
        run_task(
            tmp_path,
            "openai-api-completions/fakevllm/toy",
            {"FAKEVLLM_BASE_URL": url, "FAKEVLLM_API_KEY": "test"},
        )
    log = only_log(tmp_path / "logs")
    stored = {sample.id: sample.store[STORE_KEY] for sample in log.samples}
    assert stored["with-context"]["token_logprobs"] == [-5, -6, -7, -8]
    assert stored["no-context"]["token_logprobs"] == [-2, -3, -4, -5]
    assert stored["no-context"]["mean_logprob"] == -3.5
    outputs = {sample.id: sample.output.completion for sample in log.samples}
    assert (
        outputs["with-context"] == "mean token log-likelihood -6.5000 over 4 tokens (sum -26.0000, response 13 bytes)"
    )
    assert stored["with-context"]["n_bytes"] == len("He fell down.")
    assert log.results.scores[0].metrics["mean"].value == pytest.approx((-6.5 - 3.5) / 2)
    assert len(calls) == 2


# hf/: the bundled judge, token by token against transformers ---------------------------------------------


@pytest.fixture(scope="module")
def reference(judge_folder):
    """An independent transformers copy of the judge and its tokenizer, for the direct computation."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from judge_data.local_judge import GGUF_FILE

    model = AutoModelForCausalLM.from_pretrained(judge_folder, gguf_file=GGUF_FILE).eval()
    return model, AutoTokenizer.from_pretrained(judge_folder)


def direct_logprobs_of_ids(reference, ids: list[int], n: int) -> list[float]:
    """log P(token | tokens before it) for the last n of ``ids``: logits shifted by one, gathered at the ids."""
    import torch

    model, _ = reference
    with torch.no_grad():
        logprobs = torch.log_softmax(model(torch.tensor([ids])).logits[0, :-1].float(), dim=-1)
    return logprobs[torch.arange(len(ids) - 1), torch.tensor(ids[1:])].tolist()[-n:]


def split_ids(reference, context: str | None, response: str) -> tuple[list[int], list[int]]:
    """Token ids of the context (BOS alone without one) and those of the separator and the response.

    The boundary is where the decoded ids first spell the context, so no offsets are involved."""
    _, tokenizer = reference
    if context is None:
        return [tokenizer.bos_token_id], tokenizer(response)["input_ids"]
    ids = tokenizer(context + "\n\n" + response)["input_ids"]
    boundary = next(k for k in range(len(ids)) if tokenizer.decode(ids[:k]) == context)
    return ids[:boundary], ids[boundary:]


CASES = [
    ("Anna baked bread every Sunday. One week the oven broke.", "She borrowed her neighbour's oven instead."),
    (None, "The committee approved the budget after a long debate."),
]


@pytest.mark.local_judge
@pytest.mark.parametrize(("context", "response"), CASES)
def test_hf_likelihoods_match_a_direct_transformers_computation(hf_judge, reference, context, response, monkeypatch):
    from transformers import PreTrainedModel

    def no_loading(*args, **kwargs):
        raise AssertionError("likelihood scoring loaded a model")

    monkeypatch.setattr(PreTrainedModel, "from_pretrained", no_loading)
    forward = hf_judge.api.model.forward
    calls = []

    @functools.wraps(forward)
    def spy(*args, **kwargs):
        calls.append(kwargs["input_ids"].shape)
        return forward(*args, **kwargs)

    monkeypatch.setattr(hf_judge.api.model, "forward", spy)
    result = score(hf_judge, context, response)
    prefix, response_ids = split_ids(reference, context, response)
    expected = direct_logprobs_of_ids(reference, prefix + response_ids, len(response_ids))
    tokens = [reference[1].decode([token]) for token in response_ids]

    assert len(calls) == 1, "one forward pass on the provider's own model"
    assert result.tokens == tuple(tokens)
    assert result.n_tokens == len(expected) >= 8
    assert result.token_logprobs == pytest.approx(expected, abs=1e-4)
    assert result.mean_logprob == pytest.approx(sum(expected) / len(expected), abs=1e-4)
    assert (result.truncated_context_tokens, result.truncated_response_tokens) == (0, 0)


@pytest.mark.local_judge
def test_hf_context_is_cut_from_the_left_and_an_overlong_response_at_its_end(hf_judge, reference, monkeypatch):
    context, response = CASES[0]
    prefix, response_ids = split_ids(reference, context, response)
    n = len(response_ids)
    full = score(hf_judge, None, response)

    monkeypatch.setattr(likelihood, "_max_length", lambda api: n + 3)
    cut = score(hf_judge, context, response)
    assert (cut.truncated_context_tokens, cut.truncated_response_tokens) == (len(prefix) - 3, 0)
    assert cut.token_logprobs == pytest.approx(
        direct_logprobs_of_ids(reference, prefix[-3:] + response_ids, n), abs=1e-4
    )

    monkeypatch.setattr(likelihood, "_max_length", lambda api: 5)
    short = score(hf_judge, None, response)
    assert (short.truncated_context_tokens, short.truncated_response_tokens) == (0, full.n_tokens - 4)  # BOS + 4 fit
    assert short.n_tokens == 4 and short.tokens == full.tokens[:4]
    assert short.token_logprobs == pytest.approx(full.token_logprobs[:4], abs=1e-4)


@pytest.mark.local_judge
def test_clean_story_endings_are_more_likely_than_damaged_ones(hf_judge, dhp_data):
    from dhp_tasks.perturbations import Item, delete_characters

    rows = (dhp_data("storycloze") / "storycloze_2016_val.jsonl").read_text().splitlines()[:3]
    items = [Item(id=row["id"], text=row["right_ending"], context=row["context"]) for row in map(json.loads, rows)]
    damaged = [delete_characters(3)(item, random.Random(0), []) for item in items]

    async def score_all():  # concurrently, as inspect runs samples: the forward passes take turns
        texts = [(item.context, item.text) for item in items] + [
            (item.context, text) for item, text in zip(items, damaged, strict=True)
        ]
        return await asyncio.gather(*(response_likelihood(hf_judge, context, text) for context, text in texts))

    results = asyncio.run(score_all())
    for item, text, clean, worse in zip(items, damaged, results[:3], results[3:], strict=True):
        assert clean.mean_logprob > worse.mean_logprob, (item.text, text, clean.mean_logprob, worse.mean_logprob)


# hf/: concurrent texts sharing a forward pass ----------------------------------------------------------------

BATCH_CASES = [
    *CASES,
    ("Tom ran to the bus stop.", "He missed it by a minute and walked to work in the rain."),
    (None, "Rain."),
    ("A very long context " * 12 + "ends here.", "The end."),
    ("Q: What is two plus two?", "Four."),
]


@pytest.mark.local_judge
def test_texts_scored_in_one_padded_pass_get_their_one_at_a_time_likelihoods(hf_judge, monkeypatch):
    alone = [score(hf_judge, context, response) for context, response in BATCH_CASES]
    forward = hf_judge.api.model.forward
    batches = []

    @functools.wraps(forward)
    def spy(*args, **kwargs):
        batches.append(tuple(kwargs["input_ids"].shape))
        return forward(*args, **kwargs)

    monkeypatch.setattr(hf_judge.api.model, "forward", spy)
    monkeypatch.setattr(likelihood, "likelihood_batch_size", lambda api: 8)  # as on an accelerator

    async def all_waiting_then_scored():
        # the forward lock is held until every text waits, so that one pass takes them all
        likelihood._FORWARD_LOCK.acquire()
        try:
            scoring = [
                asyncio.ensure_future(response_likelihood(hf_judge, context, response))
                for context, response in BATCH_CASES
            ]
            while len(likelihood._WAITING.get(hf_judge.api, ())) < len(scoring) and not any(
                task.done() for task in scoring
            ):
                await asyncio.sleep(0.01)
        finally:
            likelihood._FORWARD_LOCK.release()
        return await asyncio.gather(*scoring)

    together = asyncio.run(all_waiting_then_scored())
    longest = max(len(likelihood._scored_sequence(hf_judge.api, c, r).sequence) for c, r in BATCH_CASES)
    assert batches == [(len(BATCH_CASES), longest)]
    for one, batched in zip(alone, together, strict=True):
        assert batched.tokens == one.tokens and batched.n_tokens == one.n_tokens
        assert batched.token_logprobs == pytest.approx(one.token_logprobs, abs=1e-4)
        assert batched.total_logprob == pytest.approx(one.total_logprob, abs=1e-3)


def test_batches_on_accelerators_only_and_within_the_token_budget(monkeypatch):
    torch = pytest.importorskip("torch")

    class Api:  # what likelihood_batch_size reads of inspect's hf/ provider
        def __init__(self, device: str, batch_size: int | None = None):
            self.model, self.batch_size = SimpleNamespace(device=torch.device(device)), batch_size

    assert likelihood.likelihood_batch_size(Api("cpu")) == 1
    assert likelihood.likelihood_batch_size(Api("cuda")) == likelihood.LIKELIHOOD_BATCH_SIZE
    assert likelihood.likelihood_batch_size(Api("cuda", batch_size=4)) == 4

    accelerator = Api("cuda", batch_size=3)
    lengths = [10, 30, 20, 20, 5]
    waiting = [likelihood._Waiting(likelihood._Scored([0] * n, 1, [], 0, 0)) for n in lengths]
    monkeypatch.setitem(likelihood._WAITING, accelerator, deque(waiting))
    monkeypatch.setattr(likelihood, "MAX_BATCH_TOKENS", 60)
    # oldest first: 10 and 30 pad to 2 x 30; with the third text 3 x 30 > 60 tokens
    assert likelihood._next_batch(accelerator) == waiting[:2]
    assert likelihood._next_batch(accelerator) == waiting[2:5]  # 3 x 20 tokens, and at most 3 texts
    assert not likelihood._WAITING[accelerator]


def test_a_batch_without_memory_is_scored_one_text_at_a_time(monkeypatch):
    torch = pytest.importorskip("torch")
    passes = []

    def forward(api, batch):
        passes.append(len(batch))
        if len(batch) > 1:
            raise torch.OutOfMemoryError("CUDA out of memory")
        if batch[0].first == 0:
            raise ValueError("cannot score")
        return [[-float(batch[0].first)]]

    monkeypatch.setattr(likelihood, "_forward", forward)
    waiting = [likelihood._Waiting(likelihood._Scored([1, 2, 3], first, [], 0, 0)) for first in (1, 2, 0)]
    likelihood._score_batch(None, waiting)
    assert passes == [3, 1, 1, 1]
    assert [waiting[0].result.result(), waiting[1].result.result()] == [[-1.0], [-2.0]]
    with pytest.raises(ValueError, match="cannot score"):
        waiting[2].result.result()
