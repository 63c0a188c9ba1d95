"""CoEval criteria generation (Li et al., §4.1-4.2): the judge lists evaluation criteria for each task.

One sample per task description. The judge answers once at temperature 0 (the reference list) and
``samples`` times at ``temperature``; the scorer measures how consistent the lists are (CC, ICC) and
how well the reference list covers the criteria the experts curated.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from coeval_tasks.data import COEVAL_COMMIT, COEVAL_REPO, DATASETS, TaskDescription, load_source, select
from judge_data.options import OptionError, check_at_least
from scorers.criteria_consistency import (
    DEFAULT_EMBEDDER,
    DEFAULT_MATCH_THRESHOLD,
    criteria_lists_score,
    criteria_lists_summary,
    load_embedder,
    require_embedder_package,
)
from solvers.criteria_lists import ask_for_criteria, criteria_prompt

TASK_VERSION = 1
"""Bumped whenever the prompt, list parsing or statistics change, so results are never compared across them."""


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
def criteria(
    dataset: str = "eli5",
    data_dir: str | None = None,
    tasks_file: str | None = None,
    n: int | None = None,
    seed: int = 0,
    samples: int = 10,
    temperature: float = 0.7,
    embedder: str = DEFAULT_EMBEDDER,
    match_threshold: float = DEFAULT_MATCH_THRESHOLD,
) -> Task:
    """CoEval criteria consistency (CC, ICC) and coverage of the experts' curated criteria.

    Args:
        dataset: eli5, rocstories or self_instruct (whose task descriptions to use)
        data_dir: local folder in the layout of shared/data/human/coeval_<dataset>/ (default: the public
            qtli/CoEval repository at a pinned commit, downloaded once)
        tasks_file: your own JSONL of task descriptions ({"id", "task"} per line, optionally "input",
            "output", "criteria"); replaces dataset
        n: number of task descriptions (a seeded draw; default all)
        seed: seed of that draw
        samples: sampled criteria lists per task description (N; the paper uses 10)
        temperature: temperature of the sampled lists (the reference list is always at temperature 0)
        embedder: sentence-transformers model name or local folder used to embed criteria
        match_threshold: cosine similarity at which a judge criterion matches a curated one
    """
    if samples < 2:
        raise OptionError(f"samples must be at least 2 (ICC compares sampled lists), got {samples}")
    check_at_least("n", n, 1)
    if not 0 < match_threshold <= 1:
        raise OptionError(f"match_threshold is a cosine similarity above 0 and at most 1; got {match_threshold}")
    if temperature < 0:
        raise OptionError(f"temperature must be at least 0, got {temperature}")
    if tasks_file is None and dataset not in DATASETS:
        raise OptionError(f"unknown CoEval dataset {dataset!r}; choose from {sorted(DATASETS)}")
    require_embedder_package()
    source = load_source(dataset, data_dir, tasks_file)
    chosen = select(source.tasks, n, seed)
    load_embedder(embedder)
    return Task(
        dataset=MemoryDataset([_sample(description) for description in chosen], name=f"coeval_{source.dataset}"),
        solver=ask_for_criteria(samples=samples, temperature=temperature),
        scorer=criteria_lists_score(embedder=embedder, threshold=match_threshold),
        metrics=[criteria_lists_summary()],
        name=f"coeval_criteria_{source.dataset}",
        version=TASK_VERSION,
        metadata={
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
