"""The Kiek rules engine: one pure, seeded game state with every rule in one place.

Like a python-chess ``Board`` or an OpenSpiel state, :class:`KiekEngine` holds the whole
table (hands, the face-up cards, discards, words used, scores) and moves only through its
action methods, which validate against the rulebook (``../shared/rules/kiek.txt``) and
append one :class:`kiekai.events.Event` per thing that happened to an
:class:`kiekai.events.EventLog`. The engine never reads a clock or talks to a person:
the runner (:mod:`kiekai.kiek.runner`) enforces the two-minute turn and asks the players.

A turn moves through four phases (:class:`Phase`)::

    PLAY   the active player plays 2 hand cards, splits the 5 cards 3-vs-2, writes a word
    GUESS  every other player writes one word (or nothing, when time ran out)
    CALL   the words are read aloud with the judge's verdicts; the people at the table may
           overrule a verdict (:meth:`KiekEngine.overrule`); any player may call "ne bis in
           idem", and after a call the table may overrule the judge's repeat verdicts
           (:meth:`KiekEngine.overrule_repeat`); points are scored
    KEEP   the three players left of the next active player each keep one of the 5 cards

and the game ends (phase ``OVER``) after ``rounds`` rounds (3 by the rulebook; more are the
rulebook's optional extra rounds). Every settled reading of an open point of the rulebook
is written in ``docs/rules.md`` together with the test that covers it.

Seats are numbered ``0..n-1`` clockwise: the player "to the left" of seat ``s`` is seat
``(s + 1) % n``, and play passes to the left.

Matching guesses and spotting repeated words is the judge's job (:mod:`kiekai.judge`); it is
injected, so any object with the :class:`JudgeLike` methods works (the judge's one protocol,
:class:`kiekai.judge.protocol.JudgeLike`: ``check_word``, ``match``, ``is_repeat``).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import cast

from kiekai.deck import Card
from kiekai.events import (
    Event,
    EventData,
    EventLog,
    KiekCall,
    KiekDiscard,
    KiekGameOver,
    KiekGuess,
    KiekKeep,
    KiekOverrule,
    KiekOverruleRepeat,
    KiekPlay,
    KiekRedeal,
    KiekReveal,
    KiekScore,
    KiekSetup,
    KiekTimeUp,
    KiekTurn,
    KiekVerdict,
)
from kiekai.judge.normalize import normalise
from kiekai.judge.protocol import JudgeLike
from kiekai.judge.verdict import Verdict
from kiekai.kiek.players import (
    ActivePlay,
    ActiveView,
    CallView,
    GuessView,
    KeepView,
    RevealView,
    WordVerdict,
)
from kiekai.kiek.rules import (  # the rule constants, re-exported for the engine's users
    BASE_ROUNDS,
    CALL_POINTS,
    CHOOSERS,
    GROUP_OF_THREE,
    GROUP_OF_TWO,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    PLAYED_PER_TURN,
    TABLE_SIZE,
    TURN_SECONDS,
    stake_of_round,
    time_up_split,
)


class Phase(StrEnum):
    """Where the current turn stands (see the module docstring)."""

    PLAY = "play"
    GUESS = "guess"
    CALL = "call"
    KEEP = "keep"
    OVER = "over"


class IllegalAction(ValueError):
    """An action that the rules (or the current phase) do not allow; the message says why."""


def one_word_verdict(judge: JudgeLike, word: str) -> Verdict:
    """The judge's answer to "is ``word`` just one word?" (rulebook "A Turn"):
    ``judge.check_word(word)``, the one-word method of :class:`JudgeLike`.

    Returns:
        a :class:`Verdict` whose ``accepted`` is True for one word; ``reason`` says why not.
    """
    return judge.check_word(word)


def ruling_key(word: str) -> str:
    """The key under which a table rules on a word: the judge's surface normalisation
    (:func:`kiekai.judge.normalize.normalise`: case, diacritics, articles, spaces), the same
    key the table's house-rules file is looked up by. Guessers whose words have one key
    wrote the same word: the table rules it once (docs/rules.md, reading 14)."""
    return normalise(word) or word.strip().casefold()


@dataclass(frozen=True)
class TurnResult:
    """How one turn was scored (also logged as the ``score`` event).

    Attributes:
        turn: 0-based turn index.
        active: seat of the active player.
        stake: points per match this turn (1, 2 or 3).
        words: the word each seat wrote this turn, indexed by seat ("" = nothing written).
        matches: seat -> the judge's verdict on that guesser's word (guessers who wrote
            something, when the secret was not a called repeat).
        repeats: seat -> the used word its word repeats (only seats whose word repeats).
        callers: seats that called "ne bis in idem", in seating order from the active
            player's left.
        credited_caller: the seat that scored the call point, or ``None``.
        penalised: seats that cannot score this turn (wrote a repeat and it was called).
        points: points scored this turn, indexed by seat.
    """

    turn: int
    active: int
    stake: int
    words: tuple[str, ...]
    matches: dict[int, Verdict]
    repeats: dict[int, str]
    callers: tuple[int, ...]
    credited_caller: int | None
    penalised: frozenset[int]
    points: tuple[int, ...]


@dataclass(frozen=True)
class TableSnapshot:
    """The whole table at one moment, as an observer sees it (:meth:`KiekEngine.snapshot`):
    plain values only, so a front end can keep it while the engine moves on.

    Attributes:
        turn: 0-based turn index.
        round: 1-based round of the turn.
        rounds: rounds the game plays.
        total_turns: turns of the whole game.
        stake: points per match this turn.
        active: seat of the active player.
        phase: the :class:`Phase` value (``"play"``, ``"guess"``, ``"call"``, ``"keep"``,
            ``"over"``).
        table: ids of the face-up cards.
        hands: card ids in each seat's hand (a front end shows a person their own only).
        scores: points by seat.
        used_words: words used in earlier turns, in order.
        time_limit: seconds per turn.
        waiting_for: seats whose action the engine waits for (:meth:`KiekEngine.to_move`).
    """

    turn: int
    round: int
    rounds: int
    total_turns: int
    stake: int
    active: int
    phase: str
    table: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    scores: tuple[int, ...]
    used_words: tuple[str, ...]
    time_limit: float
    waiting_for: tuple[int, ...]


@dataclass
class _TurnState:
    """The mutable scratch of the turn in progress."""

    played: tuple[str, ...] = ()
    three: tuple[str, ...] = ()
    two: tuple[str, ...] = ()
    secret: str = ""
    guesses: dict[int, str] = field(default_factory=dict)
    kept: list[str] = field(default_factory=list)
    #: the judge's verdict on each written guess (computed once a word, at the reveal)
    verdicts: dict[int, Verdict] | None = None
    #: guess key (:func:`ruling_key`) -> (the table's ruling, the seat that asked for it)
    rulings: dict[str, tuple[bool, int]] = field(default_factory=dict)
    #: the judge's ne bis in idem verdict on each word written this turn (once a word)
    repeat_verdicts: dict[int, Verdict] | None = None
    #: word key -> (the table rules it a repeat, the used word of the ruling, the seat)
    repeat_rulings: dict[str, tuple[bool, str, int]] = field(default_factory=dict)


class KiekEngine:
    """A game of Kiek from the deal to the final scores.

    Args:
        cards: the deck; at least ``4 * n_players + 3`` cards with unique ids.
        n_players: players at the table, 3 to 8.
        judge: decides matches and repeats (see :class:`JudgeLike`).
        seed: seeds the shuffle, the redeals and (when ``first_active`` is None) the first
            active player, so the same seed and the same actions give the same game.
        first_active: seat of the first active player (the runner passes the first human,
            the "youngest player" of the rulebook); ``None`` lets the seed choose.
        rounds: rounds to play; 3 is the game proper, more are extra rounds at stake 3.
        log: where events go (an in-memory log when ``None``).
        on_event: called with each event right after it is logged (e.g. to print it).
        time_limit: seconds per turn, put in the views (the runner enforces it).

    Raises:
        ValueError: fewer than 3 or more than 8 players, ``rounds`` < 1, duplicate card
            ids, a deck smaller than ``4 * n_players + 3``, or a bad ``first_active``.
    """

    def __init__(
        self,
        cards: Sequence[Card],
        n_players: int,
        *,
        judge: JudgeLike,
        seed: int,
        first_active: int | None = None,
        rounds: int = BASE_ROUNDS,
        log: EventLog | None = None,
        on_event: Callable[[Event], None] | None = None,
        time_limit: float = TURN_SECONDS,
    ) -> None:
        if not MIN_PLAYERS <= n_players <= MAX_PLAYERS:
            raise ValueError(
                f"Kiek needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {n_players}: "
                "change --bots/--humans"
            )
        if rounds < 1:
            raise ValueError(f"rounds must be at least 1, got {rounds}")
        needed = HAND_SIZE * n_players + TABLE_SIZE
        if len(cards) < needed:
            raise ValueError(
                f"the deck has {len(cards)} cards but {n_players} players need {needed} "
                f"({HAND_SIZE} a player + {TABLE_SIZE} on the table): add photos or "
                "play with fewer players"
            )
        ids = [card.id for card in cards]
        if len(set(ids)) != len(ids):
            duplicates = sorted({i for i in ids if ids.count(i) > 1})
            raise ValueError(f"duplicate card ids in the deck: {duplicates[:5]}")
        if first_active is not None and not 0 <= first_active < n_players:
            raise ValueError(f"first_active {first_active} is not a seat of {n_players}")

        self.n_players = n_players
        self.judge = judge
        self.seed = seed
        self.rounds = rounds
        self.time_limit = float(time_limit)
        self.log = log if log is not None else EventLog(None)
        self.on_event = on_event
        self._rng = random.Random(seed)
        self.cards: dict[str, Card] = {card.id: card for card in cards}

        deck = list(cards)
        self._rng.shuffle(deck)
        self.hands: list[list[Card]] = [
            deck[HAND_SIZE * seat : HAND_SIZE * (seat + 1)] for seat in range(n_players)
        ]
        self.table: list[Card] = deck[HAND_SIZE * n_players : needed]
        #: card id -> turns running that the card has been among the five on the table
        #: (public: everyone sees the table); a card just played from a hand has 0, unless it
        #: was among the last turn's five (discarded, redealt and played at once)
        self.table_turns: dict[str, int] = {card.id: 0 for card in self.table}
        self._dropped_turns: dict[str, int] = {}
        self.aside: list[Card] = deck[needed:]
        self.discards: list[Card] = []
        self.first_active = (
            first_active if first_active is not None else self._rng.randrange(n_players)
        )
        self.turn = 0
        self.phase = Phase.PLAY
        self.used_words: list[str] = []
        self.scores: list[int] = [0] * n_players
        self.last_active_turn: list[int] = [-1] * n_players
        self.results: list[TurnResult] = []
        self.end_reason = ""
        self._state = _TurnState()

        self._emit(
            KiekSetup(
                seed=seed,
                n_players=n_players,
                rounds=rounds,
                first_active=self.first_active,
                first_active_by="given" if first_active is not None else "seed",
                hands=[[card.id for card in hand] for hand in self.hands],
                table=[card.id for card in self.table],
                aside=len(self.aside),
                deck_size=len(cards),
                labels={card.id: card.label for card in cards if card.label},
                time_limit=self.time_limit,
            )
        )
        self._begin_turn()

    # ------------------------------------------------------------------ derived facts

    @property
    def total_turns(self) -> int:
        """Turns in the whole game: every player active once per round."""
        return self.rounds * self.n_players

    @property
    def round(self) -> int:
        """0-based round of the current turn (a round = every player active once)."""
        return self.turn // self.n_players

    @property
    def active(self) -> int:
        """Seat of the active player this turn (play passes to the left each turn)."""
        return (self.first_active + self.turn) % self.n_players

    def stake_for_turn(self, turn: int) -> int:
        """Points per match on ``turn``: 1 in round 1, 2 in round 2, 3 from round 3 on.

        Rulebook "The Next Turn" (stakes raised after everyone was active once, three
        points the third time around) and "End of the Game" (extra rounds score three).
        """
        return stake_of_round(turn // self.n_players + 1)

    @property
    def stake(self) -> int:
        """Points per match this turn (see :meth:`stake_for_turn`)."""
        return self.stake_for_turn(self.turn)

    def seats_from_left_of(self, seat: int) -> list[int]:
        """All seats in seating order starting at the left of ``seat``; ``seat`` comes last."""
        return [(seat + 1 + k) % self.n_players for k in range(self.n_players)]

    @property
    def guessers(self) -> list[int]:
        """Every seat but the active one, in seating order from the active player's left."""
        return self.seats_from_left_of(self.active)[:-1]

    def choosers_for(self, new_active: int) -> list[int]:
        """The three seats to the left of ``new_active``, in choosing order.

        With three players the third of them is ``new_active`` itself (settled reading,
        docs/rules.md).
        """
        return [(new_active + 1 + k) % self.n_players for k in range(CHOOSERS)]

    @property
    def next_active(self) -> int:
        """Seat of the next turn's active player."""
        return (self.active + 1) % self.n_players

    def to_move(self) -> list[int]:
        """Seats whose action the engine waits for now, in order (empty when over).

        PLAY: the active seat; GUESS: guessers who have not written yet; CALL: every seat
        (each may call); KEEP: the next chooser.
        """
        if self.phase is Phase.PLAY:
            return [self.active]
        if self.phase is Phase.GUESS:
            return [s for s in self.guessers if s not in self._state.guesses]
        if self.phase is Phase.CALL:
            return self.seats_from_left_of(self.active)
        if self.phase is Phase.KEEP:
            choosers = self.choosers_for(self.next_active)
            return choosers[len(self._state.kept) :]
        return []

    def is_over(self) -> bool:
        """True once the last turn was scored (or the discards ran too low to deal)."""
        return self.phase is Phase.OVER

    def ranking(self) -> list[int]:
        """Seats from first to last place.

        Higher score first; ties go to the tied player whose last turn as active player
        came latest (rulebook "End of the Game": "Ties are broken in favour of the player
        who played last"; settled reading in docs/rules.md), then to the lower seat.
        """
        return sorted(
            range(self.n_players),
            key=lambda s: (-self.scores[s], -self.last_active_turn[s], s),
        )

    def winner(self) -> int:
        """The seat that wins (first of :meth:`ranking`)."""
        return self.ranking()[0]

    # ------------------------------------------------------------------ views

    def snapshot(self) -> TableSnapshot:
        """The public table and every hand now, as a frozen :class:`TableSnapshot` (any
        phase; an observer's copy: the engine keeps no reference to it)."""
        return TableSnapshot(
            turn=self.turn,
            round=self.round + 1,
            rounds=self.rounds,
            total_turns=self.total_turns,
            stake=self.stake,
            active=self.active,
            phase=self.phase.value,
            table=tuple(c.id for c in self.table),
            hands=tuple(tuple(c.id for c in hand) for hand in self.hands),
            scores=tuple(self.scores),
            used_words=tuple(self.used_words),
            time_limit=self.time_limit,
            waiting_for=tuple(self.to_move()),
        )

    def active_view(self) -> ActiveView:
        """What the active player sees (table, own hand, words used, stake)."""
        self._require(Phase.PLAY)
        return ActiveView(
            seat=self.active,
            turn=self.turn,
            stake=self.stake,
            table=tuple(self.table),
            hand=tuple(self.hands[self.active]),
            used_words=tuple(self.used_words),
            time_limit=self.time_limit,
        )

    def guess_view(self, seat: int, time_limit: float | None = None) -> GuessView:
        """What guesser ``seat`` sees: both groups and the words used in earlier turns.

        ``time_limit`` is the seconds left of the turn (defaults to the whole turn).
        """
        self._require(Phase.GUESS)
        if seat not in self.guessers:
            raise IllegalAction(f"seat {seat} is not a guessing player this turn")
        return GuessView(
            seat=seat,
            turn=self.turn,
            stake=self.stake,
            active_seat=self.active,
            three=tuple(self.cards[c] for c in self._state.three),
            two=tuple(self.cards[c] for c in self._state.two),
            used_words=tuple(self.used_words),
            time_limit=self.time_limit if time_limit is None else float(time_limit),
        )

    def reveal_view(self, seat: int) -> RevealView:
        """The words read aloud this turn, for ``seat`` to decide on a ne bis in idem call
        and on overruling the judge (the distinct guesses with their verdicts)."""
        self._require(Phase.CALL)
        verdicts = self.verdicts()
        return RevealView(
            seat=seat,
            turn=self.turn,
            words=self._words_by_seat(),
            active_seat=self.active,
            used_words=tuple(self.used_words),
            verdicts=verdicts,
            rulings={
                s: self._state.rulings[ruling_key(self._state.guesses[s])][0]
                for s in verdicts
                if ruling_key(self._state.guesses[s]) in self._state.rulings
            },
            guesses=self.distinct_guesses(),
        )

    def call_view(self, seat: int, callers: Iterable[int]) -> CallView:
        """Ne bis in idem was called by ``callers``: the judge's repeat verdict on every
        distinct word of this turn, for ``seat`` to overrule (CALL phase).

        Raises:
            IllegalAction: not in the CALL phase.
        """
        self._require(Phase.CALL)
        called = set(callers)
        return CallView(
            seat=seat,
            turn=self.turn,
            words=self._words_by_seat(),
            active_seat=self.active,
            used_words=tuple(self.used_words),
            callers=tuple(s for s in self.seats_from_left_of(self.active) if s in called),
            repeats=self.distinct_repeats(),
        )

    def verdicts(self) -> dict[int, Verdict]:
        """The judge's verdict on each guess written this turn (CALL phase), before rulings.

        Seat -> :class:`Verdict` of ``judge.match(secret, guess)`` for every guesser who
        wrote a word; empty when the active player wrote nothing. Computed once a turn and
        once a distinct word (guessers who wrote the same word share one verdict), so the
        words read aloud, the table's rulings and the scoring all see the same verdicts.

        Raises:
            IllegalAction: not in the CALL phase.
        """
        self._require(Phase.CALL)
        return dict(self._judge_guesses())

    def distinct_guesses(self) -> tuple[WordVerdict, ...]:
        """The distinct guesses of this turn (CALL phase): each word once (by
        :func:`ruling_key`), with the seats that wrote it, the judge's verdict and the
        table's ruling, in seating order from the active player's left. What the table
        rules on: one ruling a word, applied to every guesser who wrote it.

        Raises:
            IllegalAction: not in the CALL phase.
        """
        self._require(Phase.CALL)
        verdicts = self._judge_guesses()
        out = []
        for key, word, seats in self._groups([s for s in self.guessers if s in verdicts]):
            ruling = self._state.rulings.get(key)
            out.append(
                WordVerdict(word, seats, verdicts[seats[0]], None if ruling is None else ruling[0])
            )
        return tuple(out)

    def repeat_verdicts(self) -> dict[int, Verdict]:
        """The judge's ne bis in idem verdict on each word written this turn (CALL phase),
        before the table's rulings: seat -> ``judge.is_repeat(word, used_words)`` for every
        seat that wrote a word (the active player's included); empty when no word was used
        in an earlier turn. Computed once a turn and once a distinct word.

        Raises:
            IllegalAction: not in the CALL phase.
        """
        self._require(Phase.CALL)
        return dict(self._judge_repeats())

    def distinct_repeats(self) -> tuple[WordVerdict, ...]:
        """The distinct words of this turn with the judge's repeat verdicts and the table's
        rulings (CALL phase): the active player's word first, then the guesses in seating
        order; empty when no word was used in an earlier turn.

        Raises:
            IllegalAction: not in the CALL phase.
        """
        self._require(Phase.CALL)
        verdicts = self._judge_repeats()
        order = [self.active, *self.guessers]
        out = []
        for key, word, seats in self._groups([s for s in order if s in verdicts]):
            verdict = verdicts[seats[0]]
            ruling = self._state.repeat_rulings.get(key)
            if ruling is None:
                out.append(WordVerdict(word, seats, verdict, None, verdict.matched))
            else:
                out.append(WordVerdict(word, seats, verdict, ruling[0], ruling[1]))
        return tuple(out)

    def _groups(self, seats: Sequence[int]) -> list[tuple[str, str, tuple[int, ...]]]:
        """``(key, word as first written, seats)`` for each distinct word of ``seats``."""
        words = self._words_list()
        groups: dict[str, list[int]] = {}
        for seat in seats:
            groups.setdefault(ruling_key(words[seat]), []).append(seat)
        return [(key, words[group[0]], tuple(group)) for key, group in groups.items()]

    def _judge_guesses(self) -> dict[int, Verdict]:
        if self._state.verdicts is None:
            secret = self._state.secret
            by_key: dict[str, Verdict] = {}
            verdicts: dict[int, Verdict] = {}
            for seat in self.guessers:
                guess = self._state.guesses.get(seat, "")
                if not secret or not guess:
                    continue
                key = ruling_key(guess)
                if key not in by_key:
                    by_key[key] = self.judge.match(secret, guess)
                verdicts[seat] = by_key[key]
            self._state.verdicts = verdicts
        return self._state.verdicts

    def _judge_repeats(self) -> dict[int, Verdict]:
        if self._state.repeat_verdicts is None:
            verdicts: dict[int, Verdict] = {}
            if self.used_words:
                words = self._words_list()
                by_key: dict[str, Verdict] = {}
                for seat in self.seats_from_left_of(self.active):
                    if not words[seat]:
                        continue
                    key = ruling_key(words[seat])
                    if key not in by_key:
                        by_key[key] = self.judge.is_repeat(words[seat], tuple(self.used_words))
                    verdicts[seat] = by_key[key]
            self._state.repeat_verdicts = verdicts
        return self._state.repeat_verdicts

    def keep_view(self, seat: int) -> KeepView:
        """What chooser ``seat`` sees: the cards still on offer and those already kept."""
        self._require(Phase.KEEP)
        if seat not in self.to_move()[:1]:
            raise IllegalAction(f"seat {seat} is not the next player to keep a card")
        kept = tuple(self.cards[c] for c in self._state.kept)
        return KeepView(
            seat=seat,
            new_active_seat=self.next_active,
            cards=tuple(c for c in self.table if c.id not in self._state.kept),
            kept=kept,
            hand=tuple(self.hands[seat]),
            used_words=tuple(self.used_words),
            turns_on_table=tuple(
                self._turns_seen(c.id) + 1 for c in self.table if c.id not in self._state.kept
            ),
        )

    def legal_plays(self) -> list[tuple[tuple[str, str], tuple[str, str, str], tuple[str, str]]]:
        """Every (played, three, two) card choice open to the active player.

        With a hand of h cards: C(h, 2) * C(5, 3) choices (60 with a full hand of 4).
        The word is free text and not enumerated.
        """
        self._require(Phase.PLAY)
        hand = [c.id for c in self.hands[self.active]]
        out = []
        for played in itertools.combinations(hand, PLAYED_PER_TURN):
            five = [c.id for c in self.table] + list(played)
            for three in itertools.combinations(five, GROUP_OF_THREE):
                two = tuple(c for c in five if c not in three)
                out.append((played, three, two))
        # combinations give tuples of PLAYED_PER_TURN (2) and GROUP_OF_THREE (3) ids
        return cast(list[tuple[tuple[str, str], tuple[str, str, str], tuple[str, str]]], out)

    # ------------------------------------------------------------------ actions

    def play(self, action: ActivePlay | None) -> None:
        """The active player plays 2 hand cards, splits the 5 cards 3-vs-2 and writes a word.

        ``action=None`` means time ran out before any cards were chosen: the first two cards
        of the hand are played, split in table order (:func:`~kiekai.kiek.rules.time_up_split`),
        and no word is written. A word of ``""`` means the cards
        were chosen but no word was written in time. Either way nobody can match an
        unwritten word, so the turn scores nothing and goes straight to KEEP (settled
        reading, docs/rules.md).

        Raises:
            IllegalAction: wrong phase; played cards not 2 distinct cards of the hand; the
                groups are not exactly the 5 table cards split 3 and 2; the word is not one
                word (the judge's one-word check).
        """
        self._require(Phase.PLAY)
        hand_ids = [c.id for c in self.hands[self.active]]
        if action is None:
            played, three, two = time_up_split([c.id for c in self.table], hand_ids)
            word = ""
            forfeited = True
        else:
            played, three, two = tuple(action.played), tuple(action.three), tuple(action.two)
            word = action.word.strip()
            forfeited = False
            if len(played) != PLAYED_PER_TURN or len(set(played)) != PLAYED_PER_TURN:
                raise IllegalAction(f"play exactly 2 different cards from the hand, got {played}")
            missing = [c for c in played if c not in hand_ids]
            if missing:
                raise IllegalAction(f"cards {missing} are not in the active player's hand")
            five_set = {c.id for c in self.table} | set(played)
            if len(three) != GROUP_OF_THREE or len(two) != GROUP_OF_TWO:
                raise IllegalAction(
                    f"split the 5 cards into a group of 3 and a group of 2, got "
                    f"{len(three)} and {len(two)}"
                )
            if set(three) | set(two) != five_set or set(three) & set(two):
                raise IllegalAction(
                    "the two groups must hold exactly the 3 table cards and the 2 played cards"
                )
            if word:
                verdict = one_word_verdict(self.judge, word)
                if not verdict.accepted:
                    raise IllegalAction(f"write one word: {verdict.reason}")
        hand = self.hands[self.active]
        for card_id in played:
            card = next(c for c in hand if c.id == card_id)
            hand.remove(card)
            self.table.append(card)
        self._state.played, self._state.three, self._state.two = played, three, two
        self._state.secret = word
        self._emit(
            KiekPlay(
                played=list(played),
                three=list(three),
                two=list(two),
                stake=self.stake,
                forfeited=forfeited,
                wrote_word=bool(word),
            ),
            player=self.active,
        )
        if not word:
            # Nothing to guess: the turn is over with no points.
            self._emit(KiekReveal(words=self._words_list()), player=self.active)
            self._score(callers=())
        else:
            self.phase = Phase.GUESS

    def guess(self, seat: int, word: str) -> None:
        """Guesser ``seat`` writes ``word`` (``""`` = nothing written, e.g. out of time).

        When the last guesser has written, the words are read aloud (``reveal`` event) and
        the phase moves to CALL.

        Raises:
            IllegalAction: wrong phase, ``seat`` is not a guesser or already guessed, or the
                word is not one word.
        """
        self._require(Phase.GUESS)
        if seat not in self.guessers:
            raise IllegalAction(f"seat {seat} is not a guessing player this turn")
        self.check_guess(seat, word)
        word = word.strip()
        self._state.guesses[seat] = word
        self._emit(KiekGuess(word=word), player=seat)
        if len(self._state.guesses) == len(self.guessers):
            self._emit(
                KiekReveal(words=self._words_list(), secret=self._state.secret), player=self.active
            )
            self.phase = Phase.CALL

    def check_guess(self, seat: int, word: str) -> None:
        """Check that guesser ``seat`` may write ``word`` now, without writing it.

        The same checks as :meth:`guess` (phase, seat, one word); the runner uses it to ask
        people again while the other guessers are still writing.

        Raises:
            IllegalAction: as :meth:`guess`.
        """
        self._require(Phase.GUESS)
        if seat not in self.guessers:
            raise IllegalAction(f"seat {seat} is not a guessing player this turn")
        if seat in self._state.guesses:
            raise IllegalAction(f"seat {seat} has already written a guess this turn")
        word = word.strip()
        if word:
            verdict = one_word_verdict(self.judge, word)
            if not verdict.accepted:
                raise IllegalAction(f"write one word: {verdict.reason}")

    def overrule(self, guess: str, accepted: bool, by: int, agreed: Sequence[int] = ()) -> None:
        """The table overrules the judge's verdict on the guess ``guess`` (CALL phase).

        Rulebook "Imperfect Guesses": "Each group of players should define for themselves
        which guess is correct." The judge's verdict is the table's default; when the
        people at the table rule otherwise, their ruling decides the match: the turn is
        scored with ``accepted`` in place of the judge's verdict (the ``verdict`` event
        says ``overruled``). A table rules a word once: the ruling holds for every guesser
        who wrote it (the same :func:`ruling_key`), and one ``overrule`` event records it,
        naming them all (settled reading 14 in docs/rules.md). A second ruling on the same
        word replaces the first; a ruling equal to the judge's verdict withdraws an
        earlier one.

        Args:
            guess: the word as a guesser wrote it (any spelling with the same key).
            accepted: the table's ruling (True = the guess matches the secret).
            by: the seat of the person who made the ruling (the event's ``player``).
            agreed: the seats of the other people who agreed to it (the event's
                ``agreed``; docs/rules.md, "Who rules").

        Raises:
            TypeError: ``guess`` is not text (a seat number is no longer taken).
            IllegalAction: not in the CALL phase, ``by`` is not a seat, nobody guessed
                ``guess`` this turn (or the active player wrote no word), or the ruling
                equals the judge's verdict and there is nothing to withdraw.
        """
        if not isinstance(guess, str):
            raise TypeError(
                f"overrule takes the guess as written (str), got {type(guess).__name__}"
            )
        self._require(Phase.CALL)
        agreed = self._agreed(by, agreed)
        key = ruling_key(guess)
        found = [g for g in self.distinct_guesses() if ruling_key(g.word) == key]
        if not guess.strip() or not found:
            raise IllegalAction(
                f"nobody guessed {guess!r} this turn: it has no verdict to overrule"
            )
        group = found[0]
        judged = group.verdict.accepted
        accepted = bool(accepted)
        if accepted == judged and key not in self._state.rulings:
            raise IllegalAction(
                f"the judge already ruled {'a match' if judged else 'no match'} for "
                f"{group.word!r}: nothing to overrule"
            )
        if accepted == judged:
            del self._state.rulings[key]
        else:
            self._state.rulings[key] = (accepted, by)
        self._emit(
            KiekOverrule(
                guesser=group.seats[0],
                guessers=list(group.seats),
                secret=self._state.secret,
                guess=group.word,
                judge_accepted=judged,
                accepted=accepted,
                withdrawn=accepted == judged,
                agreed=agreed,
            ),
            player=by,
        )

    def _agreed(self, by: int, agreed: Sequence[int]) -> list[int]:
        """The seats of a ruling's ruler ``by`` and of those who agreed, checked.

        Raises:
            IllegalAction: a seat that is not at the table, or the ruler among ``agreed``.
        """
        for seat in (by, *agreed):
            if not isinstance(seat, int) or not 0 <= seat < self.n_players:
                raise IllegalAction(f"seat {seat} is not at the table")
        if by in agreed:
            raise IllegalAction(f"seat {by} made the ruling and cannot also agree to it")
        return sorted(set(agreed))

    def overrule_repeat(
        self, word: str, used: str | None, by: int, agreed: Sequence[int] = ()
    ) -> None:
        """The table overrules the judge's ne bis in idem verdict on ``word`` (CALL phase).

        Rulebook "Ne Bis in Idem": a call is right "if all players agree that the category
        has already been used". The judge's :meth:`repeat_verdicts` stand for that
        agreement; when the people at the table rule otherwise, their ruling decides:
        ``used`` names the used word the table rules ``word`` repeats, ``None`` rules that
        it repeats no used word. The ruling holds for every seat that wrote ``word`` this
        turn (settled reading 18 in docs/rules.md); an ``overrule-repeat`` event records
        it, with the pair it is about (the used word the table named, or the one the judge
        named when the table rules "no repeat"), which the runner saves as a house rule
        (the same equivalence as a match). A ruling equal to the judge's verdict (repeat or
        not) withdraws an earlier one.

        Args:
            word: a word written this turn (the active player's or a guess).
            used: a word used in an earlier turn, or ``None``.
            by: the seat of the person who made the ruling (the event's ``player``).
            agreed: the seats of the other people who agreed to it.

        Raises:
            TypeError: ``word`` is not text.
            IllegalAction: not in the CALL phase, ``by`` is not a seat, no word was used in
                an earlier turn, nobody wrote ``word`` this turn, ``used`` is not a used
                word, or the ruling equals the judge's verdict with nothing to withdraw.
        """
        if not isinstance(word, str) or not (used is None or isinstance(used, str)):
            raise TypeError("overrule_repeat takes the word and the used word as text (str)")
        self._require(Phase.CALL)
        agreed = self._agreed(by, agreed)
        if not self.used_words:
            raise IllegalAction("no word was used in an earlier turn: nothing can repeat")
        key = ruling_key(word)
        found = [g for g in self.distinct_repeats() if ruling_key(g.word) == key]
        if not word.strip() or not found:
            raise IllegalAction(f"nobody wrote {word!r} this turn")
        group = found[0]
        if used is not None:
            named = [u for u in self.used_words if ruling_key(u) == ruling_key(used)]
            if not used.strip() or not named:
                raise IllegalAction(
                    f"{used!r} is not a used word; choose one of {', '.join(self.used_words)}"
                )
            used = named[0]
        judged = group.verdict.accepted
        repeats = used is not None
        earlier = self._state.repeat_rulings.get(key)
        if repeats == judged:
            if earlier is None:
                raise IllegalAction(
                    f"the judge already ruled that {group.word!r} "
                    f"{'repeats a used word' if judged else 'repeats no used word'}: "
                    "nothing to overrule"
                )
            del self._state.repeat_rulings[key]
            pair = earlier[1]
        else:
            pair = used if used is not None else (group.verdict.matched or "")
            self._state.repeat_rulings[key] = (repeats, pair, by)
        self._emit(
            KiekOverruleRepeat(
                word=group.word,
                writers=list(group.seats),
                used=pair,
                judge_repeats=judged,
                judge_used=group.verdict.matched,
                repeats=repeats,
                withdrawn=repeats == judged,
                agreed=agreed,
            ),
            player=by,
        )

    def call(self, callers: Iterable[int]) -> TurnResult:
        """Resolve the ne bis in idem calls and score the turn.

        ``callers`` are the seats that said "ne bis in idem" (any order; duplicates ignored).
        A call is right when some word written this turn repeats a word used in an earlier
        turn: the judge's ``is_repeat`` (:meth:`repeat_verdicts`), or the table's ruling
        where it overruled the judge (:meth:`overrule_repeat`). Then the first caller in seating order from the
        active player's left who did not write a repeat scores :data:`CALL_POINTS`, and
        whoever wrote a repeat scores nothing this turn; if the repeat is the active
        player's word nobody scores a match. A wrong call scores nothing. Each guess the
        judge matches to the secret scores the stake for the guesser and for the active
        player (rulebook "A Turn", "Ne Bis in Idem").

        Returns:
            the :class:`TurnResult` (also logged as ``call`` and ``score`` events).

        Raises:
            IllegalAction: wrong phase or a seat that is not at the table.
        """
        self._require(Phase.CALL)
        callers = set(callers)
        bad = [s for s in callers if not 0 <= s < self.n_players]
        if bad:
            raise IllegalAction(f"seats {bad} are not at the table")
        return self._score(
            callers=tuple(s for s in self.seats_from_left_of(self.active) if s in callers)
        )

    def keep(self, seat: int, card_id: str) -> None:
        """Chooser ``seat`` keeps card ``card_id`` on the table for the next turn.

        After the third choice the two cards left are discarded and the next turn starts
        (with a redeal of the discards when the new active player is out of cards).

        Raises:
            IllegalAction: wrong phase, not this seat's choice, or the card is not on offer.
        """
        self._require(Phase.KEEP)
        expected = self.to_move()
        if not expected or seat != expected[0]:
            raise IllegalAction(f"seat {seat} may not keep a card now (waiting for {expected[:1]})")
        on_offer = [c.id for c in self.table if c.id not in self._state.kept]
        if card_id not in on_offer:
            raise IllegalAction(f"card {card_id!r} is not on offer; choose one of {on_offer}")
        self._state.kept.append(card_id)
        self._emit(KiekKeep(card=card_id, for_=self.next_active), player=seat)
        if len(self._state.kept) == CHOOSERS:
            kept = [self.cards[c] for c in self._state.kept]
            dropped = [c for c in self.table if c.id not in self._state.kept]
            self.discards.extend(dropped)
            self.table = kept
            dropped_turns = {c.id: self._turns_seen(c.id) + 1 for c in dropped}
            self.table_turns = {c.id: self._turns_seen(c.id) + 1 for c in kept}
            self._dropped_turns = dropped_turns
            self._emit(KiekDiscard(cards=[c.id for c in dropped], table=list(self._state.kept)))
            self.turn += 1
            self._begin_turn()

    def note_time_up(self, seat: int, what: str) -> None:
        """Log that ``seat`` ran out of time writing ``what`` (``"word"``, ``"guess"`` ...).

        Called by the runner, which enforces the two-minute turn; the engine's state is
        not changed (the runner then submits an empty word).
        """
        self._emit(KiekTimeUp(what=what, time_limit=self.time_limit), player=seat)

    # ------------------------------------------------------------------ internals

    def _turns_seen(self, card_id: str) -> int:
        """Turns running before this one that ``card_id`` was among the five on the table."""
        if card_id in self.table_turns:
            return self.table_turns[card_id]
        return self._dropped_turns.get(card_id, 0)

    def _require(self, phase: Phase) -> None:
        if self.phase is not phase:
            raise IllegalAction(f"the game is in the {self.phase.value} phase, not {phase.value}")

    def _emit(self, payload: EventData, *, player: int | None = None) -> Event:
        """Log the event of ``payload`` for this turn and pass it to :attr:`on_event`."""
        event = self.log.append(Event.of(payload, turn=self.turn, player=player))
        if self.on_event is not None:
            self.on_event(event)
        return event

    def _words_list(self) -> list[str]:
        words = [""] * self.n_players
        words[self.active] = self._state.secret
        for seat, word in self._state.guesses.items():
            words[seat] = word
        return words

    def _words_by_seat(self) -> dict[int, str]:
        return dict(enumerate(self._words_list()))

    def _score(self, callers: tuple[int, ...]) -> TurnResult:
        """Score the turn (rulebook "A Turn", "Ne Bis in Idem"; see :meth:`call`): the call,
        then the matches, then the totals; logs ``call`` (when called), ``verdict`` per
        guess and ``score``, and moves to KEEP or ends the game."""
        active, stake = self.active, self.stake
        words = self._words_list()
        points = [0] * self.n_players
        repeats, penalised, credited = self._score_call(callers, words, points)
        matches: dict[int, Verdict] = {}
        if self._state.secret and active not in penalised:
            matches = self._score_matches(stake, penalised, points)
        for seat in range(self.n_players):
            self.scores[seat] += points[seat]
        for word in words:
            if word and word not in self.used_words:
                self.used_words.append(word)
        self.last_active_turn[active] = self.turn
        result = TurnResult(
            turn=self.turn,
            active=active,
            stake=stake,
            words=tuple(words),
            matches=matches,
            repeats=repeats,
            callers=callers,
            credited_caller=credited,
            penalised=penalised,
            points=tuple(points),
        )
        self.results.append(result)
        note = ""
        if not self._state.secret:
            note = "no word written: nothing to match"
        elif active in penalised:
            note = "the active player's word repeats a used word: no match scores"
        self._emit(
            KiekScore(
                stake=stake,
                points=points,
                totals=list(self.scores),
                penalised=sorted(penalised),
                note=note,
            ),
            player=active,
        )
        if self.turn + 1 >= self.total_turns:
            self._end(
                "every player was active " + f"{self.rounds} time{'s' if self.rounds > 1 else ''}"
            )
        else:
            self.phase = Phase.KEEP
        return result

    def _turn_repeats(
        self, words: Sequence[str]
    ) -> tuple[dict[int, str], dict[int, str], dict[int, bool]]:
        """Which words of this turn repeat a used word, after the table's rulings.

        Returns:
            ``(repeats, reasons, ruled)``: seat -> the used word its word repeats; seat ->
            why (the judge's reason, or the table's ruling); seat -> the table's ruling, for
            the seats whose word the table ruled on.
        """
        repeats: dict[int, str] = {}
        reasons: dict[int, str] = {}
        ruled: dict[int, bool] = {}
        judged = self._judge_repeats()
        for seat in self.seats_from_left_of(self.active):
            if seat not in judged:
                continue
            ruling = self._state.repeat_rulings.get(ruling_key(words[seat]))
            if ruling is not None:
                ruled[seat] = ruling[0]
                if ruling[0]:
                    repeats[seat] = ruling[1]
                    reasons[seat] = (
                        f"The table overruled the judge: {words[seat]!r} repeats the used "
                        f"word {ruling[1]!r}."
                    )
            elif judged[seat].accepted:
                repeats[seat] = judged[seat].matched or words[seat]
                reasons[seat] = judged[seat].reason
        return repeats, reasons, ruled

    def _score_call(
        self, callers: tuple[int, ...], words: Sequence[str], points: list[int]
    ) -> tuple[dict[int, str], frozenset[int], int | None]:
        """Resolve the ne bis in idem call (rulebook "Ne Bis in Idem"), add the call point
        to ``points`` and log the ``call`` event when anyone called.

        Returns:
            ``(repeats, penalised, credited)``: seat -> the used word its word repeats; the
            seats that cannot score this turn; the seat that scored the call point or None.
        """
        repeats, reasons, ruled = self._turn_repeats(words)
        call_right = bool(callers) and bool(repeats)
        penalised = frozenset(repeats) if call_right else frozenset()
        credited: int | None = None
        if call_right:
            credited = next((s for s in callers if s not in penalised), None)
            if credited is not None:
                points[credited] += CALL_POINTS
        if callers:
            self._emit(
                KiekCall(
                    callers=list(callers),
                    right=call_right,
                    credited=credited,
                    repeats={str(s): w for s, w in repeats.items()},
                    reasons={str(s): r for s, r in reasons.items()},
                    ruled={str(s): r for s, r in ruled.items()},
                    points=CALL_POINTS if credited is not None else 0,
                )
            )
        return repeats, penalised, credited

    def _score_matches(
        self, stake: int, penalised: frozenset[int], points: list[int]
    ) -> dict[int, Verdict]:
        """Score each written guess against the secret (rulebook "A Turn": a match scores
        the stake for the guesser and the active player), the table's rulings in place of
        the judge's verdicts; adds to ``points`` and logs a ``verdict`` per guess.

        Returns:
            guesser's seat -> the verdict that counted.
        """
        matches: dict[int, Verdict] = {}
        secret, active = self._state.secret, self.active
        judged = self._judge_guesses()
        for seat in self.guessers:
            guess = self._state.guesses.get(seat, "")
            if not guess:
                continue
            verdict = judged[seat]
            ruling = self._state.rulings.get(ruling_key(guess))
            if ruling is not None:
                verdict = Verdict(
                    accepted=ruling[0],
                    score=1.0 if ruling[0] else 0.0,
                    relation="table-ruling",
                    reason=(
                        f"The table overruled the judge: {'a match' if ruling[0] else 'no match'}."
                    ),
                    details={"source": "table ruling", "judge_relation": verdict.relation},
                )
            matches[seat] = verdict
            scored = verdict.accepted and seat not in penalised
            if scored:
                points[seat] += stake
                points[active] += stake
            self._emit(
                KiekVerdict(
                    secret=secret,
                    guess=guess,
                    accepted=verdict.accepted,
                    relation=verdict.relation,
                    reason=verdict.reason,
                    scored=stake if scored else 0,
                    overruled=ruling is not None,
                ),
                player=seat,
            )
        return matches

    def _begin_turn(self) -> None:
        self._state = _TurnState()
        self.phase = Phase.PLAY
        hand = self.hands[self.active]
        if len(hand) < PLAYED_PER_TURN:
            if hand:
                # Cannot happen under the rules (hands only ever hold an even number of
                # cards); guard against a corrupted state rather than guess.
                raise RuntimeError(
                    f"seat {self.active} holds {len(hand)} card: the rules never leave one"
                )
            self._redeal()
            if self.phase is Phase.OVER:
                return
        self._emit(
            KiekTurn(
                round=self.round + 1,
                stake=self.stake,
                extra_round=self.round >= BASE_ROUNDS,
                table=[c.id for c in self.table],
                hand_size=len(self.hands[self.active]),
            ),
            player=self.active,
        )

    def _redeal(self) -> None:
        """Shuffle the discards and deal them again (rulebook "The Next Turn").

        Settled reading (docs/rules.md): every hand is empty at this moment (each player
        has played 2 cards on each of their 2 turns since the last deal), so the discards
        are dealt to every player, 4 each. Under the rules exactly ``4 * n`` cards were
        discarded since the last deal (2 a turn for ``2 * n`` turns); should fewer be
        there, each player gets the largest even number up to 4 that all can get and the
        rest stay discarded; with fewer than 2 each the game ends.
        """
        not_empty = [s for s, hand in enumerate(self.hands) if hand]
        if not_empty:
            raise RuntimeError(f"redeal with cards still in hands of seats {not_empty}")
        pool = list(self.discards)
        self._rng.shuffle(pool)
        each = min(HAND_SIZE, len(pool) // self.n_players)
        each -= each % PLAYED_PER_TURN
        if each < PLAYED_PER_TURN:
            self._emit(KiekRedeal(discards=len(pool), each=0, hands=[]))
            self._end(
                f"only {len(pool)} discarded cards to deal: fewer than "
                f"{PLAYED_PER_TURN} for each of {self.n_players} players"
            )
            return
        order = self.seats_from_left_of(self.active)
        order = [self.active] + order[:-1]
        for seat in range(self.n_players):
            self.hands[seat] = []
        position = 0
        for seat in order:
            self.hands[seat] = pool[position : position + each]
            position += each
        self.discards = pool[position:]
        self._emit(
            KiekRedeal(
                discards=len(pool),
                each=each,
                hands=[[c.id for c in hand] for hand in self.hands],
                left_discarded=len(self.discards),
            )
        )

    def _end(self, reason: str) -> None:
        self.phase = Phase.OVER
        self.end_reason = reason
        ranking = self.ranking()
        top = self.scores[ranking[0]]
        tied = [s for s in ranking if self.scores[s] == top]
        self._emit(
            KiekGameOver(
                reason=reason,
                turns_played=len(self.results),
                scores=list(self.scores),
                ranking=ranking,
                winner=ranking[0],
                tie_broken_by_last_active=len(tied) > 1,
                last_active_turn=list(self.last_active_turn),
            )
        )
