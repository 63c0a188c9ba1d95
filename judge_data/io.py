"""Reading suite data: downloads into the ``datasets`` cache, JSONL rows, and errors that name file, row and field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


class DataError(ValueError):
    """A data file is missing or malformed; the message names the file, row and field."""


def _download_manager():
    from datasets import DownloadManager

    return DownloadManager(dataset_name="judge_meta_eval")


def download_error(source: str, error: Exception) -> ConnectionError:
    """The error for a source that could not be fetched, pointing to ``-T data_dir`` for offline use."""
    return ConnectionError(
        f"could not download {source} ({error}). Without network access, pass -T data_dir=<folder> "
        "with a local copy of the dataset."
    )


def download(url: str) -> Path:
    """A cached local copy of ``url`` (the ``datasets`` download cache), or a clear error when offline."""
    try:
        return Path(_download_manager().download(url))
    except Exception as error:
        raise download_error(url, error) from error


def download_and_extract(url: str) -> Path:
    """The unpacked folder of the archive at ``url``, cached like :func:`download`."""
    try:
        return Path(_download_manager().download_and_extract(url))
    except Exception as error:
        raise download_error(url, error) from error


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row number, object)`` for each non-empty line; a malformed line is a :class:`DataError`."""
    with path.open(encoding="utf-8") as lines:
        for row_number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield row_number, json.loads(line)
            except json.JSONDecodeError as error:
                raise DataError(f"{path}, row {row_number}: not valid JSON ({error.msg})") from error


def field(row: dict[str, Any], name: str, path: Path | str, row_number: int) -> Any:
    """``row[name]``, or an error naming the file, row and field."""
    value = row.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataError(f"{path}, row {row_number}: field {name!r} is missing or empty")
    return value
