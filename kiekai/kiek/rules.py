"""The rules of Kiek (Splotter), as constants and pure functions: the one place they live.

Every number here cites the rulebook (``../shared/rules/kiek.txt``) or the settled reading of
it in ``docs/rules.md``. The engine (:mod:`kiekai.kiek.engine`), the deck check
(:mod:`kiekai.deck`), the evaluation and the front ends import them from here; a test
(``tests/test_kiek_rules.py``) checks that no other module assigns them.
"""

from __future__ import annotations

from collections.abc import Sequence

#: Seconds a turn may take ("A turn may never take more than two minutes", rulebook "A Turn").
TURN_SECONDS = 120.0
#: Cards dealt to each player (rulebook "Preparations").
HAND_SIZE = 4
#: Cards face up in the middle of the table (rulebook "Preparations").
TABLE_SIZE = 3
#: Cards the active player plays from hand each turn (rulebook "A Turn").
PLAYED_PER_TURN = 2
#: Sizes of the two groups of the split (rulebook "A Turn": "one of three and one of two").
GROUP_OF_THREE, GROUP_OF_TWO = 3, 2
#: Players who each keep one card for the next turn (rulebook "The Next Turn").
CHOOSERS = 3
#: Rounds of the game proper (rulebook "End of the Game"); later rounds are extra rounds.
BASE_ROUNDS = 3
#: Highest stake: points per match from the third round on (rulebook "The Next Turn",
#: "End of the Game": extra rounds score three points).
MAX_STAKE = 3
#: Points for a correct "ne bis in idem" call (rulebook "Ne Bis in Idem": "scores one point";
#: a flat point, not multiplied by the stake: settled in docs/rules.md).
CALL_POINTS = 1
#: Players at the table (settled reading: 3 to 8; see docs/rules.md).
MIN_PLAYERS, MAX_PLAYERS = 3, 8


def cards_needed(players: int) -> int:
    """Cards a game of Kiek deals: :data:`HAND_SIZE` a player + :data:`TABLE_SIZE` face up
    (rulebook, "Preparations").

    Raises:
        ValueError: ``players`` is below 1.
    """
    if players < 1:
        raise ValueError(f"players must be at least 1, got {players}")
    return HAND_SIZE * players + TABLE_SIZE


def stake_of_round(round_number: int) -> int:
    """Points a match scores in round ``round_number`` (1-based): 1 in the first round, 2 in
    the second, :data:`MAX_STAKE` from the third on, extra rounds included (rulebook, "The
    Next Turn" and "End of the Game").

    Raises:
        ValueError: ``round_number`` is below 1.
    """
    if round_number < 1:
        raise ValueError(f"rounds are counted from 1, got {round_number}")
    return min(round_number, MAX_STAKE)


def time_up_split(
    table: Sequence[str],
    hand: Sequence[str],
    played: Sequence[str] = (),
    three: Sequence[str] = (),
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The cards played and the 3-2 split an active player is held to when the two minutes
    run out before the word is written (settled reading 11 in docs/rules.md, from rulebook
    "A Turn": "A turn may never take more than two minutes").

    What the person chose in time is kept; the rest is filled in table order: the
    :data:`PLAYED_PER_TURN` cards ``played`` (else the first two of ``hand``), then the
    :data:`GROUP_OF_THREE` cards ``three`` (else the first three of the five, the table's
    cards first). The two are the other cards of the five, in table order.

    Args:
        table: ids of the cards face up on the table (:data:`TABLE_SIZE`).
        hand: ids of the active player's hand, in hand order.
        played: ids of the two hand cards chosen in time, or ``()``.
        three: ids of the group of three chosen in time (among the five), or ``()``.

    Returns:
        ``(played, three, two)``: tuples of card ids.

    Raises:
        ValueError: ``played`` is neither empty nor two cards of ``hand``, or ``three`` is
            neither empty nor three cards of the five.
    """
    if not played:
        played = tuple(hand[:PLAYED_PER_TURN])
    elif len(set(played)) != PLAYED_PER_TURN or not set(played) <= set(hand):
        raise ValueError(f"played must be {PLAYED_PER_TURN} different cards of the hand")
    five = [*table, *played]
    if not three:
        three = tuple(five[:GROUP_OF_THREE])
    elif len(set(three)) != GROUP_OF_THREE or not set(three) <= set(five):
        raise ValueError(f"three must be {GROUP_OF_THREE} different cards of the five")
    kept = [card for card in five if card in set(three)]
    return tuple(played), tuple(kept), tuple(card for card in five if card not in set(three))


def time_up_keep(offer: Sequence[str]) -> str:
    """The card kept for a chooser who does not choose in time (settled reading 11 in
    docs/rules.md: keeping is not timed by the rulebook, but a seat that is gone or does not
    answer takes the first card on offer).

    Raises:
        ValueError: nothing is on offer.
    """
    if not offer:
        raise ValueError("no card is on offer")
    return offer[0]
