"""kiekai.files: outside files are read only when regular, within a size and a line bound."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kiekai.files import FileRefusedError, iter_lines, open_regular, read_regular_bytes


def test_regular_file_bounds(tmp_path: Path):
    path = tmp_path / "a.txt"
    path.write_bytes(b"x" * 100)
    assert read_regular_bytes(path, 100) == b"x" * 100
    with pytest.raises(
        FileRefusedError, match=r"a\.txt: too large: 100 bytes, over the limit of 99"
    ) as caught:
        read_regular_bytes(path, 99)
    assert caught.value.reason.startswith("too large") and caught.value.path == str(path)
    with pytest.raises(FileNotFoundError):
        open_regular(tmp_path / "missing")
    with pytest.raises(FileRefusedError, match=r"not a regular file \(a folder\)"):
        open_regular(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes need POSIX")
def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(FileRefusedError, match=r"not a regular file \(a named pipe\)"):
        list(iter_lines(fifo, max_line_bytes=10))  # would block for ever without O_NONBLOCK


def test_lines_crlf_bom_bad_utf8_long_and_cut_short(tmp_path: Path):
    path = tmp_path / "lines.txt"
    path.write_bytes(b"\xef\xbb\xbfone\r\ntwo\n\xff\xfe\n" + b"z" * 50 + b"\nlast")
    lines = list(iter_lines(path, max_line_bytes=20))
    assert [(line.number, line.text, line.complete) for line in lines] == [
        (1, "one", True), (2, "two", True), (3, None, True), (4, None, True), (5, "last", False)
    ]  # fmt: skip
    assert lines[2].problem == "not UTF-8 (byte 1: invalid start byte)"
    assert lines[3].problem == "longer than 20 bytes"


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(content=st.binary(max_size=400), limit=st.integers(1, 40))
def test_any_bytes_give_numbered_lines_within_the_bound(tmp_path: Path, content: bytes, limit: int):
    path = tmp_path / "any.bin"
    path.write_bytes(content)
    lines = list(iter_lines(path, max_line_bytes=limit))
    expected = content.split(b"\n")
    if expected[-1] == b"":
        expected.pop()
    assert [line.number for line in lines] == list(range(1, len(expected) + 1))
    for line, raw in zip(lines, expected, strict=True):
        if line.number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        raw = raw.removesuffix(b"\r")
        if line.text is not None:
            assert line.text.encode("utf-8") == raw and len(raw) <= limit
        else:
            assert line.problem is not None


def test_replacing_writes_whole_or_leaves_the_old_file(tmp_path: Path) -> None:
    """A block that ends writes the new bytes in place; one that raises leaves the old file
    and no temporary file; a folder that does not exist is an OSError, nothing written."""
    from kiekai.files import replacing

    target = tmp_path / "table.bin"
    with replacing(target) as out:
        out.write(b"first")
    assert target.read_bytes() == b"first"
    with pytest.raises(RuntimeError, match="stop"):
        with replacing(target) as out:
            out.write(b"half of the sec")
            raise RuntimeError("stop")
    assert target.read_bytes() == b"first"
    with replacing(target, "w", encoding="utf-8") as text:
        text.write("zweite Fassung ✓")
    assert target.read_text(encoding="utf-8") == "zweite Fassung ✓"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.bin"]
    with pytest.raises(OSError):
        with replacing(tmp_path / "missing" / "x.bin") as out:
            out.write(b"x")
    assert not (tmp_path / "missing").exists()
