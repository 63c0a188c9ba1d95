"""Writing the report: Markdown, CSV, JSON, and one self-contained HTML page (figures embedded as PNG)."""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
from pathlib import Path

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


def html_table(table: Table) -> str:
    """A table as HTML: flagged cells marked, each cell's share of unparsed answers and its log in its tooltip."""
    header = "".join(f"<th>{html.escape(name)}</th>" for name in [*table.index, *table.columns])
    body = []
    for row in table.rows:
        cells = "".join(f"<td>{html.escape(label)}</td>" for label in row)
        for column in table.columns:
            cell = table.cells.get((row, column))
            if cell is None:
                cells += '<td data-value=""></td>'
                continue
            value = "" if math.isnan(cell.value) else repr(cell.value)
            title = f"parse failures {cell.parse_failure_rate:.1%}; {cell.location}"
            css = ' class="flagged"' if cell.flagged else ""
            cells += f'<td data-value="{value}"{css} title="{html.escape(title)}">{html.escape(cell.text())}</td>'
        body.append(f"<tr>{cells}</tr>")
    return (
        f'<h2>{html.escape(table.title)}</h2><div class="scroll"><table class="sortable"><thead><tr>{header}</tr>'
        f"</thead><tbody>{''.join(body)}</tbody></table></div>"
    )


SORT_SCRIPT = """
document.querySelectorAll('table.sortable th').forEach((th, column) => th.addEventListener('click', () => {
  const body = th.closest('table').tBodies[0];
  const descending = th.dataset.order !== 'desc';
  th.dataset.order = descending ? 'desc' : 'asc';
  const key = row => { const cell = row.cells[column]; const v = cell.dataset.value;
    return v === undefined ? cell.textContent : (v === '' ? NaN : parseFloat(v)); };
  [...body.rows].sort((a, b) => { const x = key(a), y = key(b);
    if (typeof x === 'string') return descending ? y.localeCompare(x) : x.localeCompare(y);
    if (isNaN(x)) return 1; if (isNaN(y)) return -1; return descending ? y - x : x - y; })
    .forEach(row => body.appendChild(row));
}));
"""

STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; margin-bottom: 1.5em; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.5em; text-align: left; }
th { background: #f0f0f0; cursor: pointer; }
td.flagged { background: #fff1c2; }
div.scroll { overflow-x: auto; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5em 0; }
"""


def html_page(report: Report, figures: list[Figure], flag: float) -> str:
    """``report.html``: one self-contained page with the tables, the embedded figures and the notes."""
    images = "".join(
        f'<figure><img alt="{html.escape(f.title)}" src="data:image/png;base64,'
        f'{base64.b64encode(png_bytes(f)).decode()}"><figcaption>{html.escape(f.title)}</figcaption></figure>'
        for f in figures
    )
    notes = "".join(f"<li>{html.escape(note)}</li>" for note in report.notes)
    runs = "".join(
        f"<li>{html.escape(run.judge)} · {html.escape(run.task)} (config {config}): {html.escape(run.location)}</li>"
        for run, _, config in report.runs
    )
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Judge report</title>'
        f"<style>{STYLE}</style></head><body><h1>Judge report</h1>"
        f"{html_table(report.leaderboard)}<p>{html.escape(FLAG_NOTE.format(flag))} Click a header to sort.</p>"
        + "".join(html_table(table) for table in report.paper_tables)
        + (f"<h2>Figures</h2>{images}" if images else "")
        + (f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "")
        + f"<h2>Runs</h2><ul>{runs}</ul><script>{SORT_SCRIPT}</script></body></html>"
    )


def write_json(data: dict, path: Path) -> None:
    """The report data as indented JSON; values JSON has no type for are written as text."""
    path.write_text(json.dumps(data, indent=2, default=str), encoding="utf-8")
