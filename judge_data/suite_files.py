"""Suite files, the JSONL files that ``dhp-build`` and ``fbi-build`` write once so every judge sees the same texts.

Line 1 is a header (its ``format``, then whatever the suite records) with a ``checksum``: the SHA-256 of the item
lines, so a file changed by hand is refused rather than judged. Every other line is one item, in the suite's own
shape. Keys are sorted and nothing time-dependent is written, so the same inputs give the same bytes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from judge_data.io import DataError, read_jsonl


def checksum(item_lines: Sequence[str]) -> str:
    """The SHA-256 of a suite file's item lines, as its header records it."""
    return hashlib.sha256("\n".join(item_lines).encode()).hexdigest()


def suite_lines(header: dict[str, Any], item_lines: Sequence[str]) -> list[str]:
    """A suite file's lines: the header, with the item lines' checksum, then the item lines."""
    sealed = {**header, "checksum": checksum(item_lines)}
    return [json.dumps(sealed, sort_keys=True, ensure_ascii=False), *item_lines]


def read_suite_rows(
    path: str | Path, suite_format: str, suite: str, require_checksum: bool = True
) -> tuple[Path, dict[str, Any], list[tuple[int, dict[str, Any]]]]:
    """A suite file's path, header and ``(row number, item)`` rows, its format and checksum verified.

    ``require_checksum=False`` reads files written before the suite recorded one (a checksum present is still
    verified)."""
    source = Path(path).expanduser()
    if not source.is_file():
        raise DataError(f"suite file {source} does not exist")
    rows = list(read_jsonl(source))
    if not rows or rows[0][1].get("format") != suite_format:
        raise DataError(f"{source}, row 1: not {suite} suite header (expected format {suite_format!r})")
    header = rows[0][1]
    if require_checksum or "checksum" in header:
        lines = source.read_text(encoding="utf-8").splitlines()
        if header.get("checksum") != checksum(lines[1:]):
            raise DataError(f"{source}, row 1: the checksum does not match the item lines (the file was changed)")
    return source, header, rows[1:]
