"""Vector storage and the in-memory top-k against a brute-force reference."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from explorer.embed.base import FakeEmbedder
from explorer.index.db import IndexDB
from explorer.index.embedding import decode_vector, embed_pending, encode_vector, pack_floats
from explorer.index.sync import sync_vault
from explorer.index.vectors import MIN_SPREAD, CosineSpread, VectorIndex


def test_blob_is_little_endian_float32() -> None:
    values = [0.5, -1.25, 3.0e-8, 1e30]
    vec = np.array(values, dtype=np.float32)
    assert encode_vector(vec) == pack_floats(values)
    assert np.array_equal(np.frombuffer(encode_vector(vec), "<f4"), vec)
    assert np.array_equal(decode_vector(encode_vector(vec), 4), vec)


def test_top_notes_matches_brute_force(vault: Path, open_db: Callable[[Path], IndexDB]) -> None:
    rng = np.random.default_rng(3)
    words = [f"w{i}" for i in range(60)]
    for i in range(80):
        paras = ["# N\n"] + [
            " ".join(rng.choice(words, 120)) for _ in range(int(rng.integers(1, 5)))
        ]
        (vault / f"n{i:02}.md").write_text("\n\n".join(paras))
    db = open_db(vault)
    fake = FakeEmbedder()
    sync_vault(db)
    embed_pending(db, fake)
    index = VectorIndex(fake.name)
    assert index.refresh(db)
    assert not index.refresh(db)  # nothing changed: no reload
    query = fake.embed(["w1 w2 w3 w4"])[0]
    hits = index.top_notes(query, 10)
    # Reference: a Python loop over every chunk of every note.
    best: dict[int, float] = {}
    for note_id, blob in db.conn.execute(
        "SELECT c.note_id, v.vec FROM chunks c JOIN vectors v ON v.hash = c.hash"
    ):
        score = float(np.frombuffer(blob, "<f4") @ query)
        best[note_id] = max(best.get(note_id, -2.0), score)
    expected = sorted(best, key=lambda n: (-best[n], n))[:10]
    assert [h.note_id for h in hits] == expected
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    allowed = set(expected[5:])

    def passes(ids: np.ndarray) -> np.ndarray:
        return np.isin(ids, list(allowed))

    assert {h.note_id for h in index.top_notes(query, 10, allowed=passes)} == allowed
    floor = hits[3].score
    assert all(h.score >= floor for h in index.top_notes(query, 50, min_sim=floor))


def test_vector_index_follows_changes(vault: Path, open_db: Callable[[Path], IndexDB]) -> None:
    (vault / "a.md").write_text("# A\n\nalpha words\n")
    db = open_db(vault)
    fake = FakeEmbedder()
    sync_vault(db)
    embed_pending(db, fake)
    index = VectorIndex(fake.name)
    index.refresh(db)
    assert index.size == 1
    (vault / "b.md").write_text("# B\n\nbeta words\n")
    sync_vault(db)
    embed_pending(db, fake)
    assert index.refresh(db)
    assert index.size == 2
    other = VectorIndex("another-model")
    other.refresh(db)
    assert other.size == 0  # vectors of another model are never mixed in


def test_damaged_vectors_are_never_computed_with(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """A page of random bytes can turn a stored vector into NaNs or cut its BLOB short: such a
    vector is left out of the matrix and counted, and ``status`` reports it."""
    from explorer.index.status import read_status

    for name in ("good", "nan", "short"):
        (vault / f"{name}.md").write_text(f"# {name}\n\nthe {name} note\n")
    db = open_db(vault)
    fake = FakeEmbedder()
    sync_vault(db)
    embed_pending(db, fake)

    def hash_of(path: str) -> str:
        return str(
            db.conn.execute(
                "SELECT c.hash FROM chunks c JOIN notes n ON n.id = c.note_id WHERE n.path = ?",
                (path,),
            ).fetchone()[0]
        )

    bad = np.full(fake.dimension, np.nan, dtype=np.float32)
    db.conn.execute(
        "UPDATE vectors SET vec = ? WHERE hash = ?", (encode_vector(bad), hash_of("nan.md"))
    )
    db.conn.execute("UPDATE vectors SET vec = x'00ff' WHERE hash = ?", (hash_of("short.md"),))
    index = VectorIndex(fake.name)
    index.load(db)
    assert index.size == 1 and index.damaged == 2
    assert np.isfinite(index.matrix).all()
    hits = index.top_notes(fake.embed(["the good note"])[0], 10)
    assert len(hits) == 1 and np.isfinite(hits[0].score)
    assert read_status(db, fake.name).damaged_vectors == 2


def test_one_function_stores_vectors_and_never_a_non_finite_one(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """The embedding queue and the live index wrote vectors with different SQL; now both use
    ``store_vectors``, which skips a vector that is not finite and a text no chunk has."""
    from explorer.index.embedding import pending_count, store_vectors

    (vault / "a.md").write_text("# A\n\nalpha\n")
    (vault / "b.md").write_text("# B\n\nbravo\n")
    db = open_db(vault)
    sync_vault(db)
    fake = FakeEmbedder()
    hashes = [str(h) for (h,) in db.conn.execute("SELECT hash FROM chunks ORDER BY note_id")]
    matrix = fake.embed(["alpha", "bravo", "gone"])
    matrix[1, 0] = np.nan
    with db.transaction() as conn:
        stored = store_vectors(conn, fake.name, [*hashes, "no-such-chunk"], matrix)
    assert stored == 1  # the NaN one is left out, and so is the one no chunk has
    rows = db.conn.execute("SELECT hash FROM vectors").fetchall()
    assert rows == [(hashes[0],)]
    assert pending_count(db, fake.name) == 1


def _same_as_a_full_load(index: VectorIndex, db: IndexDB) -> None:
    fresh = VectorIndex(index.model)
    fresh.load(db)
    assert np.array_equal(index.matrix, fresh.matrix)
    assert np.array_equal(index.note_ids, fresh.note_ids)
    assert np.array_equal(index.spans, fresh.spans)
    assert np.array_equal(index.segment_starts, fresh.segment_starts)
    assert np.array_equal(index.segment_notes, fresh.segment_notes)
    assert np.array_equal(index.segment_ends, fresh.segment_ends)
    assert index.damaged == fresh.damaged


def _note(i: int, paragraphs: int) -> str:
    return "\n\n".join(
        [f"# Note {i}"] + [f"paragraph {p} of note {i} " * 40 for p in range(paragraphs)]
    )


def test_a_write_without_vectors_leaves_the_matrix_alone(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    for i in range(6):
        (vault / f"n{i}.md").write_text(_note(i, 2))
    (vault / "tagged.md").write_text("---\ntags: [red]\n---\n" + _note(50, 2))
    db = open_db(vault)
    fake = FakeEmbedder()
    sync_vault(db)
    embed_pending(db, fake)
    index = VectorIndex(fake.name)
    assert index.refresh(db) and index.loads == 1
    matrix = index.matrix
    # Saved and indexed lexically, not embedded yet: the generation moves, no vector does.
    (vault / "new.md").write_text(_note(99, 3))
    # A tag changed: the note is written again, its chunks are not.
    (vault / "tagged.md").write_text("---\ntags: [tan]\n---\n" + _note(50, 2))
    report = sync_vault(db)
    assert report.changed == ["tagged.md"]
    assert not index.refresh(db)
    assert index.loads == 1 and index.rows_read == 0
    assert index.matrix is matrix
    _same_as_a_full_load(index, db)


def test_vectors_appended_replaced_and_dropped_are_spliced_in_place(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    for i in range(12):
        (vault / f"n{i:02}.md").write_text(_note(i, 1 + i % 3))
    db = open_db(vault)
    fake = FakeEmbedder()
    sync_vault(db)
    embed_pending(db, fake)
    index = VectorIndex(fake.name)
    index.refresh(db)
    buffer = index.matrix.base
    (vault / "n03.md").write_text(_note(103, 4))  # more chunks: the rows after it move right
    (vault / "n05.md").write_text(_note(105, 1 + 5 % 3))  # as many chunks: replaced in place
    (vault / "n07.md").unlink()  # dropped: the rows after it move left
    (vault / "n10.md").write_text(_note(110, 1))  # fewer chunks
    (vault / "z-new.md").write_text(_note(200, 2))  # appended at the end
    sync_vault(db)
    embed_pending(db, fake)
    assert index.refresh(db)
    assert index.loads == 1
    assert 0 < index.rows_read < index.size
    assert index.matrix.base is buffer  # the same buffer: nothing reloaded or copied whole
    _same_as_a_full_load(index, db)
    query = fake.embed(["paragraph of note"])[0]
    fresh = VectorIndex(fake.name)
    fresh.load(db)
    assert index.top_notes(query, 20) == fresh.top_notes(query, 20)
    # Every note gone: an empty matrix, as a load of an empty index gives.
    for path in vault.glob("*.md"):
        path.unlink()
    sync_vault(db)
    assert index.refresh(db)
    assert index.size == 0
    _same_as_a_full_load(index, db)


def test_a_spread_of_rounding_noise_is_no_spread() -> None:
    """Five notes with the same vector: cosines that differ by a float32 rounding are no spread,
    and no note stands any σ above the others (it used to: one +2.0 σ, four −0.5 σ)."""
    same = np.float32(0.61)
    cosines = np.array([same] * 4 + [np.nextafter(same, np.float32(1))], dtype=np.float32)
    spread = CosineSpread.of(cosines)
    assert 0 < spread.std < MIN_SPREAD
    assert spread.flat
    assert {spread.sigmas(float(c)) for c in cosines} == {0.0}
    assert not CosineSpread.of(np.array([0.1, 0.3, 0.6], dtype=np.float32)).flat


def _load_steps(db: IndexDB, model: str) -> int:
    """SQLite's virtual-machine steps (in thousands) a full load of the matrix takes."""
    steps = [0]

    def tick() -> int:
        steps[0] += 1
        return 0

    db.conn.set_progress_handler(tick, 1000)
    try:
        VectorIndex(model).load(db)
    finally:
        db.conn.set_progress_handler(None, 0)
    return steps[0]


def test_loading_the_matrix_reads_each_row_once(
    vault: Path, open_db: Callable[[Path], IndexDB]
) -> None:
    """Loading costs the rows, not the rows squared: counting the joined rows beforehand made
    SQLite scan every chunk once per vector (minutes at 50,000 notes)."""
    fake = FakeEmbedder()
    db = open_db(vault)
    steps = []
    for notes in (200, 800):
        for i in range(notes):
            (vault / f"n{i:04}.md").write_text(f"# Note {i}\n\nword{i} and its text\n")
        sync_vault(db)
        embed_pending(db, fake)
        steps.append(_load_steps(db, fake.name))
    assert VectorIndex(fake.name).refresh(db)
    assert steps[1] < 6 * steps[0]  # four times the rows: about four times the steps
