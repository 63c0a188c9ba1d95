"""Shared test settings: where the real public data lives, and skips when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Tests never reach the Hugging Face hub; offline mode also spares inspect's model-info look-up for hf/ models.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
if os.environ.get("PYTEST_XDIST_WORKER"):
    # One core per worker (pyproject: -n auto), for torch here and in the commands the tests start: with a thread
    # per core, a CPU-judge run beside another worker's test took 3-6 times as long (its threads wait on each other).
    os.environ.setdefault("OMP_NUM_THREADS", "1")

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
    from judge_data.local_judge import prepare

    try:
        return prepare(tmp_path_factory.mktemp("judge-cache"))
    except FileNotFoundError as missing:
        pytest.skip(str(missing))


@pytest.fixture(scope="session")
def hf_judge(judge_folder):
    """The bundled judge as inspect's hf/ provider loads it, once per test session: loading it (the GGUF weights
    de-quantised) is seconds that every test on it would pay again."""
    from inspect_ai.model import get_model

    from judge_data.local_judge import model_args

    return get_model("hf/smollm2", memoize=False, **model_args(judge_folder))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under ``CI=true`` a skipped test fails: a missing install step or data folder must not turn CI green.

    Tests marked ``system_tool`` (a program pip does not install, such as a browser) may still skip.
    """
    outcome = yield
    report = outcome.get_result()
    exempt = item.get_closest_marker("system_tool") is not None or hasattr(report, "wasxfail")
    if report.skipped and os.environ.get("CI") == "true" and not exempt:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI=true, which must not happen: {reason}"
