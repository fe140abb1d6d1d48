from pathlib import Path

from explorer.evaluate.datasets import load_judgments
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
