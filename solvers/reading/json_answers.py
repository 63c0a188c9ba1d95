"""Asking the judge for its answer as JSON (``-T answer_format=json``): the closing request and the schema.

With ``answer_format=json`` a prompt keeps everything it shows the judge and only its closing request changes:
the judge is asked for an object with its reasoning first and the answer field last (the reasoning still comes
before the answer, as in the papers' prompts), and inspect passes a JSON Schema with the allowed values to the
provider, so providers that enforce schemas (OpenAI, vLLM's guided decoding, ...) cannot return anything else.
Providers that ignore the schema may still answer in prose: the scorer then reads the text and counts it.
"""

from __future__ import annotations

from inspect_ai.model import GenerateConfig, ResponseSchema
from inspect_ai.util import JSONSchema

from judge_data.options import OptionError
from solvers.reading.formats import JSON_FIELDS, VERDICT_VALUES, YES_NO_VALUES, AnswerFormat
from solvers.reading.shapes import AnswerShape


def check_answer_format(answer_format: str, scoring: str = "sample") -> None:
    """Refuse ``json`` where no written answer is read (the suite definitions check the format's name)."""
    if answer_format == "json" and scoring != "sample":
        raise OptionError(
            f"answer_format=json asks for written answers as JSON objects; scoring={scoring} reads no written answer "
            "(logprobs: the first tokens of a bare number; perplexity: the likelihood of the text)"
        )


def _whole(value: float) -> bool:
    return float(value).is_integer()


def _allowed(shape: AnswerShape) -> str:
    if shape.kind == "verdict":
        return '"A" if answer A is better, "B" if answer B is better, or "tie"'
    if shape.kind == "yes_no":
        return '"yes" or "no"'
    kind = "a whole number" if _whole(shape.low) and _whole(shape.high) else "a number"
    low, high = ("worst", "best") if shape.higher_is_better else ("best", "worst")
    return f"{kind} from {shape.low:g} ({low}) to {shape.high:g} ({high})"


def json_request(shape: AnswerShape) -> str:
    """The closing request of a prompt under ``answer_format=json``."""
    return (
        'Reply with a JSON object and nothing else, with two fields in this order: "reasoning", your assessment in a '
        f'few sentences, and "{JSON_FIELDS[shape.kind]}", {_allowed(shape)}.'
    )


def _answer_schema(shape: AnswerShape) -> JSONSchema:
    if shape.kind == "verdict":
        return JSONSchema(type="string", enum=list(VERDICT_VALUES))
    if shape.kind == "yes_no":
        return JSONSchema(type="string", enum=list(YES_NO_VALUES))
    if _whole(shape.low) and _whole(shape.high):
        return JSONSchema(type="integer", enum=list(range(int(shape.low), int(shape.high) + 1)))
    return JSONSchema(type="number", minimum=shape.low, maximum=shape.high)


def response_schema(shape: AnswerShape) -> ResponseSchema:
    """The JSON Schema of an answer: ``reasoning`` (text), then the answer field with its allowed values."""
    field = JSON_FIELDS[shape.kind]
    return ResponseSchema(
        name=f"judge_{shape.kind}",
        json_schema=JSONSchema(
            type="object",
            properties={"reasoning": JSONSchema(type="string"), field: _answer_schema(shape)},
            required=["reasoning", field],
            additionalProperties=False,
        ),
        strict=True,
    )


def answer_config(shape: AnswerShape, answer_format: AnswerFormat) -> GenerateConfig:
    """The generation settings a prompt of this shape needs: the response schema under ``json``, nothing else."""
    return GenerateConfig(response_schema=response_schema(shape)) if answer_format == "json" else GenerateConfig()
