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

The tables' rulings (the shared store, SQLite or PostgreSQL: :mod:`kiekai.judge.store`)
do not come through here: each request reads its table's rulings between its words
(:meth:`kiekai.judge.server.service.JudgeService.rulings`), and verdicts they decide are
never cached, so no version of the store is needed.
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


def _log_left_out(line: str) -> None:
    log.warning("house rules reloaded without a line: %s", line)


class FileRulings:
    """A house-rules file, read again whenever it changes on disk.

    The file's identity ``(inode, size, mtime_ns, ctime_ns)`` is checked with one
    ``os.stat`` per :meth:`snapshot`; when it differs from the one read last, the file is
    read again (:meth:`HouseRules.load`). Rulings are appended in play
    (:meth:`HouseRules.add`), which changes the size; a file replaced by a rename changes
    the inode.

    A read that fails (a malformed line, a file briefly unreadable) keeps the rulings read
    before and logs one warning; the file is tried again once it changes. A last line cut
    short (a writer caught mid-line, no line break after it) is left out with one logged
    warning and the rest is read (:func:`kiekai.judge.house_rules.parse_text`), so the
    rulings before it hold; once the line is finished the file changed and is read again. A missing file is no rulings (``kiekai play`` creates it on its first ruling).

    Args:
        path: the TSV file (format in :mod:`kiekai.judge.house_rules`).
        rules: the rulings already read from it (so the first request does not read it
            again); ``None`` reads it on the first :meth:`snapshot`.

    Thread-safe (a lock around the re-read).
    """

    def __init__(self, path: str | os.PathLike[str], rules: HouseRules | None = None) -> None:
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
                    rules = HouseRules.load(self.path, warn=_log_left_out)
                except HouseRulesError as exc:
                    log.warning("house rules not reloaded, the ones read before hold: %s", exc)
                    return self._snapshot
            self._reads += 1
            self._snapshot = RulingsSnapshot((str(self.path), self._reads), rules)
            return self._snapshot
