from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from explorer.evaluate.datasets import DatasetError, load_judgments
from explorer.evaluate.judgments import JudgmentFile, judgments_path


def test_path_is_beside_the_index(tmp_path: Path) -> None:
    path = judgments_path(tmp_path / "vault", str(tmp_path / "data"))
    assert path.parent == tmp_path / "data" / "indexes"
    assert path.name.endswith(".judgments.tsv")


def test_a_second_grade_replaces_the_first_and_eval_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "d" / "j.tsv"
    judgments = JudgmentFile(path)
    judgments.set_grade("#tag", "a.md", 1)
    judgments.set_grade("#tag", "a.md", 3)
    assert JudgmentFile(path).grade("#tag", "a.md") == 3
    assert load_judgments(path) == {"#tag": {"a.md": 3}}


def test_a_grade_rewrites_only_its_own_line(tmp_path: Path) -> None:
    """Comments, the header, blank lines and other grades stay where they were; a changed grade
    is changed in place, a removed one goes, a new one is added at the end."""
    path = tmp_path / "judgments.tsv"
    path.write_text(
        "# written by hand\nquery\tpath\tgrade\n\n# deploys\ndeploy\tops/a.md\t1\n"
        "deploy\tops/b.md\t2\n# \\#tag searches\n\\#ops\tops/c.md\t3\n",
        encoding="utf-8",
    )
    file = JudgmentFile(path)
    file.set_grade("deploy", "ops/a.md", 3)
    file.set_grade("deploy", "ops/b.md", None)
    file.set_grade("#ops", "ops/c.md", 1)
    file.set_grade("new query", "x.md", 0)
    assert path.read_text(encoding="utf-8") == (
        "# written by hand\nquery\tpath\tgrade\n\n# deploys\ndeploy\tops/a.md\t3\n"
        "# \\#tag searches\n\\#ops\tops/c.md\t1\nnew query\tx.md\t0\n"
    )
    assert JudgmentFile(path).grade("#ops", "ops/c.md") == 1


def test_a_query_that_starts_with_a_backslash_reads_back_as_typed(tmp_path: Path) -> None:
    """``\\#x`` was written as ``\\#x`` and read back as ``#x``: re-grading it added a second
    line, and eval then refused the file."""
    path = tmp_path / "j.tsv"
    file = JudgmentFile(path)
    for query in ("\\#x", "#x", "\\\\share", "\\x"):
        file.set_grade(query, "a.md", 2)
        file.set_grade(query, "a.md", 3)
    expected = {q: {"a.md": 3} for q in ("\\#x", "#x", "\\\\share", "\\x")}
    assert load_judgments(path) == expected
    assert JudgmentFile(path).error is None


@pytest.mark.parametrize(
    ("query", "note", "says"),
    [
        ("deploy", "odd\tname.md", "the note 'odd\\tname.md'"),
        ("deploy", "line\nbreak.md", "the note"),
        ("tab\tin query", "a.md", "the query"),
        ("  padded", "a.md", "the query"),
        ("deploy", "dir\\name.md", "backslash"),
    ],
)
def test_what_the_file_cannot_hold_is_refused_and_the_file_stays_readable(
    tmp_path: Path, query: str, note: str, says: str
) -> None:
    """A note whose file name held a tab was written as a four-column line: every later load
    failed and every later grade was refused."""
    path = tmp_path / "j.tsv"
    file = JudgmentFile(path)
    file.set_grade("deploy", "ok.md", 1)
    before = path.read_bytes()
    with pytest.raises(DatasetError, match="cannot save a grade") as raised:
        file.set_grade(query, note, 2)
    assert says in str(raised.value)
    assert path.read_bytes() == before
    file.set_grade("deploy", "ok.md", 2)  # the file still takes grades
    assert load_judgments(path) == {"deploy": {"ok.md": 2}}


def test_line_endings_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "j.tsv"
    path.write_bytes(b"\xef\xbb\xbfquery\tpath\tgrade\r\n# mine\r\ndeploy\ta.md\t1\r\nx\tb.md\t2")
    file = JudgmentFile(path)
    file.set_grade("deploy", "a.md", 3)
    file.set_grade("new", "c.md", 0)
    assert path.read_bytes() == (
        b"\xef\xbb\xbfquery\tpath\tgrade\r\n# mine\r\ndeploy\ta.md\t3\r\nx\tb.md\t2\r\n"
        b"new\tc.md\t0\r\n"
    )
    file.set_grade("x", "b.md", None)
    assert path.read_bytes().count(b"\r\n") == 4 and b"\n\n" not in path.read_bytes()


_ODD = st.text(
    alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S", "Z", "Cc")),
    min_size=1,
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(query=_ODD, note=_ODD, grade=st.integers(0, 3))
@pytest.mark.slow
def test_every_saved_grade_reads_back_identically_or_is_refused(
    tmp_path_factory: pytest.TempPathFactory, query: str, note: str, grade: int
) -> None:
    path = tmp_path_factory.mktemp("j") / "j.tsv"
    file = JudgmentFile(path)
    file.set_grade("first", "first.md", 1)
    try:
        file.set_grade(query, note, grade)
    except DatasetError:
        assert load_judgments(path) == {"first": {"first.md": 1}}
        return
    assert load_judgments(path) == {"first": {"first.md": 1}, query: {note: grade}} or (
        query == "first" and load_judgments(path) == {"first": {"first.md": 1, note: grade}}
    )
    assert JudgmentFile(path).grade(query, note) == grade
    file.set_grade(query, note, None)
    assert JudgmentFile(path).grade(query, note) is None
