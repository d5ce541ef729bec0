"""Where the server's house rulings come from, read afresh per request (:class:`RulingsSource`).

``kiekai serve --house-rules FILE`` gives every verdict a table's rulings. With several
worker processes (``kiekai serve --workers N``) no worker may keep its own copy: a ruling
written by one (or by ``kiekai play``, or by hand) must hold in every worker from its next
request on. So the service asks its source for a :class:`RulingsSnapshot` at the start of
each request: the rulings and a ``version`` that changes whenever they do. The service
keys its verdict cache by that version (a verdict given under old rulings is never served
under new ones) and hands new rulings to its judges.

Sources:

- :class:`FileRulings`: a house-rules TSV file (:mod:`kiekai.judge.house_rules`), read
  again when its size, modification time or inode changes (one ``os.stat`` a request,
  a few microseconds). A file caught half-written (a torn last line) keeps the rulings
  read before until it changes again; a missing file is no rulings.
- :class:`StaticRulings`: rulings fixed for the server's life (tests, library users).

A shared store (SQLite or PostgreSQL, several machines) plugs in here: its ``snapshot``
reads a change counter (one indexed row) per request and the rulings when the counter
moved; nothing else in the server changes.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from kiekai.judge.house_rules import HouseRules, HouseRulesError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RulingsSnapshot:
    """The rulings in force now.

    Attributes:
        version: any hashable value that differs whenever ``rules`` differ (equal versions
            mean equal rulings); part of the server's verdict-cache keys.
        rules: the rulings, or ``None`` for none.
    """

    version: Hashable
    rules: HouseRules | None


@runtime_checkable
class RulingsSource(Protocol):
    """Gives the server's house rulings as they are now (see the module docstring)."""

    def snapshot(self) -> RulingsSnapshot:
        """The rulings in force now; called once per request, so it must be cheap when
        nothing changed. Must not raise for a source that is briefly unreadable: keep
        the last good rulings and log."""
        ...


class StaticRulings:
    """Rulings that never change (``None``: none)."""

    def __init__(self, rules: HouseRules | None = None) -> None:
        self._snapshot = RulingsSnapshot(("static", object()), rules)

    def snapshot(self) -> RulingsSnapshot:
        """The same rulings every time."""
        return self._snapshot


class FileRulings:
    """A house-rules file, read again whenever it changes on disk.

    The file's identity ``(inode, size, mtime_ns, ctime_ns)`` is checked with one
    ``os.stat`` per :meth:`snapshot`; when it differs from the one read last, the file is
    read again (:meth:`HouseRules.load`). Rulings are appended in play
    (:meth:`HouseRules.add`), which changes the size; a file replaced by a rename changes
    the inode.

    A read that fails (a line half-written at that moment, a file briefly unreadable)
    keeps the rulings read before and logs one warning; the file is tried again once it
    changes. A missing file is no rulings (``kiekai play`` creates it on its first ruling).

    Args:
        path: the TSV file (format in :mod:`kiekai.judge.house_rules`).
        rules: the rulings already read from it (so the first request does not read it
            again); ``None`` reads it on the first :meth:`snapshot`.

    Thread-safe (a lock around the re-read).
    """

    def __init__(self, path: str | os.PathLike, rules: HouseRules | None = None) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._reads = 0
        self._snapshot = RulingsSnapshot((str(self.path), 0), rules)
        # the identity of the file as last tried; a string never equals a stat tuple
        self._tried: tuple[int, ...] | str | None = "unread" if rules is None else self._stat()

    def _stat(self) -> tuple[int, ...] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    @property
    def reads(self) -> int:
        """How many times the file was read (for tests and the benchmark)."""
        return self._reads

    def snapshot(self) -> RulingsSnapshot:
        """The file's rulings as they are now (read again when the file changed)."""
        identity = self._stat()
        if identity == self._tried:
            return self._snapshot
        with self._lock:
            if identity == self._tried:
                return self._snapshot
            self._tried = identity
            if identity is None:
                rules: HouseRules | None = None
            else:
                try:
                    rules = HouseRules.load(self.path)
                except HouseRulesError as exc:
                    log.warning("house rules not reloaded, the ones read before hold: %s", exc)
                    return self._snapshot
            self._reads += 1
            self._snapshot = RulingsSnapshot((str(self.path), self._reads), rules)
            return self._snapshot
