"""Kismet rules as pure, seeded states: the base game (:class:`BaseGame`) and the variant
(:class:`VariantGame`).

"Pure" means: no clock, no I/O except the optional :class:`~kiekai.events.EventLog`, and
all chance (shuffles, dice) from one ``random.Random(seed)``, so a seed and the same actions
give the same game. Every action takes its time stamp ``t`` (seconds, from whichever clock
the caller uses); ties between players are decided by these time stamps. Illegal actions
raise :class:`IllegalAction` (a ``ValueError``) and change nothing, so a front end can show
the message and carry on.

Section names in docstrings refer to ``shared/rules/kismet.txt``. Readings of points the
rulebook leaves open are marked "Reading:" and listed in ``docs/kismet.md``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from kiekai.events import (
    EVENT_DATA,
    Event,
    EventData,
    EventLog,
    KismetClear,
    KismetCover,
    KismetDisplaced,
    KismetGameOver,
    KismetKnock,
    KismetLay,
    KismetPass,
    KismetPreLay,
    KismetRefill,
    KismetReveal,
    KismetRoll,
    KismetRoundOver,
    KismetRoundStart,
    KismetSetup,
    check_event,
    typed,
)
from kiekai.kismet.rules import (
    CIRCLE_SIZE,
    DEFAULT_RULES,
    MAX_SETS,
    VALUES,
    Rules,
    is_joker_throw,
    reachable_values,
    slot_name,
)

MIN_PLAYERS = 2
MAX_PLAYERS = MAX_SETS


class IllegalAction(ValueError):
    """An action the rules do not allow at this moment; the state is unchanged."""


def _check_players(players: int) -> None:
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(
            f"Kismet needs {MIN_PLAYERS} to {MAX_PLAYERS} players (one card set each, "
            f"{MAX_SETS} sets in the box), got {players!r}"
        )


@dataclass(frozen=True, order=True)
class KismetCard:
    """One card: the large number ``value`` (2..12) and the card set (back colour) it belongs to.

    Chip points are not stored on the card; they come from :class:`~kiekai.kismet.rules.Rules`
    so that a rules file can change them.
    """

    value: int
    set: int

    @property
    def id(self) -> str:
        """Stable text id ``"<value>/<set>"``, e.g. ``"7/2"`` (used in the event log)."""
        return f"{self.value}/{self.set}"

    @classmethod
    def from_id(cls, card_id: str) -> KismetCard:
        """The card of an id written by :attr:`id` (``"7/2"`` → value 7, set 2).

        Raises:
            ValueError: ``card_id`` is not ``"<value>/<set>"`` with a value 2..12 and a set >= 0.
        """
        value, _, set_ = str(card_id).partition("/")
        if not (value.isdigit() and set_.isdigit() and int(value) in VALUES):
            raise ValueError(f"not a Kismet card id (value/set, e.g. '7/2'): {card_id!r}")
        return cls(int(value), int(set_))


@dataclass(frozen=True)
class Cover:
    """A hand on a card of the circle: which player, which slot (0..10; shown to players as
    the letters a..k, :func:`~kiekai.kismet.rules.slot_name`), when (seconds)."""

    player: int
    slot: int
    t: float


@dataclass(frozen=True)
class CoverOutcome:
    """What :meth:`BaseGame.cover` did.

    Attributes:
        cover: the accepted cover.
        displaced: the player whose later-stamped hand was pushed off this card (ties by time
            stamp), or ``None``. That player has no card covered any more and may cover another.
    """

    cover: Cover
    displaced: int | None = None


@dataclass(frozen=True)
class Reveal:
    """The result of one covered card at the end of a base-game round.

    Attributes:
        player: who covered it.
        slot: where the card lay in the circle (0..10).
        card: the covered card.
        correct: whether its value could be made from the dice.
        handed_back: for a wrong card, the top card of the player's laid-down pile that was
            slid under the draw pile, or ``None`` (empty pile: nothing to hand back).
    """

    player: int
    slot: int
    card: KismetCard
    correct: bool
    handed_back: KismetCard | None = None


class _Logged:
    """Appends engine events to ``self.log``."""

    log: EventLog

    def _emit(self, payload: EventData, turn: int, player: int | None) -> None:
        """Log the event of ``payload`` (:meth:`kiekai.events.Event.of`)."""
        self.log.append(Event.of(payload, turn=turn, player=player))


class BaseGame(_Logged):
    """The base game: all players cover cards of the 11-card circle at the same time.

    Flow: :meth:`roll` → any number of :meth:`cover` → :meth:`end_round` → :meth:`roll` ...
    until :attr:`over`. :attr:`phase` is ``"roll"``, ``"cover"`` or ``"over"``.

    Args:
        players: 2..8 seats; as many card sets as players are shuffled together (Setup).
        seed: seeds the shuffle and the dice.
        rules: chip points (plus points here).
        log: where events go; a fresh in-memory :class:`EventLog` when omitted.

    Raises:
        ValueError: ``players`` outside 2..8.
    """

    def __init__(
        self,
        players: int,
        seed: int = 0,
        rules: Rules = DEFAULT_RULES,
        log: EventLog | None = None,
    ) -> None:
        _check_players(players)
        self.players = players
        self.seed = seed
        self.rules = rules
        self.log = log if log is not None else EventLog(None)
        self.rng = random.Random(seed)
        deck = [KismetCard(v, s) for s in range(players) for v in VALUES]
        self.rng.shuffle(deck)
        #: face-down draw pile; index 0 is the top, the end is the bottom.
        self.draw_pile: list[KismetCard] = deck
        self.circle: list[KismetCard | None] = [self.draw_pile.pop(0) for _ in range(CIRCLE_SIZE)]
        #: each player's laid-down (winning) pile in the order won; the last item is the top.
        self.piles: list[list[KismetCard]] = [[] for _ in range(players)]
        #: cards taken out of the game when none of the 11 could be taken.
        self.removed: list[KismetCard] = []
        self.round = 0
        self.dice: tuple[int, int, int] | None = None
        self.covers: dict[int, Cover] = {}
        self.phase = "roll"
        self._emit(
            KismetSetup(game="base", players=players, seed=seed, circle=self._circle_ids(), t=0.0),
            -1,
            None,
        )

    # --- queries -------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """True once the circle could not be refilled (End of Game and Scoring)."""
        return self.phase == "over"

    @property
    def values(self) -> frozenset[int]:
        """Values the current dice make (empty before the first roll of a round)."""
        return reachable_values(self.dice) if self.dice is not None else frozenset()

    def matching_slots(self) -> list[int]:
        """Slots (0..10) whose card shows a value the dice make, covered or not."""
        vals = self.values
        return [i for i, c in enumerate(self.circle) if c is not None and c.value in vals]

    def open_slots(self) -> list[int]:
        """Slots holding a card that no hand covers."""
        held = {c.slot for c in self.covers.values()}
        return [i for i, c in enumerate(self.circle) if c is not None and i not in held]

    def open_matching_slots(self) -> list[int]:
        """Uncovered slots whose card matches the dice."""
        held = {c.slot for c in self.covers.values()}
        return [i for i in self.matching_slots() if i not in held]

    def round_complete(self) -> bool:
        """Playing the Game: the round ends when every player has covered a card or when no
        matching (uncovered) card remains in the circle."""
        if self.phase != "cover":
            return False
        return len(self.covers) == self.players or not self.open_matching_slots()

    def score(self, player: int) -> int:
        """Plus points of ``player``: chip points of every card on the laid-down pile."""
        return sum(self.rules.points(c.value) for c in self.piles[player])

    def scores(self) -> list[int]:
        """Plus points of every seat, in seat order."""
        return [self.score(p) for p in range(self.players)]

    def winners(self) -> list[int]:
        """Seats with the most points (several on a tie)."""
        s = self.scores()
        return [p for p, v in enumerate(s) if v == max(s)]

    # --- actions -------------------------------------------------------------------------
    def roll(self, t: float = 0.0) -> tuple[int, int, int]:
        """Roll the three dice for a new round (a chance event from the seeded RNG).

        Returns:
            The dice, each 1..6.

        Raises:
            IllegalAction: not at the start of a round, or the game is over.
        """
        if self.phase != "roll":
            raise IllegalAction(f"the dice are rolled at the start of a round, not in {self.phase}")
        self.dice = (self.rng.randint(1, 6), self.rng.randint(1, 6), self.rng.randint(1, 6))
        self.covers = {}
        self.phase = "cover"
        self._emit(
            KismetRoll(
                dice=list(self.dice), values=sorted(self.values), circle=self._circle_ids(), t=t
            ),
            self.round,
            None,
        )
        return self.dice

    def cover(self, player: int, slot: int, t: float) -> CoverOutcome:
        """Put ``player``'s hand on the card in ``slot`` at time ``t`` (seconds).

        One card per player. The first hand wins a card: if another player covers the same
        card with a *later* time stamp, that hand is pushed off (its player may cover another
        card); with an earlier or equal stamp this cover is refused.

        Raises:
            IllegalAction: not in the covering phase, the seat or slot does not exist, the slot
                is empty, the player already has a hand on a card, or an earlier hand holds it.
        """
        if self.phase != "cover":
            raise IllegalAction("cards are covered only after the dice are rolled")
        if not 0 <= player < self.players:
            raise IllegalAction(f"no seat {player} at this table of {self.players}")
        if not isinstance(slot, int) or not 0 <= slot < CIRCLE_SIZE:
            raise IllegalAction(f"the circle has places a..k (0..10), not {slot!r}")
        if self.circle[slot] is None:
            raise IllegalAction(f"no card lies at {slot_name(slot)}")
        if player in self.covers:
            raise IllegalAction(
                f"your hand is already on card {slot_name(self.covers[player].slot)}: "
                "one card per player and round"
            )
        holder = next((c for c in self.covers.values() if c.slot == slot), None)
        displaced = None
        if holder is not None:
            if holder.t <= t:
                raise IllegalAction(
                    f"another hand already covers card {slot_name(slot)} (it was there first)"
                )
            displaced = holder.player
            del self.covers[holder.player]
            self._emit(KismetDisplaced(slot=slot, by=player, t=t), self.round, displaced)
        cover = Cover(player, slot, t)
        self.covers[player] = cover
        self._emit(KismetCover(slot=slot, t=t), self.round, player)
        return CoverOutcome(cover, displaced)

    def end_round(self, t: float = 0.0) -> list[Reveal]:
        """Reveal the covered cards and prepare the next round.

        In order of the hands' time stamps: a correct card goes face down onto its player's
        laid-down pile; for a wrong card the player hands back the top card of the pile, slid
        under the draw pile (nothing when the pile is empty). If none of the 11 cards could be
        taken (Reading: no card in the circle shows a value the dice make) all 11 are removed
        from the game. Then the circle is refilled to 11; when the draw pile is too small the
        game ends instead (End of Game and Scoring).

        Returns:
            One :class:`Reveal` per covered card, in time-stamp order.

        Raises:
            IllegalAction: no round is being played.
        """
        if self.phase != "cover":
            raise IllegalAction("there is no round to end")
        vals = self.values
        none_takeable = not self.matching_slots()
        reveals: list[Reveal] = []
        for cover in sorted(self.covers.values(), key=lambda c: (c.t, c.player)):
            card = self.circle[cover.slot]
            assert card is not None
            if card.value in vals:
                self.piles[cover.player].append(card)
                self.circle[cover.slot] = None
                reveals.append(Reveal(cover.player, cover.slot, card, True))
            else:
                pile = self.piles[cover.player]
                back = pile.pop() if pile else None
                if back is not None:
                    self.draw_pile.append(back)
                reveals.append(Reveal(cover.player, cover.slot, card, False, back))
            r = reveals[-1]
            self._emit(
                KismetReveal(
                    slot=cover.slot,
                    card=card.id,
                    value=card.value,
                    correct=r.correct,
                    points=self.rules.points(card.value) if r.correct else 0,
                    handed_back=back.id if not r.correct and back is not None else None,
                    t=t,
                ),
                self.round,
                r.player,
            )
        if none_takeable:
            gone = [c for c in self.circle if c is not None]
            self.removed.extend(gone)
            self.circle = [None] * CIRCLE_SIZE
            self._emit(KismetClear(removed=[c.id for c in gone], t=t), self.round, None)
        self.covers = {}
        self.dice = None
        need = [i for i, c in enumerate(self.circle) if c is None]
        if len(need) > len(self.draw_pile):
            self.phase = "over"
            self._emit(
                KismetGameOver(
                    scores=self.scores(),
                    winners=self.winners(),
                    draw_pile=len(self.draw_pile),
                    needed=len(need),
                    t=t,
                ),
                self.round,
                None,
            )
        else:
            for i in need:
                self.circle[i] = self.draw_pile.pop(0)
            self.phase = "roll"
            self._emit(KismetRefill(circle=self._circle_ids(), t=t), self.round, None)
        self.round += 1
        return reveals

    # --- helpers -------------------------------------------------------------------------
    def _circle_ids(self) -> list[str | None]:
        return [c.id if c is not None else None for c in self.circle]


# ------------------------------------------------------------------------------------------
# Variant
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KnockOutcome:
    """What one knock did (Variant, "Knocking").

    Attributes:
        player: the knocker.
        valid: whether the knock was allowed.
        result: ``"lay"`` (first valid knocker laid ``card``), ``"roller_turns_back"`` (first
            knocker had no matching card, so the roller turned ``card`` back face up),
            ``"too_slow"`` (valid, but another player knocked first), ``"penalty"`` (wrong
            knock: the knocker turned ``card`` back face up) or ``"no_penalty"`` (wrong knock
            by a player with no laid-down card: there is nothing to turn face up, so it costs
            nothing, as an empty pile costs nothing in the base game; Reading 13).
        card: the card value laid or turned back, or ``None``.
        why: for a wrong knock, why it was wrong: ``"roller_can_lay"`` (the roller still
            has a matching card in front of him) or ``"cannot_lay"`` (the knocker has none);
            ``""`` for a valid knock.
        values: the values behind ``why``: the roller's matching cards, or every value the
            dice make (the knocker has none of them); ascending.
    """

    player: int
    valid: bool
    result: str
    card: int | None = None
    why: str = ""
    values: tuple[int, ...] = ()


class VariantGame(_Logged):
    """The variant: each player lays down his own 11 cards; rounds end when one player has
    laid them all, and minus points are tallied over several rounds.

    Round flow: :meth:`start_round` → :meth:`pre_lay` for every player (phase
    ``"pre_lay"``) → repeated turns: the next roller takes the dice with :meth:`roll`
    (phase ``"turn"``), may :meth:`lay` a card, then :meth:`pass_turn` (phase ``"pass"``; the
    knocking chance lasts until the neighbour rolls). Other players may :meth:`knock` in
    ``"turn"`` and ``"pass"``. When a player has laid all cards the phase is
    ``"round_over"``; :attr:`placements` and :attr:`tallies` are updated.

    Args:
        players: 2..8 seats (one card set each).
        seed: seeds the dice.
        rules: chip points (minus points here) and the pre-lay limit.
        log: event log; in-memory when omitted.
        first_roller: seat that rolls first in round 0 (Variant Setup: "the players agree");
            later rounds start one seat further on.

    Raises:
        ValueError: ``players`` outside 2..8 or ``first_roller`` not a seat.
    """

    def __init__(
        self,
        players: int,
        seed: int = 0,
        rules: Rules = DEFAULT_RULES,
        log: EventLog | None = None,
        first_roller: int = 0,
    ) -> None:
        _check_players(players)
        if not 0 <= first_roller < players:
            raise ValueError(f"first_roller must be a seat 0..{players - 1}, got {first_roller}")
        self.players = players
        self.seed = seed
        self.rules = rules
        self.log = log if log is not None else EventLog(None)
        self.rng = random.Random(seed)
        self.first_roller = first_roller
        self.round = -1
        self.turn = 0
        #: face-up cards in front of each player (values), ascending.
        self.fronts: list[list[int]] = [[] for _ in range(players)]
        #: each player's laid-down pile (values), last item on top; order never changes.
        self.laid: list[list[int]] = [[] for _ in range(players)]
        self.pre_laid: dict[int, tuple[int, ...]] = {}
        #: minus points summed over finished rounds, per seat.
        self.tallies: list[int] = [0] * players
        #: per finished round: the placement of every seat (1 = best; ties share a place).
        self.history: list[list[int]] = []
        self.placements: list[int] | None = None
        self.phase = "new"
        self.roller: int | None = None
        self.next_roller = first_roller
        self.dice: tuple[int, int, int] | None = None
        self.laid_this_turn: list[int] = []
        self.overlooked = False
        self.knocked: set[int] = set()
        self.knock_right_used = False
        self.winner: int | None = None
        self._emit(
            KismetSetup(
                game="variant", players=players, seed=seed, first_roller=first_roller, t=0.0
            ),
            -1,
            None,
        )

    # --- queries -------------------------------------------------------------------------
    @property
    def values(self) -> frozenset[int]:
        """Values the current dice make (empty between turns)."""
        return reachable_values(self.dice) if self.dice is not None else frozenset()

    def matching(self, player: int) -> list[int]:
        """Cards (values) in front of ``player`` that the current dice make."""
        vals = self.values
        return [v for v in self.fronts[player] if v in vals]

    def minus_points(self, player: int) -> int:
        """Minus points of the cards still lying face up in front of ``player``."""
        return sum(self.rules.points(v) for v in self.fronts[player])

    def match_winners(self) -> list[int]:
        """Seats with the fewest minus points summed over the finished rounds (several on a
        tie; every seat before any round has finished)."""
        return [p for p, v in enumerate(self.tallies) if v == min(self.tallies)]

    def can_lay(self, player: int) -> bool:
        """True when ``player`` is the roller, has not laid this turn and has a matching card."""
        return (
            self.phase == "turn"
            and player == self.roller
            and not self.laid_this_turn
            and bool(self.matching(player))
        )

    # --- round setup ---------------------------------------------------------------------
    def start_round(self, t: float = 0.0) -> None:
        """Deal each player a set of 11 cards (2..12) and open the secret pre-lay.

        Raises:
            IllegalAction: a round is still being played.
        """
        if self.phase not in ("new", "round_over"):
            raise IllegalAction("a round is still being played")
        self.round += 1
        self.fronts = [list(VALUES) for _ in range(self.players)]
        self.laid = [[] for _ in range(self.players)]
        self.pre_laid = {}
        self.placements = None
        self.winner = None
        self.dice = None
        self.roller = None
        self.next_roller = (self.first_roller + self.round) % self.players
        self.phase = "pre_lay"
        self._emit(
            KismetRoundStart(round=self.round, roller=self.next_roller, t=t), self.turn, None
        )

    def pre_lay(self, player: int, values: Iterable[int], t: float = 0.0) -> None:
        """Secretly lay down cards before play (Variant Setup).

        Args:
            player: the seat.
            values: distinct card values from the player's hand; their chip points may add up
                to at most ``rules.pre_lay_limit`` (6). May be empty.

        Raises:
            IllegalAction: not the pre-lay phase, the player already chose, a value repeats or
                is not a card, or the points exceed the limit.
        """
        if self.phase != "pre_lay":
            raise IllegalAction("cards are pre-laid only before the first roll of a round")
        if not 0 <= player < self.players:
            raise IllegalAction(f"no seat {player} at this table of {self.players}")
        if player in self.pre_laid:
            raise IllegalAction("you have already chosen your pre-laid cards")
        chosen = tuple(values)
        if len(set(chosen)) != len(chosen) or any(v not in VALUES for v in chosen):
            raise IllegalAction(f"pre-lay distinct cards 2..12 from your hand, not {chosen!r}")
        points = sum(self.rules.points(v) for v in chosen)
        if points > self.rules.pre_lay_limit:
            ordered = [str(v) for v in sorted(chosen)]
            cards = (
                f"the {ordered[0]}"
                if len(ordered) == 1
                else ", ".join(ordered[:-1]) + f" and {ordered[-1]}"
            )
            raise IllegalAction(
                f"pre-laid cards may add up to {self.rules.pre_lay_limit} minus points; "
                f"{cards} make {points}: leave one out"
            )
        for v in chosen:
            self.fronts[player].remove(v)
            self.laid[player].append(v)
        self.pre_laid[player] = chosen
        self._emit(KismetPreLay(values=list(chosen), points=points, t=t), self.turn, player)
        if len(self.pre_laid) == self.players:
            self.phase = "await_roll"
            self._check_round_end(t)

    # --- turns ---------------------------------------------------------------------------
    def roll(self, player: int, t: float = 0.0, timed_out: bool = False) -> tuple[int, int, int]:
        """``player`` takes the dice and rolls; this ends the previous turn's knocking chance.

        Args:
            player: the seat whose turn it is to roll.
            t: time stamp in seconds.
            timed_out: the player did not take the dice within a front end's time limit and
                the table rolled for him (Reading 18); logged as ``"timed_out": true`` so the
                log says who really rolled.

        Raises:
            IllegalAction: it is not ``player``'s turn to roll, or the roller has not passed.
        """
        if self.phase not in ("await_roll", "pass"):
            raise IllegalAction(
                "the dice are taken only after the roller has passed"
                if self.phase == "turn"
                else f"no roll now (phase {self.phase})"
            )
        if player != self.next_roller:
            raise IllegalAction(f"it is seat {self.next_roller}'s turn to roll")
        self.dice = (self.rng.randint(1, 6), self.rng.randint(1, 6), self.rng.randint(1, 6))
        self.turn += 1
        self.roller = player
        self.phase = "turn"
        self.laid_this_turn = []
        self.overlooked = False
        self.knocked = set()
        self.knock_right_used = False
        self._emit(
            KismetRoll.model_validate(
                {
                    "dice": list(self.dice),
                    "values": sorted(self.values),
                    "joker": is_joker_throw(self.dice),
                    "fronts": [list(f) for f in self.fronts],
                    "t": t,
                    **({"timed_out": True} if timed_out else {}),
                }
            ),
            self.turn,
            player,
        )
        return self.dice

    def lay(self, player: int, value: int, t: float = 0.0) -> None:
        """The roller lays down one matching card; on a joker throw, after the matching card,
        one more card of any value (Variant, "Laying down a card", "Joker throw").

        Raises:
            IllegalAction: not the roller's turn, the card is not in front of the player, it
                does not match the dice, or the player has already laid (one card per turn;
                two on a joker throw).
        """
        if self.phase != "turn" or player != self.roller:
            raise IllegalAction("only the roller lays a card, during his turn")
        if value not in self.fronts[player]:
            raise IllegalAction(f"there is no {value} in front of you")
        joker = self.dice is not None and is_joker_throw(self.dice)
        if not self.laid_this_turn:
            if value not in self.values:
                dice = ", ".join(map(str, self.dice or ()))
                raise IllegalAction(f"the dice {dice} cannot make {value}")
        elif not (joker and len(self.laid_this_turn) == 1):
            raise IllegalAction("only one card may be laid per turn (two after a joker throw)")
        self.fronts[player].remove(value)
        self.laid[player].append(value)
        self.laid_this_turn.append(value)
        self._emit(
            KismetLay(value=value, extra=len(self.laid_this_turn) == 2, t=t), self.turn, player
        )
        self._check_round_end(t)

    def pass_turn(self, player: int, t: float = 0.0, timed_out: bool = False) -> None:
        """The roller calls the next player to roll (Variant, "Passing the turn").

        If he laid nothing though he had a matching card, he *overlooked* it, and the others
        may knock until the neighbour rolls.

        Args:
            player: the roller.
            t: time stamp in seconds.
            timed_out: the turn ends because a front end's time limit ran out, not because
                the player called the next player (Reading 18, docs/kismet.md). The rulebook
                lets the others knock when the player "passes on his turn and overlooks that
                he could lay down a card"; a player who sat idle has not passed, so a
                timed-out turn is never an overlook.

        Raises:
            IllegalAction: ``player`` is not the roller or the turn is already passed.
        """
        if self.phase != "turn" or player != self.roller:
            raise IllegalAction("only the roller passes, during his turn")
        self.overlooked = not timed_out and not self.laid_this_turn and bool(self.matching(player))
        self.phase = "pass"
        self.next_roller = (player + 1) % self.players
        extra = {"timed_out": True} if timed_out else {}
        self._emit(
            KismetPass.model_validate({"overlooked": self.overlooked, "t": t, **extra}),
            self.turn,
            player,
        )

    def knock(self, player: int, t: float = 0.0, value: int | None = None) -> KnockOutcome:
        """``player`` knocks into the roller's turn (Variant, "Knocking").

        Judged at the moment of the knock:

        * the roller has passed and overlooked a matching card → valid; the first knocker lays
          a matching card of his own, or, without one, makes the roller turn his last laid-down
          card face up again;
        * otherwise, if the roller still has a matching card in front of him → wrong;
        * otherwise valid only if the knocker has a matching card; the first valid knocker
          lays it.

        Every wrong knock costs the knocker his last laid-down card, turned face up again
        (Reading: nothing when he has laid nothing down). Later valid knockers were too slow.

        Args:
            player: the knocking seat (not the roller).
            t: time stamp in seconds.
            value: which matching card to lay if the knock wins the right; by default the one
                with the most minus points (ties: the higher value).

        Raises:
            IllegalAction: no turn is open for knocking, ``player`` is the roller, is not a
                seat, or has already knocked this turn.
        """
        if self.phase not in ("turn", "pass") or self.roller is None:
            raise IllegalAction("knocking is possible only during a turn, until the dice are taken")
        if not 0 <= player < self.players:
            raise IllegalAction(f"no seat {player} at this table of {self.players}")
        if player == self.roller:
            raise IllegalAction("the roller cannot knock into his own turn")
        if player in self.knocked:
            raise IllegalAction("you have already knocked this turn")
        self.knocked.add(player)
        roller = self.roller
        own = self.matching(player)
        why, values = "", cast(tuple[int, ...], ())
        if self.phase == "pass" and self.overlooked:
            valid = True
        elif self.matching(roller):
            valid, why, values = False, "roller_can_lay", tuple(sorted(self.matching(roller)))
        else:
            valid = bool(own)
            if not valid:
                why, values = "cannot_lay", tuple(sorted(self.values))
        if not valid:
            card = self._turn_back(player)
            outcome = KnockOutcome(
                player, False, "penalty" if card is not None else "no_penalty", card, why, values
            )
        elif self.knock_right_used:
            outcome = KnockOutcome(player, True, "too_slow")
        else:
            self.knock_right_used = True
            if own:
                pick = value if value in own else max(own, key=lambda v: (self.rules.points(v), v))
                self.fronts[player].remove(pick)
                self.laid[player].append(pick)
                outcome = KnockOutcome(player, True, "lay", pick)
            else:
                card = self._turn_back(roller)
                outcome = KnockOutcome(player, True, "roller_turns_back", card)
        self._emit(
            KismetKnock.model_validate(
                {
                    "valid": outcome.valid,
                    "result": outcome.result,
                    "card": outcome.card,
                    "roller": roller,
                    "t": t,
                    **({"why": outcome.why, "values": list(outcome.values)} if outcome.why else {}),
                }
            ),
            self.turn,
            player,
        )
        if outcome.result == "lay":
            self._check_round_end(t)
        return outcome

    # --- helpers -------------------------------------------------------------------------
    def _turn_back(self, player: int) -> int | None:
        """Turn ``player``'s last laid-down card face up and put it back in front of him."""
        if not self.laid[player]:
            return None
        card = self.laid[player].pop()
        self.fronts[player].append(card)
        self.fronts[player].sort()
        return card

    def _check_round_end(self, t: float) -> None:
        """Variant Scoring and End of Game: the round ends as soon as a player has laid all
        cards; the others are placed by the minus points still in front of them."""
        empty = [p for p in range(self.players) if not self.fronts[p]]
        if not empty:
            return
        self.winner = empty[0] if self.roller is None or self.roller not in empty else self.roller
        minus = [self.minus_points(p) for p in range(self.players)]
        self.placements = placements(minus)
        for p in range(self.players):
            self.tallies[p] += minus[p]
        self.history.append(list(self.placements))
        self.phase = "round_over"
        self.dice = None
        self._emit(
            KismetRoundOver(
                round=self.round,
                minus_points=minus,
                placements=self.placements,
                tallies=list(self.tallies),
                t=t,
            ),
            self.turn,
            self.winner,
        )


def placements(minus_points: Sequence[int]) -> list[int]:
    """Standard competition ranking by fewest minus points: ``[0, 5, 5, 9] → [1, 2, 2, 4]``."""
    return [1 + sum(1 for m in minus_points if m < mine) for mine in minus_points]


def _player(e: Event) -> int:
    """The seat of a player's action in a log (these events always name their player)."""
    return int(cast(int, e.player))


def replay(events: Iterable[Event], rules: Rules = DEFAULT_RULES) -> BaseGame | VariantGame:
    """Rebuild a game from its event log alone (e.g. :func:`kiekai.events.read_log`).

    The ``setup`` event gives the kind of game, the players and the seed; players' actions
    are applied again in order and the seeded dice come out the same. The rebuilt game keeps
    its own in-memory log, equal to the original. Each event is read through its model
    (its :attr:`~kiekai.events.Event.payload`, or its data checked by
    :func:`kiekai.events.check_event`); an event of a type Kismet does not have is passed over.

    Args:
        events: the events of one game, starting with ``setup``.
        rules: the rules the game was played with (chip points are not logged).

    Raises:
        ValueError: the first event is not a ``setup``, an event's data does not fit its
            model, or the log does not match what the rules and the seed give (e.g.
            different dice): the log is from another version or was edited.
    """
    it = iter(events)
    first = next(it, None)
    setup = None if first is None else typed(first, "kismet")
    if not isinstance(setup, KismetSetup):
        raise ValueError("a Kismet log starts with a 'setup' event")
    game: BaseGame | VariantGame
    if setup.game == "variant":
        game = VariantGame(setup.players, setup.seed, rules, None, int(setup.first_roller or 0))
    else:
        game = BaseGame(setup.players, setup.seed, rules, None)
    try:
        for e in it:
            if e.type not in EVENT_DATA["kismet"]:
                continue  # not an event of the game (nothing to apply)
            data = e.payload or check_event(e, "kismet").payload
            assert data is not None  # check_event gives the model or raises
            if isinstance(game, BaseGame):
                _replay_base(game, e, data)
            else:
                _replay_variant(game, e, data)
    except IllegalAction as exc:
        raise ValueError(f"the log does not replay: {exc}") from exc
    return game


#: Base-game events after which the covering is over (the round was ended).
_ROUND_ENDED = (KismetReveal, KismetClear, KismetRefill, KismetGameOver)


def _replay_base(game: BaseGame, e: Event, data: EventData) -> None:
    """Apply one logged base-game event to ``game`` (the others follow from these)."""
    t = float(getattr(data, "t", 0.0))
    if isinstance(data, KismetRoll):
        if list(game.roll(t)) != data.dice:
            raise ValueError(f"round {e.turn}: the seed gives other dice than {data.dice}")
    elif isinstance(data, KismetCover):
        game.cover(_player(e), data.slot, t)
    elif isinstance(data, _ROUND_ENDED) and game.phase == "cover":
        game.end_round(t)


def _replay_variant(game: VariantGame, e: Event, data: EventData) -> None:
    """Apply one logged variant event to ``game`` (the others follow from these)."""
    t = float(getattr(data, "t", 0.0))
    if isinstance(data, KismetRoundStart):
        game.start_round(t)
    elif isinstance(data, KismetPreLay):
        game.pre_lay(_player(e), data.values, t)
    elif isinstance(data, KismetRoll):
        if list(game.roll(_player(e), t, data.timed_out)) != data.dice:
            raise ValueError(f"turn {e.turn}: the seed gives other dice than {data.dice}")
    elif isinstance(data, KismetLay):
        game.lay(_player(e), data.value, t)
    elif isinstance(data, KismetPass):
        game.pass_turn(_player(e), t, data.timed_out)
    elif isinstance(data, KismetKnock):
        game.knock(_player(e), t, data.card if data.result == "lay" else None)
