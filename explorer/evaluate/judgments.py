"""A vault's own judgments file, next to its index, read and written one grade at a time."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from explorer.evaluate.datasets import (
    DatasetError,
    judgment_line,
    judgment_lines,
    load_judgments,
)
from explorer.index.db import index_path


def judgments_path(vault: Path, data_dir: str | None = None) -> Path:
    """``<data>/indexes/<index-stem>.judgments.tsv``: beside the vault's index, never inside it."""
    index = index_path(vault, data_dir)
    return index.with_name(f"{index.stem}.judgments.tsv")


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
        """Save ``grade`` (``None``: remove it) of note ``path`` for ``query``.  Raises
        :class:`DatasetError` when the file is damaged or cannot hold the query or the path
        as they are (the file is then left as it was)."""
        if self.error is not None:
            raise DatasetError(f"{self.path}: not overwriting a damaged file: {self.error}")
        if grade is not None and not 0 <= grade <= 3:
            raise ValueError(f"grade must be 0..3, not {grade}")
        line = judgment_line(query, path, 0 if grade is None else grade, self.path)
        self._save(query, path, line if grade is not None else None)
        per_query = self._grades.setdefault(query, {})
        if grade is None:
            per_query.pop(path, None)
            if not per_query:
                del self._grades[query]
        else:
            per_query[path] = grade

    def _save(self, query: str, path: str, line: str | None) -> None:
        """Rewrite the file with this one grade changed: every other line (comments, the
        header, other grades) stays as it was, where it was, with its own line ending; a new
        grade goes at the end, ended as the file's first line is."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        out: list[str] = []
        if self.path.exists():
            raw = self.path.read_bytes().decode("utf-8", "surrogateescape").split("\n")
            ends = ["\n"] * (len(raw) - 1) + [""]  # the last piece has no "\n" after it
            if raw[-1] == "":
                raw, ends = raw[:-1], ends[:-1]
            for (_, _, judged), text, end in zip(judgment_lines(self.path), raw, ends, strict=True):
                if judged is not None and judged[:2] == (query, path):
                    if line is not None:
                        out.append(line + ("\r" if text.endswith("\r") else "") + end)
                        line = None
                    continue
                out.append(text + end)
        if line is not None:
            newline = "\r\n" if out and out[0].endswith("\r\n") else "\n"
            if out and not out[-1].endswith("\n"):
                out[-1] += newline
            out.append(line + newline)
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".judgments-", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.writelines(out)
        os.replace(temp, self.path)
