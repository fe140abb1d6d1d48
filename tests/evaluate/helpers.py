"""A tiny BEIR-format data set on disk, for the eval tests."""

from __future__ import annotations

import json
from pathlib import Path

CORPUS = [
    {"_id": "d1", "title": "Cats", "text": "Cats purr when they are content and calm."},
    {"_id": "d2", "title": "Dogs", "text": "Dogs bark at strangers and chase the mail carrier."},
    {"_id": "d3", "title": "Volcanoes", "text": "Magma rises and a volcano erupts with ash."},
    {"_id": "d4", "title": "Tides", "text": "The moon pulls the ocean, which makes the tides."},
    {"_id": "d5", "title": "Bread", "text": "Yeast makes bread dough rise in a warm kitchen."},
    {"_id": "d6", "title": "Kittens", "text": "A kitten learns to purr from its mother cat."},
    {"_id": "D6", "title": "Case twin", "text": "An id that differs from d6 only in case."},
    {"_id": "a/b", "title": "Slash", "text": "An id with a slash in it must still be a file."},
]
QUERIES = [
    {"_id": "q1", "text": "why do cats purr"},
    {"_id": "q2", "text": "dogs bark at the mail carrier"},
    {"_id": "q3", "text": "what makes the ocean tides"},
    {"_id": "q4", "text": "yeast bread rise"},
    {"_id": "q5", "text": "a query no split judges"},
]
QRELS = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td6\t1\nq2\td2\t1\nq3\td4\t2\nq4\td5\t1\n"


def write_beir(folder: Path) -> Path:
    (folder / "qrels").mkdir(parents=True)
    (folder / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in CORPUS), "utf-8")
    (folder / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in QUERIES), "utf-8")
    (folder / "qrels" / "test.tsv").write_text(QRELS, "utf-8")
    return folder
