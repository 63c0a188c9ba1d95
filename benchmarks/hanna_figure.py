"""Benchmark: HANNA's published Kendall heatmaps recomputed from the authors' file, and this project's numbers.

    python benchmarks/hanna_figure.py                  # the tables of docs/hanna_recorded_judges.md
    python benchmarks/hanna_figure.py --logs logs/hanna  # and check every logged correlation of the 20 recorded runs

Chhun, Suchanek & Clavel (TACL 2024) print the Kendall correlation of four LLM judges (Beluga-13B, Llama-13B,
Mistral-7B, ChatGPT) under four prompts with the mean of HANNA's three workers, per criterion, at system level and
"overall", as heatmaps. This script recomputes every printed cell from ``hanna_metric_scores_llm.csv`` with
``scipy.stats.kendalltau`` (tau-b) alone, independently of the project's statistics, under four rules:

- **recipe**: the figure's: the 960 generated stories (the ``Human`` row left out), the authors' failure codes
  (values below 1) used as numbers; system level over the 10 generating systems' means; printed
  round-half-even(100 |tau|), the Avg row the rounded mean of the rounded cells;
- **failures out**: this project's rule on the same stories: a value off the 1-5 scale is a parse failure, so the
  story drops out of that criterion's pairs, and each system's means (the judge's and the workers') are over the
  stories whose value parsed, as ``system_tau`` computes them;
- **our items, codes kept** and **our items** (failures out): the same on the 909 generated stories of the 1,005
  HANNA items the project holds (``../shared/data/human/hanna``), the latter what ``adherence_tasks/hanna
  -T exclude_systems=Human`` logs for each recorded judge.

It also sets system-level agreement beside story-level agreement, for the judges and for the workers: each worker
against the mean of the other two (leave-one-out, the columns ``Human Avg k XX`` of the file), and each judge against
the same leave-one-out means (the workers' footing) as well as against the mean of all three.

The printed values are read from ``judge_report/published/hanna_chhun2024.json`` (the LLM cells and the system-level
Avg row); the overall Avg row and the figure's ``Human`` column (each worker against the mean of all three, itself
included) are transcribed below. ``--logs DIR`` reads every log of the recorded runs under DIR and checks each
logged ``pearson/<c>``, ``kendall/<c>`` and ``system_tau/<c>`` against this script's recomputation on the log's
items, and its ``parse_failures`` against the values off the scale.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy import stats

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
PUBLISHED = REPO / "judge_report" / "published" / "hanna_chhun2024.json"

CODES = ("RE", "CH", "EM", "SU", "EG", "CX")
CRITERIA = ("Relevance", "Coherence", "Empathy", "Surprise", "Engagement", "Complexity")
JUDGES = ("Beluga-13B", "Llama-13B", "Mistral-7B", "ChatGPT")
"""The LLMs of the figure, in its column order (each under Eval-Prompts 1-4); OrcaPlatypus is not in it."""
ALL_JUDGES = ("Beluga-13B", "OrcaPlatypus", "Mistral-7B", "Llama-13B", "ChatGPT")
PROMPTS = (1, 2, 3, 4)
LEVELS = ("system", "overall")
STORIES = 96
WORKERS = (1, 2, 3)

OVERALL_AVG = dict(
    zip(
        [(j, p) for j in JUDGES for p in PROMPTS],
        map(int, "25 26 22 20 16 18 10 11 20 20 16 17 18 17 8 16".split()),
        strict=True,
    )
)
"""The overall heatmap's Avg row, as printed (the system-level one is in the published-values file)."""

HUMAN_COLUMN = {"system": (70, 62, 77, 72, 76, 80, 73), "overall": (49, 37, 49, 44, 50, 57, 48)}
"""The figure's ``Human`` column, RE ... CX and Avg, as printed."""


def printed(tau: float) -> int:
    """A correlation as the figure prints it: round-half-even(100 |tau|) (pandas' ``round``, numpy's)."""
    return int(np.round(100 * abs(tau)))


def average(cells: Sequence[int]) -> int:
    """The figure's Avg: the rounded mean of the rounded cells."""
    return int(np.round(np.mean(cells)))


def read_file(path: Path) -> tuple[list[str], dict[str, np.ndarray]]:
    """The systems in row order and every list column as a (systems, 96) array."""
    csv.field_size_limit(1 << 30)
    with path.open(encoding="utf-8", newline="") as handle:
        records = list(csv.DictReader(handle))
    columns = {}
    for name in records[0]:
        if name != "Model" and records[0][name].startswith("["):
            columns[name] = np.array([json.loads(record[name]) for record in records], dtype=float)
    return [record["Model"] for record in records], columns


def read_items(folder: Path) -> dict[int, dict]:
    """The project's HANNA items by Story ID."""
    with (folder / "items.jsonl").open(encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return {row["meta"]["story_id"]: row for row in rows}


def tau(judge: np.ndarray, human: np.ndarray, keep: np.ndarray, level: str) -> float:
    """Kendall's tau-b of the kept stories of the generating systems (rows 1-10): over their system means (each
    side's mean over the kept stories of that system), or over the stories themselves."""
    judge, human, keep = judge[1:], human[1:], keep[1:]
    if level == "system":
        judge_means = [row[mask].mean() for row, mask in zip(judge, keep, strict=True)]
        human_means = [row[mask].mean() for row, mask in zip(human, keep, strict=True)]
        return float(stats.kendalltau(judge_means, human_means).statistic)
    return float(stats.kendalltau(judge[keep], human[keep]).statistic)


Rule = Callable[[np.ndarray], np.ndarray]
"""Which stories count for one judge column: a (systems, 96) mask from the column's values."""


def rules(present: np.ndarray) -> dict[str, Rule]:
    """The four rules; ``present``: the stories the project's items hold."""
    return {
        "recipe": lambda values: np.ones_like(values, dtype=bool),
        "failures out": lambda values: (values >= 1) & (values <= 5),
        "our items, codes kept": lambda values: present.copy(),
        "our items": lambda values: present & (values >= 1) & (values <= 5),
    }


def figure_cells(columns: dict[str, np.ndarray], rule: Rule) -> dict[tuple[str, int, str], dict[str, int]]:
    """Every printed cell of the figure's 16 LLM columns under one rule: ``(judge, prompt, level) -> {code: cell,
    "Avg": average}``."""
    cells = {}
    for judge in JUDGES:
        for prompt in PROMPTS:
            for level in LEVELS:
                row = {}
                for code, criterion in zip(CODES, CRITERIA, strict=True):
                    values = columns[f"{judge} {code} {prompt}"]
                    row[code] = printed(tau(values, columns[criterion], rule(values), level))
                row["Avg"] = average([row[code] for code in CODES])
                cells[(judge, prompt, level)] = row
    return cells


def published_cells() -> dict[tuple[str, int, str], dict[str, int]]:
    """The figure's LLM cells as printed: the published-values file and the overall Avg row above."""
    document = json.loads(PUBLISHED.read_text(encoding="utf-8"))
    cells: dict[tuple[str, int, str], dict[str, int]] = {}
    names = {criterion.lower(): code for code, criterion in zip(CODES, CRITERIA, strict=True)}
    for value in document["values"]:
        prompt = int(value["prompt"].split()[-1])
        metric = value["metric"]
        level = "overall" if metric.startswith("kendall/") else "system"
        code = "Avg" if metric == "system_tau" else names[metric.split("/")[1]]
        cells.setdefault((value["judge"], prompt, level), {})[code] = int(value["value"])
    for (judge, prompt), avg in OVERALL_AVG.items():
        cells[(judge, prompt, "overall")]["Avg"] = avg
    return cells


def human_column(columns: dict[str, np.ndarray], level: str) -> tuple[int, ...]:
    """The figure's ``Human`` column recomputed: per criterion the rounded mean over the workers of each worker's
    printed tau against the mean of all three; Avg the rounded mean of all 18 worker cells."""
    every = np.ones_like(columns["Relevance"], dtype=bool)
    workers = [
        [printed(tau(columns[f"Human {k} {code}"], columns[criterion], every, level)) for k in WORKERS]
        for code, criterion in zip(CODES, CRITERIA, strict=True)
    ]
    return (*(int(np.round(np.mean(cells))) for cells in workers), int(np.round(np.mean(workers))))


def reproduction(columns: dict[str, np.ndarray], present: np.ndarray) -> list[str]:
    """The figure against the recipe, and how each of this project's rules moves its cells."""
    lines = ["## The figure reproduced", ""]
    shown = published_cells()
    computed = {name: figure_cells(columns, rule) for name, rule in rules(present).items()}
    recipe = computed["recipe"]
    keys = [(key, code) for key in shown for code in (*CODES, "Avg")]
    differing = [
        f"{key} {code}: printed {shown[key][code]}, recipe {recipe[key][code]}"
        for key, code in keys
        if shown[key][code] != recipe[key][code]
    ]
    llm = [(key, code) for key, code in keys if code != "Avg"]
    lines.append(
        f"Recipe against the figure: {len(keys) - len(differing)} of {len(keys)} printed LLM cells equal "
        f"({len(llm)} criterion cells, {len(keys) - len(llm)} Avg cells)"
        + (": " + "; ".join(differing) if differing else ".")
    )
    for level in LEVELS:
        human = human_column(columns, level)
        equal = sum(a == b for a, b in zip(human, HUMAN_COLUMN[level], strict=True))
        lines.append(
            f"Human column, {level}: recomputed {list(human)}, printed {list(HUMAN_COLUMN[level])}: {equal} of 7 equal."
        )
    lines.append("")
    for level in LEVELS:
        lines += [f"### {level.capitalize()} level: printed · failures out · our items", ""]
        lines.append("| judge · prompt | " + " | ".join(CODES) + " | Avg |")
        lines.append("|---" * (len(CODES) + 2) + "|")
        for judge in JUDGES:
            for prompt in PROMPTS:
                key = (judge, prompt, level)
                texts = []
                for code in (*CODES, "Avg"):
                    chain = [shown[key][code], computed["failures out"][key][code], computed["our items"][key][code]]
                    texts.append(" · ".join(str(value) for value in chain) if len(set(chain)) > 1 else str(chain[0]))
                lines.append(f"| {judge} · {prompt} | " + " | ".join(texts) + " |")
        lines.append("")
    lines += [
        "### How far each rule moves the printed cells",
        "",
        "| rule | level | cells moved | by 1 | by 2-4 | by 5+ | largest |",
        "|---|---|---|---|---|---|---|",
    ]
    for name in ("failures out", "our items, codes kept", "our items"):
        for level in LEVELS:
            moves = [
                (abs(computed[name][key][code] - recipe[key][code]), f"{key[0]} · {key[1]} {code}")
                for key in recipe
                if key[2] == level
                for code in CODES
            ]
            moved = [move for move in moves if move[0] > 0]
            largest = max(moved, default=(0, ""))
            lines.append(
                f"| {name} | {level} | {len(moved)} of {len(moves)} | {sum(m == 1 for m, _ in moved)} | "
                f"{sum(2 <= m <= 4 for m, _ in moved)} | {sum(m >= 5 for m, _ in moved)} | "
                + (f"{largest[0]} ({largest[1]})" if moved else "-")
                + " |"
            )
    lines.append("")
    return lines


def levels_table(columns: dict[str, np.ndarray], present: np.ndarray) -> list[str]:
    """Story level against system level, per criterion, on the project's generated stories (failures out): the
    workers left out one at a time, the figure's workers against a mean that includes them, and the 20 judges
    against the mean of the three workers (as logged) and against the leave-one-out means (the workers' footing)."""
    lines = [
        "## Story level against system level (our 909 generated stories, failures out)",
        "",
        "| criterion | level | worker vs other two | worker vs all three | judges vs all three: median (min-max) | "
        "judges vs other two: median |",
        "|---|---|---|---|---|---|",
    ]
    for code, criterion in zip(CODES, CRITERIA, strict=True):
        human = columns[criterion]
        for level in LEVELS:
            loo = np.mean(
                [tau(columns[f"Human {k} {code}"], columns[f"Human Avg {k} {code}"], present, level) for k in WORKERS]
            )
            with_self = np.mean([tau(columns[f"Human {k} {code}"], human, present, level) for k in WORKERS])
            judged, footing = [], []
            for judge in ALL_JUDGES:
                for prompt in PROMPTS:
                    values = columns[f"{judge} {code} {prompt}"]
                    keep = present & (values >= 1) & (values <= 5)
                    judged.append(tau(values, human, keep, level))
                    footing.append(
                        np.mean([tau(values, columns[f"Human Avg {k} {code}"], keep, level) for k in WORKERS])
                    )
            lines.append(
                f"| {criterion} | {level} | {loo:.3f} | {with_self:.3f} | {np.median(judged):.3f} "
                f"({min(judged):.3f} to {max(judged):.3f}) | {np.median(footing):.3f} |"
            )
    lines.append("")
    return lines


def check_logs(folder: Path, columns: dict[str, np.ndarray], items: dict[int, dict]) -> list[str]:
    """Every logged per-criterion correlation of the recorded HANNA runs under ``folder`` against this script's
    recomputation on the log's own items (values off 1-5 left out, and counted)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    by_id = {row["id"]: (story, row) for story, row in items.items()}
    checked, mismatches, runs = 0, [], 0
    for info in list_eval_logs(str(folder), recursive=True):
        log = read_eval_log(info.name)
        recorded = (log.eval.metadata or {}).get("recorded")
        if log.status != "success" or not recorded or not log.eval.task.startswith("adherence_hanna"):
            continue
        judge, prompt = recorded["judge"], recorded["prompt"]
        metrics = {name: metric.value for score in log.results.scores for name, metric in score.metrics.items()}
        ids = [str(sample.id) for sample in log.samples or []]
        runs += 1
        failures = 0
        for code, criterion in zip(CODES, CRITERIA, strict=True):
            values = columns[f"{judge} {code} {prompt}"]
            stories = [by_id[sample][0] for sample in ids]
            judged = np.array([values[story // STORIES, story % STORIES] for story in stories])
            human = np.array([by_id[sample][1]["criteria"][criterion.lower()] for sample in ids])
            systems = [by_id[sample][1]["meta"]["system"] for sample in ids]
            keep = (judged >= 1) & (judged <= 5)
            failures += int((~keep).sum())
            names = sorted(set(systems))
            kept = [system for system, flag in zip(systems, keep, strict=True) if flag]
            judge_means = [judged[keep][[s == name for s in kept]].mean() for name in names]
            human_means = [human[keep][[s == name for s in kept]].mean() for name in names]
            expected = {
                f"pearson/{criterion.lower()}": stats.pearsonr(judged[keep], human[keep]).statistic,
                f"kendall/{criterion.lower()}": stats.kendalltau(judged[keep], human[keep]).statistic,
                f"system_tau/{criterion.lower()}": stats.kendalltau(judge_means, human_means).statistic,
            }
            for name, value in expected.items():
                checked += 1
                if not math.isclose(metrics.get(name, math.nan), float(value), rel_tol=1e-9, abs_tol=1e-12):
                    mismatches.append(f"{judge} {prompt} {name}: logged {metrics.get(name)}, recomputed {value}")
        checked += 1
        if metrics.get("parse_failures") != failures:
            mismatches.append(
                f"{judge} {prompt} parse_failures: logged {metrics.get('parse_failures')}, off-scale {failures}"
            )
    return [
        "## Logged metrics against the recomputation",
        "",
        f"{runs} runs, {checked} values checked (pearson, kendall and system_tau per criterion, parse_failures): "
        + (
            f"{len(mismatches)} differ: " + "; ".join(mismatches[:10])
            if mismatches
            else "all equal (relative tolerance 1e-9)."
        ),
        "",
    ]


def main() -> None:
    parse = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parse.add_argument("--csv", default=str(DATA / "recorded" / "hanna_llm" / "hanna_metric_scores_llm.csv"))
    parse.add_argument("--items", default=str(DATA / "human" / "hanna"), help="the project's HANNA items")
    parse.add_argument("--logs", help="a folder with the logs of the 20 recorded runs, to check")
    args = parse.parse_args()
    systems, columns = read_file(Path(args.csv))
    items = read_items(Path(args.items))
    present = np.zeros((len(systems), STORIES), dtype=bool)
    for story, row in items.items():
        assert systems[story // STORIES] == row["meta"]["system"], f"Story ID {story}: not the file's system"
        present[story // STORIES, story % STORIES] = True
    lines = reproduction(columns, present) + levels_table(columns, present)
    if args.logs:
        lines += check_logs(Path(args.logs), columns, items)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
