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
fast but human and beatable (about 1.5 s to cover a card of an 11-card circle, a few wrong
covers in a hundred) and an easy bot is slow enough to beat (about 3 s).

**Floors.** No bot acts on something it sees faster than a person can: every sample is
drawn from the ex-Gaussian *truncated* at a floor (redrawn below it, so the distribution has
no spike at the floor):

* :data:`SIMPLE_RT_FLOOR_S` (0.20 s) for responses whose choice is already made (passing
  after one's own lay, reaching for the dice): the fast end of simple visual reaction times,
  which average about 0.2–0.25 s in healthy young adults (Luce 1986, ch. 2);
* :data:`CHOICE_RT_FLOOR_S` (0.35 s) for every decision about something new on the table
  (covering a card after a roll, laying after one's own roll, knocking after a roll, a lay
  or a pass): a simple reaction plus one bit of choice at about 0.15 s per bit, the slope of
  Hick's law (Hick 1952; Hyman 1953 finds similar slopes), i.e. the fastest two-choice
  reaction. Every real decision in Kismet is harder than one bit, so the models lie well
  above this floor; it catches the tail and any future parameter slip.

``scripts/measure_kismet.py`` prints the resulting medians, fastest 1 %, wrong-cover shares
and the fastest action of each kind against its floor (``docs/kismet.md``). All randomness
comes from the bot's own seeded ``random.Random``, so headless games repeat exactly.
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

#: Fastest simple visual reaction of a person (seconds): simple reaction times to a visual
#: onset average about 0.2–0.25 s in healthy young adults, and the fast end of a practised
#: observer's distribution lies near 0.2 s (Luce, R. D. 1986, *Response Times*, ch. 2).
#: No bot responds to anything faster than this.
SIMPLE_RT_FLOOR_S = 0.20
#: Extra time per bit of choice (seconds): Hick (1952) found reaction time rising by about
#: 0.15 s per bit of stimulus information (``log2(n + 1)`` for n equally likely choices);
#: Hyman (1953) found slopes of the same size.
HICK_S_PER_BIT = 0.15
#: Fastest choice reaction (seconds): a simple reaction plus one bit of choice (knock or
#: not; this card or another). No bot decision about something new comes faster.
CHOICE_RT_FLOOR_S = SIMPLE_RT_FLOOR_S + HICK_S_PER_BIT
#: The floor of each kind of bot action, measured from what it reacts to (the roll, a lay, a
#: pass, a hand on the card it wanted, the call to roll). ``scripts/measure_kismet.py``
#: checks every action of headless games against these.
FLOORS: dict[str, float] = {
    "cover": CHOICE_RT_FLOOR_S,
    "lay": CHOICE_RT_FLOOR_S,
    "knock": CHOICE_RT_FLOOR_S,
    "pass": SIMPLE_RT_FLOOR_S,
    "take_dice": SIMPLE_RT_FLOOR_S,
}
#: Kept for callers of the first version: the lowest any sample can be.
MIN_REACTION_S = SIMPLE_RT_FLOOR_S
#: Seconds a bot needs to reach for and pick up the dice after it has seen it is called.
REACH_FOR_DICE_S = 1.5


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

    def scaled(self, factor: float) -> ExGaussian:
        """The same shape with every time multiplied by ``factor`` (> 0), e.g. 0.85 for a
        hasty slip."""
        return ExGaussian(self.mu * factor, self.sigma * factor, self.tau * factor)

    def sample(self, rng: random.Random, floor: float = SIMPLE_RT_FLOOR_S) -> float:
        """One reaction time in seconds from the distribution truncated below at ``floor``.

        Draws below the floor are redrawn (up to 1000 times; a distribution that almost
        never reaches the floor then gives ``floor`` plus an exponential tail), so the result
        is always >= ``floor`` and there is no pile-up at the floor.
        """
        for _ in range(1000):
            x = rng.gauss(self.mu, self.sigma) + rng.expovariate(1.0 / self.tau)
            if x >= floor:
                return x
        return floor + rng.expovariate(1.0 / self.tau)


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


#: The four levels; see the module docstring for where the ranges come from. Even the
#: expert makes mistakes (2 % of decisions): a fast person can beat it now and then.
LEVELS: dict[str, Level] = {
    "easy": Level("easy", 0.45, 0.16, 0.40, 0.12, 0.60, 0.25, 0.50, 0.10),
    "normal": Level("normal", 0.45, 0.13, 0.30, 0.10, 0.35, 0.18, 0.75, 0.07),
    "hard": Level("hard", 0.42, 0.12, 0.26, 0.09, 0.22, 0.13, 0.85, 0.05),
    "expert": Level("expert", 0.40, 0.10, 0.20, 0.08, 0.15, 0.10, 0.90, 0.02),
}


def get_level(name: str) -> Level:
    """The :class:`Level` called ``name`` (case and surrounding spaces ignored: ``"EXPERT"``).

    Raises:
        ValueError: unknown level; the message lists the known ones.
    """
    key = name.strip().lower() if isinstance(name, str) else name
    try:
        return LEVELS[key]
    except (KeyError, TypeError):
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

    def sample(
        self,
        rng: random.Random,
        n_cards: int,
        n_sums: int,
        n_compared: int = 1,
        floor: float = CHOICE_RT_FLOOR_S,
        factor: float = 1.0,
    ) -> float:
        """One reaction time in seconds for that load (see :meth:`distribution`), never
        below ``floor`` (default: a choice reaction, :data:`CHOICE_RT_FLOOR_S`); ``factor``
        scales the distribution (0.85 for a hasty slip)."""
        dist = self.distribution(n_cards, n_sums, n_compared)
        return (dist.scaled(factor) if factor != 1.0 else dist).sample(rng, floor)


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
        extra_delay: seconds from the first lay to the joker throw's extra card (0 without).
    """

    delay: float
    lay: tuple[int, ...]
    pass_delay: float
    extra_delay: float = 0.0


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
        open_cards = [(s, v) for s in sorted(open_slots) if (v := circle[s]) is not None]
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
                return CoverPlan(self.model.sample(self.rng, n_cards, n_sums, factor=0.85), slot)
        if self.rng.random() < self.level.prefer_value:
            best = max(self.rules.points(v) for _, v in matches)
            slot = self.rng.choice([s for s, v in matches if self.rules.points(v) == best])
            compared = len(matches)
        else:
            slot = self.rng.choice(matches)[0]
            compared = 1
        return CoverPlan(self.model.sample(self.rng, n_cards, n_sums, compared), slot)

    def replan_cover(
        self,
        circle: Sequence[int | None],
        open_slots: Collection[int],
        dice: Sequence[int],
    ) -> CoverPlan | None:
        """Choose another card after a hand came down on the one this bot reached for (or
        pushed its hand off); ``delay`` counts from that moment.

        The bot has already formed the sums and found every match when it planned its first
        cover, so this is no new search: it is a choice among the open matches still there
        (Hick–Hyman over those cards, plus a comparison per extra match when it looks for
        the most valuable), never faster than a choice reaction
        (:data:`CHOICE_RT_FLOOR_S`). No slip to a near miss: it has just seen the cards.

        Returns:
            A plan, or ``None`` when no open card matches any more.
        """
        values = reachable_values(dice)
        matches = [
            (s, v) for s in sorted(open_slots) if (v := circle[s]) is not None and v in values
        ]
        if not matches:
            return None
        if self.rng.random() < self.level.prefer_value:
            best = max(self.rules.points(v) for _, v in matches)
            slot = self.rng.choice([s for s, v in matches if self.rules.points(v) == best])
            compared = len(matches)
        else:
            slot = self.rng.choice(matches)[0]
            compared = 1
        return CoverPlan(self.model.sample(self.rng, len(matches), 0, compared), slot)

    # --- variant -------------------------------------------------------------------------
    def plan_pre_lay(self, hand: Sequence[int], limit: int | None = None) -> tuple[int, ...]:
        """Choose the secret pre-lay (Variant Setup: at most ``limit`` minus points, default
        the rules' 6).

        The best pre-lay removes the cards that take longest to roll: it maximises the sum of
        ``1 / reach_probability(v)`` (expected rolls until three dice can make ``v``) within
        the limit. Choices equally good are drawn at random (with the derived chips the 2
        and the 12 are equally hard to roll and equally dear, so a bot pre-lays either;
        before, every bot took the 2). Lower levels sometimes take a random maximal choice
        instead.
        """
        limit = self.rules.pre_lay_limit if limit is None else limit
        options = _pre_lay_options(
            tuple(sorted(hand)), limit, tuple(sorted(self.rules.chips.items()))
        )
        if not options:
            return ()
        if self.rng.random() < self.level.prefer_value:
            gain = _rolls_saved(options[0])
            best = [o for o in options if math.isclose(_rolls_saved(o), gain)]
            return self.rng.choice(best)
        return self.rng.choice(options)

    def plan_turn(self, front: Sequence[int], dice: Sequence[int]) -> TurnPlan:
        """Decide the roller's turn: which card(s) to lay and when, then when to pass.

        Lays the matching card that is hardest to roll (lowest reach probability, i.e. most
        minus points); after a joker throw also the hardest remaining card. With probability
        ``error_rate`` it overlooks its match and passes. ``delay`` is a choice reaction
        (>= :data:`CHOICE_RT_FLOOR_S` after the roll); ``extra_delay`` (joker throw: choosing
        the second card among the rest) too; ``pass_delay`` a simple reaction
        (>= :data:`SIMPLE_RT_FLOOR_S`).
        """
        values = reachable_values(dice)
        matches = [v for v in front if v in values]
        n_sums = len(values)
        delay = self.model.sample(self.rng, len(front), n_sums, max(1, len(matches)))
        pass_delay = self.model.sample(self.rng, 0, 0, floor=SIMPLE_RT_FLOOR_S)
        if not matches or self._mistake():
            return TurnPlan(delay, (), pass_delay)
        first = min(matches, key=lambda v: (reach_probability(v), -v))
        lay: tuple[int, ...] = (first,)
        extra_delay = 0.0
        if is_joker_throw(dice):
            rest = [v for v in front if v != first]
            if rest:
                lay += (min(rest, key=lambda v: (reach_probability(v), -v)),)
                extra_delay = self.model.sample(self.rng, len(rest), 0)
        return TurnPlan(delay, lay, pass_delay, extra_delay)

    def plan_knock(
        self,
        own_front: Sequence[int],
        roller_front: Sequence[int],
        dice: Sequence[int],
        overlooked: bool = False,
        may_slip: bool = True,
    ) -> float | None:
        """Decide whether and when (seconds from now) to knock into another player's turn.

        Knocks when the roller has passed over a card he could have laid (``overlooked``),
        or when the roller has no matching card but the bot has one. The delay covers
        scanning both rows of cards for the dice sums. With probability ``error_rate`` the
        bot misses a chance, and with half that probability it knocks wrongly; ``may_slip``
        false (a decision taken again in the same turn) rules the wrong knock out, so a bot
        that looks again after a lay does not get a second chance to slip.

        Returns:
            Seconds until the knock (a choice reaction, >= :data:`CHOICE_RT_FLOOR_S`), or
            ``None`` for no knock.
        """
        values = reachable_values(dice)
        mine = any(v in values for v in own_front)
        roller_has = any(v in values for v in roller_front)
        should = overlooked or (mine and not roller_has)
        n_cards = len(own_front) + len(roller_front)
        if should and not self._mistake():
            return self.model.sample(self.rng, n_cards, len(values))
        if not should and may_slip and self.rng.random() < self.level.error_rate / 2:
            return self.model.sample(self.rng, n_cards, len(values), factor=0.9)
        return None

    def take_dice_delay(self) -> float:
        """Seconds until the bot, called to roll, takes the dice: a simple reaction
        (>= :data:`SIMPLE_RT_FLOOR_S`) plus :data:`REACH_FOR_DICE_S` to reach for them."""
        return REACH_FOR_DICE_S + self.model.sample(self.rng, 0, 0, floor=SIMPLE_RT_FLOOR_S)


def _rolls_saved(values: Sequence[int]) -> float:
    """Expected rolls saved by pre-laying ``values``: ``Σ 1 / reach_probability(v)``."""
    return sum(1 / reach_probability(v) for v in values)


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
    return sorted(maximal, key=lambda c: (-_rolls_saved(c), c))
