"""What a search says when none of its hits is a close match, and on which lists it judged."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from explorer.embed.base import Embedder, FakeEmbedder
from explorer.embed.provider import EmbedderProvider
from explorer.index.db import IndexDB
from explorer.search.answers.verdict import closeness, judged_caveat
from explorer.search.fusion.evidence import CALIBRATION
from explorer.search.fusion.fusion import fuse
from explorer.search.fusion.hybrid import Searcher
from explorer.search.fusion.results import SemanticStatus
from explorer.search.query.options import SearchOptions
from tests.conftest import build_index
from tests.search.helpers import candidates

#: A refund note, and notes that hold the question's other, common words.
NOTES = {
    "billing/refunds.md": "# Refund policy\n\nYou get a refund within 30 days of buying.\n",
    "billing/discounts.md": "# Discounts\n\nStudents pay less for a yearly plan.\n",
    "ops/backup.md": "# Backups\n\nBack up the database every night.\n",
}
#: Half its content words are in the refund note ("abo" is in none).
QUESTION = "refund of my abo"


def test_the_sentence_names_how_the_hits_were_found() -> None:
    response = replace(fuse(candidates(), SearchOptions()), close_match=False, query="zebra")
    assert closeness(response, "‘zebra’") == (
        "No close match for ‘zebra’: the hits are only the nearest notes by meaning"
    )
    assert closeness(replace(response, hits=[]), "'zebra'") == "No close match for 'zebra'"
    assert closeness(replace(response, close_match=True), "‘zebra’") is None
    assert closeness(replace(response, close_match=None, listing=True), "‘z’") is None


def test_a_hybrid_search_without_its_meaning_list_says_it_judged_on_words() -> None:
    c = candidates()
    c.semantic = SemanticStatus(False, "model all-MiniLM-L6-v2 is still loading", "m")
    response = fuse(c, SearchOptions())
    assert response.judged_on == ("fts",)
    assert response.to_json()["closeMatchJudgedOn"] == ["fts"]
    assert judged_caveat(response) == (
        "judged on words only: model all-MiniLM-L6-v2 is still loading"
    )
    assert response.close_match is True  # words this strong judge it alone
    unsure = replace(response, close_match=None)  # words that fall short: not judged
    assert (closeness(unsure, "‘q’") or "").startswith(
        "Closeness of ‘q’ not known (judged on words only: model all-MiniLM-L6-v2 is still"
    )
    nothing = replace(response, close_match=False, hits=[])
    assert closeness(nothing, "‘q’") == (
        "No close match for ‘q’ (judged on words only: model all-MiniLM-L6-v2 is still loading)"
    )
    # fts mode chose words: nothing to say; both lists judged: nothing either
    assert judged_caveat(fuse(candidates(), SearchOptions(mode="fts"))) is None
    both = fuse(candidates(), SearchOptions())
    assert both.judged_on == ("fts", "vector") and judged_caveat(both) is None


class Loading:
    """A model that is still loading until the test ends."""

    def __init__(self) -> None:
        self.gate = threading.Event()

    def load(self) -> Embedder:
        self.gate.wait()
        return FakeEmbedder()


@pytest.fixture
def loading() -> Iterator[Loading]:
    model = Loading()
    yield model
    model.gate.set()


def _index(vault: Path, open_db: Callable[[Path], IndexDB], provider: EmbedderProvider) -> IndexDB:
    for path, text in NOTES.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_text(text)
    db = open_db(vault)
    build_index(db, provider)
    return db


def test_a_right_lexical_top_hit_is_not_muted_while_the_model_loads(
    vault: Path, open_db: Callable[[Path], IndexDB], loading: Loading
) -> None:
    """The refund note holds half the question's content words: under the bar of a close
    match, but only meaning could tell whether it is the answer, and meaning is loading.  It is
    not called far (closeMatch null, rows not muted), and the search says it judged on words."""
    fake = FakeEmbedder()
    db = _index(vault, open_db, EmbedderProvider.of(fake))
    provider = EmbedderProvider(fake.name, loading.load)
    response = Searcher(db, provider, wait_for_model=False).search(QUESTION)
    assert not response.semantic.available and "still loading" in (response.semantic.reason or "")
    assert response.hits[0].path == "billing/refunds.md"
    assert response.hits[0].evidence["fts"] < CALIBRATION.close
    assert response.close_match is None
    assert response.judged_on == ("fts",)
    assert "judged on words only" in (closeness(response, "‘q’") or "")
    # The same words in fts mode, chosen by the person, are judged: no close match.
    words = Searcher(db, provider, wait_for_model=False).search(QUESTION, SearchOptions(mode="fts"))
    assert words.close_match is False and judged_caveat(words) is None
