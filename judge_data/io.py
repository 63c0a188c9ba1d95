"""Reading suite data: downloads into the ``datasets`` cache, JSONL rows, and errors that name file, row and field."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judge_data.inspect_private import PrerequisiteError


class DataError(ValueError, PrerequisiteError):
    """A data file is missing or malformed; the message names the file, row and field.

    A ``PrerequisiteError`` too, so that ``inspect eval`` shows the message alone, without a traceback.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _download_manager():
    from datasets import DownloadManager

    return DownloadManager(dataset_name="judge_meta_eval")


class DownloadError(ConnectionError, PrerequisiteError):
    """A public source could not be fetched; like :class:`DataError`, ``inspect eval`` shows the message alone."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def download_error(source: str, error: Exception) -> DownloadError:
    """The error for a source that could not be fetched, pointing to ``-T data_dir`` for offline use."""
    return DownloadError(
        f"could not download {source} ({error}). Without network access, pass -T data_dir=<folder> "
        "with a local copy of the dataset."
    )


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file, read in blocks, to check a download against its pinned hash."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_sha256(path: Path, url: str, sha256: str | None) -> Path:
    """``path`` when its content has the expected hash (or none is expected), else a :class:`DataError`."""
    if sha256 is not None:
        actual = file_sha256(path)
        if actual != sha256.lower():
            raise DataError(
                f"{url}: the downloaded file does not have the expected content (sha256 {actual}, expected {sha256}). "
                f"The source has changed or the download is damaged; delete the cached copy {path} to fetch it "
                "again, or pass -T data_dir=<folder> with a local copy."
            )
    return path


def download(url: str, sha256: str | None = None) -> Path:
    """A cached local copy of ``url`` (the ``datasets`` download cache), checked against ``sha256`` when given.

    Offline, a clear :class:`DownloadError` (a ``ConnectionError``); a copy whose content differs from ``sha256``,
    a :class:`DataError`.
    """
    try:
        path = Path(_download_manager().download(url))
    except Exception as error:
        raise download_error(url, error) from error
    return verify_sha256(path, url, sha256)


def download_and_extract(url: str, sha256: str | None = None) -> Path:
    """The unpacked folder of the archive at ``url``, downloaded and checked like :func:`download`, unpacked once."""
    archive = download(url, sha256)
    return Path(_download_manager().extract(str(archive)))


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(row number, object)`` for each non-empty line; a malformed line or a non-object is a :class:`DataError`."""
    with path.open(encoding="utf-8") as lines:
        for row_number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as error:
                raise DataError(f"{path}, row {row_number}: not valid JSON ({error.msg})") from error
            if not isinstance(row, dict):
                raise DataError(f"{path}, row {row_number}: expected a JSON object, got {type(row).__name__}")
            yield row_number, row


def field(row: dict[str, Any], name: str, path: Path | str, row_number: int) -> Any:
    """``row[name]``, or an error naming the file, row and field."""
    value = row.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        raise DataError(f"{path}, row {row_number}: field {name!r} is missing or empty")
    return value


def text_field(row: dict[str, Any], name: str, path: Path | str, row_number: int) -> str:
    """``row[name]`` as a non-empty string; any other type is an error naming the file, row and field."""
    value = field(row, name, path, row_number)
    if not isinstance(value, str):
        raise DataError(f"{path}, row {row_number}: field {name!r} must be a string, got {type(value).__name__}")
    return value


def optional_text_field(row: dict[str, Any], name: str, path: Path | str, row_number: int) -> str | None:
    """``row[name]`` when present: a string or null; any other type is an error naming the file, row and field."""
    value = row.get(name)
    if value is not None and not isinstance(value, str):
        raise DataError(f"{path}, row {row_number}: field {name!r} must be a string, got {type(value).__name__}")
    return value


def id_field(row: dict[str, Any], name: str, path: Path | str, row_number: int) -> str:
    """An identifier: a non-empty string or an integer, returned as a string."""
    value = field(row, name, path, row_number)
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise DataError(
            f"{path}, row {row_number}: field {name!r} must be a string or an integer, got {type(value).__name__}"
        )
    return str(value)
