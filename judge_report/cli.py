"""``judge-report``: judges side by side from finished runs (inspect logs or log folders, lm-eval results JSON)."""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from judge_data import DataError
from judge_report.costs import Costs, judge_costs, read_prices
from judge_report.exports import write_exports
from judge_report.judges import parse_aliases
from judge_report.plots import Figure
from judge_report.published import add_published, read_published, shipped
from judge_report.render import (
    html_page,
    markdown,
    markdown_leaderboard,
    report_json,
    write_columns_csv,
    write_json,
    write_table_csv,
)
from judge_report.runs import read_runs
from judge_report.tables import DEFAULT_PARSE_FAILURE_FLAG, Report, build_report, order_like, sort_rows

FORMATS = ("md", "csv", "json", "html")
PLOT_FORMATS = ("png", "svg")


def _choices(value: str, allowed: tuple[str, ...], option: str) -> list[str]:
    chosen = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(chosen) - set(allowed))
    if unknown:
        raise DataError(f"{option}: unknown value(s) {unknown}; choose from {list(allowed)}")
    return chosen


def parser() -> argparse.ArgumentParser:
    """The command line of ``judge-report``."""
    parse = argparse.ArgumentParser(
        prog="judge-report",
        description="Leaderboard, the papers' tables, plots and leaderboard exports from finished judge runs.",
    )
    parse.add_argument("logs", nargs="+", help="inspect eval logs or log folders (e.g. an eval-set's), lm-eval results")
    parse.add_argument("--out", default="judge-report", help="output folder (default judge-report)")
    parse.add_argument("--format", default=",".join(FORMATS), help="comma list of md, csv, json, html (default all)")
    parse.add_argument("--plots", default=",".join(PLOT_FORMATS), help="comma list of png, svg, or none")
    parse.add_argument(
        "--sort", help="leaderboard column to rank judges by: its name or a part only it has (default: the first)"
    )
    parse.add_argument(
        "--alias",
        action="append",
        default=[],
        metavar="MODEL=NAME",
        help="show a judge under NAME (MODEL: its model name, or its full name with arguments); repeatable",
    )
    parse.add_argument(
        "--flag-parse-failures",
        type=float,
        default=DEFAULT_PARSE_FAILURE_FLAG,
        help="flag cells whose run has a larger share of unparsable judge answers (default 0.1)",
    )
    parse.add_argument("--no-styles", action="store_true", help="skip the DHP response styles (they read samples)")
    prices = parse.add_argument_group("cost per 1,000 judgments (tokens and seconds are always reported)")
    prices.add_argument("--price-in", type=float, help="$ per million prompt tokens, for every judge")
    prices.add_argument("--price-out", type=float, help="$ per million generated tokens, for every judge")
    prices.add_argument(
        "--prices",
        metavar="FILE",
        help='JSON or YAML prices by model name, {"openai/gpt-4o-mini": {"input": 0.15, "output": 0.6}} in $ per '
        "million tokens (a judge it does not name takes --price-in/--price-out)",
    )
    hub = parse.add_argument_group("publishing on the Hugging Face Hub (token: HF_TOKEN; another Hub: HF_ENDPOINT)")
    hub.add_argument(
        "--push-to-hub",
        metavar="OWNER/NAME",
        help="write the per-item results and report.json to this dataset, and the model-index and .eval_results "
        "entries to the model card of each judge that is a Hub model the token's account owns",
    )
    hub.add_argument(
        "--dry-run", action="store_true", help="with --push-to-hub: print what would be written, send nothing"
    )
    parse.add_argument(
        "--published",
        action="append",
        default=[],
        metavar="FILE",
        help="published values to show beside the measured ones, never ranked: a JSON file, or the name of one the "
        f"package ships ({', '.join(sorted(shipped()))}); repeatable",
    )
    return parse


def _figures(
    report: Report, plot_formats: Sequence[str], formats: Sequence[str], no_styles: bool, out: Path
) -> tuple[list[Figure], list[dict]]:
    """The report's figures (written in ``plot_formats``), and DHP's response-style rows; none, with a note, when
    matplotlib is not installed."""
    figures: list[Figure] = []
    style_rows: list[dict] = []
    if plot_formats or "html" in formats:
        if importlib.util.find_spec("matplotlib") is None:
            report.notes.append(
                "no plots: matplotlib is not installed (pip install 'judge-meta-eval[plots]' to draw them); "
                "every table is written"
            )
        else:
            from judge_report.plots import report_figures, response_style_figures, save_figure

            figures = list(report_figures(report))
            if not no_styles:
                style_figures, style_rows = response_style_figures(report)
                figures += style_figures
    (out / "plots").mkdir(exist_ok=True)
    for figure in figures:
        for extension in plot_formats:
            save_figure(figure, out / "plots" / f"{figure.stem}.{extension}")
    return figures, style_rows


def _write_tables(
    report: Report,
    out: Path,
    formats: Sequence[str],
    figures: list[Figure],
    style_rows: list[dict],
    costs: Costs,
    flag: float,
) -> dict:
    """The report in each of ``formats`` (Markdown, CSV tables, JSON, HTML); returns ``report.json``'s data."""
    if "md" in formats:
        (out / "report.md").write_text(markdown(report, figures, flag, costs), encoding="utf-8")
    if "csv" in formats:
        write_columns_csv(report.leaderboard, out / "leaderboard.csv")
        for table in report.suite_tables:
            write_columns_csv(table, out / "tables" / f"{table.name}.csv")
        for table in report.paper_tables:
            write_table_csv(table, out / "tables" / f"{table.name}.csv")
        if style_rows:
            with (out / "tables" / "dhp_response_styles.csv").open("w", newline="", encoding="utf-8") as handle:
                writer = csv.DictWriter(handle, fieldnames=list(style_rows[0]))
                writer.writeheader()
                writer.writerows(style_rows)
    data = report_json(report, style_rows, costs)
    if "json" in formats:
        write_json(data, out / "report.json")
    if "html" in formats:
        (out / "report.html").write_text(html_page(report, figures, flag, costs), encoding="utf-8")
    return data


def run(argv: list[str] | None = None) -> Path:
    """Build the report from the logs the arguments name; return the folder it was written to."""
    args = parser().parse_args(argv)
    formats = _choices(args.format, FORMATS, "--format")
    plot_formats = [] if args.plots == "none" else _choices(args.plots, PLOT_FORMATS, "--plots")
    prices = read_prices(args.prices, args.price_in, args.price_out)
    published = [read_published(name) for name in args.published]
    runs, skipped = read_runs(args.logs)
    if not runs:
        raise DataError(f"no successful runs found in {args.logs}" + (f" ({'; '.join(skipped)})" if skipped else ""))
    report = build_report(runs, args.flag_parse_failures, parse_aliases(args.alias))
    add_published(report, published)
    report.notes.extend(f"left out {reason}" for reason in skipped)
    sort_rows(report.leaderboard, args.sort)
    for table in report.suite_tables:
        order_like(table, report.leaderboard)
    costs = judge_costs(report, prices)
    out = Path(args.out)
    (out / "tables").mkdir(parents=True, exist_ok=True)

    figures, style_rows = _figures(report, plot_formats, formats, args.no_styles, out)
    data = _write_tables(report, out, formats, figures, style_rows, costs, args.flag_parse_failures)
    write_exports(report, out / "exports")
    print(markdown_leaderboard(report.leaderboard))
    recorded = {judge.name for judge in report.judges.values() if judge.recorded}
    for judge, row in costs.by_judge().items():
        if judge not in recorded:
            print(f"{judge}: {row.summary()} per 1,000 judgments")
    if recorded:
        print(f"{len(recorded)} recorded judge(s): their judgments were read from a file, so no cost or speed")
    for note in report.notes:
        print(f"note: {note}")
    print(f"report written to {out}")
    if args.push_to_hub:
        from judge_report.hub import publication, push

        pushed = publication(report, args.push_to_hub, json.dumps(data, indent=2, default=str).encode())
        print(pushed.describe() if args.dry_run else "\n".join(push(pushed)))
    elif args.dry_run:
        raise DataError("--dry-run goes with --push-to-hub (it prints what the push would write)")
    return out


def main(argv: list[str] | None = None) -> None:
    """``judge-report``: a bad input ends with one message naming it, not a traceback."""
    try:
        run(argv)
    except DataError as error:
        print(f"judge-report: {error}", file=sys.stderr)
        sys.exit(2)
    except OSError as error:
        print(f"judge-report: cannot write the report ({error}); give another folder with --out", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
