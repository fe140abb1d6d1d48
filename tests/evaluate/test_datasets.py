"""Loading BEIR data sets and a vault's judgments file, including every malformed case."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from explorer.evaluate.datasets import (
    BeirDataset,
    DatasetError,
    Doc,
    dataset_fingerprint,
    load_beir,
    load_judgments,
)

SCIFACT = Path(__file__).resolve().parents[3] / "shared" / "data" / "scifact-train"


def _jsonl(records: list[dict[str, object]]) -> str:
    return "".join(json.dumps(record) + "\n" for record in records)


def _write_beir(
    folder: Path,
    corpus: str | None = None,
    queries: str | None = None,
    qrels: str | None = None,
    split: str = "test",
) -> Path:
    """A small valid BEIR folder; any of the three files can be replaced by raw text."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "qrels").mkdir(exist_ok=True)
    if corpus is None:
        corpus = _jsonl(
            [
                {"_id": "d1", "title": "Cats", "text": "Cats purr."},
                {"_id": "d2", "title": "", "text": "Dogs bark."},
                {"_id": "d3", "text": "No title here."},
            ]
        )
    if queries is None:
        queries = _jsonl(
            [
                {"_id": "q1", "text": "do cats purr"},
                {"_id": "q2", "text": "do dogs bark"},
                {"_id": "q3", "text": "a query of another split"},
            ]
        )
    if qrels is None:
        qrels = "query-id\tcorpus-id\tscore\nq1\td1\t2\nq1\td3\t0\nq2\td2\t1\n"
    (folder / "corpus.jsonl").write_text(corpus, encoding="utf-8")
    (folder / "queries.jsonl").write_text(queries, encoding="utf-8")
    (folder / "qrels" / f"{split}.tsv").write_text(qrels, encoding="utf-8")
    return folder


def _error(folder: Path, split: str = "test") -> str:
    with pytest.raises(DatasetError) as info:
        load_beir(folder, split)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_load_beir(tmp_path: Path) -> None:
    dataset = load_beir(_write_beir(tmp_path / "tiny"), "test")
    assert isinstance(dataset, BeirDataset)
    assert dataset.name == "tiny"
    assert dataset.corpus == {
        "d1": Doc("Cats", "Cats purr."),
        "d2": Doc("", "Dogs bark."),
        "d3": Doc("", "No title here."),
    }
    # q3 is not judged in this split, so it is not kept.
    assert dataset.queries == {"q1": "do cats purr", "q2": "do dogs bark"}
    assert dataset.qrels == {"q1": {"d1": 2, "d3": 0}, "q2": {"d2": 1}}


def test_qrels_without_header_keep_their_first_line(tmp_path: Path) -> None:
    folder = _write_beir(tmp_path, qrels="q1\td1\t1\r\n\nq2\td2\t1\r\n")
    assert load_beir(folder, "test").qrels == {"q1": {"d1": 1}, "q2": {"d2": 1}}


def test_numeric_ids_and_blank_lines_are_accepted(tmp_path: Path) -> None:
    corpus = '{"_id": 7, "title": "T", "text": "x"}\n\n'
    folder = _write_beir(tmp_path, corpus=corpus, qrels="q1\t7\t1\n")
    assert load_beir(folder, "test").corpus == {"7": Doc("T", "x")}


def test_bad_json_names_file_and_line(tmp_path: Path) -> None:
    corpus = _jsonl([{"_id": "d1", "text": "ok"}]) + '{"_id": "d2", "text": \n'
    message = _error(_write_beir(tmp_path, corpus=corpus))
    assert "corpus.jsonl:2: bad JSON" in message


def test_json_that_is_not_an_object(tmp_path: Path) -> None:
    message = _error(_write_beir(tmp_path, corpus='["d1", "text"]\n'))
    assert "corpus.jsonl:1: expected a JSON object" in message


def test_missing_id(tmp_path: Path) -> None:
    queries = _jsonl([{"_id": "q1", "text": "a"}, {"_id": "q2", "text": "b"}, {"text": "c"}])
    message = _error(_write_beir(tmp_path, queries=queries))
    assert "queries.jsonl:3: missing '_id'" in message


def test_empty_id_and_non_string_text(tmp_path: Path) -> None:
    message = _error(_write_beir(tmp_path / "a", corpus='{"_id": "", "text": "x"}\n'))
    assert "corpus.jsonl:1: '_id' must be a non-empty string" in message
    message = _error(_write_beir(tmp_path / "b", corpus='{"_id": "d1", "text": 3}\n'))
    assert "corpus.jsonl:1: 'text' must be a string" in message


def test_duplicate_ids(tmp_path: Path) -> None:
    corpus = _jsonl([{"_id": "d1", "text": "a"}, {"_id": "d1", "text": "b"}])
    message = _error(_write_beir(tmp_path, corpus=corpus))
    assert "corpus.jsonl:2: duplicate document id 'd1'" in message


def test_wrong_column_count(tmp_path: Path) -> None:
    qrels = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2 d2 1\n"
    message = _error(_write_beir(tmp_path, qrels=qrels))
    assert "test.tsv:3: expected 3 tab-separated columns" in message
    assert "found 1" in message


def test_non_integer_score(tmp_path: Path) -> None:
    message = _error(_write_beir(tmp_path / "a", qrels="query-id\tcorpus-id\tscore\nq1\td1\tx\n"))
    assert "test.tsv:2: score 'x' is not an integer" in message
    # A fractional first line is a bad judgment, not a header.
    message = _error(_write_beir(tmp_path / "b", qrels="q1\td1\t1.5\n"))
    assert "test.tsv:1: score '1.5' is not an integer" in message


def test_duplicate_judgment(tmp_path: Path) -> None:
    message = _error(_write_beir(tmp_path, qrels="q1\td1\t1\nq1\td1\t2\n"))
    assert "test.tsv:2: duplicate judgment for (q1, d1)" in message


def test_judged_query_missing_from_queries(tmp_path: Path) -> None:
    message = _error(_write_beir(tmp_path, qrels="q1\td1\t1\nq9\td2\t1\n"))
    assert "test.tsv:2: query id 'q9' is not in queries.jsonl" in message


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    folder = _write_beir(tmp_path)
    (folder / "queries.jsonl").write_bytes(b'{"_id": "q1", "text": "a"}\n{"_id": "q2", "\xff"}\n')
    assert "queries.jsonl:2: not valid UTF-8" in _error(folder)


def test_missing_file(tmp_path: Path) -> None:
    folder = _write_beir(tmp_path)
    (folder / "corpus.jsonl").unlink()
    assert "corpus.jsonl: file not found" in _error(folder)
    assert "data set folder not found" in _error(tmp_path / "nowhere")


def test_missing_split_lists_available_splits(tmp_path: Path) -> None:
    folder = _write_beir(tmp_path)
    (folder / "qrels" / "dev.tsv").write_text("q1\td1\t1\n", encoding="utf-8")
    message = _error(folder, "train")
    assert "no split 'train'" in message
    assert "available splits: dev, test" in message


def test_fingerprint_changes_with_split_and_content(tmp_path: Path) -> None:
    folder = _write_beir(tmp_path)
    (folder / "qrels" / "dev.tsv").write_text("q1\td1\t1\n", encoding="utf-8")
    first = dataset_fingerprint(folder, "test")
    assert first == dataset_fingerprint(folder, "test")
    assert len(first) == 64
    assert first != dataset_fingerprint(folder, "dev")
    corpus = folder / "corpus.jsonl"
    stat = corpus.stat()
    os.utime(corpus, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert dataset_fingerprint(folder, "test") != first
    with pytest.raises(DatasetError, match="no split 'train'"):
        dataset_fingerprint(folder, "train")


@pytest.mark.skipif(not SCIFACT.is_dir(), reason="shared SciFact data not present")
def test_loads_scifact_train() -> None:
    dataset = load_beir(SCIFACT, "train")
    assert len(dataset.corpus) == 5183
    assert set(dataset.qrels) <= set(dataset.queries)
    assert set(dataset.queries) == set(dataset.qrels)
    assert sum(len(judged) for judged in dataset.qrels.values()) == 919
    assert all(doc.text for doc in dataset.corpus.values())


# --- judgments.tsv -------------------------------------------------------------------------


def _judgments(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "judgments.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def _judgment_error(tmp_path: Path, text: str) -> str:
    with pytest.raises(DatasetError) as info:
        load_judgments(_judgments(tmp_path, text))
    message = str(info.value)
    assert "\n" not in message
    return message


def test_load_judgments(tmp_path: Path) -> None:
    text = (
        "query\tpath\tgrade\n"
        "# judged on 2024-05-01\n"
        "\n"
        "rust borrow checker\tprogramming/rust.md\t3\n"
        "rust borrow checker\tprogramming\\old\\rust notes.md\t1\n"
        "rust borrow checker\t./misc//lifetimes.md\t0\n"
        "  # indented comment\n"
        "café opening hours\tplaces/café.md\t2\r\n"
        "\\#project/alpha\tprojects/alpha.md\t2\n"
    )
    assert load_judgments(_judgments(tmp_path, text)) == {
        "rust borrow checker": {
            "programming/rust.md": 3,
            "programming/old/rust notes.md": 1,
            "misc/lifetimes.md": 0,
        },
        "café opening hours": {"places/café.md": 2},
        "#project/alpha": {"projects/alpha.md": 2},
    }


def test_judgments_header_is_optional_and_bom_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "judgments.tsv"
    path.write_bytes("\ufeffq\tnote.md\t1\n".encode())
    assert load_judgments(path) == {"q": {"note.md": 1}}


def test_judgment_grade_out_of_range(tmp_path: Path) -> None:
    message = _judgment_error(tmp_path, "q\ta.md\t1\nq\tb.md\t4\n")
    assert "judgments.tsv:2: grade 4 is out of range 0-3" in message
    message = _judgment_error(tmp_path, "q\ta.md\t-1\n")
    assert "judgments.tsv:1: grade -1 is out of range" in message


def test_judgment_grade_not_an_integer(tmp_path: Path) -> None:
    message = _judgment_error(tmp_path, "# c\nq\ta.md\thigh\n")
    assert "judgments.tsv:2: grade 'high' is not an integer" in message


def test_judgment_wrong_column_count(tmp_path: Path) -> None:
    message = _judgment_error(tmp_path, "query\tpath\tgrade\nq a.md 2\n")
    assert "judgments.tsv:2: expected 3 tab-separated columns" in message
    message = _judgment_error(tmp_path, "q\ta.md\t2\tnote\n")
    assert "judgments.tsv:1: expected 3 tab-separated columns" in message
    assert "found 4" in message


def test_judgment_header_only_on_the_first_line(tmp_path: Path) -> None:
    message = _judgment_error(tmp_path, "q\ta.md\t1\nquery\tpath\tgrade\n")
    assert "judgments.tsv:2: grade 'grade' is not an integer" in message


def test_judgment_bad_paths_and_queries(tmp_path: Path) -> None:
    assert "judgments.tsv:1: empty note path" in _judgment_error(tmp_path, "q\t \t1\n")
    assert "must be relative" in _judgment_error(tmp_path, "q\t/home/me/a.md\t1\n")
    assert "must be relative" in _judgment_error(tmp_path, "q\tC:\\notes\\a.md\t1\n")
    assert "must not contain '..'" in _judgment_error(tmp_path, "q\t../a.md\t1\n")
    assert "judgments.tsv:1: empty query" in _judgment_error(tmp_path, " \ta.md\t1\n")


def test_judgment_duplicates_name_both_lines(tmp_path: Path) -> None:
    message = _judgment_error(tmp_path, "q\ta.md\t1\nq\tb.md\t1\nq\t./a.md\t2\n")
    assert "judgments.tsv:3: 'a.md' is already judged for this query on line 1" in message


def test_judgments_missing_file(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"judgments\.tsv: file not found"):
        load_judgments(tmp_path / "judgments.tsv")
