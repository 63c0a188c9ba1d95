"""Response styles of judges (the DHP paper's Figure 2), read from finished DHP eval logs.

For each judge and perturbation: the distribution of each text's score averaged over the metrics, for
the originals and for their perturbed copies, and the Pearson correlation between the two over the
paired items. Written as a table (stdout, and CSV with ``--table``) and a PNG plot.
"""

from __future__ import annotations

import argparse
import csv
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import stats

from scorers.values import as_float


@dataclass(frozen=True)
class StyleRow:
    judge: str
    task: str
    perturbation: str
    n_pairs: int
    mean_original: float
    mean_perturbed: float
    pearson: float


def averaged_scores(log_path: str | Path) -> tuple[str, str, dict[str, dict[str, float]]]:
    """(judge, task, perturbation -> item -> score averaged over the metrics that parsed)."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(log_path))
    if not log.samples:
        raise ValueError(f"{log_path}: the log has no samples")
    metrics = (log.eval.metadata or {}).get("metrics")
    if not metrics:
        raise ValueError(f"{log_path}: not a DHP log (its task metadata names no metrics)")
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
    return log.eval.model, log.eval.task, by_variant


def style_rows(judge: str, task: str, by_variant: dict[str, dict[str, float]]) -> list[StyleRow]:
    originals = by_variant.get("original", {})
    rows = []
    for perturbation, scores in sorted(by_variant.items()):
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
                judge,
                task,
                perturbation,
                len(items),
                float(original.mean()) if items else math.nan,
                float(perturbed.mean()) if items else math.nan,
                pearson,
            )
        )
    return rows


def plot(styles: Sequence[tuple[str, str, dict[str, dict[str, float]]]], output: str | Path) -> None:
    """One row of panels per judge, one panel per perturbation: original vs perturbed score histograms."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    perturbations = sorted({p for _, _, by in styles for p in by if p != "original"})
    fig, axes = plt.subplots(
        len(styles),
        max(len(perturbations), 1),
        figsize=(3 * max(len(perturbations), 1), 2.6 * len(styles)),
        squeeze=False,
        sharex=True,
    )
    bins = np.linspace(1, 5, 17)
    for row, (judge, task, by_variant) in enumerate(styles):
        originals = by_variant.get("original", {})
        for column, perturbation in enumerate(perturbations):
            ax = axes[row][column]
            perturbed = by_variant.get(perturbation, {})
            ax.hist(list(originals.values()), bins=bins, alpha=0.6, label="original", color="tab:blue")
            ax.hist(list(perturbed.values()), bins=bins, alpha=0.6, label="perturbed", color="tab:red")
            pearson = style_rows(judge, task, {"original": originals, perturbation: perturbed})[0].pearson
            rho = "n/a" if math.isnan(pearson) else f"{pearson:.2f}"
            ax.set_title(f"{perturbation}\nρ = {rho}", fontsize=8)
            if column == 0:
                ax.set_ylabel(judge, fontsize=8)
    axes[0][0].legend(fontsize=7)
    fig.suptitle(f"Response styles ({styles[0][1]}): mean score over metrics", fontsize=10)
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="dhp-styles", description="Response-style table and plot from DHP eval logs.")
    parser.add_argument("logs", nargs="+", help="inspect eval logs of DHP tasks (one per judge)")
    parser.add_argument("--plot", default="response_styles.png", help="PNG file to write (default response_styles.png)")
    parser.add_argument("--table", help="also write the table as CSV here")
    args = parser.parse_args(argv)
    styles = [averaged_scores(path) for path in args.logs]
    rows = [row for judge, task, by_variant in styles for row in style_rows(judge, task, by_variant)]
    header = ("judge", "task", "perturbation", "n_pairs", "mean_original", "mean_perturbed", "pearson")
    print("\t".join(header))
    for row in rows:
        print(
            "\t".join(
                str(getattr(row, name)) if isinstance(getattr(row, name), (str, int)) else f"{getattr(row, name):.3f}"
                for name in header
            )
        )
    if args.table:
        with open(args.table, "w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(header)
            writer.writerows([[getattr(row, name) for name in header] for row in rows])
    plot(styles, args.plot)
    print(f"plot written to {args.plot}")


if __name__ == "__main__":
    main()
