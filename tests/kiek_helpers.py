"""Small deterministic test doubles for the Kiek engine and runner tests (not in the package).

``TableJudge`` decides matches by a fixed synonym table so scoring rules can be tested
exactly; the tests that need real judging use :class:`kiekai.judge.Judge`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from kiekai.deck import Card
from kiekai.judge.verdict import Strictness, Verdict
from kiekai.kiek.players import ActivePlay, ActiveView, CallView, GuessView, KeepView, RevealView

SYNONYMS = [{"people", "humans", "persons"}, {"dog", "dogs", "hound"}, {"red", "crimson"}]


def make_cards(n: int) -> list[Card]:
    """``n`` cards with ids c00, c01, ... (no files behind them: the engine never reads them)."""
    return [
        Card(
            id=f"c{i:02d}",
            path=Path(f"/nowhere/c{i:02d}.jpg"),
            sha256=f"{i:064x}",
            label=f"thing{i}",
        )
        for i in range(n)
    ]


class TableJudge:
    """Matches equal words (case-insensitive) and words in one set of :data:`SYNONYMS`."""

    strictness = Strictness.STANDARD

    def _same(self, a: str, b: str) -> bool:
        a, b = a.strip().lower(), b.strip().lower()
        return a == b or any(a in group and b in group for group in SYNONYMS)

    def match(self, secret: str, guess: str) -> Verdict:
        ok = self._same(secret, guess)
        return Verdict(ok, float(ok), "synonym" if ok else "unrelated", "table")

    def is_repeat(self, word: str, used_words: Sequence[str]) -> Verdict:
        for used in used_words:
            if self._same(word, used):
                return Verdict(True, 1.0, "same-lemma", f"repeats {used}", matched=used)
        return Verdict(False, 0.0, "unrelated", "new word")

    def check_word(self, text: str) -> Verdict:
        text = text.strip()
        if not text or " " in text or not any(ch.isalnum() for ch in text):
            return Verdict(False, 0.0, "not-one-word", f"{text!r} is not one word")
        return Verdict(True, 1.0, "one-word", "one word")


class ScriptedPlayer:
    """A deterministic seat: plays its first two cards, splits the five in table order,
    writes the next word of ``words`` (cycled) as active player and as guesser, calls
    ne bis in idem when told to, and keeps the first card on offer.
    """

    def __init__(
        self,
        name: str,
        words: Sequence[str] = ("dog",),
        *,
        guesses: Sequence[str] | None = None,
        calls: bool = False,
        human: bool = False,
    ) -> None:
        self.name = name
        self.is_human = human
        self.words = list(words)
        self.guesses = list(guesses) if guesses is not None else list(words)
        self.calls = calls
        self.rulings: dict[str, bool] = {}
        self.repeat_rulings: dict[str, str | None] = {}
        self.told: list[str] = []
        self.seen: list[object] = []
        self._w = 0
        self._g = 0

    def play_turn(self, view: ActiveView) -> ActivePlay:
        self.seen.append(view)
        played = (view.hand[0].id, view.hand[1].id)
        five = [c.id for c in view.table] + list(played)
        word = self.words[self._w % len(self.words)]
        self._w += 1
        return ActivePlay(played, tuple(five[:3]), tuple(five[3:]), word)  # type: ignore[arg-type]

    def guess(self, view: GuessView) -> str:
        self.seen.append(view)
        word = self.guesses[self._g % len(self.guesses)]
        self._g += 1
        return word

    def call_repeat(self, view: RevealView) -> bool:
        self.seen.append(view)
        return self.calls

    def keep_card(self, view: KeepView) -> str:
        self.seen.append(view)
        return view.cards[0].id

    # people only (HumanKiekPlayer)
    def tell(self, message: str) -> None:
        self.told.append(message)

    def overrule(self, view: RevealView) -> dict[str, bool]:
        """Overrules the verdicts on the words in ``self.rulings`` (word -> ruling)."""
        self.seen.append(view)
        return dict(self.rulings)

    def stop(self, reason: str) -> None:
        self.told.append(f"stopped: {reason}")

    def overrule_repeats(self, view: CallView) -> dict[str, str | None]:
        """Overrules the repeat verdicts on the words in ``self.repeat_rulings``."""
        self.seen.append(view)
        return dict(self.repeat_rulings)
