"""One-time builds across processes: a file lock per cache item.

kiekai builds a few things once per machine and keeps them in its cache folder (the WordNet
copy for NLTK, the judge's WordNet index, the MiniLM embedding table). Several processes may
start together (two ``kiekai play`` windows, ``kiekai serve --workers N``, the test suite on
every core); without a lock each would build the same thing, and a process replacing a
finished copy could pull it from under another one reading it. :func:`build_lock` makes the
builds take turns: the first builds, the others wait and then find the result in place (each
caller checks again after taking the lock).

The lock is `filelock <https://py-filelock.readthedocs.io>`_'s ``FileLock`` (``flock`` on
POSIX, ``msvcrt.locking`` on Windows): the operating system drops it when a process dies, so a
crashed build never leaves a stale lock behind.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

#: How long a process waits for another's build before giving up, in seconds. The longest
#: build (the embedding table on a busy 2-core machine) takes up to 20 minutes.
BUILD_WAIT_S = 3600.0


class BuildLockTimeout(RuntimeError):
    """Another process held a build lock for longer than :data:`BUILD_WAIT_S`."""


@contextlib.contextmanager
def build_lock(target: Path, *, wait_s: float = BUILD_WAIT_S) -> Iterator[None]:
    """Hold the build lock of ``target`` (a file or folder about to be built) while the block runs.

    The lock file is ``<folder>-<name>.lock`` in a ``.locks`` folder one level above the
    folder of ``target`` (created when missing), so the folder that holds the builds holds
    nothing but them.
    Re-entrant within one thread (filelock counts nested acquisitions), so a build may call
    another that takes the same lock.

    Args:
        target: what is built (e.g. ``<cache>/wordnet-index/wordnet-....sqlite``).
        wait_s: seconds to wait for another process's build.

    Raises:
        BuildLockTimeout: another process held the lock for more than ``wait_s`` seconds;
            the message names the lock file, which can be deleted if no kiekai is running.
        OSError: the folder cannot be created or the lock file cannot be opened.
    """
    from filelock import FileLock, Timeout

    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    locks = target.parent.parent / ".locks"
    locks.mkdir(exist_ok=True)
    lock_path = locks / f"{target.parent.name}-{target.name}.lock"
    lock = FileLock(str(lock_path), timeout=wait_s)
    try:
        lock.acquire()
    except Timeout as exc:
        raise BuildLockTimeout(
            f"waited {wait_s:.0f} s for another kiekai process building {target}; if none is "
            f"running, delete {lock_path} and try again"
        ) from exc
    try:
        yield
    finally:
        lock.release()
