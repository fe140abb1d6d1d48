"""A vault's own judgments file, next to its index, read and written one grade at a time."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from explorer.evaluate.datasets import DatasetError, judgment_lines, load_judgments
from explorer.index.db import index_path


def judgments_path(vault: Path, data_dir: str | None = None) -> Path:
    """``<data>/indexes/<index-stem>.judgments.tsv``: beside the vault's index, never inside it."""
    index = index_path(vault, data_dir)
    return index.with_name(f"{index.stem}.judgments.tsv")


def _escape(query: str) -> str:
    return "\\" + query if query.startswith("#") else query


class JudgmentFile:
    """Grades of (query, note path) in ``path``; every change is saved at once (temp + replace)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.error: str | None = None
        self._grades: dict[str, dict[str, int]] = {}
        self.load()

    def load(self) -> None:
        self.error = None
        if not self.path.exists():
            self._grades = {}
            return
        try:
            self._grades = load_judgments(self.path)
        except DatasetError as error:
            self._grades = {}
            self.error = str(error)

    def grade(self, query: str, path: str) -> int | None:
        return self._grades.get(query, {}).get(path)

    def set_grade(self, query: str, path: str, grade: int | None) -> None:
        if self.error is not None:
            raise DatasetError(f"{self.path}: not overwriting a damaged file: {self.error}")
        if grade is not None and not 0 <= grade <= 3:
            raise ValueError(f"grade must be 0..3, not {grade}")
        per_query = self._grades.setdefault(query, {})
        if grade is None:
            per_query.pop(path, None)
            if not per_query:
                del self._grades[query]
        else:
            per_query[path] = grade
        self._save(query, path, grade)

    def _save(self, query: str, path: str, grade: int | None) -> None:
        """Rewrite the file with this one grade changed: every other line (comments, the
        header, other grades) stays as it was, where it was; a new grade goes at the end."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = f"{_escape(query)}\t{path}\t{grade}\n" if grade is not None else None
        lines: list[str] = []
        if self.path.exists():
            for _, text, judged in judgment_lines(self.path):
                if judged is not None and judged[:2] == (query, path):
                    if line is not None:
                        lines.append(line)
                        line = None
                    continue
                lines.append(text + "\n")
        if line is not None:
            lines.append(line)
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".judgments-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.writelines(lines)
        os.replace(temp, self.path)
