"""The report's figures, drawn with matplotlib from the paper tables (and, for response styles, the DHP samples)."""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from coeval_tasks.report import RATER_AND_TASK
from judge_report.tables import Cell, Report, Table
from scorers.agreement import JUDGE


@dataclass(frozen=True)
class Figure:
    """A drawn figure and the names it is saved and shown under."""

    name: str
    title: str
    figure: Any
    """A matplotlib figure."""

    @property
    def stem(self) -> str:
        """The figure's file name without extension: letters, digits, ``._-`` only."""
        return re.sub(r"[^A-Za-z0-9._-]+", "_", self.name).strip("_")


SVG_ID_SALT = "judge-report"
"""Seeds the element ids matplotlib writes into an SVG, which are random otherwise."""


def save_figure(figure: Figure, path: Path) -> None:
    """Write a figure to ``path`` (its suffix the format): an SVG without its creation date and with fixed element
    ids, so the same report writes the same bytes, as its PNGs and tables do."""
    import matplotlib

    with matplotlib.rc_context({"svg.hashsalt": SVG_ID_SALT}):
        figure.figure.savefig(path, dpi=110, metadata={"Date": None} if path.suffix == ".svg" else None)


def _wrapped(label: str, width: int = 45) -> str:
    """Judge names carry their model arguments; wrap them so the axes keep their room."""
    return textwrap.fill(label, width, break_long_words=True)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def heatmap(
    title: str,
    rows: Sequence[str],
    columns: Sequence[str],
    values: np.ndarray,
    colour_label: str = "D",
    value_range: tuple[float, float] | None = None,
    absent: np.ndarray | None = None,
):
    """A grid of values with their numbers written in, NaN cells uncoloured and marked n/a.

    ``value_range`` fixes the colour scale (default: 0 to the largest value, at least 2, DHP's D); cells where
    ``absent`` is true hold no statistic at all and are left empty.
    """
    plt = _pyplot()
    height = 0.5 * sum(_wrapped(row).count("\n") + 1 for row in rows) + 2.2
    fig, ax = plt.subplots(figsize=(max(6.0, 1.1 * len(columns) + 3) + 3, height))
    finite = values[np.isfinite(values)]
    low, high = value_range or (0.0, max(2.0, float(finite.max())) if finite.size else 2.0)
    image = ax.imshow(np.ma.masked_invalid(values), cmap="viridis", vmin=low, vmax=high, aspect="auto")
    ax.set_xticks(range(len(columns)), columns, rotation=35, ha="right", fontsize=8)
    ax.set_yticks(range(len(rows)), [_wrapped(row) for row in rows], fontsize=7)
    for (i, j), value in np.ndenumerate(values):
        if absent is not None and absent[i, j]:
            continue
        text = "n/a" if math.isnan(value) else f"{value:.2f}"
        colour = "white" if value < (low + high) / 2 else "black"
        ax.text(j, i, text, ha="center", va="center", fontsize=7, color=colour)
    fig.colorbar(image, ax=ax, label=colour_label)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def grouped_bars(title: str, categories: Sequence[str], series: Mapping[str, Sequence[Cell | None]], ylabel: str):
    """One group of bars per category, one bar per series, with the confidence interval as an error bar."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(categories) * max(len(series), 1) + 2), 4.2))
    width = 0.8 / max(len(series), 1)
    positions = np.arange(len(categories))
    for index, (name, cells) in enumerate(series.items()):
        values = np.array([math.nan if cell is None else cell.value for cell in cells])
        lower = np.array(
            [0.0 if cell is None or cell.ci is None else max(cell.value - cell.ci[0], 0) for cell in cells]
        )
        upper = np.array(
            [0.0 if cell is None or cell.ci is None else max(cell.ci[1] - cell.value, 0) for cell in cells]
        )
        ax.bar(
            positions + index * width - 0.4 + width / 2,
            np.nan_to_num(values),
            width,
            yerr=np.nan_to_num(np.vstack([lower, upper])),
            capsize=2,
            label=_wrapped(name, 70),
        )
    ax.set_xticks(positions, categories, rotation=35, ha="right", fontsize=8)
    ax.set_ylabel(ylabel)
    ax.axhline(0, color="black", linewidth=0.5)
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    return fig


def _split_column(label: str) -> tuple[str, str]:
    judge, _, column = label.rpartition(" · ")
    return judge, column


def dhp_heatmaps(table: Table) -> Iterator[Figure]:
    """D per perturbation per judge, one heatmap per DHP task (and setting)."""
    for task in dict.fromkeys(row[1] for row in table.rows):
        rows = [row for row in table.rows if row[1] == task]
        columns = [c for c in table.columns if c not in ("D_avg", "D_min") and any((r, c) in table.cells for r in rows)]
        values = np.array(
            [[table.cells[(row, c)].value if (row, c) in table.cells else math.nan for c in columns] for row in rows]
        )
        yield Figure(
            f"dhp_heatmap_{task}",
            f"DHP {task}: D per perturbation",
            heatmap(
                f"DHP {task}: D per perturbation\n(D > 1: noticed at the 5 % level)",
                [row[0] for row in rows],
                columns,
                values,
            ),
        )


def fbi_bars(table: Table) -> Iterator[Figure]:
    """Failure rate per category with its bootstrap interval, judges side by side, one figure per task."""
    by_task: dict[str, list[str]] = {}
    for label in table.columns:
        by_task.setdefault(_split_column(label)[1], []).append(label)
    for task, labels in by_task.items():
        categories = [row for row in table.rows if any((row, label) in table.cells for label in labels)]
        series = {_split_column(label)[0]: [table.cells.get((row, label)) for row in categories] for label in labels}
        yield Figure(
            f"fbi_bars_{task}",
            f"FBI {task}: failure rate per category",
            grouped_bars(
                f"FBI {task}: failure rate per category (95 % CI)", [row[0] for row in categories], series, "error rate"
            ),
        )


def adherence_group_bars(table: Table) -> Iterator[Figure]:
    """Pearson per taxonomy group, one bar per judge and setting."""
    groups = list(dict.fromkeys(row[1] for row in table.rows))
    series: dict[str, list[Cell | None]] = {}
    for judge in dict.fromkeys(row[0] for row in table.rows):
        for setting in table.columns:
            cells = [table.cells.get(((judge, group), setting)) for group in groups]
            if any(cell is not None for cell in cells):
                series[f"{judge} · {setting}"] = cells
    yield Figure(
        "adherence_groups",
        "Adherence: Pearson per taxonomy group",
        grouped_bars("Adherence: Pearson with the humans per taxonomy group", groups, series, "Pearson (oriented)"),
    )


def per_judge_bars(name: str, title: str, table: Table) -> Iterator[Figure]:
    """One bar per judge and row label for each column (CoEval's CC, ICC, coverage; correlations per criterion)."""
    rows = list(dict.fromkeys(row[1] for row in table.rows))
    for column in table.columns:
        series = {
            judge: [table.cells.get(((judge, row), column)) for row in rows]
            for judge in dict.fromkeys(row[0] for row in table.rows)
        }
        yield Figure(f"{name}_{column}", f"{title}: {column}", grouped_bars(f"{title}: {column}", rows, series, column))


def alpha_pair_heatmaps(table: Table, level: str) -> Iterator[Figure]:
    """Krippendorff's α per pair of raters as the paper draws it, one symmetric matrix per judge and task: the
    judge first, then the annotators in sorted order (as the metrics name them), the diagonal left empty."""
    by_matrix: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
    for row, column in table.cells:
        judge, (first, _, task) = row[0], row[1].rpartition(RATER_AND_TASK)
        by_matrix.setdefault((judge, task), {})[(first, column)] = table.cells[(row, column)].value
    for (judge, task), pairs in by_matrix.items():
        raters = sorted({rater for pair in pairs for rater in pair}, key=lambda rater: (rater != JUDGE, rater))
        values = np.array([[pairs.get((a, b), pairs.get((b, a), math.nan)) for b in raters] for a in raters])
        finite = values[np.isfinite(values)]
        yield Figure(
            f"{table.name}_{task}_{judge}",
            f"CoEval {task}: Krippendorff's alpha per pair of raters ({level}), {judge}",
            heatmap(
                f"CoEval {task}: Krippendorff's α per pair of raters ({level})\n{_wrapped(judge, 70)}",
                raters,
                raters,
                values,
                colour_label="Krippendorff's α",
                value_range=(min(0.0, float(finite.min())) if finite.size else 0.0, 1.0),
                absent=np.eye(len(raters), dtype=bool),
            ),
        )


def report_figures(report: Report) -> Iterator[Figure]:
    """Every figure the report's tables call for, suite by suite."""
    tables = {table.name: table for table in report.paper_tables}
    if "dhp_d_by_perturbation" in tables:
        yield from dhp_heatmaps(tables["dhp_d_by_perturbation"])
    if "fbi_failure_rate_by_category" in tables:
        yield from fbi_bars(tables["fbi_failure_rate_by_category"])
    if "adherence_groups" in tables:
        yield from adherence_group_bars(tables["adherence_groups"])
    if "coeval_table1" in tables:
        yield from per_judge_bars("coeval_criteria", "CoEval criteria", tables["coeval_table1"])
    if "coeval_alpha_pairs" in tables:
        yield from alpha_pair_heatmaps(tables["coeval_alpha_pairs"], "item × criterion units")
    if "coeval_alpha_pairs_overall" in tables:
        yield from alpha_pair_heatmaps(tables["coeval_alpha_pairs_overall"], "overall score")


def response_style_figures(report: Report) -> tuple[list[Figure], list[dict]]:
    """The DHP response-style histograms per task (the former ``dhp-styles``) and their table rows."""
    from judge_report.styles import averaged_scores, plot_styles, style_rows

    by_task: dict[str, list] = {}
    for run, view, config in report.runs:
        if view.name != "dhp" or run.harness != "inspect":
            continue
        styles = averaged_scores(run.location, report.name_of(run))
        if styles is not None:
            tag = f" [config {config}]" if len(report.configs[run.task]) > 1 else ""
            by_task.setdefault(f"{run.task}{tag}", []).append(styles)
    figures: list[Figure] = []
    rows: list[dict] = []
    for task, judged in by_task.items():
        figures.append(Figure(f"dhp_styles_{task}", f"Response styles: {task}", plot_styles(judged, task)))
        rows.extend(vars(row) | {"task": task} for style in judged for row in style_rows(style))
    return figures, rows
