"""The preview's HTML, Qt-free: text in, HTML out, every piece testable without a window
(:mod:`explorer.gui.preview.preview` shows it).

- :mod:`~explorer.preview.document`: a note read from disk and parsed as the indexer parses it;
- :mod:`~explorer.preview.markdown`: markdown to sanitised HTML, images checked;
- :mod:`~explorer.preview.obsidian`: Obsidian's syntax (wikilinks, embeds, block ids, callouts);
- :mod:`~explorer.preview.budget`: the limits one render spends (depth, nesting, characters);
- :mod:`~explorer.preview.highlight`: the query's terms marked;
- :mod:`~explorer.preview.links`: where links lead, from the index (or the files on disk);
- :mod:`~explorer.preview.note`: a note's header and body, the best passage boxed;
- :mod:`~explorer.preview.explain`: why a hit ranks where it does, its
  :class:`~explorer.search.explain.explanation.Explanation` in HTML;
- :mod:`~explorer.preview.style`: the palette's colours and the document's stylesheet.
"""
