"""The preview's images: regular files inside the vault, read off the GUI thread, bounded.

A note names its images, and Qt's document would load whatever a name points to, on the GUI
thread: a FIFO named ``pipe.png`` blocks the window, ``/dev/zero`` fills memory, ``../`` or a
symlink shows a file from outside the vault.  So the preview's render worker resolves every
image of a note here, before the HTML reaches the widget, and the note browser serves only the
images loaded here; everything else gets an empty ``QImage`` (never "nothing", which would let
Qt load the file itself).

An image is loaded when its source, resolved against the note's folder with symlinks followed,
is a regular file inside the vault, no larger than :data:`IMAGE_CAP_BYTES`, in a raster format
(:data:`FORMATS`: an SVG could itself name files), and fits the note's budgets (count, bytes
read, pixels decoded).  A FIFO or a device is never opened: its type is checked with ``stat``
first, and the file is opened non-blocking and checked again on its descriptor.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QUrl
from PySide6.QtGui import QImage, QImageReader

from explorer.vault.scan import read_inside

#: One image file larger than this is not shown.
IMAGE_CAP_BYTES = 20 * 1024 * 1024
#: All the images of one note, read, at most.
NOTE_BYTES_CAP = 64 * 1024 * 1024
#: All the images of one note, decoded (4 bytes a pixel), at most.
NOTE_DECODED_CAP = 256 * 1024 * 1024
#: Images of one note loaded at most (the rest show as nothing).
MAX_IMAGES = 200
#: Raster formats decoded (as Qt names them, read from the file's content, not its name).
FORMATS = frozenset({"png", "jpeg", "jpg", "gif", "bmp", "webp"})


def local_key(url: QUrl) -> str | None:
    """The local file ``url`` names, as the key images are kept under (``None`` if the URL is
    not a local file: remote, ``data:``, ``qrc:``…)."""
    if url.scheme().lower() != "file" or url.host():
        return None
    local = url.toLocalFile()
    return os.path.normpath(local) if local else None


def source_key(base: Path, src: str) -> str | None:
    """:func:`local_key` of an ``<img src>`` of a note in folder ``base`` (resolved as the
    document resolves it against its base URL)."""
    base_url = QUrl.fromLocalFile(str(base) + "/")
    return local_key(base_url.resolved(QUrl(src)))


def vault_file(vault: Path, key: str) -> Path | str:
    """The real path of ``key`` if it is a regular file inside ``vault`` (symlinks followed)
    no larger than :data:`IMAGE_CAP_BYTES`; else the reason it is not shown.  Opens
    nothing."""
    try:
        real = Path(key).resolve(strict=True)
    except FileNotFoundError:
        return "not found"
    except (OSError, RuntimeError, ValueError):
        return "unreadable"
    try:
        inside = real.is_relative_to(vault.resolve(strict=True))
        st = os.stat(real)
    except OSError:
        return "unreadable"
    if not inside:
        return "outside the vault"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size > IMAGE_CAP_BYTES:
        return f"larger than {IMAGE_CAP_BYTES // (1024 * 1024)} MB"
    return real


def read_regular_file(vault: Path, path: Path, cap: int = IMAGE_CAP_BYTES) -> bytes | None:
    """The bytes of ``path`` if, once open, it is a regular file inside ``vault`` of at most
    ``cap`` bytes (read as notes are: :func:`explorer.vault.scan.read_inside`), so a file
    swapped for a FIFO, a device or a link after :func:`vault_file` looked at it is refused
    without being read."""
    try:
        root = str(vault.resolve(strict=True))
    except OSError:
        return None
    data = read_inside(root, str(path), cap)
    return data if isinstance(data, bytes) and len(data) <= cap else None


def decode(data: bytes, pixel_budget: int) -> QImage | None:
    """``data`` decoded, if it is an image of a format in :data:`FORMATS` whose decoded size
    (4 bytes a pixel) fits ``pixel_budget`` bytes; else ``None``."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    if not buffer.open(QIODevice.OpenModeFlag.ReadOnly):
        return None
    try:
        reader = QImageReader(buffer)
        reader.setDecideFormatFromContent(True)
        if bytes(reader.format().data()).decode("ascii", "replace").lower() not in FORMATS:
            return None
        size = reader.size()
        if not size.isValid() or size.width() * size.height() * 4 > pixel_budget:
            return None
        image = reader.read()
        return None if image.isNull() else image
    finally:
        buffer.close()


@dataclass
class NoteImages:
    """The images of one note that may be shown, by :func:`local_key`, and what was refused."""

    images: dict[str, QImage] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)  # key or source -> why

    def get(self, url: QUrl) -> QImage | None:
        key = local_key(url)
        return self.images.get(key) if key is not None else None


def load_images(vault: Path, base: Path, sources: Iterable[str]) -> NoteImages:
    """Load the images ``sources`` (``<img src>`` values of a note in folder ``base``) that may
    be shown, within the note's budgets.  Runs on a worker thread, never the GUI thread."""
    out = NoteImages()
    read_total = 0
    decoded_total = 0
    for src in sources:
        key = source_key(base, src)
        if key is None:
            out.refused[src] = "not a local file"
            continue
        if key in out.images or key in out.refused:
            continue
        if len(out.images) >= MAX_IMAGES:
            out.refused[key] = f"more than {MAX_IMAGES} images in the note"
            continue
        real = vault_file(vault, key)
        if isinstance(real, str):
            out.refused[key] = real
            continue
        data = read_regular_file(vault, real, min(IMAGE_CAP_BYTES, NOTE_BYTES_CAP - read_total))
        if data is None:
            out.refused[key] = "unreadable, or over the note's budget"
            continue
        read_total += len(data)
        image = decode(data, NOTE_DECODED_CAP - decoded_total)
        if image is None:
            out.refused[key] = "not an image Qt may decode here, or too many pixels"
            continue
        decoded_total += image.sizeInBytes()
        out.images[key] = image
    return out


def refusal(images: NoteImages, base: Path, src: str) -> str | None:
    """Why the image ``src`` of a note in folder ``base`` is not shown (``None`` if it is)."""
    key = source_key(base, src)
    if key is not None and key in images.images:
        return None
    return images.refused.get(key or src) or images.refused.get(src) or "not loaded"
