"""Worked example: inspect's ``model_graded_fact`` as the grader under test on FBI's items, with stand-in grader models.

    python benchmarks/grader_example.py --data-dir ../shared/data/fbi --per-category 20   # docs/grader_example.md

No model is called: the stand-in graders are served on 127.0.0.1 by ``tests/support/fake_judge.py`` and reached through
inspect's ``openai-api/`` provider, as a served grader model would be. Each reads the submission and the expert
answer out of ``model_graded_fact``'s prompt and answers with a grade:

- ``overlap``: ``GRADE: C`` when the submission shares at least ``--overlap`` of its distinct words with the expert
  answer (Jaccard index), else ``GRADE: I`` -- a grader that compares wording, not content;
- ``lenient``: ``GRADE: C`` whatever it is shown.

It runs ``fbi_tasks/grader -T scorer=model_graded_fact`` once per grader (one ``inspect_ai.eval`` call, the graders
as its models) and prints, as Markdown, each grader's error rates overall, per ability and per category, its
score-invariant error rate and its ungraded submissions.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from fbi_tasks.data import ABILITIES  # noqa: E402
from fbi_tasks.grader import grader  # noqa: E402
from tests.support.fake_judge import serve  # noqa: E402

_SUBMISSION = re.compile(r"\[Submission\]: (.*?)\n\*+\n\[END DATA\]", re.DOTALL)
_EXPERT = re.compile(r"\[Expert\]: (.*?)\n\*+\n\[Submission\]", re.DOTALL)
_WORD = re.compile(r"\w+")


def overlap_grader(threshold: float):
    """``GRADE: C`` when the submission's and the expert answer's distinct words overlap by ``threshold`` or more."""

    def answer(prompt: str) -> str:
        submission = set(_WORD.findall(_SUBMISSION.search(prompt).group(1).lower()))
        expert = set(_WORD.findall(_EXPERT.search(prompt).group(1).lower()))
        jaccard = len(submission & expert) / len(submission | expert) if submission | expert else 1.0
        return f"Word overlap {jaccard:.2f}.\nGRADE: {'C' if jaccard >= threshold else 'I'}"

    return answer


def _rate(metrics: dict[str, float], name: str) -> str:
    """A rate with its interval where one is logged (``<base>_ci_low<suffix>``, the suite's naming)."""
    value = metrics.get(name, math.nan)
    if math.isnan(value):
        return "n/a"
    base, slash, suffix = name.partition("/")
    low, high = (metrics.get(f"{base}_ci_{side}{slash}{suffix}") for side in ("low", "high"))
    return f"{value:.2f}" if low is None or high is None else f"{value:.2f} [{low:.2f}, {high:.2f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True, help="local FBI folder (the layout of shared/data/fbi)")
    parser.add_argument("--per-category", type=int, default=20)
    parser.add_argument("--overlap", type=float, default=0.9)
    args = parser.parse_args()
    graders = {"overlap": overlap_grader(args.overlap), "lenient": lambda prompt: "GRADE: C"}
    with tempfile.TemporaryDirectory() as work, serve(graders) as (url, calls):
        models = [get_model(f"openai-api/fakejudge/{name}", base_url=url, api_key="stand-in") for name in graders]
        started = time.perf_counter()
        logs = inspect_eval(
            grader(scorer="model_graded_fact", data_dir=args.data_dir, per_category=args.per_category),
            model=models,
            log_dir=work,
            display="none",
        )
        seconds = time.perf_counter() - started
    metrics = {
        log.eval.model.rsplit("/", 1)[-1]: {k: m.value for k, m in log.results.scores[0].metrics.items()}
        for log in logs
    }
    first = metrics[next(iter(graders))]
    categories = sorted(name for name in first if re.fullmatch(r"error_rate/[a-z_]+/[a-z_]+", name))
    rows = ["| | " + " | ".join(graders) + " |", "|---|" + "---|" * len(graders)]
    names = ["error_rate", *(f"error_rate/{a}" for a in ABILITIES if a != "score_invariant"), *categories]
    for name in [*names, "si_error_rate", "parse_failures"]:
        rows.append(f"| `{name}` | " + " | ".join(_rate(metrics[g], name) for g in graders) + " |")
    print(f"`fbi_tasks/grader -T scorer=model_graded_fact -T per_category={args.per_category}`, "
          f"{logs[0].eval.metadata['n_items']} items, stand-in graders `overlap` (threshold {args.overlap}) and "
          f"`lenient`; {len(calls)} grader requests in {seconds:.0f} s.\n")  # fmt: skip
    print("\n".join(rows))


if __name__ == "__main__":
    main()
