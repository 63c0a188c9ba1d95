"""Loading and selecting the reference texts of the six DHP datasets.

Every dataset reads either a local folder (the layout of ``../shared/data/dhp/<dataset>/``) or its
public source, downloaded once into the ``datasets`` download cache. Selection follows the paper
(Appendix A): the eligible pool is built first, then ``n`` items are drawn with ``seed``. When the
pool holds fewer than ``n`` items the task runs on all of them and says so.
"""

from __future__ import annotations

import csv
import json
import logging
import random
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dhp_tasks.perturbations import Item, split_sentences
from judge_data import DataError, download, field, read_jsonl

logger = logging.getLogger(__name__)

SUMMEVAL_URL = "https://storage.googleapis.com/sfr-summarization-repo-research/model_annotations.aligned.paired.jsonl"
"""Not pinned: the bucket has no versions and no checksum of this file is published; see :func:`summeval_remote`."""
SUMPUBMED_RAW = "https://raw.githubusercontent.com/vgupta123/sumpubmed/c190db237ba5b8c01efd247e45d13cf0c8162842"
SUMPUBMED_FILE_NUMBERS = range(1, 33000)
STORYCLOZE_URL = (
    "https://raw.githubusercontent.com/p-null/openai-gpt-pytorch/3684b880f64ece7772087afe25ba73835bce50ce/"
    "data/cloze_test_val__spring2016%20-%20cloze_test_ALL_val.csv"
)
SQUAD_DEV_URL = "https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v1.1.json"
SQUAD_DEV_SHA256 = "95aa6a52d5d6a735563366753ca50492a658031da74f301ac5238b03966972c9"
"""sha256 of ``dev-v1.1.json`` (4,854,279 bytes) as published in tensorflow/datasets' SQuAD checksums file."""
WMT22_RAW = (
    "https://raw.githubusercontent.com/wmt-conference/wmt22-news-systems/20240a2e96a50e823ea8cdf37fd8af52547146e3/txt"
)
WMT22_XML = (
    "https://raw.githubusercontent.com/wmt-conference/wmt22-news-systems/dcb465e5b8eb77a4300c27cea716a14694cb5b25/xml"
)
"""The test-set release with document structure (sources and references only)."""

ANSWER_MIN_CHARS = 150
TRANSLATION_MIN_CHARS = 300
SUMPUBMED_SECTION_ENDS = {"RESULTS", "METHODS", "CONCLUSIONS", "CONCLUSION", "RESULT"}


def _only_file(folder: Path, pattern: str) -> Path:
    matches = sorted(folder.glob(pattern))
    if len(matches) != 1:
        raise DataError(f"{folder}: expected exactly one file matching {pattern!r}, found {[m.name for m in matches]}")
    return matches[0]


def _most_sentences(references: list[str]) -> str:
    """SummEval's rule: the reference with the most sentences; the earliest wins a tie."""
    return max(references, key=lambda reference: len(split_sentences(reference)))


def summeval_items(rows: Iterator[tuple[int, dict[str, Any]]], path: Path | str, article_field: str) -> list[Item]:
    """SummEval items: the reference with the most sentences as the text, the article as its context."""
    items: dict[str, Item] = {}
    for row_number, row in rows:
        item_id = field(row, "id", path, row_number)
        if item_id in items:
            continue
        references = field(row, "references", path, row_number)
        items[item_id] = Item(item_id, _most_sentences(references).strip(), field(row, article_field, path, row_number))
    return list(items.values())


def summeval_local(folder: Path) -> list[Item]:
    """SummEval from a local folder in the shared layout."""
    path = _only_file(folder, "summeval*.jsonl")
    return summeval_items(read_jsonl(path), path, "source")


def summeval_remote() -> list[Item]:
    """SummEval from its public file (unpinned: its bucket is unversioned, so a warning says so)."""
    logger.warning(
        "summeval: the public source %s has no published checksum, so its content is not verified; "
        "pass -T data_dir=<folder> with a copy you trust to pin it",
        SUMMEVAL_URL,
    )
    path = download(SUMMEVAL_URL)
    return summeval_items(read_jsonl(path), SUMMEVAL_URL, "text")


def sumpubmed_local(folder: Path) -> list[Item]:
    """SumPubMed BACKGROUND sections from a local folder in the shared layout."""
    path = _only_file(folder, "sumpubmed*.jsonl")
    return [
        Item(field(row, "id", path, n), field(row, "reference", path, n).strip(), field(row, "source", path, n).strip())
        for n, row in read_jsonl(path)
    ]


def background_section(text: str, path: str) -> str:
    """The text between a line ``BACKGROUND`` and the next section heading of a SumPubMed file."""
    lines = text.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "BACKGROUND") + 1
    except StopIteration:
        raise DataError(f"{path}: no BACKGROUND section") from None
    end = next((i for i in range(start, len(lines)) if lines[i].strip() in SUMPUBMED_SECTION_ENDS), len(lines))
    section = "\n".join(lines[start:end]).strip()
    if not section:
        raise DataError(f"{path}: empty BACKGROUND section")
    return section


def sumpubmed_remote(n: int, seed: int) -> list[Item]:
    """Draw file numbers at random and fetch pairs until ``n`` have a BACKGROUND section in both files."""
    numbers = list(SUMPUBMED_FILE_NUMBERS)
    random.Random(seed).shuffle(numbers)
    items: list[Item] = []
    for number in numbers:
        if len(items) == n:
            break
        try:
            abstract_path = download(f"{SUMPUBMED_RAW}/abstract/abstract_{number}.txt")
            text_path = download(f"{SUMPUBMED_RAW}/text/text_{number}.txt")
        except ConnectionError as error:
            if "404" in str(error):
                continue
            raise
        try:
            reference = background_section(abstract_path.read_text(encoding="utf-8"), f"abstract_{number}.txt")
            article = background_section(text_path.read_text(encoding="utf-8"), f"text_{number}.txt")
        except DataError:
            continue
        items.append(Item(f"sumpubmed-{number}", reference, article))
    return items


def story_items(rows: list[tuple[int, dict[str, Any]]], path: Path | str) -> list[Item]:
    """Story Cloze items: the right ending as the text, the first four sentences as its context."""
    return [
        Item(
            field(row, "id", path, n),
            field(row, "right_ending", path, n).strip(),
            field(row, "context", path, n).strip(),
            wrong_text=field(row, "wrong_ending", path, n).strip(),
        )
        for n, row in rows
    ]


def storycloze_local(folder: Path) -> list[Item]:
    """Story Cloze from a local folder in the shared layout."""
    path = _only_file(folder, "storycloze*.jsonl")
    return story_items(list(read_jsonl(path)), path)


def storycloze_remote() -> list[Item]:
    """Story Cloze from its public copy at a pinned commit."""
    path = download(STORYCLOZE_URL)
    rows = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row_number, raw in enumerate(csv.DictReader(handle), start=2):
            sentences = [field(raw, f"InputSentence{i}", STORYCLOZE_URL, row_number) for i in range(1, 5)]
            endings = [field(raw, f"RandomFifthSentenceQuiz{i}", STORYCLOZE_URL, row_number) for i in (1, 2)]
            right = int(field(raw, "AnswerRightEnding", STORYCLOZE_URL, row_number))
            rows.append(
                (
                    row_number,
                    {
                        "id": raw["InputStoryid"],
                        "context": " ".join(sentences),
                        "right_ending": endings[right - 1],
                        "wrong_ending": endings[2 - right],
                    },
                )
            )
    return story_items(rows, STORYCLOZE_URL)


def qa_context(question: str, paragraph: str) -> str:
    """The context a QA answer is judged in: the question, then the paragraph it is about."""
    return f"Question: {question}\n\nParagraph: {paragraph}"


def answer_equivalence_local(folder: Path) -> list[Item]:
    """Every ``*.jsonl`` of the folder, deduplicated by question id.

    Reads the SQuAD-derived layout of ``shared/data/dhp/answer_equivalence`` (``id``, ``question``,
    ``context``, ``reference``) and the real AE rating files (``qid``, ``question``, ``reference``,
    ``candidate``, one row per rated candidate; the paragraph is shown when a ``context`` is present).
    """
    items: dict[str, Item] = {}
    for path in sorted(folder.glob("*.jsonl")):
        for n, row in read_jsonl(path):
            item_id = str(row.get("id") or field(row, "qid", path, n))
            reference = field(row, "reference", path, n).strip()
            if item_id not in items and len(reference) > ANSWER_MIN_CHARS:
                question = field(row, "question", path, n).strip()
                context = (
                    qa_context(question, row["context"].strip()) if row.get("context") else f"Question: {question}"
                )
                items[item_id] = Item(item_id, reference, context)
    if not items and not any(folder.glob("*.jsonl")):
        raise DataError(f"{folder}: no *.jsonl files")
    return list(items.values())


def answer_equivalence_remote() -> list[Item]:
    """AE's questions, paragraphs and references are SQuAD v1.1 dev items; the longest gold answer is the reference."""
    path = download(SQUAD_DEV_URL, sha256=SQUAD_DEV_SHA256)
    squad = json.loads(path.read_text(encoding="utf-8"))
    items = []
    for article in squad["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                reference = max((answer["text"].strip() for answer in qa["answers"]), key=len, default="")
                if len(reference) > ANSWER_MIN_CHARS:
                    items.append(
                        Item(qa["id"], reference, qa_context(qa["question"].strip(), paragraph["context"].strip()))
                    )
    return items


def translation_items(rows: Iterator[tuple[int, dict[str, Any]]], path: Path | str) -> list[Item]:
    """Single segments whose reference is over the length threshold (DHP's rule for WMT22 zh-en)."""
    items = []
    for n, row in rows:
        reference = field(row, "reference", path, n).strip()
        if len(reference) > TRANSLATION_MIN_CHARS:
            items.append(Item(field(row, "id", path, n), reference, field(row, "source", path, n).strip()))
    return items


def translation_paragraphs(rows: Iterable[tuple[int, dict[str, Any]]], path: Path | str) -> list[Item]:
    """Paragraph units for sentence-segmented test sets (WMT22 de-en).

    Within each document, consecutive segments are joined until the joined reference is over the
    length threshold; the unit then closes and the next one starts. A document's remainder that stays
    under the threshold is left out. Units never cross documents. Without document ids in the data,
    single segments are used instead (with a warning), since joining could cross documents.
    """
    listed = list(rows)
    if not listed or any(not row.get("doc_id") for _, row in listed):
        logger.warning(
            "%s: no document ids, so no paragraph units; using single segments over %d characters",
            path,
            TRANSLATION_MIN_CHARS,
        )
        return translation_items(iter(listed), path)
    items: list[Item] = []
    unit: list[tuple[int, dict[str, Any]]] = []
    for index, (n, row) in enumerate(listed):
        unit.append((n, row))
        reference = " ".join(field(r, "reference", path, m).strip() for m, r in unit)
        next_doc = listed[index + 1][1]["doc_id"] if index + 1 < len(listed) else None
        if len(reference) > TRANSLATION_MIN_CHARS:
            source = " ".join(field(r, "source", path, m).strip() for m, r in unit)
            unit_id = f"{field(unit[0][1], 'id', path, unit[0][0])}+{len(unit) - 1}"
            items.append(Item(unit_id, reference, source))
            unit = []
        elif next_doc != row["doc_id"]:
            unit = []
    return items


def wmt22_xml_rows(path: Path, source_url: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """Segments of a WMT XML test set (``doc`` > ``src``/``ref`` > ``p`` > ``seg``) with their document ids."""
    from xml.etree import ElementTree

    number = 0
    for doc in ElementTree.parse(path).getroot().iter("doc"):
        source = doc.find("src")
        references = doc.findall("ref")
        reference = next((r for r in references if r.get("translator") == "A"), references[0] if references else None)
        if source is None or reference is None:
            raise DataError(f"{source_url}: document {doc.get('id')!r} has no src or ref")
        source_segments = [seg.text or "" for seg in source.iter("seg")]
        reference_segments = [seg.text or "" for seg in reference.iter("seg")]
        if len(source_segments) != len(reference_segments):
            raise DataError(
                f"{source_url}: document {doc.get('id')!r} has {len(source_segments)} source but "
                f"{len(reference_segments)} reference segments"
            )
        for source_text, reference_text in zip(source_segments, reference_segments, strict=True):
            number += 1
            yield (
                number,
                {"id": f"wmt22-{number}", "doc_id": doc.get("id"), "source": source_text, "reference": reference_text},
            )


PARAGRAPH_PAIRS = {"de-en"}
"""Pairs whose references are too short as single segments: judged as paragraph units."""


def _translation_units(pair: str) -> Callable[[Iterator[tuple[int, dict[str, Any]]], Path | str], list[Item]]:
    return translation_paragraphs if pair in PARAGRAPH_PAIRS else translation_items


def wmt22_local(pair: str) -> Callable[[Path], list[Item]]:
    """A loader of one WMT22 language pair from a local folder in the shared layout."""

    def load(folder: Path) -> list[Item]:
        path = _only_file(folder, f"wmt22_{pair}_all_segments.jsonl")
        return _translation_units(pair)(read_jsonl(path), path)

    return load


def wmt22_remote(pair: str) -> Callable[[], list[Item]]:
    """A loader of one WMT22 language pair from the pinned public repository."""
    source_language, target_language = pair.split("-")

    def load() -> list[Item]:
        if pair in PARAGRAPH_PAIRS:
            url = f"{WMT22_XML}/wmttest2022.{pair}.all.xml"
            return translation_paragraphs(wmt22_xml_rows(download(url), url), url)
        source_url = f"{WMT22_RAW}/sources/generaltest2022.{pair}.src.{source_language}"
        reference_url = f"{WMT22_RAW}/references/generaltest2022.{pair}.ref.A.{target_language}"
        sources = download(source_url).read_text(encoding="utf-8").splitlines()
        references = download(reference_url).read_text(encoding="utf-8").splitlines()
        if len(sources) != len(references):
            raise DataError(f"{source_url} has {len(sources)} lines but {reference_url} has {len(references)}")
        rows = (
            (line, {"id": f"wmt22-{pair}-{line}", "source": source, "reference": reference})
            for line, (source, reference) in enumerate(zip(sources, references, strict=True), start=1)
        )
        return translation_items(rows, reference_url)

    return load


@dataclass(frozen=True)
class DhpDataset:
    """One DHP dataset: the kind of text it holds and how to get its eligible pool."""

    name: str
    kind: str
    description: str
    folder: str
    """The dataset's folder name in the shared-data layout (``<data>/dhp/<folder>/``)."""
    load_local: Callable[[Path], list[Item]]
    load_remote: Callable[[int, int], list[Item]]


DATASETS: dict[str, DhpDataset] = {
    "summeval": DhpDataset(
        "summeval",
        "summarization",
        "SummEval news summaries (per article the reference with the most sentences)",
        "summeval",
        summeval_local,
        lambda n, seed: summeval_remote(),
    ),
    "sumpubmed": DhpDataset(
        "sumpubmed",
        "summarization",
        "SumPubMed BACKGROUND sections of scientific abstracts",
        "sumpubmed",
        sumpubmed_local,
        sumpubmed_remote,
    ),
    "storycloze": DhpDataset(
        "storycloze",
        "story",
        "Story Cloze Test 2016 validation stories (right ending judged)",
        "storycloze",
        storycloze_local,
        lambda n, seed: storycloze_remote(),
    ),
    "answer_equivalence": DhpDataset(
        "answer_equivalence",
        "qa",
        f"Answer Equivalence / SQuAD v1.1 dev answers over {ANSWER_MIN_CHARS} characters",
        "answer_equivalence",
        answer_equivalence_local,
        lambda n, seed: answer_equivalence_remote(),
    ),
    "wmt22_de_en": DhpDataset(
        "wmt22_de_en",
        "translation",
        f"WMT22 German-English paragraph units (consecutive segments of a document) over "
        f"{TRANSLATION_MIN_CHARS} characters",
        "wmt22",
        wmt22_local("de-en"),
        lambda n, seed: wmt22_remote("de-en")(),
    ),
    "wmt22_zh_en": DhpDataset(
        "wmt22_zh_en",
        "translation",
        f"WMT22 Chinese-English references over {TRANSLATION_MIN_CHARS} characters",
        "wmt22",
        wmt22_local("zh-en"),
        lambda n, seed: wmt22_remote("zh-en")(),
    ),
}


def load_pool(dataset: DhpDataset, data_dir: str | Path | None, n: int, seed: int) -> list[Item]:
    """The dataset's eligible items, from ``data_dir`` when given, else from its public source."""
    if data_dir is None:
        return dataset.load_remote(n, seed)
    folder = Path(data_dir).expanduser()
    if not folder.is_dir():
        raise DataError(f"data_dir {folder} is not a folder")
    return dataset.load_local(folder)


def select_items(pool: list[Item], n: int, seed: int, dataset_name: str) -> list[Item]:
    """``n`` items drawn with ``seed`` (in pool order), or the whole pool, with a warning, when it is smaller."""
    if len(pool) < n:
        logger.warning("%s: only %d eligible items (asked for %d); running on all of them", dataset_name, len(pool), n)
        return list(pool)
    chosen = sorted(random.Random(seed).sample(range(len(pool)), n))
    return [pool[index] for index in chosen]
