"""Cost and speed per 1,000 judgments, per judge and suite, from the requests the inspect logs record.

A judgment is one answer of the judge: a rating, a verdict, a criteria list or a likelihood, whether asked for alone
or as one of several choices of one request. For each run the report reads its log's model events (the judge's own,
not those of a model role such as FBI's explanation checker):

- **tokens in / out**: the prompt and generated tokens the provider reported for the requests it answered, per 1,000
  of those requests' judgments; requests answered from inspect's request cache (a resumed run's, ``--cache``) are
  counted as judgments served from the cache and never as paid;
- **seconds**: the run's wall time, from its start to its end, per 1,000 judgments made in that time (runs that went
  side by side each count their whole time; samples a resumed run took over from its interrupted log count in the
  run that judged them);
- **cost**: the tokens at the judge's prices, ``--price-in``/``--price-out`` in dollars per million tokens, or a prices
  file keyed by model name (``{"openai/gpt-4o-mini": {"input": 0.15, "output": 0.6}}``, JSON or YAML).

lm-eval's results files record no requests: their runs have no figures here, and a note says so.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from judge_data import DataError
from judge_report.runs import Run
from judge_report.tables import Report

PER = 1000
"""Judgments the figures are given for."""

PRICE_FIELDS = ("input", "output")
"""The fields of a prices file entry: dollars per million prompt and generated tokens."""

HF_PADDING_NOTE = (
    "hf/ judges: inspect's hf/ provider answers concurrent requests in padded batches and logs each request's prompt "
    "tokens as its batch's padded length, so their tokens in overstate what the prompts hold (judge-meta-eval's dry "
    "run counts each prompt by itself, as an API bills it)"
)

LM_EVAL_NOTE = "lm-eval results record no requests: runs read from them have no cost or speed figures"


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens."""

    input: float
    output: float


@dataclass(frozen=True)
class Usage:
    """What runs asked of a judge, summed."""

    judgments: int = 0
    """Answers, those served from the request cache included."""
    cached: int = 0
    """Answers served from inspect's request cache (not paid)."""
    input_tokens: int = 0
    """Prompt tokens of the requests the provider answered."""
    output_tokens: int = 0
    """Generated tokens of the requests the provider answered."""
    seconds: float = 0.0
    """The runs' wall time."""
    timed: int = 0
    """Judgments made within the runs' wall time (not those a resumed run took over from an earlier log)."""
    runs: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.judgments + other.judgments,
            self.cached + other.cached,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.seconds + other.seconds,
            self.timed + other.timed,
            self.runs + other.runs,
        )

    @property
    def paid(self) -> int:
        """Judgments the provider answered."""
        return self.judgments - self.cached

    def per_thousand(self, value: float, of: int) -> float:
        """``value`` per 1,000 of ``of`` judgments; NaN without any."""
        return value / of * PER if of else math.nan

    def cost(self, price: Price | None) -> float:
        """Dollars per 1,000 paid judgments at ``price``; NaN without a price or a paid judgment."""
        if price is None:
            return math.nan
        dollars = self.input_tokens * price.input / 1e6 + self.output_tokens * price.output / 1e6
        return self.per_thousand(dollars, self.paid)

    def total_cost(self, price: Price | None) -> float:
        """Dollars paid for all the runs' requests at ``price``."""
        if price is None:
            return math.nan
        return self.input_tokens * price.input / 1e6 + self.output_tokens * price.output / 1e6


@dataclass(frozen=True)
class CostRow:
    """One judge's cost and speed on one suite (``suite`` ``all``: over every suite)."""

    judge: str
    suite: str
    usage: Usage
    price: Price | None

    def as_json(self) -> dict[str, Any]:
        """The row for ``report.json``: the sums, and the figures per 1,000 judgments (``null`` where undefined)."""
        usage = self.usage

        def number(value: float) -> float | None:
            return None if math.isnan(value) else round(value, 6)

        return {
            "judge": self.judge,
            "suite": self.suite,
            "runs": usage.runs,
            "judgments": usage.judgments,
            "from_cache": usage.cached,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "seconds": round(usage.seconds, 3),
            "price_per_million": None if self.price is None else vars(self.price),
            "cost": number(usage.total_cost(self.price)),
            "per_1000_judgments": {
                "input_tokens": number(usage.per_thousand(usage.input_tokens, usage.paid)),
                "output_tokens": number(usage.per_thousand(usage.output_tokens, usage.paid)),
                "seconds": number(usage.per_thousand(usage.seconds, usage.timed)),
                "cost": number(usage.cost(self.price)),
            },
        }

    def cells(self) -> list[str]:
        """The figures per 1,000 judgments as table cells: tokens in, tokens out, seconds, dollars."""
        usage = self.usage
        return [
            _amount(usage.per_thousand(usage.input_tokens, usage.paid)),
            _amount(usage.per_thousand(usage.output_tokens, usage.paid)),
            _amount(usage.per_thousand(usage.seconds, usage.timed)),
            _dollars(usage.cost(self.price)),
        ]

    def summary(self) -> str:
        """One line for the judges table: ``412k in, 1.0k out tokens, 35 s, $0.07 per 1,000 judgments``."""
        tokens_in, tokens_out, seconds, dollars = self.cells()
        text = f"{tokens_in} in, {tokens_out} out tokens, {seconds} s"
        text += f", ${dollars}" if dollars != "n/a" else ""
        return text + (f" ({self.usage.cached:,} from cache)" if self.usage.cached else "")


def _amount(value: float) -> str:
    if math.isnan(value):
        return "n/a"
    for bound, suffix in ((1e6, "M"), (1e3, "k")):
        if abs(value) >= bound:
            return f"{value / bound:.1f}{suffix}"
    return f"{value:.1f}" if value < 100 else f"{value:.0f}"


def _dollars(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.4f}" if value < 0.01 else f"{value:.2f}"


@dataclass(frozen=True)
class Costs:
    """The report's cost and speed table: per judge and suite, and per judge over every suite."""

    rows: tuple[CostRow, ...]
    notes: tuple[str, ...]

    def by_judge(self) -> dict[str, CostRow]:
        """Each judge's row over every suite."""
        return {row.judge: row for row in self.rows if row.suite == ALL_SUITES}

    def as_json(self) -> dict[str, Any]:
        """The table for ``report.json``."""
        return {"per": PER, "rows": [row.as_json() for row in self.rows], "notes": list(self.notes)}

    def markdown(self) -> str:
        """The table for ``report.md``, a line per judge and suite."""
        header = ["judge", "suite", "judgments", "from cache", "tokens in", "tokens out", "seconds", "$"]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for row in self.rows:
            figures = [row.judge, row.suite, f"{row.usage.judgments:,}", f"{row.usage.cached:,}", *row.cells()]
            lines.append("| " + " | ".join(figures) + " |")
        return "\n".join(lines)


ALL_SUITES = "all"


def read_usage(run: Run) -> Usage | None:
    """The judge's requests in the run's inspect log (``None`` for an lm-eval run or an unreadable log)."""
    if run.harness != "inspect":
        return None
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import read_eval_log, read_eval_log_samples

    try:
        header = read_eval_log(run.location, header_only=True)
        samples = list(read_eval_log_samples(run.location, all_samples_required=False))
    except Exception:  # noqa: BLE001 - a log that cannot be read has no figures; the report notes other faults
        return None
    started, completed = _time(header.stats.started_at), _time(header.stats.completed_at)
    judgments = cached = input_tokens = output_tokens = timed = 0
    asked: list[datetime] = []
    for sample in samples:
        for event in sample.events:
            if not isinstance(event, ModelEvent) or event.role is not None or event.error:
                continue
            asked += [event.timestamp, event.completed or event.timestamp]
            answers = max(len(event.output.choices), 1)
            judgments += answers
            if started is not None and event.timestamp.timestamp() >= started.timestamp():
                timed += answers
            if event.cache == "read":
                cached += answers
            elif event.output.usage is not None:
                input_tokens += event.output.usage.input_tokens
                output_tokens += event.output.usage.output_tokens
    seconds = (completed - started).total_seconds() if started is not None and completed is not None else 0.0
    if asked:  # the log's start and end are whole seconds: a run shorter than one reads 0 without its requests' span
        seconds = max(seconds, (max(asked) - min(asked)).total_seconds())
    return Usage(judgments, cached, input_tokens, output_tokens, seconds, timed, 1)


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def read_prices(path: str | None, price_in: float | None, price_out: float | None) -> dict[str, Price]:
    """Prices by model name from ``path`` (JSON or YAML: ``{model: {"input": $, "output": $}}``), and under ``*``
    the ``--price-in``/``--price-out`` pair for every other judge; a malformed entry is an error naming it."""
    if (price_in is None) != (price_out is None):
        raise DataError("--price-in and --price-out go together: give both, in dollars per million tokens")
    prices: dict[str, Price] = {}
    if price_in is not None and price_out is not None:
        prices["*"] = Price(price_in, price_out)
    if path is None:
        return prices
    import yaml

    try:
        document = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise DataError(f"--prices {path}: not a readable JSON or YAML file ({error})") from error
    if not isinstance(document, Mapping):
        raise DataError(f"--prices {path}: expected a mapping of model names to {{input: $, output: $}}")
    for model, entry in document.items():
        fields: dict[str, Any] = dict(entry) if isinstance(entry, Mapping) else {}
        values = [fields.get(name) for name in PRICE_FIELDS]
        if set(fields) != set(PRICE_FIELDS) or not all(_is_price(value) for value in values):
            raise DataError(
                f"--prices {path}, model {model!r}: expected {{input: $, output: $}} (dollars per million tokens, "
                f"numbers from 0), got {json.dumps(entry, default=str)}"
            )
        prices[str(model)] = Price(float(fields["input"]), float(fields["output"]))
    return prices


def _is_price(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value >= 0


def _price_of(prices: Mapping[str, Price], run: Run, name: str) -> Price | None:
    return next((prices[key] for key in (name, run.judge, run.model, "*") if key in prices), None)


def judge_costs(
    report: Report, prices: Mapping[str, Price], reader: Callable[[Run], Usage | None] = read_usage
) -> Costs:
    """Per judge and suite, and per judge over every suite, the figures of the report's runs."""
    usage: dict[tuple[str, str], Usage] = {}
    price_of: dict[str, Price | None] = {}
    unread = False
    for run, view, _ in report.runs:
        read = reader(run)
        name = report.name_of(run)
        price_of.setdefault(name, _price_of(prices, run, name))
        if read is None:
            unread = unread or run.harness != "inspect"
            continue
        for suite in (view.name, ALL_SUITES):
            usage[(name, suite)] = usage.get((name, suite), Usage()) + read
    rows = [CostRow(judge, suite, figures, price_of[judge]) for (judge, suite), figures in usage.items()]
    order = {name: index for index, name in enumerate(judge.name for judge in report.judges.values())}
    rows.sort(key=lambda row: (order.get(row.judge, len(order)), row.suite == ALL_SUITES, row.suite))
    notes = []
    if any(run.model.startswith("hf/") for run, _, _ in report.runs):
        notes.append(HF_PADDING_NOTE)
    if unread:
        notes.append(LM_EVAL_NOTE)
    if not prices:
        notes.append("no prices given (--price-in and --price-out, or --prices FILE): no cost column")
    return Costs(tuple(rows), tuple(notes))


def judges_with_costs(costs: Costs, names: Iterable[str]) -> dict[str, str]:
    """The judges table's cell per judge: its figures per 1,000 judgments over every suite, or ``n/a``."""
    by_judge = costs.by_judge()
    return {name: by_judge[name].summary() if name in by_judge else "n/a" for name in names}
