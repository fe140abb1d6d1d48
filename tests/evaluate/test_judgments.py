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
