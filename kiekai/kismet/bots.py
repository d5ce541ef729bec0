"""The reflex bot for Kismet and its model of human reaction times.

The bot *finds* every matching card at once (it computes the sums exactly) but *acts* only
after a reaction time drawn from an ex-Gaussian distribution, the standard descriptive model
of human response-time distributions: a normal component (mean ``mu``, standard deviation
``sigma``) plus an independent exponential component (mean ``tau``) that gives the long
right tail (Luce, R. D. 1986, *Response Times*, Oxford University Press, ch. 6; Ratcliff, R.
1979, "Group reaction time distributions and an analysis of distribution statistics",
*Psychological Bulletin* 86(3), 446–461; Whelan, R. 2008, "Effective analysis of reaction
time data", *The Psychological Record* 58, 475–482, on fitting and typical values: ``mu``
several hundred ms, ``sigma`` 30–100 ms, ``tau`` 100–400 ms in choice tasks).

``mu`` grows with the load of the search:

* the number of cards to scan, by the Hick–Hyman law ``b · log2(n + 1)`` (Hick, W. E. 1952,
  "On the rate of gain of information", *QJEP* 4, 11–26; Hyman, R. 1953, "Stimulus
  information as a determinant of reaction time", *J. Exp. Psychol.* 45, 188–196; slopes of
  about 0.1–0.2 s per bit);
* the number of sums to form from the dice, each a single-digit mental addition of a few
  hundred ms for adults (Groen, G. J. & Parkman, J. M. 1972, "A chronometric analysis of
  simple addition", *Psychological Review* 79, 329–343; Ashcraft, M. H. 1992, "Cognitive
  arithmetic: a review of data and theory", *Cognition* 44, 75–106);
* comparing candidates: choosing the most valuable of several matching cards costs a
  comparison per extra candidate, so a greedy bot is a little slower.

The level parameters below are chosen inside those published ranges so that an expert is
fast but human (about 1 s to cover a card of an 11-card circle) and an easy bot is slow
enough to beat (about 2.5–3 s). ``scripts/measure_kismet.py`` prints the resulting medians
and spreads (``docs/kismet.md``). All randomness comes from the bot's own seeded
``random.Random``, so headless games repeat exactly.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache

from kiekai.kismet.rules import (
    DEFAULT_RULES,
    Rules,
    is_joker_throw,
    reach_probability,
    reachable_values,
)

#: Fastest possible human response (seconds): simple visual reaction times rarely fall
#: below ~0.15 s (Luce 1986, ch. 2); samples are clipped here.
MIN_REACTION_S = 0.15


@dataclass(frozen=True)
class ExGaussian:
    """Ex-Gaussian distribution of reaction times, all parameters in seconds.

    Attributes:
        mu: mean of the normal component.
        sigma: standard deviation of the normal component (> 0).
        tau: mean of the exponential component (> 0).
    """

    mu: float
    sigma: float
    tau: float

    @property
    def mean(self) -> float:
        """Mean reaction time in seconds (``mu + tau``)."""
        return self.mu + self.tau

    @property
    def sd(self) -> float:
        """Standard deviation in seconds (``sqrt(sigma² + tau²)``)."""
        return math.sqrt(self.sigma**2 + self.tau**2)

    def sample(self, rng: random.Random) -> float:
        """One reaction time in seconds, clipped below at :data:`MIN_REACTION_S`."""
        return max(MIN_REACTION_S, rng.gauss(self.mu, self.sigma) + rng.expovariate(1.0 / self.tau))


@dataclass(frozen=True)
class Level:
    """Parameters of one bot level (times in seconds, rates as probabilities 0..1).

    Attributes:
        name: ``easy``, ``normal``, ``hard`` or ``expert``.
        base_mu: ``mu`` with nothing to scan (perception + motor time).
        per_bit: Hick–Hyman slope, seconds per bit of ``log2(cards + 1)``.
        per_sum: seconds per sum formed from the dice.
        sigma: normal-component spread.
        tau: exponential tail for one sum; grows 15 % per extra sum.
        per_compare: seconds per extra matching card compared when choosing the most valuable.
        prefer_value: chance of looking for the most valuable match rather than the first seen.
        error_rate: chance of a mistake at a decision (wrong card, overlooked card, wrong knock).
    """

    name: str
    base_mu: float
    per_bit: float
    per_sum: float
    sigma: float
    tau: float
    per_compare: float
    prefer_value: float
    error_rate: float


#: The four levels; see the module docstring for where the ranges come from.
LEVELS: dict[str, Level] = {
    "easy": Level("easy", 0.45, 0.16, 0.40, 0.12, 0.60, 0.25, 0.50, 0.10),
    "normal": Level("normal", 0.40, 0.13, 0.30, 0.09, 0.35, 0.18, 0.75, 0.05),
    "hard": Level("hard", 0.35, 0.10, 0.22, 0.07, 0.20, 0.12, 0.90, 0.02),
    "expert": Level("expert", 0.30, 0.08, 0.15, 0.05, 0.10, 0.08, 1.00, 0.00),
}


def get_level(name: str) -> Level:
    """The :class:`Level` called ``name``.

    Raises:
        ValueError: unknown level; the message lists the known ones.
    """
    try:
        return LEVELS[name]
    except KeyError:
        raise ValueError(f"unknown bot level {name!r}; choose one of {', '.join(LEVELS)}") from None


class ReactionTimeModel:
    """Reaction times of one level as a function of the search load.

    Args:
        level: a :class:`Level` or its name.

    Raises:
        ValueError: unknown level name.
    """

    def __init__(self, level: Level | str = "normal") -> None:
        self.level = get_level(level) if isinstance(level, str) else level

    def distribution(self, n_cards: int, n_sums: int, n_compared: int = 1) -> ExGaussian:
        """The ex-Gaussian for scanning ``n_cards`` cards for ``n_sums`` dice sums and
        comparing ``n_compared`` candidates (all counts >= 0; seconds)."""
        lv = self.level
        mu = (
            lv.base_mu
            + lv.per_bit * math.log2(max(0, n_cards) + 1)
            + lv.per_sum * max(0, n_sums)
            + lv.per_compare * max(0, n_compared - 1)
        )
        tau = lv.tau * (1.0 + 0.15 * max(0, n_sums - 1))
        return ExGaussian(mu, lv.sigma, tau)

    def sample(self, rng: random.Random, n_cards: int, n_sums: int, n_compared: int = 1) -> float:
        """One reaction time in seconds for that load (see :meth:`distribution`)."""
        return self.distribution(n_cards, n_sums, n_compared).sample(rng)


@dataclass(frozen=True)
class CoverPlan:
    """A base-game decision: cover ``slot`` after ``delay`` seconds from the roll."""

    delay: float
    slot: int


@dataclass(frozen=True)
class TurnPlan:
    """A variant roller's decision.

    Attributes:
        delay: seconds from the roll until the first card is laid (or the pass, if none).
        lay: values to lay in order (empty, one card, or two after a joker throw).
        pass_delay: seconds after the last lay (or after ``delay``) until he passes.
    """

    delay: float
    lay: tuple[int, ...]
    pass_delay: float


class ReflexBot:
    """A Kismet player with perfect perception and human reaction times.

    Args:
        level: ``easy``, ``normal``, ``hard`` or ``expert`` (or a :class:`Level`).
        seed: seeds the bot's own RNG (reaction times, mistakes).
        rules: chip points, used to rank cards by value.

    Raises:
        ValueError: unknown level.
    """

    def __init__(self, level: Level | str = "normal", seed: int = 0, rules: Rules = DEFAULT_RULES):
        self.model = ReactionTimeModel(level)
        self.level = self.model.level
        self.rng = random.Random(seed)
        self.rules = rules

    def _mistake(self) -> bool:
        return self.rng.random() < self.level.error_rate

    # --- base game -----------------------------------------------------------------------
    def plan_cover(
        self,
        circle: Sequence[int | None],
        open_slots: Collection[int],
        dice: Sequence[int],
    ) -> CoverPlan | None:
        """Choose a card of the circle to cover and when.

        Args:
            circle: per slot (index 0..10), the card's value 2..12 or ``None`` when empty.
            open_slots: slots no hand covers yet.
            dice: the three dice.

        Returns:
            A plan, or ``None`` when no open card matches. With probability ``error_rate`` the
            bot covers a near miss instead (a card one away from a makeable value, as from a
            slip in adding), if one is open. Otherwise it goes for the card with the most chip
            points (with probability ``prefer_value``, paying a comparison per extra match) or
            the first match it sees.
        """
        values = reachable_values(dice)
        open_cards = [(s, circle[s]) for s in sorted(open_slots) if circle[s] is not None]
        matches = [(s, v) for s, v in open_cards if v in values]
        if not matches:
            return None
        n_cards, n_sums = len(open_cards), len(values)
        if self._mistake():
            near = [
                (s, v)
                for s, v in open_cards
                if v not in values and any(abs(v - w) == 1 for w in values)
            ]
            if near:
                slot = self.rng.choice(near)[0]
                return CoverPlan(self.model.sample(self.rng, n_cards, n_sums) * 0.85, slot)
        if self.rng.random() < self.level.prefer_value:
            best = max(self.rules.points(v) for _, v in matches)
            slot = self.rng.choice([s for s, v in matches if self.rules.points(v) == best])
            compared = len(matches)
        else:
            slot = self.rng.choice(matches)[0]
            compared = 1
        return CoverPlan(self.model.sample(self.rng, n_cards, n_sums, compared), slot)

    # --- variant -------------------------------------------------------------------------
    def plan_pre_lay(self, hand: Sequence[int], limit: int | None = None) -> tuple[int, ...]:
        """Choose the secret pre-lay (Variant Setup: at most ``limit`` minus points, default
        the rules' 6).

        The best pre-lay removes the cards that take longest to roll: it maximises the sum of
        ``1 / reach_probability(v)`` (expected rolls until three dice can make ``v``) within
        the limit. Lower levels sometimes take a random maximal choice instead.
        """
        limit = self.rules.pre_lay_limit if limit is None else limit
        options = _pre_lay_options(
            tuple(sorted(hand)), limit, tuple(sorted(self.rules.chips.items()))
        )
        if not options:
            return ()
        if self.rng.random() < self.level.prefer_value:
            return options[0]
        return self.rng.choice(options)

    def plan_turn(self, front: Sequence[int], dice: Sequence[int]) -> TurnPlan:
        """Decide the roller's turn: which card(s) to lay and when, then when to pass.

        Lays the matching card that is hardest to roll (lowest reach probability, i.e. most
        minus points); after a joker throw also the hardest remaining card. With probability
        ``error_rate`` it overlooks its match and passes.
        """
        values = reachable_values(dice)
        matches = [v for v in front if v in values]
        n_sums = len(values)
        delay = self.model.sample(self.rng, len(front), n_sums, max(1, len(matches)))
        pass_delay = self.model.sample(self.rng, 0, 0)
        if not matches or self._mistake():
            return TurnPlan(delay, (), pass_delay)
        first = min(matches, key=lambda v: (reach_probability(v), -v))
        lay: tuple[int, ...] = (first,)
        if is_joker_throw(dice):
            rest = [v for v in front if v != first]
            if rest:
                lay += (min(rest, key=lambda v: (reach_probability(v), -v)),)
        return TurnPlan(delay, lay, pass_delay)

    def plan_knock(
        self,
        own_front: Sequence[int],
        roller_front: Sequence[int],
        dice: Sequence[int],
        overlooked: bool = False,
    ) -> float | None:
        """Decide whether and when (seconds from now) to knock into another player's turn.

        Knocks when the roller has passed over a card he could have laid (``overlooked``),
        or when the roller has no matching card but the bot has one. The delay covers
        scanning both rows of cards for the dice sums. With probability ``error_rate`` the
        bot misses a chance, and with half that probability it knocks wrongly.

        Returns:
            Seconds until the knock, or ``None`` for no knock.
        """
        values = reachable_values(dice)
        mine = any(v in values for v in own_front)
        roller_has = any(v in values for v in roller_front)
        should = overlooked or (mine and not roller_has)
        n_cards = len(own_front) + len(roller_front)
        if should and not self._mistake():
            return self.model.sample(self.rng, n_cards, len(values))
        if not should and self.rng.random() < self.level.error_rate / 2:
            return self.model.sample(self.rng, n_cards, len(values)) * 0.9
        return None

    def take_dice_delay(self) -> float:
        """Seconds until the bot, called to roll, takes the dice: reaching for them is a
        simple reaction plus about 1.5 s to reach for and pick up the dice."""
        return 1.5 + self.model.sample(self.rng, 0, 0)


@lru_cache(maxsize=64)
def _pre_lay_options(
    hand: tuple[int, ...], limit: int, chips: tuple[tuple[int, int], ...]
) -> list[tuple[int, ...]]:
    """Maximal pre-lay choices within ``limit`` points, best first by expected rolls saved."""
    points = dict(chips)
    feasible = [
        combo
        for r in range(1, len(hand) + 1)
        for combo in itertools.combinations(hand, r)
        if sum(points[v] for v in combo) <= limit
    ]
    maximal = [
        c
        for c in feasible
        if not any(sum(points[v] for v in c) + points[w] <= limit for w in hand if w not in c)
    ]
    return sorted(maximal, key=lambda c: (-sum(1 / reach_probability(v) for v in c), c))
