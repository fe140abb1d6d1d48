"""The query's terms marked in the preview's HTML."""

from __future__ import annotations

from explorer.preview.highlight import highlight, term_pattern
from explorer.search.query.query import Term, parse_query


def test_highlight_marks_words_in_text_only_and_ignores_accents() -> None:
    pattern = term_pattern(parse_query('creme brulee "cdn purge" href'))
    fragment = '<p><a href="x">Crème Brûlée</a> &amp; the CDN purged</p>'
    out = highlight(fragment, pattern, "S")
    assert '<span style="S">Crème</span>' in out
    assert '<span style="S">Brûlée</span>' in out
    assert '<span style="S">CDN purged</span>' in out
    assert '<a href="x">' in out  # the attribute was not touched although "href" is a term
    assert "&amp;" in out


def test_highlight_skips_stop_words_unless_they_are_all_there_is() -> None:
    out = highlight("<p>why were the styles stale</p>", term_pattern(parse_query("why stale")), "S")
    assert '<span style="S">stale</span>' in out and '<span style="S">why</span>' not in out
    out = highlight("<p>to be or not</p>", term_pattern(parse_query("to be")), "S")
    assert '<span style="S">to</span>' in out


def test_highlight_never_marks_a_word_the_lexical_list_ignores() -> None:
    # The preview marks the query's content terms, the words the lexical list matches on.
    pattern = term_pattern(parse_query("why were the styles stale after deploy? my what's"))
    out = highlight("<p>After the deploy, my styles were stale; what’s why</p>", pattern, "S")
    for word in ("deploy", "styles", "stale"):
        assert f'<span style="S">{word}</span>' in out
    assert out.count("<span") == 3
    # A quoted phrase of stop words is a content term.
    out = highlight("<p>The Who played</p>", term_pattern(parse_query('"the who" played')), "S")
    assert '<span style="S">The Who</span>' in out


def test_highlight_finds_cjk_substrings() -> None:
    out = highlight("<p>東京タワーに行った</p>", term_pattern(parse_query("東京")), "S")
    assert '<span style="S">東京</span>タワー' in out


def test_highlight_marks_the_forms_the_stems_match() -> None:
    """``komprimieren`` finds a note saying ``Komprimiert`` (its stem, searched as a prefix), so
    the preview marks that word too; an English vault's query has no stems to mark."""
    german = parse_query("Dateien komprimieren", vault_languages=("de",))
    pattern = term_pattern(german)
    assert pattern is not None
    assert pattern.search("komprimiert dateien") is not None
    assert [m.group(0) for m in pattern.finditer("komprimiert")] == ["komprimiert"]
    english = term_pattern(parse_query("Dateien komprimieren", vault_languages=("en",)))
    assert english is not None and english.search("komprimiert") is None


def test_highlight_marks_the_words_of_a_split_compound() -> None:
    """A German compound the lexical list also matches by its words (``bildgröße``: a note
    saying ``Bild`` and ``Größe``) has those words marked in the preview too."""
    query = parse_query("bildgröße ändern", vault_languages=("de",))
    term = query.content_terms[0]
    assert term.text == "bildgröße"
    text = "<p>Ein Bild seiner Größen</p>"
    assert "<span" not in highlight(text, term_pattern(query), "S")
    query.compounds[term] = (Term("bild"), Term("größe"))
    out = highlight(text, term_pattern(query), "S")
    assert '<span style="S">Bild</span>' in out and '<span style="S">Größen</span>' in out
