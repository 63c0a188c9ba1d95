"""Plumbing shared by every suite: downloads into the ``datasets`` cache, JSONL reading, clear data errors, options."""

from judge_data.io import (
    DataError,
    DownloadError,
    download,
    download_and_extract,
    download_error,
    field,
    id_field,
    optional_text_field,
    read_jsonl,
    text_field,
)
from judge_data.options import OptionError, builder_model_args, names_option

__all__ = [
    "DataError",
    "DownloadError",
    "download",
    "download_and_extract",
    "download_error",
    "field",
    "id_field",
    "builder_model_args",
    "names_option",
    "OptionError",
    "optional_text_field",
    "read_jsonl",
    "text_field",
]
