"""CoEval criteria generation (Li et al., §4.1-4.2): the judge lists evaluation criteria for each task.

One sample per task description. The judge answers once at temperature 0 (the reference list) and
``samples`` times at ``temperature``; the scorer measures how consistent the lists are (CC, ICC) and
how well the reference list covers the criteria the experts curated.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from coeval_tasks.data import COEVAL_COMMIT, COEVAL_REPO, TaskDescription, load_source, select
from coeval_tasks.definition import COEVAL_CRITERIA
from judge_data.options import OptionError
from scorers.criteria_consistency import (
    criteria_lists_score,
    criteria_lists_summary,
    require_embedder,
    require_embedder_package,
)
from solvers.criteria_lists import ask_for_criteria, criteria_prompt

DEFAULTS = COEVAL_CRITERIA.task_defaults("criteria")


def _sample(description: TaskDescription) -> Sample:
    prompt = criteria_prompt(description.task, description.example_input, description.example_output)
    return Sample(
        id=description.id,
        input=prompt,
        metadata={
            "task": description.task,
            "example_input": description.example_input,
            "example_output": description.example_output,
            "curated": list(description.curated),
            "prompt": prompt,
        },
    )


@task
@COEVAL_CRITERIA.takes("criteria")
def criteria(
    dataset: str = DEFAULTS["dataset"],
    data_dir: str | None = DEFAULTS["data_dir"],
    tasks_file: str | None = DEFAULTS["tasks_file"],
    n: int | None = DEFAULTS["n"],
    seed: int = DEFAULTS["seed"],
    samples: int = DEFAULTS["samples"],
    temperature: float = DEFAULTS["temperature"],
    embedder: str = DEFAULTS["embedder"],
    match_threshold: float = DEFAULTS["match_threshold"],
) -> Task:
    """CoEval criteria consistency (CC, ICC) and coverage of the experts' curated criteria."""
    COEVAL_CRITERIA.arguments("criteria", locals())
    if not 0 < match_threshold <= 1:
        raise OptionError(f"match_threshold is a cosine similarity above 0 and at most 1; got {match_threshold}")
    require_embedder_package()
    source = load_source(dataset, data_dir, tasks_file)
    chosen = select(source.tasks, n, seed)
    require_embedder(embedder)
    return Task(
        dataset=MemoryDataset([_sample(description) for description in chosen], name=f"coeval_{source.dataset}"),
        solver=ask_for_criteria(samples=samples, temperature=temperature),
        scorer=criteria_lists_score(embedder=embedder, threshold=match_threshold),
        metrics=[criteria_lists_summary()],
        name=f"coeval_criteria_{source.dataset}",
        version=COEVAL_CRITERIA.version,
        metadata={
            "task_version": COEVAL_CRITERIA.version,
            "dataset": source.dataset,
            "source": source.source if data_dir or tasks_file else f"{COEVAL_REPO}@{COEVAL_COMMIT}",
            "n_task_descriptions": len(chosen),
            "n_available": len(source.tasks),
            "seed": seed,
            "samples": samples,
            "temperature": temperature,
            "embedder": embedder,
            "match_threshold": match_threshold,
            "curated_criteria": list(source.curated),
            "review_actions": source.review_actions,
        },
    )
