"""Kismet rules data: chip points, the pre-lay budget, and what three dice can make.

The rulebook (``shared/rules/kismet.txt``) prints no chip values; its "Tactical Notes and
Scoring Hints" explain them: the fewer ways two dice make a value, the more the value is
worth, 7 the least, 2 and 12 the most. This module derives them as
``points = 7 - (ways two dice make the value)``: 2 and 12 → 6, 3 and 11 → 5, 4 and 10 → 4,
5 and 9 → 3, 6 and 8 → 2, 7 → 1. The same numbers are plus points in the base game and minus
points in the variant. All of it lives in one :class:`Rules` record that a TOML rules file
can override (:func:`load_rules`)::

    [chips]          # any subset of the values 2..12; the rest keep their defaults
    2 = 6
    12 = 6
    [variant]
    pre_lay_limit = 6   # "may not add up to more than 6 minus points" (Variant Setup)
"""

from __future__ import annotations

import itertools
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from kiekai.files import FileRefusedError, read_regular_bytes

#: The large numbers printed on a card set: one card each of 2..12 (11 cards; 8 sets = 88).
VALUES: tuple[int, ...] = tuple(range(2, 13))
#: Cards in the circle (rulebook, Setup: "Turn the top 11 cards of the pile face up").
CIRCLE_SIZE = 11
#: Dice rolled each round (rulebook, Components: "3 dice").
DICE = 3
#: Card sets in the box (88 cards / 11 per set): the most players the base game can seat.
MAX_SETS = 8
#: Names of the 11 places of the circle, clockwise from the top left (the rulebook lays the
#: cards "out in a circle" without naming places; kiekai names them by letter so that a
#: player, the terminal UI's keys and the printed game all say the same).
SLOT_NAMES = "abcdefghijk"
#: Largest rules file read, in bytes (64 KiB): the file has at most 12 short lines; a named
#: pipe or ``/dev/zero`` given as ``--rules`` is refused, never read.
MAX_RULES_BYTES = 64 * 1024


def slot_name(slot: int) -> str:
    """The letter of circle place ``slot`` (0..10 → ``"a"``..``"k"``).

    Raises:
        ValueError: ``slot`` is not 0..10.
    """
    if not isinstance(slot, int) or not 0 <= slot < CIRCLE_SIZE:
        raise ValueError(f"the circle has places 0..{CIRCLE_SIZE - 1}, not {slot!r}")
    return SLOT_NAMES[slot]


def two_dice_ways(value: int) -> int:
    """Number of ordered outcomes of two six-sided dice whose sum is ``value`` (0 outside 2..12).

    Example: ``two_dice_ways(7) == 6`` (1+6, 2+5, 3+4, 4+3, 5+2, 6+1).
    """
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b == value)


def derived_chip_points() -> dict[int, int]:
    """Chip points derived from the tactical note: ``7 - two_dice_ways(v)`` for v in 2..12."""
    return {v: 7 - two_dice_ways(v) for v in VALUES}


def reachable_values(dice: Iterable[int]) -> frozenset[int]:
    """Values formed by adding two of the dice (rulebook, Playing the Game).

    Args:
        dice: the three dice, each 1..6 (pips).

    Returns:
        The distinct sums of two different dice; as many values as there are different
        numbers rolled (Tactical hints: 2,4,5 → {6,7,9}; 3,3,5 → {6,8}; 1,1,1 → {2}).

    Raises:
        ValueError: not exactly three dice, or a die outside 1..6.
    """
    dice = tuple(dice)
    try:
        return _reachable(dice)
    except TypeError:  # a die that is not even hashable
        raise ValueError(f"three dice of 1..6 are needed, got {dice!r}") from None


@cache
def _reachable(dice: tuple[int, ...]) -> frozenset[int]:
    """:func:`reachable_values` of one throw, kept: there are only 216 throws, and the bots
    ask for the values of the same throw thousands of times a game."""
    if len(dice) != DICE or any(not isinstance(d, int) or not 1 <= d <= 6 for d in dice):
        raise ValueError(f"three dice of 1..6 are needed, got {dice!r}")
    return frozenset(a + b for a, b in itertools.combinations(dice, 2))


def is_joker_throw(dice: Iterable[int]) -> bool:
    """True when all three dice show the same number (Variant, "Joker throw")."""
    return len(set(dice)) == 1


@cache
def reach_probability(value: int) -> float:
    """Probability (0..1) that one roll of three fair dice can make ``value`` (exact, /216)."""
    hits = sum(
        1 for roll in itertools.product(range(1, 7), repeat=3) if value in reachable_values(roll)
    )
    return hits / 216


class RulesFileError(ValueError):
    """A rules file could not be read or holds values the game cannot use (message names both)."""


@dataclass(frozen=True)
class Rules:
    """The numbers the rulebook leaves to the printed cards or fixes in its text.

    Attributes:
        chips: chip points per card value (2..12 → points; plus points in the base game,
            minus points in the variant). Default: :func:`derived_chip_points`.
        pre_lay_limit: most minus points a player may pre-lay in the variant (Variant Setup: 6).
    """

    chips: Mapping[int, int] = field(
        default_factory=lambda: MappingProxyType(derived_chip_points())
    )
    pre_lay_limit: int = 6

    def points(self, value: int) -> int:
        """Chip points of a card with large number ``value``.

        Raises:
            KeyError: ``value`` is not 2..12.
        """
        return self.chips[value]


DEFAULT_RULES = Rules()


def load_rules(path: str | os.PathLike[str]) -> Rules:
    """Read a TOML rules file that overrides chip points and/or the pre-lay limit.

    Args:
        path: a TOML file with an optional ``[chips]`` table (keys "2".."12", integer points
            >= 0) and an optional ``[variant]`` table with ``pre_lay_limit`` (integer >= 0).

    Returns:
        :class:`Rules` with the file's values over :data:`DEFAULT_RULES`.

    Raises:
        RulesFileError: the file is missing, not a regular file (a named pipe, a device: never
            read), over :data:`MAX_RULES_BYTES`, not TOML or nested too deep to parse,
            ``chips``/``variant`` is not a table,
            a key is not a card value written in ASCII digits, or a value is out of range;
            the message names the file, the entry and what is allowed.
    """
    p = Path(path)
    raw = _read_toml(p)
    unknown = set(raw) - {"chips", "variant"}
    if unknown:
        raise RulesFileError(
            f"rules file {p}: unknown table(s) {sorted(unknown)}; only [chips] and [variant] exist"
        )
    for table in ("chips", "variant"):
        if not isinstance(raw.get(table, {}), dict):
            raise RulesFileError(
                f"rules file {p}: [{table}] must be a table (a '[{table}]' header with "
                f"'key = value' lines), not {raw[table]!r}"
            )
    chips = _chip_points(p, raw.get("chips", {}))
    limit = _pre_lay_limit(p, raw.get("variant", {}))
    return Rules(chips=MappingProxyType(chips), pre_lay_limit=limit)


def _read_toml(p: Path) -> dict[str, Any]:
    """The TOML document of rules file ``p``.

    Raises:
        RulesFileError: missing, not a regular file, over :data:`MAX_RULES_BYTES`, not
            UTF-8 TOML, or nested too deep to parse.
    """
    try:
        return tomllib.loads(read_regular_bytes(p, MAX_RULES_BYTES).decode("utf-8"))
    except FileNotFoundError as exc:
        raise RulesFileError(f"rules file {p} does not exist; pass an existing TOML file") from exc
    except FileRefusedError as exc:
        raise RulesFileError(f"rules file {p} is {exc.reason}; pass a TOML file") from None
    except RecursionError:
        raise RulesFileError(
            f"rules file {p} nests arrays or tables too deeply to read; a rules file has two "
            f"flat tables, [chips] and [variant]"
        ) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise RulesFileError(f"rules file {p} is not readable TOML: {exc}") from exc


def _chip_points(p: Path, table: Mapping[str, object]) -> dict[int, int]:
    """:func:`derived_chip_points` with the ``[chips]`` entries of rules file ``p`` over them.

    Raises:
        RulesFileError: a key is not a card value 2..12 in ASCII digits, or a value is not
            an integer >= 0.
    """
    chips = derived_chip_points()
    for key, points in table.items():
        # plain ASCII digits only: int() would also take "+7", " 7 " and other scripts' digits
        value = int(key) if key.isascii() and key.isdigit() else -1
        if value not in VALUES:
            raise RulesFileError(f"rules file {p}: [chips] key {key!r} is not a card value 2..12")
        if not isinstance(points, int) or isinstance(points, bool) or points < 0:
            raise RulesFileError(
                f"rules file {p}: [chips] {key} = {points!r}; chip points must be integers >= 0"
            )
        chips[value] = points
    return chips


def _pre_lay_limit(p: Path, variant: Mapping[str, object]) -> int:
    """The ``[variant]`` ``pre_lay_limit`` of rules file ``p`` (default: Variant Setup's 6).

    Raises:
        RulesFileError: another ``[variant]`` key, or a limit that is not an integer >= 0.
    """
    extra = set(variant) - {"pre_lay_limit"}
    if extra:
        raise RulesFileError(f"rules file {p}: unknown [variant] key(s) {sorted(extra)}")
    limit = variant.get("pre_lay_limit", DEFAULT_RULES.pre_lay_limit)
    if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
        raise RulesFileError(
            f"rules file {p}: [variant] pre_lay_limit = {limit!r}; it must be an integer >= 0"
        )
    return limit
