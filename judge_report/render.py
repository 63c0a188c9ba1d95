"""Writing the report: Markdown, CSV, JSON, and one self-contained HTML page (figures embedded as PNG) from the
Jinja2 template ``templates/report.html.jinja``."""

from __future__ import annotations

import base64
import csv
import io
import json
import math
from collections.abc import Mapping
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from judge_report.costs import PER, Costs, judges_with_costs
from judge_report.plots import Figure
from judge_report.tables import Cell, Report, Table
from scorers.paired import BOOTSTRAP_TEST, MCNEMAR, RANK_RULE

LEADERBOARD_NOTE = (
    "Each headline is a judge's mean over the suite's tasks of that kind; ↑/↓: higher/lower is better. Its interval "
    "is where the headline falls for 95 % of data sets of this size drawn like these items (a pooled one resamples "
    "the items of every task jointly); for DHP's D_avg, which grows with the number of texts, it is the spread of D "
    "at this number of texts, not the range a re-run's D falls in (docs/intervals.md says how often one does). "
    "#N: the judge's rank, {}. ⚠: a run with too many unparsed answers (see the suite tables). Rows named "
    "reference: are yardsticks computed from the data, never ranked."
).format(RANK_RULE)

FLAG_NOTE = (
    "⚠ N% unparsed: more than {:.0%} (--flag-parse-failures) of the judge's answers in that run did not parse; "
    "they are left out of its statistics."
)


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _aligned(rows: list[list[str]]) -> str:
    """Rows as a Markdown table whose columns line up in a terminal (the first row is the header)."""
    widths = [max(len(row[index]) for row in rows) for index in range(len(rows[0]))]
    lines = [
        "| " + " | ".join(text.ljust(width) for text, width in zip(row, widths, strict=True)) + " |" for row in rows
    ]
    lines.insert(1, "|" + "|".join("-" * (width + 2) for width in widths) + "|")
    return "\n".join(lines)


def markdown_table(table: Table) -> str:
    """A table as Markdown, cells as :meth:`Cell.text` writes them."""
    rows = [[*table.index, *table.columns]]
    for row in table.rows:
        cells = [table.cells.get((row, column)) for column in table.columns]
        rows.append([*row, *("" if cell is None else cell.text() for cell in cells)])
    return _aligned(rows)


LEADERBOARD_DIGITS = 2
"""Decimals of the Markdown leaderboard, so that three judges with their intervals fit a 100-column terminal."""


def markdown_leaderboard(table: Table) -> str:
    """The leaderboard for a terminal: judges numbered best first on the sort column, a column each; a line per
    headline under its suite's name, each value with its interval (⚠: a run with too many unparsed answers)."""
    judges = [row[0] for row in table.rows if row not in table.references]
    ranking = f"Judges, best first on {table.sorted_by}:" if table.sorted_by else "Judges:"
    legend = [ranking, *(f"{number}. {judge}" for number, judge in enumerate(judges, start=1)), ""]
    rows = [["headline", *(str(number) for number in range(1, len(judges) + 1))]]
    suite = None
    for info in table.column_info:
        if info.suite != suite:
            suite = info.suite
            rows.append([suite, *("" for _ in judges)])
        cells = [table.cells.get(((judge,), info.label)) for judge in judges]
        texts = ["" if cell is None else cell.text(LEADERBOARD_DIGITS, compact=True) for cell in cells]
        headline = info.label.removeprefix(f"{suite} ")
        rows.append([f"  {headline} {'↑' if info.higher_is_better else '↓'}", *texts])
    return "\n".join(legend) + "\n" + _aligned(rows)


def markdown_references(report: Report) -> str:
    """The references of every leaderboard column: value, the range such a judge falls in, how it is computed."""
    rows = [["headline", "reference", "value", "how"]]
    for reference in report.references:
        cell = Cell(
            reference.value,
            None if math.isnan(reference.ci_low) else (reference.ci_low, reference.ci_high),
            math.nan,
            False,
            "",
        )
        rows.append([reference.column, reference.reference, cell.text(LEADERBOARD_DIGITS), reference.note])
    return _aligned(rows)


def short_test_name(test: str) -> str:
    """A comparison's test as its table column names it."""
    return "McNemar" if test == MCNEMAR else "t (resampled)"


def markdown_comparisons(report: Report) -> str:
    """Every pair of judges compared on a leaderboard column: a - b, its interval, p and Holm-adjusted p."""
    rows = [["headline", "a", "b", "a - b", "95 % interval", "p", "p (Holm)", "items", "test"]]
    for row in report.comparisons:
        rows.append(
            [
                row.column,
                row.a,
                row.b,
                f"{row.difference:.3f}",
                f"[{row.ci_low:.3f}, {row.ci_high:.3f}]",
                f"{row.p:.3g}",
                f"{row.p_adjusted:.3g}",
                str(row.n_items),
                short_test_name(row.test),
            ]
        )
    return _aligned(rows)


COMPARISONS_NOTE = (
    "Each pair of judges on the items both answered: a - b of the headline, its 95 % interval from item resamples "
    "drawn once for both judges and every pooled task (re-centred percentile), and the p-value of no difference on "
    "the same items: {} where one task's per-item outcomes are 0/1 (FBI failures), otherwise the {}. p (Holm): "
    "adjusted over all pairs of the headline; items: those both answered."
).format(MCNEMAR, BOOTSTRAP_TEST)


def markdown_judges(report: Report, costs: Costs | None = None) -> str:
    """The judges table: each short name with its model, harnesses and every model argument, and with ``costs`` its
    cost and speed per 1,000 judgments over every suite."""
    rows = [["judge", "model", "harness", "model arguments"] + ([COST_COLUMN] if costs else [])]
    per_judge = judges_with_costs(costs, (judge.name for judge in report.judges.values())) if costs else {}
    for judge in report.judges.values():
        arguments = ", ".join(f"{name}={value}" for name, value in sorted(judge.model_args.items()))
        row = [judge.name, judge.model, judge.harness_text, arguments or "none"]
        rows.append(row + ([per_judge[judge.name]] if costs else []))
    return _aligned(rows)


COST_COLUMN = f"per {PER:,} judgments"
"""The judges table's column of cost and speed."""

COSTS_TITLE = f"Cost and speed per {PER:,} judgments"

COSTS_NOTE = (
    "A judgment is one answer of the judge. Tokens in and out are those the provider reported for the requests it "
    "answered, per 1,000 of their judgments; judgments served from the request cache (a resumed run's) are counted "
    "apart and never paid; seconds are each run's wall time per 1,000 judgments it made; $ at the prices given "
    "(--price-in/--price-out or --prices), per 1,000 paid judgments."
)


def markdown(report: Report, figures: list[Figure], flag: float, costs: Costs | None = None) -> str:
    """``report.md``: the leaderboard, the judges (with ``costs``, their cost and speed), the flag's meaning, each
    suite's table, the paper tables, the figures and the notes."""
    parts = ["# Judge report", "", f"## {report.leaderboard.title}", "", markdown_leaderboard(report.leaderboard)]
    parts += ["", LEADERBOARD_NOTE, ""]
    if report.references:
        parts += ["### References (not ranked)", "", markdown_references(report), ""]
    if report.comparisons:
        parts += ["### Judges compared", "", markdown_comparisons(report), "", COMPARISONS_NOTE, ""]
    parts += ["The tasks each headline pools:", ""]
    parts += [f"- {info.label}: {info.tasks_text}" for info in report.leaderboard.column_info] + [""]
    parts += ["## Judges", "", markdown_judges(report, costs), "", FLAG_NOTE.format(flag), ""]
    if costs and costs.rows:
        parts += [f"## {COSTS_TITLE}", "", costs.markdown(), "", COSTS_NOTE, ""]
        parts += [f"- {note}" for note in costs.notes] + ([""] if costs.notes else [])
    for table in [*report.suite_tables, *report.paper_tables]:
        parts += [f"## {table.title}", "", markdown_table(table), ""]
    if figures:
        parts += ["## Figures", ""] + [f"![{figure.title}](plots/{figure.stem}.png)" for figure in figures] + [""]
    if report.notes:
        parts += ["## Notes", ""] + [f"- {note}" for note in report.notes] + [""]
    parts += ["## Runs", ""] + [
        f"- {report.name_of(run)} · {run.task} (config {config}, version {run.task_version}): {run.location}"
        for run, _, config in report.runs
    ]
    return "\n".join(parts) + "\n"


def write_columns_csv(table: Table, path: Path) -> None:
    """The leaderboard or a suite table, one line per judge and column: the value, its interval, how many runs it
    pools and over which tasks, the unparsed share and the logs."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "judge",
                "column",
                "suite",
                "kind",
                "metric",
                "tasks",
                "value",
                "ci_low",
                "ci_high",
                "runs_pooled",
                "rank_group",
                "reference",
                "parse_failure_rate",
                "flagged",
                "log",
            ]
        )
        for row in table.rows:
            for info in table.column_info:
                cell = table.cells.get((row, info.label))
                if cell is None:
                    continue
                low, high = cell.ci if cell.ci else ("", "")
                writer.writerow(
                    [
                        row[0],
                        info.label,
                        info.suite,
                        info.kind,
                        info.metric,
                        "; ".join(info.tasks),
                        cell.value,
                        low,
                        high,
                        cell.pooled or 1,
                        "" if cell.rank is None else cell.rank,
                        row in table.references,
                        cell.parse_failure_rate,
                        cell.flagged,
                        cell.location,
                    ]
                )


def write_table_csv(table: Table, path: Path) -> None:
    """A paper table as CSV, one column of values per table column."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([*table.index, *table.columns])
        for row in table.rows:
            cells = [table.cells.get((row, column)) for column in table.columns]
            writer.writerow([*row, *("" if cell is None else cell.value for cell in cells)])


def _cell_json(cell: Cell) -> dict:
    return {
        "value": _number(cell.value),
        "ci": None if cell.ci is None else [_number(bound) for bound in cell.ci],
        "rank_group": cell.rank,
        "parse_failure_rate": _number(cell.parse_failure_rate),
        "unparsed_answers": _number(cell.unparsed[0]),
        "answers": _number(cell.unparsed[1]),
        "flagged": cell.flagged,
        "log": cell.location,
    }


def _table_json(table: Table) -> dict:
    return {
        "name": table.name,
        "title": table.title,
        "index": table.index,
        "columns": table.columns,
        "column_info": [vars(info) for info in table.column_info],
        "rows": [
            {
                "labels": list(row),
                "reference": row in table.references,
                "cells": {c: _cell_json(table.cells[(row, c)]) for c in table.columns if (row, c) in table.cells},
            }
            for row in table.rows
        ],
    }


def report_json(report: Report, style_rows: list[dict], costs: Costs | None = None) -> dict:
    """Every judge, run, cell, interval, flag and note of the report as plain data (with ``costs``, the cost and
    speed per judge and suite under ``costs``). One literal, laid out as the file's readers see it: long for that
    reason."""
    data = {
        "leaderboard": _table_json(report.leaderboard),
        "judges": [
            {
                "name": judge.name,
                "identity": judge.identity,
                "model": judge.model,
                "model_args": dict(judge.model_args),
                "harnesses": list(judge.harnesses),
                "recorded": judge.recorded,
            }
            for judge in report.judges.values()
        ],
        "suite_tables": [_table_json(table) for table in report.suite_tables],
        "paper_tables": [_table_json(table) for table in report.paper_tables],
        "configs": report.configs,
        "runs": [
            {
                "judge": report.name_of(run),
                "identity": run.judge,
                "suite": view.name,
                "task": run.task,
                "task_version": run.task_version,
                "config": config,
                "harness": run.harness,
                "samples": run.samples,
                "created": run.created,
                "log": run.location,
                "metrics": {name: _number(value) for name, value in run.metrics.items()},
            }
            for run, view, config in report.runs
        ],
        "rank_rule": RANK_RULE,
        "comparisons": [
            {
                "column": row.column,
                "a": row.a,
                "b": row.b,
                "difference": _number(row.difference),
                "ci_low": _number(row.ci_low),
                "ci_high": _number(row.ci_high),
                "p": _number(row.p),
                "p_adjusted": _number(row.p_adjusted),
                "n_items": row.n_items,
                "test": row.test,
            }
            for row in report.comparisons
        ],
        "references": [
            {
                "column": row.column,
                "reference": row.reference,
                "value": _number(row.value),
                "ci_low": _number(row.ci_low),
                "ci_high": _number(row.ci_high),
                "note": row.note,
            }
            for row in report.references
        ],
        "response_styles": [{k: (_number(v) if isinstance(v, float) else v) for k, v in r.items()} for r in style_rows],
        "notes": report.notes,
    }
    if costs is not None:
        data["costs"] = costs.as_json()
    return data


def png_bytes(figure: Figure) -> bytes:
    """A figure as PNG bytes, for embedding in the self-contained HTML page."""
    buffer = io.BytesIO()
    figure.figure.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


_PAGE = Environment(
    loader=PackageLoader("judge_report", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
).get_template("report.html.jinja")
"""The page template; autoescape escapes every judge name, note and log path, so nothing here escapes by hand."""


def _html_cell(cell: Cell, compact: bool) -> dict[str, str]:
    """A value cell as the page shows it: sortable by ``data-value``, the interval under the value, its unparsed
    share, the runs it pools and their logs in its tooltip (``compact``: the leaderboard's decimals and the flag
    alone in the cell)."""
    digits = LEADERBOARD_DIGITS if compact else 3
    text = cell.value_text(digits)
    if cell.pooled is not None and not compact:
        text += f" (n={cell.pooled})"
    if cell.flagged:
        text += " ⚠" if compact else f" ⚠ {cell.flag_text()}"
    if cell.rank is not None:
        text += f" #{cell.rank}"
    pooled = f"the mean of {cell.pooled} runs; " if cell.pooled is not None else ""
    title = cell.note or f"{pooled}parse failures {cell.parse_failure_rate:.1%}; {cell.location}"
    return {
        "value": "" if math.isnan(cell.value) else repr(cell.value),
        "css": "flagged" if cell.flagged else "",
        "title": title,
        "text": text,
        "interval": cell.interval_text(digits),
    }


def html_table(table: Table, judges: Mapping[str, str], compact: bool = False) -> dict:
    """A table as the page template takes it: header names (with the tasks a pooled column covers as their
    tooltip), and per row its labels (a judge's with its full identity as tooltip) and its cells (``None``: no
    value). ``compact`` (the leaderboard): a header row of suites above their columns, named without the suite."""
    tasks = {info.label: info.tasks_text for info in table.column_info}
    groups: list[dict] = []
    names = {column: column for column in table.columns}
    if compact:
        for info in table.column_info:
            if groups and groups[-1]["name"] == info.suite:
                groups[-1]["span"] += 1
            else:
                groups.append({"name": info.suite, "span": 1})
            names[info.label] = f"{info.label.removeprefix(f'{info.suite} ')} {'↑' if info.higher_is_better else '↓'}"
    return {
        "title": table.title,
        "groups": [{"name": "", "span": len(table.index)}, *groups] if groups else [],
        "header": [{"name": name, "title": ""} for name in table.index]
        + [{"name": names[column], "title": tasks.get(column, "")} for column in table.columns],
        "rows": [
            {
                "reference": row in table.references,
                "labels": [{"text": label, "title": judges.get(label, "")} for label in row],
                "cells": [
                    _html_cell(table.cells[(row, column)], compact) if (row, column) in table.cells else None
                    for column in table.columns
                ],
            }
            for row in table.rows
        ],
    }


def html_page(report: Report, figures: list[Figure], flag: float, costs: Costs | None = None) -> str:
    """``report.html``: one self-contained page with the tables (with ``costs``, the judges' cost and speed), the
    embedded figures and the notes."""
    identities = {judge.name: judge.identity for judge in report.judges.values()}
    per_judge = judges_with_costs(costs, identities) if costs else {}
    return _PAGE.render(
        leaderboard=html_table(report.leaderboard, identities, compact=True),
        leaderboard_note=LEADERBOARD_NOTE,
        comparisons=[
            {
                "column": row.column,
                "a": row.a,
                "b": row.b,
                "difference": f"{row.difference:.3f}",
                "interval": f"[{row.ci_low:.3f}, {row.ci_high:.3f}]",
                "p": f"{row.p:.3g}",
                "p_adjusted": f"{row.p_adjusted:.3g}",
                "n_items": row.n_items,
                "test": short_test_name(row.test),
            }
            for row in report.comparisons
        ],
        comparisons_note=COMPARISONS_NOTE,
        judges=[
            {
                "name": judge.name,
                "model": judge.model,
                "harnesses": judge.harness_text,
                "arguments": [f"{name}={value}" for name, value in sorted(judge.model_args.items())],
                "costs": per_judge.get(judge.name, ""),
            }
            for judge in report.judges.values()
        ],
        cost_column=COST_COLUMN if costs else "",
        costs={
            "title": COSTS_TITLE,
            "rows": [
                [row.judge, row.suite, f"{row.usage.judgments:,}", f"{row.usage.cached:,}", *row.cells()]
                for row in costs.rows
            ],
            "notes": [COSTS_NOTE, *costs.notes],
        }
        if costs and costs.rows
        else None,
        flag_note=FLAG_NOTE.format(flag),
        suite_tables=[html_table(table, identities) for table in report.suite_tables],
        paper_tables=[html_table(table, identities) for table in report.paper_tables],
        figures=[{"title": f.title, "png": base64.b64encode(png_bytes(f)).decode()} for f in figures],
        notes=report.notes,
        runs=[
            {"judge": report.name_of(run), "task": run.task, "config": config, "location": run.location}
            for run, _, config in report.runs
        ],
    )


def write_json(data: dict, path: Path) -> None:
    """The report data as indented JSON; values JSON has no type for are written as text."""
    path.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
