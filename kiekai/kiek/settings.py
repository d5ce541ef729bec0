"""The settings of a table of Kiek: one frozen object, built once by a command and passed down.

``kiekai play`` reads its options into a :class:`TableSettings` (seats, bots and their level,
the judge's strictness, the deck and how bots see it, the log, the house-rules file, the
browser table's address) and hands it, with the objects it builds from it (the judge, the
perception, the players), to the game runner (:func:`kiekai.kiek.game.play_game`) and the web
server (:func:`kiekai.web.server.run_web_game`), which take the part a game needs,
:class:`GameSettings` (seed, rounds, seconds a turn).

The choices of the options are enums owned here or by the part that uses them, so that the
command line lists them from one place: :class:`~kiekai.judge.verdict.Strictness` (the
judge's levels), :class:`BotLevel` (the bots' levels, :data:`kiekai.kiek.bots.LEVELS`) and
:class:`PerceptionKind` (:data:`kiekai.perception.KINDS`); ``tests/test_kiek_settings.py``
checks that those tables name the same members.

This module imports nothing heavy (no judge, no numpy), so a command line can build its
options from it at start-up.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from kiekai.judge.verdict import Strictness
from kiekai.kiek.rules import BASE_ROUNDS, TURN_SECONDS


class BotLevel(StrEnum):
    """A Kiek bot's strength: its vocabulary and the noise in its choices (the parameters of
    each are :data:`kiekai.kiek.bots.LEVELS`)."""

    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"


class PerceptionKind(StrEnum):
    """How bots see the photos (:func:`kiekai.perception.load_perception`): CLIP when it
    loads, else labels.csv where present, the classifier for unlabelled photos and colours
    from the pixels (``auto``); or one of CLIP, labels.csv, the classifier with colours
    (pixels only), colours only."""

    AUTO = "auto"
    CLIP = "clip"
    LABELS = "labels"
    CLASSIFIER = "classifier"
    COLOUR = "colour"


@dataclass(frozen=True)
class GameSettings:
    """What one game needs beyond its players, cards and judge.

    Attributes:
        seed: seeds the shuffle, the redeals and (without people) the first active player;
            the same seed with the same players deals the same game. 0 or more.
        rounds: rounds to play; :data:`~kiekai.kiek.rules.BASE_ROUNDS` (3) is the game
            proper (rulebook "End of the Game"), more are extra rounds.
        turn_seconds: seconds a turn may take, :data:`~kiekai.kiek.rules.TURN_SECONDS` (120)
            by the rulebook ("A Turn"); other values are a house variant.
    """

    seed: int
    rounds: int = BASE_ROUNDS
    turn_seconds: float = TURN_SECONDS


@dataclass(frozen=True)
class WebSettings:
    """Where the browser table listens (``kiekai play --web``).

    Attributes:
        host: the address to listen on; ``0.0.0.0`` lets other devices join.
        port: the TCP port, 0 for a free one.
        open_browser: whether the first seat's link opens in the default browser.
    """

    host: str = "127.0.0.1"
    port: int = 0
    open_browser: bool = True


@dataclass(frozen=True)
class TableSettings:
    """Everything ``kiekai play`` was asked for, checked and complete (the seed drawn).

    The command checks the values (ranges, the number of players) before it builds this;
    the object itself only holds them.

    Attributes:
        game: the seed, the rounds and the seconds a turn (:class:`GameSettings`).
        bots: bot seats.
        humans: people's seats: at this terminal, or with :attr:`web` in the browser.
        level: the bots' strength.
        strictness: the judge's level (the judge is built with it; from then on the game
            reads it from the judge, :attr:`kiekai.judge.protocol.JudgeLike.strictness`).
        perception: how bots see the photos.
        deck: the folder of photos; ``None`` for the embedded deck.
        log: the JSON-lines game log; ``None`` for a new file in the user data dir.
        house_rules: the table's house-rules file; ``None`` for the rulings store's table.
        table: the rulings store's table (:mod:`kiekai.judge.store`) when no
            ``house_rules`` file is given; ``None`` for the default table.
        clip_model: the open_clip model name for the ``clip`` perception.
        clip_checkpoint: a local open_clip checkpoint file (with ``clip_model``).
        web: where the browser table listens; ``None`` to play at the terminal.
    """

    game: GameSettings
    bots: int = 3
    humans: int = 1
    level: BotLevel = BotLevel.NORMAL
    strictness: Strictness = Strictness.STANDARD
    perception: PerceptionKind = PerceptionKind.AUTO
    deck: Path | None = None
    log: Path | None = None
    house_rules: Path | None = None
    table: str | None = None
    clip_model: str | None = None
    clip_checkpoint: Path | None = None
    web: WebSettings | None = None

    @property
    def players(self) -> int:
        """Seats at the table: bots and people."""
        return self.bots + self.humans
