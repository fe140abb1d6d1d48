"""The README and docs/ stay true: every link leads somewhere, every command and every search
setting is documented, and the figures the README quotes are dated."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from explorer.commands.program import build_parser
from explorer.search.options import PARAMETERS

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^#+ (.+)$", re.MULTILINE)
_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def anchors(page: Path) -> set[str]:
    """The anchors a page has, as GitHub makes them from its headings (and explicit ids)."""
    text = page.read_text(encoding="utf-8")
    found = set(_ANCHOR.findall(text))
    for heading in _HEADING.findall(text):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_of_a_page_leads_somewhere(page: Path) -> None:
    text = _CODE.sub("", page.read_text(encoding="utf-8"))  # a link in code is an example
    for target in _LINK.findall(text):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        where, _, anchor = target.partition("#")
        goal = page if not where else (page.parent / where).resolve()
        assert goal.exists(), f"{page.name}: {target} leads nowhere"
        if anchor and goal.suffix == ".md":
            assert anchor in anchors(goal), f"{page.name}: {target} has no such heading"


def documented() -> str:
    return "\n".join(page.read_text(encoding="utf-8") for page in PAGES)


def commands() -> list[str]:
    parser = build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(name for action in actions for name in action.choices)


@pytest.mark.parametrize("command", commands())
def test_every_command_is_documented(command: str) -> None:
    assert f"vault-explorer {command}" in documented()


@pytest.mark.parametrize("setting", [p.flag for p in PARAMETERS])
def test_every_search_setting_is_documented(setting: str) -> None:
    assert f"`{setting}" in documented() or f"{setting} " in documented()
