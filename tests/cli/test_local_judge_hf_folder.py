"""The bundled judge written as an HF-format folder (for vLLM) generates what the GGUF path generates."""

from __future__ import annotations

import json

import pytest

from judge_data.local_judge import load_gguf_model, save_hf_folder

pytestmark = pytest.mark.local_judge

PROMPT = [{"role": "user", "content": "Rate this sentence from 1 to 5: The cat sat on the mat."}]


def greedy_tokens(model, tokenizer, new_tokens: int = 8) -> list[int]:
    inputs = tokenizer.apply_chat_template(PROMPT, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    output = model.generate(**inputs, max_new_tokens=new_tokens, do_sample=False)
    return output[0, inputs["input_ids"].shape[1] :].tolist()


def test_hf_folder_loads_and_generates_like_the_gguf_model(tmp_path):
    pytest.importorskip("gguf", reason="the local judge needs the local-judge extra: pip install '.[local-judge]'")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        model, tokenizer = load_gguf_model()
    except FileNotFoundError as missing:
        pytest.skip(str(missing))
    expected = greedy_tokens(model, tokenizer)
    assert len(expected) == 8

    folder = save_hf_folder(model, tokenizer, tmp_path / "smollm2", dtype="bfloat16")

    assert json.loads((folder / "config.json").read_text())["dtype"] == "bfloat16"
    assert "quantization_config" not in json.loads((folder / "config.json").read_text())
    assert sum(f.stat().st_size for f in folder.glob("*.safetensors")) > 200_000_000
    reloaded_tokenizer = AutoTokenizer.from_pretrained(folder)
    assert reloaded_tokenizer.apply_chat_template(PROMPT, add_generation_prompt=True, tokenize=False) == (
        tokenizer.apply_chat_template(PROMPT, add_generation_prompt=True, tokenize=False)
    )
    reloaded = AutoModelForCausalLM.from_pretrained(folder)
    assert greedy_tokens(reloaded, reloaded_tokenizer) == expected
