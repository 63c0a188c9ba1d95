"""Benchmark: likelihood scoring on inspect's ``hf/`` provider, one text per forward pass against padded batches.

    python benchmarks/likelihood_batching.py --texts 32 --batch-sizes 1 4 8 16

Loads the bundled judge (SmolLM2-135M-Instruct, as ``local-judge`` prepares it: float32 on CPU) through inspect's
``hf/`` provider and scores DHP SummEval texts (``scoring=perplexity``: the article as context, a summary or a
perturbed copy as the response; about 400-900 tokens each) all at once, as inspect's concurrent samples do, through
:func:`solvers.likelihood.response_likelihood`. For each batch size the rule that picks it
(``likelihood_batch_size``) is replaced by that size, so texts waiting together share padded passes; 1 is the
one-at-a-time path that CPU uses. It prints texts per second for each size (best of ``--rounds``), its ratio to one at
a time (the first size, 1 by default), and the largest difference of a token's log-probability from that first
size's result.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from pathlib import Path

from inspect_ai.model import get_model

from dhp_tasks.dhp import summeval
from judge_data.local_judge import model_args, prepare
from solvers import likelihood

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


async def score_all(model, texts):
    return await asyncio.gather(*(likelihood.response_likelihood(model, context, text) for context, text in texts))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--texts", type=int, default=32)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[1, 4, 8, 16])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()

    task = summeval(data_dir=str(args.data / "dhp" / "summeval"), n=args.texts, scoring="perplexity")
    texts = [(sample.metadata["context"], sample.metadata["response"]) for sample in task.dataset][: args.texts]
    model = get_model("hf/smollm2", memoize=False, **model_args(prepare()))
    lengths = [len(likelihood._scored_sequence(model.api, context, text).sequence) for context, text in texts]
    device, dtype = model.api.model.device, model.api.model.dtype
    print(f"{len(texts)} texts of {min(lengths)}-{max(lengths)} tokens on {device}, {dtype}")
    asyncio.run(score_all(model, texts[:1]))  # warm-up

    reference = None
    rate_alone = None
    print("| batch size | texts/s | vs one at a time | largest log-probability difference |")
    print("|---|---|---|---|")
    for size in args.batch_sizes:
        likelihood.likelihood_batch_size = lambda api, size=size: size  # type: ignore[assignment]
        seconds = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            results = asyncio.run(score_all(model, texts))
            seconds.append(time.perf_counter() - start)
        rate = len(texts) / min(seconds)
        reference = reference or results
        rate_alone = rate_alone or rate
        difference = max(
            abs(a - b)
            for ours, alone in zip(results, reference, strict=True)
            for a, b in zip(ours.token_logprobs, alone.token_logprobs, strict=True)
        )
        print(f"| {size} | {rate:.2f} | {rate / rate_alone:.2f}x | {difference:.1e} |", flush=True)


if __name__ == "__main__":
    main()
