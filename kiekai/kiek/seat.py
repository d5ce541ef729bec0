"""What a person's seat decides in Kiek, as pure functions: one set for every front end.

The terminal (:mod:`kiekai.ui.kiek_terminal`) and the browser table (:mod:`kiekai.web`)
ask in their own way (typed prompts, pages and forms) but decide the same things here:

- whether a typed word may be written (:func:`refuse_word`, one length cap
  :data:`MAX_WORD` for both);
- whether chosen card numbers are a valid choice (:func:`choice_problem`) and the play
  they make (:func:`chosen_play`);
- which used word a word is said to repeat after a "ne bis in idem" call
  (:func:`used_word_named`) and which verdict a posted word names (:func:`group_named`);
- what a person is held to when time runs out (:func:`time_up_play`,
  :func:`time_up_keep`; the defaults themselves are rules, in :mod:`kiekai.kiek.rules`);
- how players are named to the person at the seat: "you" or the name, "your" or the
  name's possessive, lists joined with "and" (:class:`SeatNames`).

Nothing here prints, waits or holds state; every function returns plain text (the front
ends escape it for Rich markup or HTML) or values the engine accepts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from kiekai.kiek import rules
from kiekai.kiek.engine import one_word_verdict, ruling_key
from kiekai.kiek.players import ActivePlay, ActiveView, KeepView, WordVerdict
from kiekai.kiek.rules import GROUP_OF_THREE, PLAYED_PER_TURN, time_up_split

if TYPE_CHECKING:
    from kiekai.judge.protocol import JudgeLike

#: Longest word a person may write, in characters, at the terminal and in the browser alike.
#: The rulebook asks for "just one word" ("A Turn"); the longest word in the major English
#: dictionaries has 45 letters (pneumonoultramicroscopicsilicovolcanoconiosis), so 64 refuses
#: no word while a pasted paragraph is refused before the judge reads it and never reaches
#: the log.
MAX_WORD = 64


def refuse_word(judge: JudgeLike, text: str) -> str:
    """Why ``text`` cannot be written as a word, or ``""`` when it can.

    The rulebook asks for "just one word" ("A Turn"): ``text`` (spaces around it ignored)
    must be non-empty, at most :data:`MAX_WORD` characters and pass the judge's one-word
    check (:func:`kiekai.kiek.engine.one_word_verdict`), whose reason is returned otherwise.

    Args:
        judge: the table's judge (its ``check_word``).
        text: what the person typed.

    Returns:
        a reason in plain words (``"nothing was typed"``, ``"that is 70 characters; ..."``,
        the judge's reason), or ``""``.
    """
    word = text.strip()
    if not word:
        return "nothing was typed"
    if len(word) > MAX_WORD:
        return f"that is {len(word)} characters; one word is at most {MAX_WORD}"
    verdict = one_word_verdict(judge, word)
    return "" if verdict.accepted else verdict.reason


def typed_numbers(line: str) -> list[int]:
    """The whole numbers typed in ``line``, in order (``"4, 5"`` -> ``[4, 5]``).

    A run of more than 9 digits is no card or verdict number: it counts as ``-1`` (which no
    question allows, so the answer is refused with the choices), never as an ``int`` of
    thousands of digits (Python refuses to convert over 4,300, with a ``ValueError``).
    """
    return [int(run) if len(run) <= 9 else -1 for run in re.findall(r"\d+", line)]


def choice_problem(
    chosen: Sequence[int], allowed: Iterable[int], count: int, among: str = "allowed"
) -> str | None:
    """What is wrong with choosing the numbers ``chosen`` when ``count`` different numbers
    out of ``allowed`` are asked for (card numbers, verdict numbers), or ``None`` when
    nothing is.

    Args:
        chosen: the numbers given, in order (``-1`` stands for a number far too long, see
            :func:`typed_numbers`).
        allowed: the numbers that may be chosen.
        count: how many different numbers are asked for.
        among: what the allowed numbers are, for the reason (``"in your hand"``).

    Returns:
        one sentence (``"9 is not in your hand."``, ``"A card counts once."``,
        ``"That is 3 numbers."``), ``""`` when nothing was chosen, or ``None`` when the
        choice is valid.
    """
    allowed = list(allowed)
    if len(chosen) == count and len(set(chosen)) == count and set(chosen) <= set(allowed):
        return None
    outside = list(dict.fromkeys(n for n in chosen if n not in allowed))
    if -1 in outside:
        return "That number is far too long."
    if outside:
        return f"{join_words([str(n) for n in outside])} {plural(len(outside), 'is', 'are')} not {among}."
    if len(set(chosen)) < len(chosen):
        return "A card counts once."
    if chosen:
        return f"That is {len(chosen)} {plural(len(chosen), 'number', 'numbers')}."
    return ""


def chosen_play(
    view: ActiveView, played: Sequence[str], three: Sequence[str], word: str
) -> ActivePlay:
    """The play a person chose: the two hand cards ``played``, the group of ``three`` (both
    as card ids) and ``word``; the group of two is the rest of the five (rulebook "A Turn").
    Both groups list their cards in table order (the table's cards, then the played ones),
    whatever order they were chosen in.

    Raises:
        ValueError: ``played`` is not two cards of the hand or ``three`` not three of the five.
    """
    if len(played) != PLAYED_PER_TURN or len(three) != GROUP_OF_THREE:
        raise ValueError(f"choose {PLAYED_PER_TURN} cards to play and {GROUP_OF_THREE} to describe")
    table, hand = [c.id for c in view.table], [c.id for c in view.hand]
    cards, group, rest = time_up_split(table, hand, played, three)
    return _play(cards, group, rest, word.strip())


def time_up_play(
    view: ActiveView, played: Sequence[str] = (), three: Sequence[str] = ()
) -> ActivePlay | None:
    """What an active player who ran out of time is held to (settled reading 11 in
    docs/rules.md: a turn "may never take more than two minutes", rulebook "A Turn").

    Returns:
        ``None`` when no cards were chosen in time: the engine then plays its default
        (:meth:`~kiekai.kiek.engine.KiekEngine.play` with ``None``, logged as forfeited).
        Otherwise the cards chosen so far with the rest filled in by
        :func:`~kiekai.kiek.rules.time_up_split`, and no word.
    """
    if not played:
        return None
    table, hand = [c.id for c in view.table], [c.id for c in view.hand]
    cards, group, rest = time_up_split(table, hand, played, three)
    return _play(cards, group, rest, "")


def time_up_keep(view: KeepView) -> str:
    """The card id kept for a chooser who does not answer in time: the rule's default
    (:func:`kiekai.kiek.rules.time_up_keep`, the first card on offer)."""
    return rules.time_up_keep([c.id for c in view.cards])


def used_word_named(answer: str, used: Sequence[str], *, by_number: bool = True) -> str | None:
    """Which of the ``used`` words (rulebook "Ne Bis in Idem": "a category that has already
    been mentioned") ``answer`` names, or ``None`` when it names none.

    ``answer`` names a used word by its number in ``used`` (from 1; only when
    ``by_number``: a prompt that lists them numbered) or by the word itself, compared as
    the table rules on words (:func:`kiekai.kiek.engine.ruling_key`: case, diacritics,
    articles). Only the first :data:`MAX_WORD` characters are read.
    """
    answer = answer.strip()[:MAX_WORD]
    if by_number and re.fullmatch(r"\d{1,9}", answer) and 1 <= int(answer) <= len(used):
        return used[int(answer) - 1]
    if not answer:
        return None
    key = ruling_key(answer)
    return next((word for word in used if ruling_key(word) == key), None)


def group_named(groups: Sequence[WordVerdict], word: str) -> WordVerdict | None:
    """The verdict of ``groups`` (one a distinct word written this turn) whose word is
    ``word`` as the table rules on words (:func:`kiekai.kiek.engine.ruling_key`), or
    ``None``. Only the first :data:`MAX_WORD` characters of ``word`` are read."""
    key = ruling_key(word[:MAX_WORD])
    return next((group for group in groups if ruling_key(group.word) == key), None)


# ---------------------------------------------------------------------- names and grammar


def join_words(items: Sequence[str]) -> str:
    """``"a, b and c"`` (``"a"`` for one, ``""`` for none)."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def plural(count: int, one: str, many: str) -> str:
    """``one`` for a count of 1, else ``many`` (``plural(2, "is", "are")`` is ``"are"``)."""
    return one if count == 1 else many


def possessive(name: str, me: str) -> str:
    """``"your"`` when ``name`` is the person at the seat (``me``), else ``"Bot 1's"``."""
    return "your" if name == me else name + "'s"


def subject(name: str, me: str) -> str:
    """``"you"`` when ``name`` is the person at the seat (``me``), else the name."""
    return "you" if name == me else name


@dataclass(frozen=True)
class SeatNames:
    """How the players are named to the person at one seat: "you" and "your" for that
    person, the names for the others (plain text; escape it where it is shown).

    Attributes:
        names: player names by seat.
        me: the name of the person at this seat.
    """

    names: tuple[str, ...]
    me: str

    def name(self, seat: int) -> str:
        """The name at ``seat`` (``"player 3"`` for a seat beyond :attr:`names`)."""
        return self.names[seat] if 0 <= seat < len(self.names) else f"player {seat + 1}"

    def who(self, seat: int) -> str:
        """``"you"`` for the person at this seat, else the player's name."""
        return subject(self.name(seat), self.me)

    def whose(self, seat: int) -> str:
        """``"your"`` for the person at this seat, else ``"Bot 1's"``."""
        return possessive(self.name(seat), self.me)

    def writers(self, seats: Iterable[int]) -> str:
        """Who wrote a word: ``"you"``, ``"Bot 1"`` or ``"Bot 1, Bot 2 and you"``."""
        return join_words([self.who(seat) for seat in seats])


def _play(played: Sequence[str], three: Sequence[str], two: Sequence[str], word: str) -> ActivePlay:
    return ActivePlay(
        cast("tuple[str, str]", tuple(played)),
        cast("tuple[str, str, str]", tuple(three)),
        cast("tuple[str, str]", tuple(two)),
        word,
    )
