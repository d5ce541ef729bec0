"""The synonym judge (rulebook "Imperfect Guesses" and "Ne Bis in Idem").

``Judge(strictness).match(secret, guess) -> Verdict`` and
``Judge(strictness).is_repeat(candidate, used_words) -> Verdict``; see
:mod:`kiekai.judge.judge` for the decision procedure and ``docs/judge.md`` for its
measured accuracy.
"""

from kiekai.judge.judge import Judge
from kiekai.judge.verdict import Strictness, Verdict

__all__ = ["Judge", "Strictness", "Verdict"]
