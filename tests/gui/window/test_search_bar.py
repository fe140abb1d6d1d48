"""The search bar on its own: a placeholder read whole at any width."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from explorer.gui.window.search_bar import PLACEHOLDERS, SearchBar


def test_the_placeholder_is_the_longest_the_field_shows_whole(qtbot: QtBot) -> None:
    """At 1366 wide the placeholder was cut ("path:fo…"); the whole syntax is in the field's
    tooltip and in Help ▸ Query Syntax."""
    bar = SearchBar()
    qtbot.addWidget(bar)
    bar.resize(1400, 40)
    bar.show()
    qtbot.waitExposed(bar)
    field = bar.field
    qtbot.waitUntil(lambda: field.placeholderText() == PLACEHOLDERS[0])
    for placeholder in PLACEHOLDERS[1:]:
        # Just too narrow for the longer one: the next one, whole.
        longer = PLACEHOLDERS[PLACEHOLDERS.index(placeholder) - 1]
        width = field.fontMetrics().horizontalAdvance(longer) + field.height() + 24
        bar.resize(bar.width() - field.width() + width - 1, 40)
        qtbot.waitUntil(lambda p=placeholder: field.placeholderText() == p)
        room = field.width() - field.height() - 24
        assert field.fontMetrics().horizontalAdvance(placeholder) <= room
    assert "linkto:" in field.toolTip() and "Query Syntax" in field.toolTip()


def test_the_syntax_help_is_the_core_s_table() -> None:
    from explorer.gui.window.help import SYNTAX_HELP
    from explorer.search.query import syntax

    assert SYNTAX_HELP.startswith(syntax.html_table())


def test_the_field_s_tooltip_lists_the_core_s_forms() -> None:
    from explorer.gui.window.search_bar import TOOLTIP
    from explorer.search.query import syntax

    assert TOOLTIP.startswith(syntax.forms())
    assert "[prop:value]" in TOOLTIP and "modified:" in TOOLTIP
