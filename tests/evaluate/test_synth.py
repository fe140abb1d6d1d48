"""The synthetic vault generator: deterministic, structured like real notes, and queryable."""

from __future__ import annotations

import re
import statistics
from pathlib import Path

import pytest
import yaml

from explorer.evaluate.synth import (
    QUESTION_OPENINGS,
    STOPWORDS,
    generate_queries,
    generate_questions,
    generate_vault,
)

FRONTMATTER = re.compile(r"\A---\n(.*?\n)---\n", re.DOTALL)


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*.md")}


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vault")
    generate_vault(root, 400, seed=3)
    return root


def test_same_seed_gives_identical_bytes(tmp_path: Path) -> None:
    generate_vault(tmp_path / "a", 120, seed=11)
    generate_vault(tmp_path / "b", 120, seed=11)
    first, second = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert len(first) == 120
    assert first == second


def test_another_seed_gives_another_vault(tmp_path: Path) -> None:
    generate_vault(tmp_path / "a", 30, seed=1)
    generate_vault(tmp_path / "b", 30, seed=2)
    assert _files(tmp_path / "a") != _files(tmp_path / "b")


def test_file_count_and_folders(vault: Path) -> None:
    files = _files(vault)
    assert len(files) == 400
    folders = {path.rpartition("/")[0] for path in files}
    assert 10 <= len(folders) <= 21  # ~20 folders and the root, nearly all used at this size
    assert max(path.count("/") for path in files) >= 2  # nested
    # Names are unique even on case-insensitive file systems.
    assert len({path.lower() for path in files}) == len(files)


def test_zero_notes_and_negative_count(tmp_path: Path) -> None:
    generate_vault(tmp_path / "empty", 0)
    assert _files(tmp_path / "empty") == {}
    with pytest.raises(ValueError, match="notes must be"):
        generate_vault(tmp_path / "bad", -1)


def test_notes_look_like_markdown_notes(vault: Path) -> None:
    texts = [data.decode("utf-8") for data in _files(vault).values()]
    with_frontmatter = 0
    stale = 0
    for text in texts:
        match = FRONTMATTER.match(text)
        body = text
        if match:
            with_frontmatter += 1
            meta = yaml.safe_load(match.group(1))
            assert isinstance(meta["title"], str)
            assert all(isinstance(tag, str) for tag in meta.get("tags", []))
            stale += meta.get("status") == "stale"
            body = text[match.end() :].lstrip("\n")
        assert body.startswith("# ")
        assert text.endswith("\n")
    assert 0.4 < with_frontmatter / len(texts) < 0.8
    assert stale > 0
    joined = "\n".join(texts)
    assert "\n## " in joined
    assert "\n```" in joined
    assert re.search(r"(?<![\w#])#[a-z][\w/]*", joined)  # inline tags
    assert "[[" in joined


def test_lengths_vary_around_one_and_a_half_kilobytes(vault: Path) -> None:
    sizes = [len(data) for data in _files(vault).values()]
    assert 1000 < statistics.median(sizes) < 2200
    assert max(sizes) > 3 * statistics.median(sizes)
    assert max(sizes) < 24_000


def test_text_has_common_words_and_a_large_vocabulary(vault: Path) -> None:
    words = re.findall(r"[^\W\d_]+", "\n".join(d.decode() for d in _files(vault).values()))
    lowered = [word.lower() for word in words]
    assert sum(word in STOPWORDS for word in lowered) / len(lowered) > 0.25
    assert len(set(lowered)) > 5000


def test_queries_hit_a_note_containing_all_their_words(vault: Path) -> None:
    queries = generate_queries(vault, 25, seed=5)
    assert len(queries) == len(set(queries)) == 25
    notes = [set(re.findall(r"[^\W\d_]+", d.decode().lower())) for d in _files(vault).values()]
    for query in queries:
        words = query.split()
        assert 2 <= len(words) <= 4
        assert not set(words) & STOPWORDS
        assert any(set(words) <= note for note in notes), query


def test_queries_are_deterministic(vault: Path) -> None:
    assert generate_queries(vault, 10, seed=1) == generate_queries(vault, 10, seed=1)
    assert generate_queries(vault, 10, seed=1) != generate_queries(vault, 10, seed=2)


def test_queries_from_a_hand_written_vault(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "rust.md").write_text(
        "---\ntags: [lang]\n---\n# Rust\n\nOwnership borrowing lifetimes.\n\n"
        "```rust\nfn unreachable_code() {}\n```\n",
        encoding="utf-8",
    )
    (tmp_path / "empty.md").write_text("# A\n", encoding="utf-8")
    queries = generate_queries(tmp_path, 3, seed=0)
    assert len(queries) == 3
    for query in queries:
        assert set(query.split()) <= {"rust", "ownership", "borrowing", "lifetimes"}
    with pytest.raises(ValueError, match="distinct queries"):
        generate_queries(tmp_path, 100, seed=0)


def test_queries_from_an_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no markdown notes"):
        generate_queries(tmp_path, 1)
    assert generate_queries(tmp_path, 0) == []


def test_questions_are_long_runs_of_one_note_with_their_stopwords(tmp_path: Path) -> None:
    vault = tmp_path / "v"
    generate_vault(vault, 40, seed=3)
    questions = generate_questions(vault, 20, seed=4)
    assert len(questions) == len(set(questions)) == 20
    notes = [p.read_text(encoding="utf-8").lower() for p in vault.rglob("*.md")]
    for question in questions:
        words = question.split()
        assert 12 <= len(words) <= 16
        opening = next(o for o in QUESTION_OPENINGS if question.startswith(o + " "))
        rest = words[len(opening.split()) :]
        # The run's words are all in one note, in order.
        assert any(_in_order(rest, re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", n)) for n in notes)
    assert any(w in STOPWORDS for q in questions for w in q.split()[3:])
    assert generate_questions(vault, 5, seed=1) == generate_questions(vault, 5, seed=1)
    short = tmp_path / "short"
    short.mkdir()
    (short / "a.md").write_text("# A\n\nfar too short\n")
    with pytest.raises(ValueError, match="found only 0 distinct questions"):
        generate_questions(short, 1, seed=0)


def _in_order(words: list[str], text_words: list[str]) -> bool:
    it = iter(text_words)
    return all(word in it for word in words)


def test_a_third_of_the_notes_get_typed_properties_and_the_words_stay(tmp_path: Path) -> None:
    from explorer.vault.parse import parse_note

    generate_vault(tmp_path / "plain", 30, seed=3)
    generate_vault(tmp_path / "props", 30, seed=3, properties=True)
    with_props = 0
    for path in sorted((tmp_path / "props").rglob("*.md")):
        note = parse_note(path.name, path.read_bytes())
        plain = parse_note(
            path.name, (tmp_path / "plain" / path.relative_to(tmp_path / "props")).read_bytes()
        )
        assert note.title == plain.title
        assert [c.text for c in note.chunks] == [c.text for c in plain.chunks]
        keys = {p.key: p.kind for p in note.properties}
        if "rating" in keys:
            with_props += 1
            assert keys["rating"] == "number" and keys["due"] == "date"
    assert with_props == 10
