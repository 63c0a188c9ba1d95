"""Response styles of judges (the DHP paper's Figure 2), read from the samples of finished DHP eval logs.

For each judge and perturbation: the distribution of each text's score averaged over the metrics, for the
originals and for their perturbed copies, and the Pearson correlation between the two over the paired items.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from scorers.values import as_float

STYLE_COLUMNS = ("judge", "task", "perturbation", "n_pairs", "mean_original", "mean_perturbed", "pearson")


@dataclass(frozen=True)
class Styles:
    """One judge's averaged scores on one DHP task: perturbation (``original`` included) -> item -> score."""

    judge: str
    task: str
    by_variant: dict[str, dict[str, float]]


@dataclass(frozen=True)
class StyleRow:
    """One judge's response style on one perturbation: its score distributions and how they relate."""

    judge: str
    task: str
    perturbation: str
    n_pairs: int
    mean_original: float
    mean_perturbed: float
    pearson: float


def averaged_scores(location: str, judge: str) -> Styles | None:
    """The log's per-item scores averaged over the metrics that parsed; ``None`` for logs without ratings
    (likelihood scoring) or without samples."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(location)
    metrics = (log.eval.metadata or {}).get("metrics")
    if not log.samples or not metrics or (log.eval.metadata or {}).get("scoring") == "perplexity":
        return None
    by_variant: dict[str, dict[str, float]] = {}
    for sample in log.samples:
        metadata = sample.metadata or {}
        if "item_id" not in metadata or not sample.scores:
            continue
        value = next(iter(sample.scores.values())).value
        ratings = [as_float(value.get(name)) for name in metrics] if isinstance(value, dict) else []
        finite = [rating for rating in ratings if not math.isnan(rating)]
        if finite:
            by_variant.setdefault(metadata["perturbation"], {})[metadata["item_id"]] = float(np.mean(finite))
    return Styles(judge, log.eval.task.split("/")[-1], by_variant)


def style_rows(styles: Styles) -> list[StyleRow]:
    """A judge's response styles, one row per perturbation, for the CSV table."""
    originals = styles.by_variant.get("original", {})
    rows = []
    for perturbation, scores in sorted(styles.by_variant.items()):
        if perturbation == "original":
            continue
        items = sorted(set(scores) & set(originals))
        original = np.array([originals[i] for i in items])
        perturbed = np.array([scores[i] for i in items])
        pearson = math.nan
        if len(items) >= 2 and original.std() > 0 and perturbed.std() > 0:
            pearson = float(stats.pearsonr(original, perturbed).statistic)
        rows.append(
            StyleRow(
                styles.judge,
                styles.task,
                perturbation,
                len(items),
                float(original.mean()) if items else math.nan,
                float(perturbed.mean()) if items else math.nan,
                pearson,
            )
        )
    return rows


def plot_styles(styles: Sequence[Styles], task: str):
    """One row of panels per judge, one panel per perturbation: original vs perturbed score histograms."""
    import matplotlib.pyplot as plt

    perturbations = sorted({p for style in styles for p in style.by_variant if p != "original"})
    columns = max(len(perturbations), 1)
    fig, axes = plt.subplots(len(styles), columns, figsize=(3 * columns, 2.6 * len(styles)), squeeze=False, sharex=True)
    bins = np.linspace(1, 5, 17)
    for row, style in enumerate(styles):
        originals = style.by_variant.get("original", {})
        by_perturbation = {r.perturbation: r for r in style_rows(style)}
        for column, perturbation in enumerate(perturbations):
            ax = axes[row][column]
            ax.hist(list(originals.values()), bins=bins, alpha=0.6, label="original", color="tab:blue")
            perturbed = style.by_variant.get(perturbation, {})
            ax.hist(list(perturbed.values()), bins=bins, alpha=0.6, label="perturbed", color="tab:red")
            found = by_perturbation.get(perturbation)
            rho = "n/a" if found is None or math.isnan(found.pearson) else f"{found.pearson:.2f}"
            ax.set_title(f"{perturbation}\nρ = {rho}", fontsize=8)
            if column == 0:
                ax.set_ylabel(textwrap.fill(style.judge, 30), fontsize=6)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"Response styles ({task}): mean score over metrics", fontsize=10)
    fig.tight_layout()
    return fig
