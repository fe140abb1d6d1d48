"""The program's own files: owner-only whatever the umask, written whole, tightened with care."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from explorer.files import create_private, locked, make_private_folder, tighten, write_whole


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def test_made_owner_only_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        make_private_folder(tmp_path / "a" / "b")
        write_whole(tmp_path / "a" / "b" / "store.json", b"{}")
        create_private(tmp_path / "c" / "index.sqlite")
        with locked(tmp_path / "c" / "index.lock"):
            pass
    finally:
        os.umask(old)
    for folder in ("a", "a/b", "c"):
        assert _mode(tmp_path / folder) == 0o700, folder
    for file in ("a/b/store.json", "c/index.sqlite", "c/index.lock"):
        assert _mode(tmp_path / file) == 0o600, file
    assert sorted(p.name for p in (tmp_path / "a" / "b").iterdir()) == ["store.json"]


def test_tighten_takes_only_what_is_ours_to_take(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / "indexes").mkdir(parents=True)
    (data / "evals").mkdir()
    index = data / "indexes" / "n.sqlite"
    index.write_bytes(b"")
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"")
    (data / "indexes" / "link").symlink_to(outside)
    for path in (data, data / "indexes", data / "evals", index, outside):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    assert tighten(data, ("indexes", "run")) == 3
    assert (_mode(data), _mode(data / "indexes"), _mode(index)) == (0o700, 0o700, 0o600)
    assert _mode(data / "evals") == 0o755  # inside a 0700 folder: left as it was
    assert _mode(outside) == 0o644  # a link's target is not ours to change
    assert tighten(data, ("indexes", "run")) == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_tighten_leaves_another_users_file(tmp_path: Path) -> None:
    (tmp_path / "indexes").mkdir()
    theirs = tmp_path / "indexes" / "theirs"
    theirs.write_bytes(b"")
    os.chmod(theirs, 0o644)
    os.chown(theirs, 65534, 65534)
    tighten(tmp_path, ("indexes",))
    assert _mode(theirs) == 0o644
