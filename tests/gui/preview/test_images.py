"""The preview's images: only regular files inside the vault, bounded, never a blocking open."""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
from PySide6.QtGui import QImage

from explorer.gui.preview.images import (
    IMAGE_CAP_BYTES,
    decode,
    load_images,
    read_regular_file,
    source_key,
    vault_file,
)


def png_bytes(width: int = 4, height: int = 4) -> bytes:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(Qt.GlobalColor.blue)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    assert image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data())


def test_a_fifo_is_refused_without_being_opened(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    fifo = vault / "pipe.png"
    os.mkfifo(fifo)
    result: list[object] = []
    worker = threading.Thread(
        target=lambda: result.append(load_images(vault, vault, ["pipe.png"])), daemon=True
    )
    worker.start()
    worker.join(60)  # a safety net only: an open that waits for a writer would wait forever
    try:
        assert not worker.is_alive(), "loading the images blocked on the FIFO"
    finally:
        _release(fifo)
    loaded = result[0]
    assert not loaded.images  # type: ignore[attr-defined]
    assert read_regular_file(vault, fifo) is None  # opened non-blocking, refused on its type


def _release(fifo: Path) -> None:
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError as exc:
        assert exc.errno == errno.ENXIO  # nobody was reading it: good


def test_only_regular_files_inside_the_vault_under_the_cap(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "img").mkdir(parents=True)
    (vault / "img" / "a.png").write_bytes(png_bytes())
    (vault / "inside-link.png").symlink_to(vault / "img" / "a.png")
    outside = tmp_path / "outside.png"
    outside.write_bytes(png_bytes())
    (vault / "out-link.png").symlink_to(outside)
    (vault / "big.png").write_bytes(png_bytes())
    os.truncate(vault / "big.png", IMAGE_CAP_BYTES + 1)
    (vault / "cap.png").write_bytes(png_bytes())
    os.truncate(vault / "cap.png", IMAGE_CAP_BYTES)

    def allowed(src: str) -> bool:
        key = source_key(vault, src)
        return key is not None and isinstance(vault_file(vault, key), Path)

    assert allowed("img/a.png")
    assert allowed("inside-link.png")  # a link whose target is in the vault
    assert allowed("cap.png")  # exactly at the cap
    assert not allowed("out-link.png")
    assert not allowed("../outside.png")
    assert not allowed(str(outside))
    assert not allowed("/dev/zero")
    assert not allowed("big.png")
    assert not allowed("img")  # a folder
    assert not allowed("missing.png")
    assert vault_file(vault, str(vault / "out-link.png")) == "outside the vault"
    assert vault_file(vault, "/dev/zero") == "outside the vault"
    assert vault_file(vault, str(vault / "img")) == "not a regular file"
    assert vault_file(vault, str(vault / "big.png")) == "larger than 20 MB"
    assert source_key(vault, "https://example.com/a.png") is None
    assert source_key(vault, "//example.com/a.png") is None


def test_only_raster_images_within_the_pixel_budget_are_decoded(tmp_path: Path) -> None:
    assert decode(png_bytes(), 1024) is not None
    assert decode(png_bytes(64, 64), 64 * 64 * 4 - 1) is None  # more pixels than allowed
    assert decode(b"not an image at all", 1 << 20) is None
    svg = (
        b'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        b'width="4" height="4"><image xlink:href="/etc/passwd" width="4" height="4"/></svg>'
    )
    assert decode(svg, 1 << 20) is None  # an SVG can name files of its own


def test_each_image_is_read_once_and_the_note_keeps_its_budget(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.png").write_bytes(png_bytes())
    loaded = load_images(vault, vault, ["a.png", "./a.png", "a.png", "nope.png", "http://x/y"])
    assert len(loaded.images) == 1
    assert set(loaded.refused) == {str(vault / "nope.png"), "http://x/y"}
