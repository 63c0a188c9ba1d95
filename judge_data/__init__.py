"""Plumbing shared by every suite: downloads into the ``datasets`` cache, JSONL reading, clear data errors, options."""

from judge_data.io import DataError, download, download_and_extract, download_error, field, read_jsonl
from judge_data.options import names_option

__all__ = ["DataError", "download", "download_and_extract", "download_error", "field", "names_option", "read_jsonl"]
