"""Writing the report: Markdown, CSV, JSON, and one self-contained HTML page (figures embedded as PNG) from the
Jinja2 template ``templates/report.html.jinja``."""

from __future__ import annotations

import base64
import csv
import io
import json
import math
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from judge_report.plots import Figure
from judge_report.tables import Cell, Report, Table

FLAG_NOTE = (
    "⚠ N% unparsed: more than {:.0%} (--flag-parse-failures) of the judge's answers in that run did not parse; "
    "they are left out of its statistics."
)


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def markdown_table(table: Table) -> str:
    """A table as Markdown, cells as :meth:`Cell.text` writes them."""
    header = [*table.index, *table.columns]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table.rows:
        cells = [table.cells.get((row, column)) for column in table.columns]
        lines.append("| " + " | ".join([*row, *("" if cell is None else cell.text() for cell in cells)]) + " |")
    return "\n".join(lines)


def markdown(report: Report, figures: list[Figure], flag: float) -> str:
    """``report.md``: the leaderboard, the flag's meaning, the paper tables, the figures and the notes."""
    parts = ["# Judge report", "", f"## {report.leaderboard.title}", "", markdown_table(report.leaderboard), ""]
    parts += [FLAG_NOTE.format(flag), ""]
    for table in report.paper_tables:
        parts += [f"## {table.title}", "", markdown_table(table), ""]
    if figures:
        parts += ["## Figures", ""] + [f"![{figure.title}](plots/{figure.stem}.png)" for figure in figures] + [""]
    if report.notes:
        parts += ["## Notes", ""] + [f"- {note}" for note in report.notes] + [""]
    parts += ["## Runs", ""] + [
        f"- {run.judge} · {run.task} (config {config}, version {run.task_version}): {run.location}"
        for run, _, config in report.runs
    ]
    return "\n".join(parts) + "\n"


def write_leaderboard_csv(report: Report, path: Path) -> None:
    """One line per judge and leaderboard column, with the interval, the parse-failure rate and the log."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "judge",
                "suite",
                "task",
                "config",
                "metric",
                "value",
                "ci_low",
                "ci_high",
                "parse_failure_rate",
                "flagged",
                "log",
            ]
        )
        for row in report.leaderboard.rows:
            for info in report.leaderboard.column_info:
                cell = report.leaderboard.cells.get((row, info.label))
                if cell is None:
                    continue
                low, high = cell.ci if cell.ci else ("", "")
                writer.writerow(
                    [
                        row[0],
                        info.suite,
                        info.task,
                        info.config,
                        info.metric,
                        cell.value,
                        low,
                        high,
                        cell.parse_failure_rate,
                        cell.flagged,
                        cell.location,
                    ]
                )


def write_table_csv(table: Table, path: Path) -> None:
    """A paper table as CSV, values and intervals in their own columns."""
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
        "rows": [
            {
                "labels": list(row),
                "cells": {c: _cell_json(table.cells[(row, c)]) for c in table.columns if (row, c) in table.cells},
            }
            for row in table.rows
        ],
    }


def report_json(report: Report, style_rows: list[dict]) -> dict:
    """Every run, cell, interval, flag and note of the report as plain data."""
    return {
        "leaderboard": _table_json(report.leaderboard),
        "columns": [vars(info) for info in report.leaderboard.column_info],
        "paper_tables": [_table_json(table) for table in report.paper_tables],
        "configs": report.configs,
        "runs": [
            {
                "judge": run.judge,
                "model": run.model,
                "model_args": dict(run.model_args),
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
        "response_styles": [{k: (_number(v) if isinstance(v, float) else v) for k, v in r.items()} for r in style_rows],
        "notes": report.notes,
    }


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


def _html_cell(cell: Cell) -> dict[str, str]:
    """A value cell as the page shows it: sortable by ``data-value``, its unparsed share and log in its tooltip."""
    return {
        "value": "" if math.isnan(cell.value) else repr(cell.value),
        "css": "flagged" if cell.flagged else "",
        "title": f"parse failures {cell.parse_failure_rate:.1%}; {cell.location}",
        "text": cell.text(),
    }


def html_table(table: Table) -> dict:
    """A table as the page template takes it: header names, and per row its labels and its cells (``None``:
    no value)."""
    return {
        "title": table.title,
        "header": [*table.index, *table.columns],
        "rows": [
            {
                "labels": list(row),
                "cells": [
                    _html_cell(table.cells[(row, column)]) if (row, column) in table.cells else None
                    for column in table.columns
                ],
            }
            for row in table.rows
        ],
    }


def html_page(report: Report, figures: list[Figure], flag: float) -> str:
    """``report.html``: one self-contained page with the tables, the embedded figures and the notes."""
    return _PAGE.render(
        leaderboard=html_table(report.leaderboard),
        flag_note=FLAG_NOTE.format(flag),
        paper_tables=[html_table(table) for table in report.paper_tables],
        figures=[{"title": f.title, "png": base64.b64encode(png_bytes(f)).decode()} for f in figures],
        notes=report.notes,
        runs=[
            {"judge": run.judge, "task": run.task, "config": config, "location": run.location}
            for run, _, config in report.runs
        ],
    )


def write_json(data: dict, path: Path) -> None:
    """The report data as indented JSON; values JSON has no type for are written as text."""
    path.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
