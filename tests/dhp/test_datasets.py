import csv
import json
import logging

import pytest

from dhp_tasks import data as dhp_sources
from dhp_tasks.data import (
    DATASETS,
    DataError,
    background_section,
    load_pool,
    select_items,
    split_sentences,
)
from dhp_tasks.dhp import load_custom_items


@pytest.mark.parametrize(
    ("dataset", "folder", "eligible"),
    [
        ("summeval", "summeval", 100),
        ("sumpubmed", "sumpubmed", 500),
        ("storycloze", "storycloze", 1871),
        ("answer_equivalence", "answer_equivalence", 17),
        ("wmt22_de_en", "wmt22", 16),
        ("wmt22_zh_en", "wmt22", 224),
    ],
)
def test_local_pools_follow_the_paper_rules(dhp_data, dataset, folder, eligible):
    pool = load_pool(DATASETS[dataset], dhp_data(folder), n=100, seed=0)
    assert len(pool) == eligible
    assert len({item.id for item in pool}) == eligible
    assert all(item.text and item.context for item in pool)
    if dataset == "answer_equivalence":
        assert all(len(item.text) > 150 for item in pool)
    if dataset.startswith("wmt22"):
        assert all(len(item.text) > 300 for item in pool)
    if dataset == "storycloze":
        assert all(item.wrong_text and item.wrong_text != item.text for item in pool)


def test_summeval_picks_the_reference_with_most_sentences(dhp_data):
    folder = dhp_data("summeval")
    rows = {row["id"]: row for row in map(json.loads, (folder / "summeval.jsonl").read_text().splitlines())}
    for item in load_pool(DATASETS["summeval"], folder, 100, 0):
        counts = [len(split_sentences(reference)) for reference in rows[item.id]["references"]]
        first_longest = rows[item.id]["references"][counts.index(max(counts))].strip()
        assert item.text == first_longest
        assert item.context == rows[item.id]["source"]


def test_selection_is_seeded_and_never_pads(caplog):
    pool = [dhp_sources.Item(f"i{j}", f"text {j}") for j in range(30)]
    first = select_items(pool, 10, 0, "demo")
    assert [item.id for item in first] == [item.id for item in select_items(pool, 10, 0, "demo")]
    assert [item.id for item in first] != [item.id for item in select_items(pool, 10, 1, "demo")]
    with caplog.at_level(logging.WARNING):
        everything = select_items(pool[:5], 100, 0, "demo")
    assert len(everything) == 5
    assert "only 5 eligible items" in caplog.text


def test_missing_field_names_file_row_and_field(tmp_path):
    path = tmp_path / "summeval.jsonl"
    path.write_text(
        json.dumps({"id": "a", "source": "x", "references": ["One. Two."]}) + "\n" + json.dumps({"id": "b"}) + "\n"
    )
    with pytest.raises(DataError, match=r"summeval.jsonl, row 2: field 'references' is missing"):
        dhp_sources.summeval_local(tmp_path)


def custom_folder(parent, name: str, rows: str):
    """A ``custom`` task's folder: ``items.jsonl`` holding ``rows``."""
    folder = parent / name
    folder.mkdir()
    (folder / "items.jsonl").write_text(rows)
    return folder


def test_custom_items_and_errors(tmp_path):
    good = custom_folder(
        tmp_path, "mine", '{"id": 1, "text": "A text.", "context": "ctx"}\n{"id": "two", "text": "Another."}\n'
    )
    items = load_custom_items(good)
    assert [(i.id, i.text, i.context) for i in items] == [("1", "A text.", "ctx"), ("two", "Another.", None)]
    bad = custom_folder(tmp_path, "bad", '{"id": "a", "text": "ok"}\n{"id": "b", "txt": "oops"}\n')
    with pytest.raises(DataError, match=r"bad/items.jsonl, row 2: field 'text'"):
        load_custom_items(bad)
    broken = custom_folder(tmp_path, "broken", '{"id": "a", "text": "ok"}\n{not json}\n')
    with pytest.raises(DataError, match=r"broken/items.jsonl, row 2: not valid JSON"):
        load_custom_items(broken)
    with pytest.raises(
        DataError, match=r"none/items.jsonl does not exist: data_dir must be a folder holding items.jsonl"
    ):
        load_custom_items(tmp_path / "none")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "row 2: expected a JSON object, got list"),
        ('"just text"', "row 2: expected a JSON object, got str"),
        ('{"id": "b", "text": {"x": 1}}', "row 2: field 'text' must be a string, got dict"),
        ('{"id": "b", "text": 5}', "row 2: field 'text' must be a string, got int"),
        ('{"id": "b", "text": "ok", "context": ["c"]}', "row 2: field 'context' must be a string, got list"),
        ('{"id": {"n": 1}, "text": "ok"}', "row 2: field 'id' must be a string or an integer, got dict"),
    ],
)
def test_custom_rows_of_the_wrong_type_name_file_row_and_field(tmp_path, line, message):
    folder = custom_folder(tmp_path, "mine", '{"id": "a", "text": "A text."}\n' + line + "\n")
    with pytest.raises(DataError, match=f"mine/items.jsonl, {message}"):
        load_custom_items(folder)


def test_data_errors_are_inspect_prerequisite_errors():
    """inspect shows a PrerequisiteError's message alone, without a traceback."""
    from judge_data.inspect_private import PrerequisiteError

    error = DataError("f.jsonl, row 2: field 'text' is missing or empty")
    assert isinstance(error, ValueError) and isinstance(error, PrerequisiteError)
    assert error.message == str(error) == "f.jsonl, row 2: field 'text' is missing or empty"


def test_sumpubmed_background_section():
    text = "BACKGROUND\nfirst line.\nsecond line.\nMETHODS\nmethods text\n"
    assert background_section(text, "f") == "first line.\nsecond line."
    with pytest.raises(DataError, match="no BACKGROUND"):
        background_section("RESULTS\nx", "f")


def _serve_files(monkeypatch, files):
    monkeypatch.setattr(dhp_sources, "download", lambda url, sha256=None: files[url])


def test_wmt22_remote_reads_the_official_text_files(monkeypatch, tmp_path, dhp_data):
    rows = [
        json.loads(line) for line in (dhp_data("wmt22") / "wmt22_zh-en_all_segments.jsonl").read_text().splitlines()
    ]
    source, reference = tmp_path / "src", tmp_path / "ref"
    source.write_text("\n".join(row["source"] for row in rows) + "\n")
    reference.write_text("\n".join(row["reference"] for row in rows) + "\n")
    _serve_files(
        monkeypatch,
        {
            f"{dhp_sources.WMT22_RAW}/sources/generaltest2022.zh-en.src.zh": source,
            f"{dhp_sources.WMT22_RAW}/references/generaltest2022.zh-en.ref.A.en": reference,
        },
    )
    remote = DATASETS["wmt22_zh_en"].load_remote(100, 0)
    local = load_pool(DATASETS["wmt22_zh_en"], dhp_data("wmt22"), 100, 0)
    assert [(i.id, i.text, i.context) for i in remote] == [(i.id, i.text, i.context) for i in local]


def test_storycloze_remote_reads_the_official_csv(monkeypatch, tmp_path, dhp_data):
    rows = [
        json.loads(line) for line in (dhp_data("storycloze") / "storycloze_2016_val.jsonl").read_text().splitlines()
    ][:50]
    path = tmp_path / "val.csv"
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            [
                "InputStoryid",
                "InputSentence1",
                "InputSentence2",
                "InputSentence3",
                "InputSentence4",
                "RandomFifthSentenceQuiz1",
                "RandomFifthSentenceQuiz2",
                "AnswerRightEnding",
            ]
        )
        for row in rows:
            writer.writerow(
                [row["id"], *row["context_sentences"], row["ending1"], row["ending2"], row["answer_right_ending"]]
            )
    _serve_files(monkeypatch, {dhp_sources.STORYCLOZE_URL: path})
    remote = DATASETS["storycloze"].load_remote(100, 0)
    assert [(i.id, i.text, i.context, i.wrong_text) for i in remote] == [
        (r["id"], r["right_ending"], r["context"], r["wrong_ending"]) for r in rows
    ]


def test_summeval_remote_reads_the_paired_file(monkeypatch, tmp_path, dhp_data):
    rows = [json.loads(line) for line in (dhp_data("summeval") / "summeval.jsonl").read_text().splitlines()][:5]
    path = tmp_path / "paired.jsonl"
    with path.open("w") as handle:
        for row in rows:
            for model in ("M0", "M1"):  # the paired file repeats each article once per system
                handle.write(
                    json.dumps(
                        {"id": row["id"], "text": row["source"], "references": row["references"], "model_id": model}
                    )
                    + "\n"
                )
    _serve_files(monkeypatch, {dhp_sources.SUMMEVAL_URL: path})
    remote = DATASETS["summeval"].load_remote(100, 0)
    local = load_pool(DATASETS["summeval"], dhp_data("summeval"), 100, 0)[:5]
    assert [(i.id, i.text, i.context) for i in remote] == [(i.id, i.text, i.context) for i in local]


def test_answer_equivalence_remote_reads_squad(monkeypatch, tmp_path):
    long_answer = "x" * 151
    squad = {
        "data": [
            {
                "paragraphs": [
                    {
                        "context": "Para.",
                        "qas": [
                            {"id": "q1", "question": "Q1?", "answers": [{"text": "short"}, {"text": long_answer}]},
                            {"id": "q2", "question": "Q2?", "answers": [{"text": "short"}]},
                        ],
                    }
                ]
            }
        ]
    }
    path = tmp_path / "dev.json"
    path.write_text(json.dumps(squad))
    _serve_files(monkeypatch, {dhp_sources.SQUAD_DEV_URL: path})
    items = DATASETS["answer_equivalence"].load_remote(100, 0)
    assert [(i.id, i.text) for i in items] == [("q1", long_answer)]
    assert "Q1?" in items[0].context and "Para." in items[0].context


def test_squad_download_is_checked_against_its_published_sha256(monkeypatch, tmp_path):
    asked = {}

    def fake_download(url, sha256=None):
        asked[url] = sha256
        path = tmp_path / "dev.json"
        path.write_text('{"data": []}')
        return path

    monkeypatch.setattr(dhp_sources, "download", fake_download)
    dhp_sources.answer_equivalence_remote()
    assert asked == {dhp_sources.SQUAD_DEV_URL: "95aa6a52d5d6a735563366753ca50492a658031da74f301ac5238b03966972c9"}


def test_github_sources_are_pinned_to_a_commit():
    import re

    commit = re.compile(r"/[0-9a-f]{40}(/|$)")
    for url in (dhp_sources.SUMPUBMED_RAW, dhp_sources.STORYCLOZE_URL, dhp_sources.WMT22_RAW, dhp_sources.WMT22_XML):
        assert commit.search(url), url


@pytest.fixture
def local_http(tmp_path, monkeypatch):
    """Files served over http://127.0.0.1, downloaded through the real ``datasets`` cache (in tmp_path)."""
    import functools
    import http.server
    import threading

    import datasets as hf_datasets

    served = tmp_path / "served"
    served.mkdir()
    monkeypatch.setattr(hf_datasets.config, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_datasets.config, "DOWNLOADED_DATASETS_PATH", tmp_path / "downloads")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield served, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_download_checks_the_sha256(local_http):
    import hashlib

    served, base_url = local_http
    content = b'{"data": []}\n'
    (served / "good.json").write_bytes(content)
    expected = hashlib.sha256(content).hexdigest()
    path = dhp_sources.download(f"{base_url}/good.json", sha256=expected)
    assert path.read_bytes() == content

    (served / "changed.json").write_bytes(b'{"data": ["changed"]}\n')
    url = f"{base_url}/changed.json"
    actual = hashlib.sha256(b'{"data": ["changed"]}\n').hexdigest()
    with pytest.raises(DataError) as error:
        dhp_sources.download(url, sha256=expected)
    message = str(error.value)
    assert url in message and f"expected {expected}" in message and f"sha256 {actual}" in message


def test_offline_download_gives_a_clear_error(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(ConnectionError, match="data_dir"):
        dhp_sources.download("https://example.invalid/none.jsonl")


def test_paragraph_units_join_consecutive_segments_of_one_document(dhp_data):
    path = dhp_data("wmt22") / "wmt22_zh-en_all_segments.jsonl"
    rows = list(dhp_sources.read_jsonl(path))
    units = dhp_sources.translation_paragraphs(iter(rows), path)
    by_id = {row["id"]: (index, row) for index, (_, row) in enumerate(rows)}
    for unit in units:
        first_id, extra = unit.id.rsplit("+", 1)
        start, _ = by_id[first_id]
        members = [row for _, row in rows[start : start + int(extra) + 1]]
        assert len({row["doc_id"] for row in members}) == 1
        assert unit.text == " ".join(row["reference"].strip() for row in members)
        assert len(unit.text) > 300
        assert len(" ".join(row["reference"].strip() for row in members[:-1])) <= 300
    assert 400 < sum(len(u.text) for u in units) / len(units) < 480  # DHP reports 437 characters for de-en


def test_de_en_without_document_ids_keeps_single_segments(dhp_data, caplog):
    with caplog.at_level(logging.WARNING):
        pool = load_pool(DATASETS["wmt22_de_en"], dhp_data("wmt22"), 100, 0)
    assert len(pool) == 16
    assert "no document ids" in caplog.text


def test_de_en_remote_builds_paragraphs_from_the_xml(monkeypatch, tmp_path):
    long = "This sentence is long enough to count for something in a unit. " * 3
    xml = f"""<dataset id="wmttest2022"><collection id="general">
      <doc id="d1" origlang="de"><src lang="de"><p><seg id="1">Eins.</seg><seg id="2">Zwei.</seg></p><p><seg id="3">Drei.</seg></p></src>
        <ref lang="en" translator="A"><p><seg id="1">{long}</seg><seg id="2">{long}</seg></p><p><seg id="3">Tail.</seg></p></ref>
        <ref lang="en" translator="B"><p><seg id="1">b</seg><seg id="2">b</seg></p><p><seg id="3">b</seg></p></ref></doc>
      <doc id="d2" origlang="de"><src lang="de"><p><seg id="1">Vier.</seg></p></src>
        <ref lang="en" translator="A"><p><seg id="1">{long}{long}</seg></p></ref></doc>
    </collection></dataset>"""
    path = tmp_path / "de-en.xml"
    path.write_text(xml)
    monkeypatch.setattr(dhp_sources, "download", lambda url: path)
    units = DATASETS["wmt22_de_en"].load_remote(100, 0)
    assert [(u.context, len(u.text) > 300) for u in units] == [("Eins. Zwei.", True), ("Vier.", True)]


def test_answer_equivalence_reads_real_ae_rating_rows(tmp_path):
    answer = (
        "a reference answer that is long enough to pass the one hundred and fifty character rule of the DHP paper, " * 2
    )
    rows = [
        {"qid": "q1", "question": "Why?", "reference": answer, "candidate": "because", "score": 1},
        {"qid": "q1", "question": "Why?", "reference": answer, "candidate": "no idea", "score": 0},
        {"qid": "q2", "question": "Who?", "reference": "short", "candidate": "x"},
    ]
    (tmp_path / "ae_dev.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    items = dhp_sources.answer_equivalence_local(tmp_path)
    assert [(i.id, i.text.strip(), i.context) for i in items] == [("q1", answer.strip(), "Question: Why?")]
