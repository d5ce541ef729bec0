"""The synonym judge (rulebook "Imperfect Guesses" and "Ne Bis in Idem").

``Judge(strictness).match(secret, guess) -> Verdict`` and
``Judge(strictness).is_repeat(candidate, used_words) -> Verdict``; see
:mod:`kiekai.judge.judge` for the decision procedure and ``docs/judge.md`` for its
measured accuracy.

:class:`Strictness` and :class:`Verdict` are imported with the package; :class:`Judge`
(numpy, WordNet, the fitted model) on first use, so that importing a light part of the
judge (the levels for a command line's ``--strictness``, the protocol) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kiekai.judge.verdict import Strictness, Verdict

if TYPE_CHECKING:
    from kiekai.judge.judge import Judge

__all__ = ["Judge", "Strictness", "Verdict"]


def __getattr__(name: str) -> Any:
    """``kiekai.judge.Judge``: imports :mod:`kiekai.judge.judge` on first access."""
    if name == "Judge":
        from kiekai.judge.judge import Judge

        return Judge
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
