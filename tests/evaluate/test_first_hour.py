"""``bench --first-hour``: a real ``index`` in child processes on a small generated vault,
killed with SIGKILL while it embeds and in its word index, each time resumed by the next."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from explorer.entry import main
from explorer.evaluate.first_hour import FirstHourSettings, format_first_hour, run_first_hour
from tests.commands.helpers import JOURNAL_MAIN, JOURNAL_MODEL


@pytest.mark.slow
def test_the_first_hour_of_a_small_vault_is_measured_and_every_kill_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EMBED_JOURNAL", str(tmp_path / "embedded"))
    monkeypatch.setenv("EMBED_PAUSE", "0.3")  # ~14 calls of 128: the window ends mid-way
    monkeypatch.setenv("NOTE_PAUSE", "0.004")  # 600 notes in ~2.4 s: kills land mid-words
    settings = FirstHourSettings(
        notes=600,
        seed=3,
        embed_minutes=0.03,
        model=JOURNAL_MODEL,
        program=(sys.executable, "-c", JOURNAL_MAIN),
    )
    result = run_first_hour(settings, str(tmp_path / "data"))

    assert result["vault"]["notes"] == 600 and result["model"] == JOURNAL_MODEL
    words = result["words"]
    assert 0 < words["firstNotesSeconds"] <= words["firstAnswerSeconds"]
    assert words["firstNotesSeconds"] < words["searchableSeconds"] <= words["answerSeconds"]
    assert words["answerHits"] >= 1  # the query's words are in one of the notes
    embedding = result["embedding"]
    assert not embedding["finished"] and embedding["rate"] > 0
    assert 0 < embedding["embedded"] < embedding["chunkTexts"]
    assert embedding["peakRssBytes"] >= words["peakRssBytes"] > 0

    killed = result["killedWhileEmbedding"]
    at = killed["atKill"]
    assert at["vectors"] > 0 and at["pending"] > 0 and killed["accounted"]
    assert killed["kept"] and killed["accountedAfter"]
    assert killed["afterSecondKill"]["vectors"] > at["vectors"]

    for kill in result["killedInWords"]:
        assert kill["notesAtKill"] < 600 or kill["fraction"] > 0.9
        assert all(kill["sameAsClean"].values()), kill
        assert kill["ftsSegments"] >= 1

    text = format_first_hour(result)
    assert "every note searchable by words:" in text and "kill -9 while embedding" in text
    assert text.count("same as a clean index") == 2
    assert not list((tmp_path / "data" / "bench").iterdir())  # the scratch folder is gone


def test_the_first_hour_refuses_a_window_of_no_minutes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--first-hour", "10", "--embed-minutes", "0"]) == 2
    assert "--embed-minutes must be positive" in capsys.readouterr().err
