"""Labelled retrieval data: BEIR-format data sets, and the judgments a user keeps for a vault.

Both are read strictly.  A relevance file with one bad line would otherwise change a score
silently (a dropped judgment moves recall), so every malformed line raises ``DatasetError`` with
one line of text naming the file and the 1-based line number, ready to show to the user as is.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from explorer.errors import UserError

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"
QRELS_DIR = "qrels"
MAX_GRADE = 3
"""Highest grade in a user's judgments file: 0 not relevant, 1 related, 2 relevant, 3 the answer."""


class DatasetError(UserError, ValueError):
    """Malformed labelled data; the message is one line naming the file and line."""


@dataclass(frozen=True, slots=True)
class Doc:
    """One corpus document, as BEIR stores it: the title is kept apart from the text."""

    title: str
    text: str


@dataclass(frozen=True, slots=True)
class BeirDataset:
    """A BEIR data set restricted to one split: only the queries that split judges are kept."""

    name: str
    corpus: dict[str, Doc]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, text without the line ending) of a UTF-8 file.

    Decoding line by line is what lets an encoding error name its line.  A byte-order mark at the
    start is dropped: spreadsheet programs on Windows write one.
    """
    try:
        handle = path.open("rb")
    except FileNotFoundError:
        raise DatasetError(f"{path}: file not found") from None
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc.strerror})") from None
    with handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                msg = f"{path}:{number}: not valid UTF-8 (byte {exc.start + 1} of the line)"
                raise DatasetError(msg) from None
            if number == 1:
                line = line.removeprefix("\ufeff")
            yield number, line.rstrip("\r\n")


def _read_jsonl(path: Path, required: tuple[str, ...]) -> Iterator[tuple[int, dict[str, Any]]]:
    """The JSON objects of a JSON-lines file, checking that ``required`` keys are present."""
    for number, line in _lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path}:{number}: bad JSON ({exc.msg})") from None
        if not isinstance(record, dict):
            raise DatasetError(f"{path}:{number}: expected a JSON object")
        for key in required:
            if key not in record:
                raise DatasetError(f"{path}:{number}: missing {key!r}")
        yield number, record


def _record_id(record: dict[str, Any], path: Path, number: int) -> str:
    value = record["_id"]
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # some exports write numeric ids; BEIR treats ids as strings
    if not isinstance(value, str) or not value.strip():
        raise DatasetError(f"{path}:{number}: '_id' must be a non-empty string")
    return value


def _string_field(record: dict[str, Any], key: str, path: Path, number: int) -> str:
    """A text field; absent or null reads as empty, as BEIR's own loader does."""
    value = record.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise DatasetError(f"{path}:{number}: {key!r} must be a string")
    return value


def _read_corpus(path: Path) -> dict[str, Doc]:
    corpus: dict[str, Doc] = {}
    for number, record in _read_jsonl(path, ("_id",)):
        doc_id = _record_id(record, path, number)
        if doc_id in corpus:
            raise DatasetError(f"{path}:{number}: duplicate document id {doc_id!r}")
        title = _string_field(record, "title", path, number)
        corpus[doc_id] = Doc(title=title, text=_string_field(record, "text", path, number))
    return corpus


def _read_queries(path: Path) -> dict[str, tuple[int, str]]:
    """Query id -> (line number, text); the line number is kept for later error messages."""
    queries: dict[str, tuple[int, str]] = {}
    for number, record in _read_jsonl(path, ("_id", "text")):
        query_id = _record_id(record, path, number)
        if query_id in queries:
            raise DatasetError(f"{path}:{number}: duplicate query id {query_id!r}")
        queries[query_id] = (number, _string_field(record, "text", path, number))
    return queries


def _parse_int(text: str, what: str, path: Path, number: int) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise DatasetError(f"{path}:{number}: {what} {text.strip()!r} is not an integer") from None


def _read_qrels(path: Path) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Judgments, and the line of each query's first judgment (for error messages).

    The header line BEIR writes is recognised by its score column not being a number, rather than
    skipped blindly, so a file without a header does not lose its first judgment (and a first
    judgment with a score like ``1.5`` is reported, not taken for a header).
    """
    qrels: dict[str, dict[str, int]] = {}
    first_line: dict[str, int] = {}
    seen_content = False
    for number, line in _lines(path):
        if not line.strip():
            continue
        columns = line.split("\t")
        if len(columns) != 3:
            raise DatasetError(
                f"{path}:{number}: expected 3 tab-separated columns "
                f"(query-id, corpus-id, score), found {len(columns)}"
            )
        query_id, doc_id, score_text = (column.strip() for column in columns)
        is_first, seen_content = not seen_content, True
        if is_first and not _is_number(score_text):
            continue  # the header line
        score = _parse_int(score_text, "score", path, number)
        if not query_id or not doc_id:
            raise DatasetError(f"{path}:{number}: empty query-id or corpus-id")
        judgments = qrels.setdefault(query_id, {})
        if doc_id in judgments:
            raise DatasetError(f"{path}:{number}: duplicate judgment for ({query_id}, {doc_id})")
        judgments[doc_id] = score
        first_line.setdefault(query_id, number)
    return qrels, first_line


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _qrels_path(folder: Path, split: str) -> Path:
    """The qrels file of ``split``; a missing split names the splits that exist."""
    if not folder.is_dir():
        raise DatasetError(f"{folder}: data set folder not found")
    path = folder / QRELS_DIR / f"{split}.tsv"
    if not path.is_file():
        available = sorted(p.stem for p in (folder / QRELS_DIR).glob("*.tsv"))
        listed = ", ".join(available) if available else "none"
        raise DatasetError(f"{path}: no split {split!r} (available splits: {listed})")
    return path


def load_beir(folder: Path, split: str) -> BeirDataset:
    """Read a BEIR data set folder (``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``).

    Only the queries the split judges are kept: a BEIR ``queries.jsonl`` holds the queries of all
    splits, and evaluating the others would score unjudged queries.  A judged query missing from
    ``queries.jsonl`` is an error; a judged document missing from the corpus is kept, since it is
    still part of what recall is measured against.
    """
    qrels_path = _qrels_path(folder, split)
    qrels, first_line = _read_qrels(qrels_path)
    all_queries = _read_queries(folder / QUERIES_FILE)
    queries: dict[str, str] = {}
    for query_id in qrels:
        if query_id not in all_queries:
            raise DatasetError(
                f"{qrels_path}:{first_line[query_id]}: query id {query_id!r} "
                f"is not in {QUERIES_FILE}"
            )
        queries[query_id] = all_queries[query_id][1]
    corpus = _read_corpus(folder / CORPUS_FILE)
    return BeirDataset(name=folder.name, corpus=corpus, queries=queries, qrels=qrels)


def dataset_fingerprint(folder: Path, split: str) -> str:
    """A cache key for results computed on a data set: sha256 of its files' sizes and mtimes.

    Hashing the metadata rather than the content keeps this instant on large corpora; any edit to
    a file changes its mtime, which is all a cache needs to notice.
    """
    digest = hashlib.sha256(f"split={split}\n".encode())
    for path in (folder / CORPUS_FILE, folder / QUERIES_FILE, _qrels_path(folder, split)):
        try:
            stat = path.stat()
        except FileNotFoundError:
            raise DatasetError(f"{path}: file not found") from None
        digest.update(f"{path.name}\t{stat.st_size}\t{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _normalise_note_path(text: str, path: Path, number: int) -> str:
    """A vault-relative POSIX path; backslashes (Windows copies) become slashes."""
    raw = text.strip().replace("\\", "/")
    if not raw:
        raise DatasetError(f"{path}:{number}: empty note path")
    if raw.startswith("/") or (len(raw) > 1 and raw[1] == ":"):
        raise DatasetError(f"{path}:{number}: note path {raw!r} must be relative to the vault")
    parts = PurePosixPath(raw).parts  # drops "." components and repeated slashes
    if ".." in parts:
        raise DatasetError(f"{path}:{number}: note path {raw!r} must not contain '..'")
    return PurePosixPath(*parts).as_posix()


def _is_header(columns: list[str]) -> bool:
    return [column.strip().lower() for column in columns] == ["query", "path", "grade"]


def load_judgments(path: Path) -> dict[str, dict[str, int]]:
    """Read a vault's ``judgments.tsv``: query -> {vault-relative note path -> grade 0..3}.

    Lines are ``query<TAB>note path<TAB>grade``.  Blank lines and lines starting with ``#`` are
    ignored, so a judgment can be commented out; a query that itself starts with ``#`` (a tag
    search) is written with a backslash first, ``\\#tag``.  An optional first line
    ``query<TAB>path<TAB>grade`` is a header.  Grade 0 is kept: it records that a note was looked
    at and judged not relevant.
    """
    judgments: dict[str, dict[str, int]] = {}
    lines_of: dict[tuple[str, str], int] = {}
    for number, _, judged in judgment_lines(path):
        if judged is None:
            continue
        query, note, grade = judged
        if (query, note) in lines_of:
            raise DatasetError(
                f"{path}:{number}: {note!r} is already judged for this query "
                f"on line {lines_of[(query, note)]}"
            )
        lines_of[(query, note)] = number
        judgments.setdefault(query, {})[note] = grade
    return judgments


def judgment_lines(path: Path) -> Iterator[tuple[int, str, tuple[str, str, int] | None]]:
    """Every line of a judgments file: its number, its text, and the (query, note path, grade)
    it states, or ``None`` for a blank line, a comment or the header (what a rewrite keeps).
    Raises :class:`DatasetError` naming the first bad line."""
    seen_content = False
    for number, line in _lines(path):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            yield number, line, None
            continue
        columns = line.split("\t")
        is_first, seen_content = not seen_content, True
        if is_first and len(columns) == 3 and _is_header(columns):
            yield number, line, None
            continue
        yield number, line, parse_judgment(line, path, number)


def parse_judgment(line: str, path: Path, number: int) -> tuple[str, str, int]:
    """The (query, note path, grade) of one line ``query<TAB>note path<TAB>grade``.

    A query that starts with ``#`` or ``\\`` is written with a backslash first (``\\#tag``),
    so that it is not read as a comment (:func:`judgment_line` writes it so)."""
    columns = line.split("\t")
    if len(columns) != 3:
        raise DatasetError(
            f"{path}:{number}: expected 3 tab-separated columns "
            f"(query, note path, grade), found {len(columns)}"
        )
    query = columns[0].strip()
    if query.startswith(("\\#", "\\\\")):
        query = query[1:]
    if not query:
        raise DatasetError(f"{path}:{number}: empty query")
    note = _normalise_note_path(columns[1], path, number)
    grade = _parse_int(columns[2], "grade", path, number)
    if not 0 <= grade <= MAX_GRADE:
        raise DatasetError(f"{path}:{number}: grade {grade} is out of range 0-{MAX_GRADE}")
    return query, note, grade


def judgment_line(query: str, note: str, grade: int, path: Path) -> str:
    """The line (without its ending) that :func:`parse_judgment` reads as exactly ``(query,
    note, grade)``; :class:`DatasetError` naming what the format cannot hold (a tab or a line
    break, spaces around a value, a note path that is not plainly vault-relative)."""
    escaped = "\\" + query if query.startswith(("#", "\\")) else query
    line = f"{escaped}\t{note}\t{grade}"
    if _reads_back(line, path) == (query, note, grade):
        return line
    if _reads_back(f"{escaped}\tx\t0", path) != (query, "x", 0):
        what = f"the query {query!r}: a query in judgments.tsv holds no tab or line break"
        raise DatasetError(f"{path}: cannot save a grade for {what}, nor spaces around it")
    raise DatasetError(
        f"{path}: cannot save a grade for the note {note!r}: a note path in judgments.tsv holds "
        "no tab, line break, backslash or spaces around it"
    )


def _reads_back(line: str, path: Path) -> tuple[str, str, int] | None:
    if "\n" in line or "\r" in line:
        return None
    try:
        return parse_judgment(line, path, 0)
    except DatasetError:
        return None
