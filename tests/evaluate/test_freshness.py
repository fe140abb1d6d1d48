"""The freshness probes: what they are made of."""

from __future__ import annotations

from pathlib import Path

from explorer.evaluate.freshness import _templates


def test_a_probe_is_never_made_of_a_stale_note(tmp_path: Path) -> None:
    """A stale note ranks below every fresh one: a probe made of one would be searchable and
    yet missing from the first hits (the 50k bench missed one probe of ten for this)."""
    for i in range(12):
        status = "status: stale\n" if i % 3 else ""
        (tmp_path / f"n{i:02}.md").write_text(f"---\n{status}---\n# Note {i}\n\nwords {i}\n")
    texts, picked = _templates(tmp_path, 6)
    assert len(texts) == 12 and len(picked) == 6
    assert all("stale" not in text for text in picked)


def test_a_vault_of_stale_notes_still_gives_probes(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"n{i}.md").write_text(f"---\nstatus: Stale\n---\n# Note {i}\n")
    _, picked = _templates(tmp_path, 2)
    assert len(picked) == 2
