"""Facts about the bundled sample vault (``resources/sample-vault``), for tests and demos.

Plain constants, no app imports. Note ids are vault-relative POSIX paths. Every fact below was
checked against the vault files by script; if you edit the vault, re-check the facts you touch.

Retrieval cases (each one shows where one list of the hybrid search fails and the other wins):

- PARAPHRASE_*: no word of the query (lowercased, split on non-alphanumerics) occurs in any file
  of the vault (bodies, frontmatter, titles, file names, ignored and hidden files), not even as a
  Porter-stem variant, so the lexical list is empty and only the vector list can find the target.
  With all-MiniLM-L6-v2 the target is the top vector hit under several chunking schemes.
- ERROR_PASTE_*, IDENTIFIER_*, TAR_*: the exact string is only in the target; the decoys are about
  the same topic. ``dev/env-var-parsing.md`` contains ``ValueError: invalid literal for int() with
  base 10: ''``: under any-word (OR) bm25 alone it outranks the target; matching all words first
  (or as a phrase) puts the target first. For the error paste the vector list ranks that decoy
  first and the target third.
- DIACRITICS_*: the target writes the words with accents (``Crème brûlée``, ``São Paulo``).
- CJK_*: the target contains the query only inside longer runs without spaces (``東京タワー``,
  ``番茄炒蛋``), never as a token of its own, so a plain unicode61 token match finds nothing; a
  substring or n-gram strategy is needed.
- STALE_*: both notes match all query words; without stale demotion the stale note is first in
  the bm25 list (and first in the fused list), the fresh one first in the vector list.
- LONG_NOTE_*: the note is longer than LONG_NOTE_MIN_CHARS; LONG_NOTE_SENTENCE occurs exactly once
  in the vault, on a line of its own, at a character offset above LONG_NOTE_SENTENCE_OFFSET_MIN
  (actual: 41,491 in the file, 41,454 after the frontmatter). Of the query's words, "imitated",
  "launch" and "tune" occur nowhere in the vault, "bird" only in the sentence's paragraph, and
  "that", "the" and "list" are common words; its meaning points only at that paragraph. A model
  that only sees the first few thousand characters of a note cannot find it.

Tags are frontmatter ``tags`` (YAML list or comma/space separated string) plus inline ``#tag``
words outside fenced and inline code, lowercased. CODE_ONLY_TAGS lists notes where a ``#word``
appears only inside code; those words must not become tags of that note.
"""

from pathlib import Path

VAULT = Path(__file__).resolve().parents[1] / "resources" / "sample-vault"

# Paraphrase: vector-only hits.
PARAPHRASE_QUERY = "visitors glimpsed outdated stylesheets despite redeploying"
PARAPHRASE_TARGET = "ops/cdn-purge.md"
PARAPHRASE_QUERY_2 = "railway berth journey Austria"
PARAPHRASE_TARGET_2 = "travel/night-train-vienna.md"

# Exact strings: lexical wins.
ERROR_PASTE_QUERY = "ValueError: invalid literal for int() with base 10: '5XX'"
ERROR_PASTE_TARGET = "ops/incidents/2024-03-21-alertgen-crash.md"
ERROR_PASTE_DECOYS = frozenset(
    {
        "dev/env-var-parsing.md",
        "dev/pandas-csv-import.md",
        "dev/python-exceptions-style.md",
        "ops/slo-error-budget.md",
    }
)

IDENTIFIER_QUERY = "jsonable_encoder"
IDENTIFIER_TARGET = "dev/fastapi-serialization.md"
IDENTIFIER_DECOYS = frozenset(
    {
        "dev/json-datetime-serialization.md",
        "dev/pydantic-v2-migration.md",
        "dev/api-pagination.md",
    }
)

TAR_QUERY = "tar czf"
TAR_TARGET = "ops/backups.md"
TAR_DECOYS = frozenset(
    {
        "ops/restore-drill.md",  # contains `tar xzf`, not the query
        "ops/log-rotation.md",
        "dev/release-artifacts.md",
    }
)

# Diacritics: unaccented queries find accented text.
DIACRITICS_QUERY = "creme brulee"
DIACRITICS_TARGET = "recipes/creme-brulee.md"
DIACRITICS_QUERY_2 = "sao paulo"
DIACRITICS_TARGET_2 = "travel/sao-paulo.md"

# Scripts without spaces: a substring of a run finds the note.
CJK_QUERY = "東京"
CJK_TARGET = "travel/tokyo-jp.md"
CJK_QUERY_2 = "番茄"
CJK_TARGET_2 = "recipes/tomato-egg-zh.md"

# Stale demotion.
STALE_QUERY = "deploy runbook rollback"
STALE_NOTE = "ops/deploy-runbook-2023.md"
FRESH_NOTE = "ops/deploy-runbook.md"

# A sentence far into a long note.
LONG_NOTE = "meetings/2024-engineering-journal.md"
LONG_NOTE_MIN_CHARS = 45_000
LONG_NOTE_SENTENCE = "The lighthouse keeper's parrot learned to whistle the release checklist."
LONG_NOTE_SENTENCE_OFFSET_MIN = 40_000
LONG_NOTE_QUERY = "bird that imitated the launch list tune"

# Titles: frontmatter `title`, else the first `# ` heading.
TITLES = {
    "ops/cdn-purge.md": "CDN purge",
    "recipes/creme-brulee.md": "Crème brûlée",
    "ops/deploy-runbook-2023.md": "Deploy runbook (2023)",  # frontmatter only, no heading
    "ops/deploy-runbook.md": "Deploy runbook",
    "travel/tokyo-jp.md": "東京旅行メモ",
    "meetings/2024-04-02-retro.md": "Sprint 14 retro",
}

# Tags and folders.
TAG_OPS_NOTES = frozenset(
    {
        "meetings/2024-06-11-incident-review.md",
        "ops/backups.md",
        "ops/cdn-purge.md",
        "ops/deploy-runbook-2023.md",
        "ops/deploy-runbook.md",
        "ops/incidents/2024-03-21-alertgen-crash.md",
        "ops/incidents/2024-06-04-db-disk-full.md",
        "ops/log-rotation.md",
        "ops/oncall-handbook.md",
        "ops/restore-drill.md",
        "ops/slo-error-budget.md",
        "ops/tls-certificates.md",
    }
)
OPS_FOLDER_NOTES = frozenset(
    {
        "ops/backups.md",
        "ops/cdn-purge.md",
        "ops/deploy-runbook-2023.md",
        "ops/deploy-runbook.md",
        "ops/incidents/2024-03-21-alertgen-crash.md",
        "ops/incidents/2024-06-04-db-disk-full.md",
        "ops/log-rotation.md",
        "ops/oncall-handbook.md",
        "ops/postgres-maintenance.md",  # in ops/ but not tagged ops
        "ops/restore-drill.md",
        "ops/slo-error-budget.md",
        "ops/tls-certificates.md",
    }
)
TAG_NOTES = {
    "ops": TAG_OPS_NOTES,
    "python": frozenset(
        {
            "dev/api-pagination.md",
            "dev/env-var-parsing.md",
            "dev/fastapi-serialization.md",
            "dev/json-datetime-serialization.md",
            "dev/pandas-csv-import.md",
            "dev/pydantic-v2-migration.md",
            "dev/python-exceptions-style.md",
            "meetings/2024-07-09-architecture-review.md",
            "travel/zurich-conference.md",
        }
    ),
    "incident": frozenset(
        {
            "meetings/2024-06-11-incident-review.md",
            "ops/cdn-purge.md",
            "ops/incidents/2024-03-21-alertgen-crash.md",
            "ops/incidents/2024-06-04-db-disk-full.md",
        }
    ),
    "recipe": frozenset(
        {
            "recipes/cold-brew.md",
            "recipes/creme-brulee.md",
            "recipes/shakshuka.md",
            "recipes/sourdough-starter.md",
            "recipes/tomato-egg-zh.md",
            "recipes/weeknight-dal.md",
        }
    ),
    "travel": frozenset(
        {
            "travel/japan-packing-list.md",
            "travel/lisbon-weekend.md",
            "travel/night-train-vienna.md",
            "travel/sao-paulo.md",
            "travel/tokyo-jp.md",
            "travel/zurich-conference.md",
        }
    ),
    "fastapi": frozenset(
        {
            "dev/api-pagination.md",
            "dev/fastapi-serialization.md",
            "dev/pydantic-v2-migration.md",
        }
    ),
    "backup": frozenset(
        {
            "inbox/2024-08-quick-notes.md",
            "ops/backups.md",
            "ops/restore-drill.md",
        }
    ),
}
INLINE_TAGS_ONLY_NOTE = "ops/incidents/2024-03-21-alertgen-crash.md"  # no frontmatter at all
FRONTMATTER_TAGS_ONLY_NOTE = "ops/incidents/2024-06-04-db-disk-full.md"
CODE_ONLY_TAGS = {
    "dev/git-hooks.md": "ops",  # `# ... post in #ops ...` inside a bash block
    "reading/obsidian-tips.md": "python",  # `#python` in inline code
}

# Ignore rules.
IGNORED_NOTES = frozenset({"drafts/secret-draft.md"})  # via .explorerignore `drafts/`
IGNORED_NOTE_QUERY = "marmalade"  # occurs only in the ignored draft
HIDDEN_NOTES = frozenset({".trash/old-standup-format.md"})  # hidden folder
HIDDEN_NOTE_QUERY = "quagmire"  # occurs only in the hidden note
NOTE_COUNT = 51  # indexable *.md notes (outside ignored and hidden folders)
