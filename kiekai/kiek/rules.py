"""The rules of Kiek (Splotter), as constants and pure functions: the one place they live.

Every number here cites the rulebook (``../shared/rules/kiek.txt``) or the settled reading of
it in ``docs/rules.md``. The engine (:mod:`kiekai.kiek.engine`), the deck check
(:mod:`kiekai.deck`), the evaluation and the front ends import them from here; a test
(``tests/test_kiek_rules.py``) checks that no other module assigns them.
"""

from __future__ import annotations

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
