"""The engine's own limit: the suite's judge requests sent straight to vLLM's offline ``LLM.generate``.

Runs inside the vLLM environment (not the project's), started by ``benchmarks/vllm_cpu.py``:

    python vllm_offline_engine.py REQUESTS.json RESULT.json

REQUESTS.json: ``{"model": dir, "max_model_len": int, "max_num_seqs": int|null, "protocols": {name: [request, ...]}}``
(``max_num_seqs``: how many sequences the engine batches at once; null for vLLM's default), where a
request is ``{"messages": [...], "n": int, "max_tokens": int, "temperature": float, "logprobs": int|null}``.
Every protocol's requests go to one ``generate`` call (all submitted at once, as a saturated server
would see them), with the prefix cache reset before each; only the ``generate`` call is timed.
"""

from __future__ import annotations

import json
import sys
import time


def counters(llm) -> dict[str, float]:
    """The engine's counters (prompt/generation tokens, prefix-cache queries/hits), summed over labels."""
    totals: dict[str, float] = {}
    for metric in llm.get_metrics():
        value = getattr(metric, "value", None)
        if isinstance(value, (int, float)):
            totals[metric.name] = totals.get(metric.name, 0.0) + value
    return totals


def main() -> None:
    from vllm import LLM, SamplingParams

    spec = json.loads(open(sys.argv[1]).read())
    llm = LLM(
        model=spec["model"],
        dtype="bfloat16",
        max_model_len=spec["max_model_len"],
        enforce_eager=True,
        enable_prefix_caching=True,
        disable_log_stats=False,
        **({"max_num_seqs": spec["max_num_seqs"]} if spec.get("max_num_seqs") else {}),
    )
    tokenizer = llm.get_tokenizer()
    results = {}
    for name, requests in spec["protocols"].items():
        prompts = [
            tokenizer.apply_chat_template(request["messages"], add_generation_prompt=True, tokenize=False)
            for request in requests
        ]
        params = [
            SamplingParams(
                n=request["n"],
                max_tokens=request["max_tokens"],
                temperature=request["temperature"],
                logprobs=request["logprobs"],
            )
            for request in requests
        ]
        llm.reset_prefix_cache()
        before = counters(llm)
        start = time.perf_counter()
        outputs = llm.generate(prompts, params, use_tqdm=False)
        seconds = time.perf_counter() - start
        after = counters(llm)
        delta = {key: after.get(key, 0.0) - before.get(key, 0.0) for key in after}
        results[name] = {
            "seconds": seconds,
            "requests": len(requests),
            "prompt_tokens": sum(len(output.prompt_token_ids) for output in outputs),
            "generated_tokens": sum(len(choice.token_ids) for output in outputs for choice in output.outputs),
            "counters": delta,
        }
        print(name, json.dumps(results[name]), flush=True)
    with open(sys.argv[2], "w") as handle:
        json.dump(results, handle, indent=2)


if __name__ == "__main__":
    main()
