"""Worked example: ``grader_tasks/agreement`` with stand-in graders, and the pass rate corrected for their errors.

    python benchmarks/grader_labels_example.py --data-dir ../shared/data/fbi --per-category 20 --labelled 100
    # docs/grader.md

The outputs are FBI's answers (each item's gold answer and its copy with one planted error; for score-invariant
items, a harmless rewording), and their labels follow from how FBI built them: a gold answer and a harmless
rewording pass (``C``), an answer with a planted error fails (``I``). Annotator ``a`` gives exactly those labels;
annotator ``b`` disagrees with them on a seeded 10 % of the outputs, so that the annotators' own agreement is known.

"Your eval" is an inspect task that submits the outputs nobody labelled and grades them with ``model_graded_fact``
(its log is ``-T unlabelled=``); ``--labelled`` outputs, drawn at random, form the labels file. No model is called:
the stand-in graders of ``benchmarks/grader_example.py`` (``overlap``: ``C`` when the submission shares 90 % of its
distinct words with the expert answer; ``lenient``: always ``C``) are served on 127.0.0.1. The script prints the
agreement table and the pass rates beside the humans' true pass rate of the unlabelled outputs.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import tempfile
import time
from pathlib import Path

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import model_graded_fact
from inspect_ai.solver import Generate, Solver, TaskState, solver

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.grader_example import overlap_grader  # noqa: E402
from fbi_tasks.data import load_items  # noqa: E402
from grader_tasks.agreement import agreement  # noqa: E402
from tests.support.fake_judge import serve  # noqa: E402

SECOND_ANNOTATOR_DISAGREES = 0.1


@solver
def submit_output() -> Solver:
    """Your eval's model, standing in: the sample's stored output is the submission."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(model=str(state.model), content=state.metadata["output"])
        return state

    return solve


def _shown(metrics: dict[str, float], name: str) -> str:
    value = metrics.get(name, math.nan)
    base, slash, suffix = name.partition("/")
    low, high = (metrics.get(f"{base}_ci_{side}{slash}{suffix}") for side in ("low", "high"))
    if math.isnan(value):
        return "n/a"
    return f"{value:.3f}" if low is None or math.isnan(low) else f"{value:.3f} [{low:.3f}, {high:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", required=True, help="local FBI folder (the layout of shared/data/fbi)")
    parser.add_argument("--per-category", type=int, default=20)
    parser.add_argument("--labelled", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    items = load_items(args.data_dir, per_category=args.per_category).items
    outputs = []
    for item in items:
        for kind, text in (("gold", item.gold), ("perturbed", item.perturbed)):
            passes = kind == "gold" or item.invariant
            outputs.append({"id": f"{item.category}/{item.id}/{kind}", "input": item.question, "output": text,
                            "target": item.gold, "label": "C" if passes else "I"})  # fmt: skip
    rng = random.Random(args.seed)
    rng.shuffle(outputs)
    labelled, unlabelled = outputs[: args.labelled], outputs[args.labelled :]
    true_rate = sum(output["label"] == "C" for output in unlabelled) / len(unlabelled)
    graders = {"overlap": overlap_grader(0.9), "lenient": lambda prompt: "GRADE: C"}
    with tempfile.TemporaryDirectory() as work, serve(graders) as (url, calls):
        folder = Path(work)
        rows = []
        for output in labelled:
            rows.append({**output, "annotator": "a"})
            flipped = {"C": "I", "I": "C"}[output["label"]]
            second = flipped if rng.random() < SECOND_ANNOTATOR_DISAGREES else output["label"]
            rows.append({**output, "annotator": "b", "label": second})
        (folder / "labels.jsonl").write_text("\n".join(json.dumps(row) for row in rows) + "\n")
        started = time.perf_counter()
        samples = [Sample(id=o["id"], input=o["input"], target=o["target"], metadata={"output": o["output"]})
                   for o in unlabelled]  # fmt: skip
        your_eval = Task(dataset=MemoryDataset(samples), solver=submit_output(), scorer=model_graded_fact())
        results = {}
        for name in graders:
            model = get_model(f"openai-api/fakejudge/{name}", base_url=url, api_key="stand-in")
            (log,) = inspect_eval(your_eval, model=model, log_dir=str(folder / name), display="none")
            task = agreement(labels=str(folder / "labels.jsonl"), scorer="model_graded_fact", unlabelled=log.location)
            (checked,) = inspect_eval(task, model=model, log_dir=str(folder / name), display="none")
            results[name] = {key: metric.value for key, metric in checked.results.scores[0].metrics.items()}
        seconds = time.perf_counter() - started
    print(
        f"{len(outputs)} outputs of FBI (`--per-category {args.per_category}`), {args.labelled} labelled by two "
        f"annotators, {len(unlabelled)} graded in your eval; {len(calls)} grader requests in {seconds:.0f} s.\n"
    )
    names = ["kappa", "accuracy", "balanced_f1", "kappa/humans", "kappa/grader_same_footing",
             "kappa/grader_minus_humans", "pass_rate_naive", "pass_rate_corrected", "pass_rate_labels"]  # fmt: skip
    print("| | " + " | ".join(graders) + " |")
    print("|---|" + "---|" * len(graders))
    for name in names:
        print(f"| `{name}` | " + " | ".join(_shown(results[grader], name) for grader in graders) + " |")
    print(f"\nThe humans' pass rate of the {len(unlabelled)} unlabelled outputs (by construction): {true_rate:.3f}.")


if __name__ == "__main__":
    main()
