"""The index schema, as numbered migrations applied in order (``PRAGMA user_version``).

The FTS5 table is an external-content table over ``notes`` kept current by triggers (the
sqlite-utils pattern), so a note's words can never drift from its row.  Vectors are keyed by the
hash of the text that was embedded, not by note: a renamed note, or an unchanged paragraph of an
edited one, finds its vectors again and costs no embedding.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

from explorer.index.text import INVISIBLE

#: Tokenizer of the FTS5 table; the measurement behind it is in
#: docs/figures.md ("Choices measured the same way").
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"


def m001_create_tables() -> str:
    return f"""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE notes (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            title TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '',
            body TEXT NOT NULL,
            status TEXT,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            hash TEXT NOT NULL,
            body_start INTEGER NOT NULL DEFAULT 0,
            warnings TEXT,
            indexed_ns INTEGER NOT NULL
        );
        CREATE INDEX notes_hash ON notes(hash);
        CREATE INDEX notes_mtime ON notes(mtime_ns);
        CREATE TABLE note_tags (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            tag TEXT NOT NULL,
            PRIMARY KEY (note_id, tag)
        ) WITHOUT ROWID;
        CREATE INDEX note_tags_tag ON note_tags(tag);
        CREATE TABLE chunks (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            start INTEGER NOT NULL,
            end INTEGER NOT NULL,
            hash TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (note_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX chunks_hash ON chunks(hash);
        CREATE TABLE vectors (
            hash TEXT NOT NULL,
            model TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vec BLOB NOT NULL,
            PRIMARY KEY (hash, model)
        ) WITHOUT ROWID;
        CREATE TABLE skipped (path TEXT PRIMARY KEY, reason TEXT NOT NULL);
        CREATE VIRTUAL TABLE notes_fts USING fts5(
            title, tags, body, content='notes', content_rowid='id',
            tokenize='{FTS_TOKENIZER}'
        );
        CREATE TRIGGER notes_ai AFTER INSERT ON notes BEGIN
            INSERT INTO notes_fts(rowid, title, tags, body)
            VALUES (new.id, new.title, new.tags, new.body);
        END;
        CREATE TRIGGER notes_ad AFTER DELETE ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, tags, body)
            VALUES ('delete', old.id, old.title, old.tags, old.body);
        END;
        CREATE TRIGGER notes_au AFTER UPDATE OF title, tags, body ON notes BEGIN
            INSERT INTO notes_fts(notes_fts, rowid, title, tags, body)
            VALUES ('delete', old.id, old.title, old.tags, old.body);
            INSERT INTO notes_fts(rowid, title, tags, body)
            VALUES (new.id, new.title, new.tags, new.body);
        END;
        """


def m002_links() -> str:
    """Links between notes, and each note's names (its file name and frontmatter aliases).

    A link keeps what it says (``target``, ``heading``, ``block``, the ``shown`` text, the
    ``line`` and that line's text) and ``to_id``, the note it resolves to (``NULL``: none).
    ``target_key`` is the folded name of the target (:func:`explorer.index.links.name_key`): a
    link can only resolve to a note of that name or alias, so when notes come and go only the
    links of their names are resolved again.  Notes indexed before links existed stored the
    raw link syntax in their text: every note is marked to be read again by the next sync
    (chunks whose text does not change keep their vectors, which are keyed by that text).
    """
    return """
        ALTER TABLE notes ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
        ALTER TABLE notes ADD COLUMN path_key TEXT NOT NULL DEFAULT '';
        CREATE INDEX notes_name_key ON notes(name_key);
        CREATE TABLE note_aliases (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            alias TEXT NOT NULL,
            key TEXT NOT NULL,
            PRIMARY KEY (note_id, key)
        ) WITHOUT ROWID;
        CREATE INDEX note_aliases_key ON note_aliases(key);
        CREATE TABLE links (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            target TEXT NOT NULL,
            target_key TEXT NOT NULL,
            heading TEXT,
            block TEXT,
            shown TEXT NOT NULL,
            embed INTEGER NOT NULL,
            markdown INTEGER NOT NULL,
            line INTEGER NOT NULL,
            context TEXT NOT NULL,
            to_id INTEGER REFERENCES notes(id) ON DELETE SET NULL,
            PRIMARY KEY (note_id, seq)
        ) WITHOUT ROWID;
        CREATE INDEX links_target_key ON links(target_key);
        CREATE INDEX links_to ON links(to_id);
        UPDATE notes SET size = -1, hash = '';
        """


def m003_alias_key_before_alias() -> str:
    """``note_aliases`` with its key's columns first: ``(note_id, key, alias)``.

    SQLite 3.40's integrity check reports "NULL value in note_aliases.alias" for every row of a
    ``WITHOUT ROWID`` table whose primary key skips a column (``PRIMARY KEY (note_id, key)``
    with ``alias`` between them), although no value is NULL, so ``status`` called every index
    with aliases damaged.  The same rows, in a table the check reads right.
    """
    return """
        CREATE TABLE note_aliases_new (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            alias TEXT NOT NULL,
            PRIMARY KEY (note_id, key)
        ) WITHOUT ROWID;
        INSERT INTO note_aliases_new(note_id, key, alias)
            SELECT note_id, key, alias FROM note_aliases;
        DROP TABLE note_aliases;
        ALTER TABLE note_aliases_new RENAME TO note_aliases;
        CREATE INDEX note_aliases_key ON note_aliases(key);
        """


def m004_note_language() -> str:
    """Each note's language (:func:`explorer.vault.language.detect`: an ISO 639-1 code, ``''``
    when it cannot be told), which ``status`` and the window sum up and the any-word pass reads
    for its stop words.  Notes indexed before it are marked to be read again by the next sync,
    which detects it (their chunks keep their vectors, keyed by their text)."""
    return """
        ALTER TABLE notes ADD COLUMN language TEXT NOT NULL DEFAULT '';
        CREATE INDEX notes_language ON notes(language);
        UPDATE notes SET size = -1, hash = '';
    """


def m005_vector_changes() -> str:
    """Which notes' vector rows changed, and when: what a loaded vector matrix catches up from.

    ``vector_changes`` holds one row per note whose chunks or vectors were written, with the
    number of the latest such write (``seq`` grows by one per write).  Triggers kept it (the
    writers do since :func:`m006_vector_changes_by_writers`), so every writer (the sync, the live
    index, the embedder) is covered; a write that touches no
    chunk and no vector (a tag, a title, a status) leaves it alone, and the matrix with it.
    (Idempotent: a file set back to an older version by hand keeps them.)
    """
    bump = "(SELECT coalesce(max(seq), 0) + 1 FROM vector_changes)"
    upsert = "ON CONFLICT(note_id) DO UPDATE SET seq = excluded.seq"
    return f"""
        CREATE TABLE IF NOT EXISTS vector_changes (
            note_id INTEGER PRIMARY KEY,
            seq INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS vector_changes_seq ON vector_changes(seq);
        CREATE TRIGGER IF NOT EXISTS chunks_vc_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO vector_changes(note_id, seq) VALUES (new.note_id, {bump}) {upsert};
        END;
        CREATE TRIGGER IF NOT EXISTS chunks_vc_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO vector_changes(note_id, seq) VALUES (old.note_id, {bump}) {upsert};
        END;
        CREATE TRIGGER IF NOT EXISTS vectors_vc_ai AFTER INSERT ON vectors BEGIN
            INSERT INTO vector_changes(note_id, seq)
                SELECT note_id, {bump} FROM chunks WHERE hash = new.hash AND true {upsert};
        END;
        CREATE TRIGGER IF NOT EXISTS vectors_vc_au AFTER UPDATE ON vectors BEGIN
            INSERT INTO vector_changes(note_id, seq)
                SELECT note_id, {bump} FROM chunks WHERE hash = new.hash AND true {upsert};
        END;
        CREATE TRIGGER IF NOT EXISTS vectors_vc_ad AFTER DELETE ON vectors BEGIN
            INSERT INTO vector_changes(note_id, seq)
                SELECT note_id, {bump} FROM chunks WHERE hash = old.hash AND true {upsert};
        END;
        """


def m006_vector_changes_by_writers() -> str:
    """``vector_changes`` is kept by the code that writes chunks and vectors
    (:func:`explorer.index.store.log_vector_changes`: one statement per write transaction, one
    ``seq`` for all the notes it touched) instead of five per-row triggers, each looking the
    latest ``seq`` up again (3 µs a chunk, measured: 1 % of a first sync).  The log and its
    numbers stay; a matrix loaded before goes on catching up from it."""
    return """
        DROP TRIGGER IF EXISTS chunks_vc_ai;
        DROP TRIGGER IF EXISTS chunks_vc_ad;
        DROP TRIGGER IF EXISTS vectors_vc_ai;
        DROP TRIGGER IF EXISTS vectors_vc_au;
        DROP TRIGGER IF EXISTS vectors_vc_ad;
        """


def m007_vector_keys() -> str:
    """The keys of ``vectors`` apart from the vectors: whether a chunk has a vector is a look-up
    in small pages, not in the table's, where each row carries its 1.5 KB vector (at 50,000
    notes: the pending chunks counted in 50 ms instead of 580, the next ones to embed found in
    180 ms instead of 2.6 s).  The statements that ask name it (``INDEXED BY``): SQLite's planner
    takes the primary key for just as good."""
    return """
        CREATE INDEX IF NOT EXISTS vectors_model_hash ON vectors(model, hash);
        """


def m008_drop_invisible() -> str:
    """The characters no one sees (:data:`explorer.index.text.INVISIBLE`: a zero-width joiner,
    a soft hyphen) are dropped from the titles and bodies already indexed, as the indexer now
    drops them, so that they split no word (the FTS triggers index the rows again)."""
    title, body = "title", "body"
    for ch in INVISIBLE:
        title = f"replace({title}, char({ord(ch)}), '')"
        body = f"replace({body}, char({ord(ch)}), '')"
    holds = " OR ".join(
        f"instr({column}, char({ord(ch)})) > 0" for column in ("title", "body") for ch in INVISIBLE
    )
    return f"UPDATE notes SET title = {title}, body = {body} WHERE {holds};"


def m009_note_properties() -> str:
    """Each note's frontmatter properties, typed (:mod:`explorer.vault.properties`): one row a
    value (``seq``: its place in a list), ``key`` the name folded, ``text`` the value as text,
    ``num`` a number, date (seconds since 1970, UTC) or checkbox (0/1) to compare; what a
    ``[name:value]`` filter reads.  Notes indexed before it are marked to be read again by the
    next sync, which types their properties (their chunks keep their vectors).

    And when each note was created (``note_created.created_ns``; in microseconds from
    :func:`m010_created_microseconds` on) with where that came from
    (``source``: ``frontmatter``, ``file`` for the file's birth time, ``indexed`` for its
    first index), which ``created:`` filters and sorting read
    (:func:`explorer.index.store.created_of`); a table of its own, so that the statements
    stay safe to run again.  A note indexed before has its last index time."""
    return """
        CREATE TABLE IF NOT EXISTS note_created (
            note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
            created_ns INTEGER NOT NULL,
            source TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS note_created_ns ON note_created(created_ns);
        INSERT OR IGNORE INTO note_created(note_id, created_ns, source)
            SELECT id, indexed_ns, 'indexed' FROM notes;
        CREATE TABLE IF NOT EXISTS note_props (
            note_id INTEGER NOT NULL REFERENCES notes(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            seq INTEGER NOT NULL,
            name TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT,
            num REAL,
            PRIMARY KEY (note_id, key, seq)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS note_props_key_num ON note_props(key, num);
        CREATE INDEX IF NOT EXISTS note_props_key_text ON note_props(key, text COLLATE NOCASE);
        UPDATE notes SET size = -1, hash = '';
        """


def m010_created_microseconds() -> str:
    """A note's creation time in microseconds (``note_creation.created_us``): a frontmatter
    date of any year, 1 to 9999, where nanoseconds hold only 1677 to 2262 (``date:
    1492-10-12`` left the note unindexed).  A table of its own, filled from the old one
    (``note_created``, dropped), so that the statements stay safe to run again.  Notes skipped
    for it are new to the next sync, which adds them."""
    return """
        CREATE TABLE IF NOT EXISTS note_creation (
            note_id INTEGER PRIMARY KEY REFERENCES notes(id) ON DELETE CASCADE,
            created_us INTEGER NOT NULL,
            source TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS note_creation_us ON note_creation(created_us);
        INSERT OR IGNORE INTO note_creation(note_id, created_us, source)
            SELECT note_id, created_ns / 1000, source FROM note_created;
        DROP TABLE note_created;
        """


def m011_stand_in_vectors() -> str:
    """A chunk's stand-in vector (``old_hash``): the vector its text had before where it stands
    changed (the note's title, a heading above it), which answers for it until its own is
    embedded (:func:`explorer.index.store.upsert_note`), kept beside each chunk's text hash in
    ``chunks_hash`` so that counting the chunks waiting for a vector still reads only that
    index's small pages.  The form chunks were embedded in before (``meta.embed_form``
    absent) is brought to today's by the next full sync
    (:func:`explorer.index.sync.sync_vault`)."""
    return """
        ALTER TABLE chunks ADD COLUMN old_hash TEXT;
        CREATE INDEX IF NOT EXISTS chunks_old_hash ON chunks(old_hash) WHERE old_hash IS NOT NULL;
        DROP INDEX IF EXISTS chunks_hash;
        CREATE INDEX chunks_hash ON chunks(hash, old_hash);
        """


def m012_new_words_written_by_the_store() -> str:
    """A new note's words go into ``notes_fts`` from :func:`explorer.index.store.upsert_note`,
    in a statement of their own, not from a trigger on ``notes``: FTS5 writes the words it holds
    as a segment at the end of every statement whose trigger writes to it, so a sync made one
    segment a note and merged them as they came (a transaction's notes now make one segment;
    20,000 generated notes' words written 1.6x faster).  Changes and deletions keep their
    triggers (they need the words the index holds)."""
    return """
        DROP TRIGGER IF EXISTS notes_ai;
        """


MIGRATIONS: list[Callable[[], str]] = [
    m001_create_tables,
    m002_links,
    m003_alias_key_before_alias,
    m004_note_language,
    m005_vector_changes,
    m006_vector_changes_by_writers,
    m007_vector_keys,
    m008_drop_invisible,
    m009_note_properties,
    m010_created_microseconds,
    m011_stand_in_vectors,
    m012_new_words_written_by_the_store,
]
LATEST_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection) -> int:
    """Apply the migrations the database has not seen; returns the version reached.

    The version is read inside the write transaction, so two processes opening a new index at
    the same moment cannot both apply the same migration (the second sees the first's result).
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version >= LATEST_VERSION:
            conn.execute("COMMIT")
            return version
        script = "\n".join(m() for m in MIGRATIONS[version:])
        statements = [s for s in sqlite3_split(script) if s.strip()]
        for statement in statements:
            try:
                conn.execute(statement)
            except sqlite3.OperationalError as exc:
                if not _added_before(statement, exc):
                    raise
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return LATEST_VERSION


def _added_before(statement: str, exc: sqlite3.OperationalError) -> bool:
    """Whether ``statement`` adds a column the table already has (SQLite has no ``ADD COLUMN
    IF NOT EXISTS``): such a migration is safe to run again, as every other one is."""
    added = re.match(r"\s*ALTER\s+TABLE\s+\w+\s+ADD\s+COLUMN\s+(\w+)", statement, re.IGNORECASE)
    return added is not None and str(exc) == f"duplicate column name: {added.group(1)}"


def sqlite3_split(script: str) -> list[str]:
    """``script`` cut into complete SQL statements (triggers hold ``;`` inside ``BEGIN … END``)."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current)
            current = ""
    if current.strip():
        statements.append(current)
    return statements
