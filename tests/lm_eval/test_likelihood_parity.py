"""Likelihood scoring gives the same numbers in both harnesses: the per-byte normalisation by hand, then the same
stand-in judge behind inspect's ``openai-api-completions/`` (vLLM-style ``prompt_logprobs`` on a text prompt) and
lm-eval's ``local-completions`` (``echo`` log-probabilities on a prompt of token ids)."""

from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path

import pytest

from judge_data import OptionError
from lm_eval_tasks.utils import collect_likelihood, docs
from scorers.likelihood import normalized_logprob
from solvers.likelihood import response_bytes
from tests.adherence.test_adherence_integration import unambiguous_seed
from tests.conftest import data_folder
from tests.support import fake_completions
from tests.support.commands import INSPECT, only_log, run_cli, task_options
from tests.support.inspect_runs import metrics_of, originals_of
from tests.support.lm_eval_runs import compare, lm_eval_metrics, print_rows, run_lm_eval

# the toy server's tokens of "Tom ran.\n\nHe fell down." after BOS: the continuation "\n\nHe fell down." is
# positions 4-7, log-probabilities -5, -6, -7, -8 (sum -26) over 4 tokens and 13 response bytes
TOY_TOTAL, TOY_TOKENS, TOY_BYTES = -26.0, 4, 13


def test_byte_normalisation_divides_the_sum_by_the_response_bytes():
    assert normalized_logprob(TOY_TOTAL, "byte", n_tokens=TOY_TOKENS, n_bytes=TOY_BYTES) == -2.0
    assert normalized_logprob(TOY_TOTAL, "token", n_tokens=TOY_TOKENS, n_bytes=TOY_BYTES) == -6.5
    assert response_bytes("Él cayó.") == 10  # 8 characters, two of them two bytes long
    assert normalized_logprob(-5.0, "byte", n_bytes=response_bytes("Él cayó.")) == -0.5
    assert math.isnan(normalized_logprob(0.0, "byte", n_bytes=0))
    with pytest.raises(ValueError, match="needs the n_tokens count"):
        normalized_logprob(-5.0, "token", n_bytes=10)


def test_lm_eval_records_the_continuation_sum_per_response_byte(dhp_data):
    doc = docs(suite_task="dhp_storycloze_perplexity", data_dir=str(dhp_data("storycloze")), n=1)["test"][0]
    response = json.loads(doc["metadata"])["response"]
    record = collect_likelihood(doc, [(-3.0 * response_bytes(response), False)])["D_avg"]
    assert record.answers == -3.0


def test_lm_eval_refuses_a_normalisation_it_cannot_compute(dhp_data):
    with pytest.raises(ValueError, match="normalize='token' cannot be computed by lm-eval"):
        docs(suite_task="dhp_storycloze_perplexity", data_dir=str(dhp_data("storycloze")), n=1, normalize="token")


def test_normalize_is_checked_and_belongs_to_the_likelihood_settings(dhp_data):
    from adherence_tasks.adherence import summeval
    from dhp_tasks.dhp import storycloze

    folder = str(dhp_data("storycloze"))
    with pytest.raises(OptionError, match=r"unknown normalize 'word'; choose from \['token', 'byte'\]"):
        storycloze(data_dir=folder, n=1, scoring="perplexity", normalize="word")
    with pytest.raises(OptionError, match="normalize=byte applies to scoring=perplexity"):
        storycloze(data_dir=folder, n=1, normalize="byte")
    with pytest.raises(OptionError, match="normalize=byte applies to scoring=perplexity, not scoring=sample"):
        summeval(data_dir=str(data_folder("human", "summeval")), n=2, setting="rubric", normalize="byte")
    task = storycloze(data_dir=folder, n=1, scoring="perplexity", normalize="byte")
    assert task.metadata["normalize"] == "byte"


# the same stand-in judge through both harnesses -------------------------------------------------------------


def stand_in_logprob(originals: set[str]):
    """Dyadic log-probabilities (multiples of 1/256), fixed by the prompt and the position, one nat higher at
    every position of a prompt that ends with an original text. Sums of such numbers are exact in float64, so
    lm-eval's ``sum`` and inspect's ``math.fsum`` give the same bits and any difference would be a real one."""

    def logprob(prompt: str, position: int) -> float:
        draw = int(hashlib.sha256(f"{position}|{prompt}".encode()).hexdigest()[:6], 16) % 1024
        bonus = 1.0 if any(prompt.endswith(text) for text in originals) else 0.0
        return bonus - 1.0 - draw / 256

    return logprob


def run_inspect_likelihood(tmp_path: Path, url: str, task: str, *task_args: str):
    command = [INSPECT, "eval", task, "--model", "openai-api-completions/fakevllm/judge", *task_options(*task_args)]
    command += ["--log-format", "json", "--display", "log"]
    run_cli(command, tmp_path, {"FAKEVLLM_BASE_URL": url, "FAKEVLLM_API_KEY": "test"})
    return only_log(tmp_path / "logs")


def lm_eval_samples(output_path: Path, task: str) -> dict[str, float]:
    """``{sample_id: summed log-likelihood}`` from lm-eval's logged samples of one task."""
    (path,) = output_path.rglob(f"samples_{task}_*.jsonl")
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    return {row["doc"]["sample_id"]: float(row["resps"][0][0][0]) for row in rows}  # logged as text


@pytest.mark.integration
def test_perplexity_metrics_are_the_same_in_both_harnesses(tmp_path, dhp_data, judge_folder):
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(judge_folder)
    storycloze = dhp_data("storycloze")
    summeval = data_folder("human", "summeval")
    seed = unambiguous_seed("summeval", 20)
    logprob = stand_in_logprob(originals_of("storycloze", storycloze, 4))
    runs = {
        "dhp_storycloze_perplexity": ("dhp_tasks/storycloze", f"data_dir={storycloze}", "n=4", "scoring=perplexity"),
        "adherence_summeval_perplexity": (
            "adherence_tasks/summeval",
            f"data_dir={summeval}",
            "n=20",
            f"seed={seed}",
            "scoring=perplexity",
        ),
    }
    with fake_completions.serve(logprob=logprob, tokenizer=tokenizer) as (url, calls):
        started = time.perf_counter()
        logs = {
            name: run_inspect_likelihood(tmp_path / "inspect" / name, url, task, *args, "normalize=byte")
            for name, (task, *args) in runs.items()
        }
        inspect_seconds = time.perf_counter() - started
        inspect_prompts = [tuple(tokenizer(call["prompt"])["input_ids"]) for call in calls]
        calls.clear()
        metadata = {
            "dhp_storycloze_perplexity": {"data_dir": str(storycloze), "n": 4},
            "adherence_summeval_perplexity": {"data_dir": str(summeval), "n": 20, "seed": seed},
        }
        started = time.perf_counter()
        model_args = f"model=judge,base_url={url}/completions,tokenizer={judge_folder},tokenizer_backend=huggingface"
        results = run_lm_eval(list(runs), metadata, tmp_path, "local-completions", model_args, ("--log_samples",))
        lm_eval_seconds = time.perf_counter() - started

    # lm-eval asked for echoed log-probabilities of token-id prompts, the very tokens inspect's prompts have
    assert {(call["echo"], call["logprobs"], call["max_tokens"]) for call in calls} == {(True, 1, 1)}
    assert sorted(tuple(prompt) for call in calls for prompt in call["prompt"]) == sorted(inspect_prompts)

    rows = []
    for name in runs:
        log = logs[name]
        assert log.eval.metadata["normalize"] == "byte"
        assert results["configs"][name]["metadata"]["normalize"] == "byte"
        # per sample: the same summed log-likelihood (exactly: dyadic values) and the same normalised score
        theirs_sums = lm_eval_samples(tmp_path / "lm_eval", name)
        for sample in log.samples:
            score = next(iter(sample.scores.values()))
            assert score.metadata["normalize"] == "byte"
            assert score.metadata["total_logprob"] == theirs_sums[str(sample.id)], sample.id
            n_bytes = response_bytes(sample.metadata["response"])
            assert score.metadata["n_bytes"] == n_bytes
            first = next(key for key in score.value if "/" not in key and key != "parse_failures")
            assert score.value[first] == score.metadata["total_logprob"] / n_bytes
        assert len(theirs_sums) == len(log.samples)
        rows += compare(metrics_of(log), results, name)

    print_rows(rows)
    print(f"wall time: inspect {inspect_seconds:.1f} s (2 runs), lm_eval {lm_eval_seconds:.1f} s (one run)")

    dhp = lm_eval_metrics(results, "dhp_storycloze_perplexity")
    assert dhp["D_avg"] > 0 and dhp["parse_failures"] == 0  # originals likelier: a real comparison, not NaN = NaN
    adherence = lm_eval_metrics(results, "adherence_summeval_perplexity")
    assert not math.isnan(adherence["pearson"]) and adherence["n/coherence"] == 20


# the bundled CPU judge through inspect's hf/ provider and lm-eval's hf backend ------------------------------


@pytest.mark.local_judge
def test_cpu_judge_log_likelihoods_agree_between_inspect_hf_and_lm_eval_hf(judge_folder, hf_judge, dhp_data):
    """Two Story Cloze endings given their context and one text without context (lm-eval's empty-context branch):
    both harnesses sum the same tokens' log-probabilities, each from its own fp32 copy of the model."""
    import asyncio

    import torch
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    from judge_data.local_judge import GGUF_FILE
    from lm_eval_tasks.utils import likelihood_context, likelihood_continuation
    from solvers.likelihood import response_likelihood

    folder = str(dhp_data("storycloze"))
    documents = list(docs(suite_task="dhp_storycloze_perplexity", data_dir=folder, n=1, perturbations="typos")["test"])
    documents.append({"metadata": json.dumps({"context": None, "response": "The committee approved the budget."})})
    pairs = [(likelihood_context(doc), likelihood_continuation(doc)) for doc in documents]

    lm_eval_judge = HFLM(
        pretrained=str(judge_folder), gguf_file=GGUF_FILE, tokenizer=str(judge_folder), dtype="float32", device="cpu"
    )
    assert hf_judge.api.model.dtype == lm_eval_judge.model.dtype == torch.float32

    async def inspect_scores():
        return [
            await response_likelihood(hf_judge, meta.get("context"), meta["response"])
            for meta in (json.loads(doc["metadata"]) for doc in documents)
        ]

    ours = asyncio.run(inspect_scores())
    requests = [
        Instance("loglikelihood", doc, pair, index)
        for index, (doc, pair) in enumerate(zip(documents, pairs, strict=True))
    ]
    theirs = [log_likelihood for log_likelihood, _ in lm_eval_judge.loglikelihood(requests, disable_tqdm=True)]

    differences = [abs(mine.total_logprob - other) for mine, other in zip(ours, theirs, strict=True)]
    print(
        f"\nsummed log-likelihoods, inspect hf/ vs lm-eval hf: {[(m.total_logprob, t) for m, t in zip(ours, theirs, strict=True)]}"
    )
    print(f"largest difference {max(differences):.2e} nats over {[m.n_tokens for m in ours]} tokens")
    assert all(mine.n_tokens >= 5 for mine in ours)
    # fp32 on both sides, separate model copies and forward passes: 5.8e-6 nats measured; one token more or less
    # (the separator's, say) would differ by nats
    assert max(differences) < 1e-4
