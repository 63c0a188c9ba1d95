"""Public sources of the human-annotated datasets, downloaded once and converted to the shared layout."""

from __future__ import annotations

from pathlib import Path

from adherence_tasks.datasets import AdherenceDataset
from judge_data import DataError


def public_folder(dataset: AdherenceDataset) -> Path:
    raise DataError(f"{dataset.name}: pass -T data_dir=<folder>")
