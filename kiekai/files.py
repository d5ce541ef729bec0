"""Reading files that come from outside (game logs, labels.csv, batch files, photos), bounded.

A path a person gives may name something that is not a file to read: a named pipe (a read
waits for ever for a writer), a character device such as ``/dev/zero`` (a read never ends and
fills memory), a folder, a socket, or a regular file far larger than anything the program
expects. Every reader here

* opens the path without blocking (``O_NONBLOCK``: opening a named pipe returns at once),
* checks the *opened* descriptor with ``fstat`` (no race between a check and the open: a file
  swapped for a pipe in between is still refused),
* reads at most a stated number of bytes, and lines of at most a stated length.

Refusals raise :class:`FileRefusedError` (a ``ValueError``) whose ``reason`` says what the path
is ("a named pipe", "a character device") or which bound it broke; callers add the fix.

Used by :func:`kiekai.events.read_log` (``kiekai replay``), :func:`kiekai.deck.read_labels`
and :func:`kiekai.deck.read_photo_bytes`; a line-oriented input (``kiekai judge --batch``)
streams with :func:`iter_lines`.

Files kiekai writes for later processes (caches, contact sheets) are written whole or not at
all with :func:`replacing`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

_FILE_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)

#: Bytes read at a time while skipping the rest of an over-long line.
_SKIP_CHUNK = 1 << 16


class FileRefusedError(ValueError):
    """A path was not read: it is not a regular file, or it is over a size bound.

    Attributes:
        path: the path as given.
        reason: what is wrong, without the path, e.g. ``"not a regular file (a named pipe)"``
            or ``"too large: 3,000,000 bytes, over the limit of 1,048,576"``.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def file_kind(mode: int) -> str:
    """What a ``st_mode`` is in words: ``"a regular file"``, ``"a folder"``, ``"a named pipe"``,
    ``"a character device"``, ``"a block device"``, ``"a socket"`` or ``"not a file"``."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((name for test, name in _FILE_KINDS if test(mode)), "not a file")


def open_regular(path: str | os.PathLike[str], *, max_bytes: int | None = None) -> BinaryIO:
    """Open ``path`` for reading in binary, refusing anything but a regular file.

    The open never blocks (a named pipe is refused, not waited on), and the type and size are
    taken from the opened descriptor, so the file read is the file checked.

    Args:
        path: the file (symbolic links are followed).
        max_bytes: refuse a file whose size is over this many bytes (``None``: no bound).

    Returns:
        A binary file object positioned at the start; close it (use ``with``).

    Raises:
        FileRefusedError: not a regular file (the reason names the kind) or over ``max_bytes``.
        OSError: the path does not exist (``FileNotFoundError``) or cannot be opened.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefusedError(path, f"not a regular file ({file_kind(info.st_mode)})")
        if max_bytes is not None and info.st_size > max_bytes:
            raise FileRefusedError(
                path, f"too large: {info.st_size:,} bytes, over the limit of {max_bytes:,}"
            )
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: str | os.PathLike[str], max_bytes: int) -> bytes:
    """The whole of a regular file of at most ``max_bytes`` bytes.

    Raises:
        FileRefusedError: not a regular file, or over ``max_bytes`` (also when it grows past
            the bound while being read).
        OSError: the file does not exist or cannot be read.
    """
    with open_regular(path, max_bytes=max_bytes) as handle:
        data = handle.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise FileRefusedError(path, f"too large: over the limit of {max_bytes:,} bytes")
    return data


@dataclass(frozen=True)
class Line:
    """One line of a text file read by :func:`iter_lines`.

    Attributes:
        number: 1-based line number.
        text: the line decoded, without its line ending (``\\n`` or ``\\r\\n``); ``None`` when
            it could not be read (see ``problem``).
        problem: why ``text`` is ``None``: ``"longer than 1,048,576 bytes"`` or
            ``"not UTF-8 (byte 3: invalid start byte)"``; ``None`` for a good line.
        complete: the line ended with a newline (``False`` only for a last line cut short,
            e.g. by a program stopped in the middle of writing it).
    """

    number: int
    text: str | None
    problem: str | None = None
    complete: bool = True


def iter_lines(
    path: str | os.PathLike[str],
    *,
    max_line_bytes: int,
    max_bytes: int | None = None,
    encoding: str = "utf-8",
) -> Iterator[Line]:
    """Stream the lines of a regular text file, each at most ``max_line_bytes`` long.

    Memory stays within about ``max_line_bytes`` whatever the file holds: a longer line is
    skipped in chunks and reported (``Line.problem``), as is a line that is not valid in
    ``encoding``; reading goes on with the next line. A UTF-8 byte-order mark at the start is
    dropped.

    Args:
        path: the file.
        max_line_bytes: longest line, in bytes without its line ending.
        max_bytes: refuse a file larger than this (checked before reading); ``None`` streams
            any size.
        encoding: the text encoding of every line.

    Yields:
        :class:`Line` per line, in order.

    Raises:
        FileRefusedError: not a regular file, or over ``max_bytes``.
        OSError: the file does not exist or cannot be read.
    """
    handle = open_regular(path, max_bytes=max_bytes)
    read = 0
    with handle:
        number = 0
        while True:
            raw = handle.readline(max_line_bytes + 2)  # + the line ending "\r\n"
            if not raw:
                return
            number += 1
            read += len(raw)
            if max_bytes is not None and read > max_bytes:  # it grew while being read
                raise FileRefusedError(path, f"too large: over the limit of {max_bytes:,} bytes")
            complete = raw.endswith(b"\n")
            body = raw[:-1] if complete else raw
            if body.endswith(b"\r"):
                body = body[:-1]
            if len(body) > max_line_bytes:
                while not complete:  # skip the rest of the line without holding it
                    chunk = handle.readline(_SKIP_CHUNK)
                    read += len(chunk)
                    if max_bytes is not None and read > max_bytes:
                        raise FileRefusedError(
                            path, f"too large: over the limit of {max_bytes:,} bytes"
                        )
                    if not chunk:
                        break
                    complete = chunk.endswith(b"\n")
                yield Line(number, None, f"longer than {max_line_bytes:,} bytes", complete)
                continue
            if number == 1 and encoding.lower().replace("-", "") == "utf8":
                body = body.removeprefix(b"\xef\xbb\xbf")
            try:
                text = body.decode(encoding)
            except UnicodeDecodeError as exc:
                yield Line(
                    number,
                    None,
                    f"not {encoding.upper()} (byte {exc.start + 1}: {exc.reason})",
                    complete,
                )
                continue
            yield Line(number, text, None, complete)


__all__ = [
    "FileRefusedError",
    "Line",
    "file_kind",
    "iter_lines",
    "open_regular",
    "read_regular_bytes",
]


@contextlib.contextmanager
def replacing(
    path: str | os.PathLike[str], mode: str = "wb", **open_args: Any
) -> Iterator[IO[Any]]:
    """Write ``path`` whole or not at all: yields a new temporary file in the same folder
    (``mode`` ``"wb"`` or ``"w"``, ``open_args`` such as ``encoding`` passed to
    :func:`os.fdopen`), renamed over ``path`` (:func:`os.replace`, atomic on one file
    system) when the block ends without an error, removed when it raises. A process reading
    ``path`` meanwhile finds the old file or the new one, never half of one.

    Raises:
        OSError: the folder cannot be written (nothing is left behind); whatever the block
            raises (the temporary file is removed, ``path`` is untouched).
    """
    target = Path(path)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}-", suffix=".tmp", dir=target.parent
    )
    try:
        with os.fdopen(handle, mode, **open_args) as out:
            yield out
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
