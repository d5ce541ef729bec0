"""Bot-only games per level through the real engine, measured as the held-out check measures them.

Each game is what ``kiekai play --bots N --humans 0 --level L --seed S --log PATH`` plays: the
rules engine (:func:`kiekai.kiek.game.play_game`, virtual clock), ``N`` bots of one level
seeded as the command seeds them (``seed * 100 + seat + 1``), a JSON-lines log per game. The
logs are then measured by :mod:`kiekai.eval.quality` (median Zipf of the active words, rare and
``X-less`` shares, guessers' unanimity, truth by the deck's labels when it has them), and the
games by the spread of their final scores and by the bots' thinking time: milliseconds per
decision, as the active player (``play_turn``) and as a guesser (``guess``), measured around
each call.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from kiekai.eval import quality

LEVELS = ("easy", "normal", "hard")


class TimedPlayer:
    """A :class:`~kiekai.kiek.players.KiekPlayer` that passes every decision to ``player``
    and records how long ``play_turn`` and ``guess`` took (seconds, ``time.perf_counter``).

    Attributes:
        active_s: seconds per ``play_turn`` call.
        guess_s: seconds per ``guess`` call.
    """

    def __init__(self, player: Any) -> None:
        self.player = player
        self.name = player.name
        self.is_human = player.is_human
        self.active_s: list[float] = []
        self.guess_s: list[float] = []

    def play_turn(self, view: Any) -> Any:
        """The wrapped player's ``play_turn``, timed."""
        started = time.perf_counter()
        try:
            return self.player.play_turn(view)
        finally:
            self.active_s.append(time.perf_counter() - started)

    def guess(self, view: Any) -> str:
        """The wrapped player's ``guess``, timed."""
        started = time.perf_counter()
        try:
            return self.player.guess(view)
        finally:
            self.guess_s.append(time.perf_counter() - started)

    def call_repeat(self, view: Any) -> bool:
        """The wrapped player's ``call_repeat``."""
        return self.player.call_repeat(view)

    def keep_card(self, view: Any) -> str:
        """The wrapped player's ``keep_card``."""
        return self.player.keep_card(view)


def play_games(
    cards: Sequence[Any],
    perception: Any,
    judge: Any,
    *,
    level: str,
    seeds: Sequence[int],
    bots: int = 4,
    log_dir: Path,
    rounds: int = 3,
    make_bot: Callable[..., Any] | None = None,
    sample: int | None = None,
) -> dict[str, Any]:
    """Play one bot-only game per seed at ``level`` and measure them.

    Args:
        cards: the deck's cards the perception can score.
        perception: the bots' perception (shared, as in ``kiekai play``).
        judge: the table's judge.
        level: the bots' level.
        seeds: engine seeds, one game each.
        bots: players per game (3 to 8).
        log_dir: where the game logs go (``selfplay-LEVEL-seedS.jsonl``).
        rounds: rounds per game (3 by the rulebook).
        make_bot: builds a bot (default :class:`kiekai.kiek.bots.KiekBot`); keyword
            arguments ``name``, ``perception``, ``judge``, ``level``, ``seed``.
        sample: when given, each game is dealt from its own ``sample`` cards of ``cards``
            (:func:`sample_cards`: drawn by the game's seed and ``bots``), so that one deck
            gives many decks of the held-out check's size; ``None``: the whole deck.

    Returns:
        ``logs`` (paths), ``scores`` (per game, the final points by seat), ``spread``
        (mean over games of the highest minus the lowest score, and the mean standard
        deviation), ``active_ms`` and ``guess_ms`` (median and 90th percentile), and
        ``quality``: :func:`kiekai.eval.quality.measure` of the logs without truth (add it
        with :func:`with_truth`), and ``table_runs`` (:func:`table_runs`).

    Raises:
        ValueError: too few cards for the players (from the engine).
    """
    from kiekai.clock import VirtualClock
    from kiekai.events import EventLog
    from kiekai.kiek.game import play_game
    from kiekai.kiek.settings import GameSettings

    if make_bot is None:
        from kiekai.kiek.bots import KiekBot

        make_bot = KiekBot
    log_dir.mkdir(parents=True, exist_ok=True)
    logs: list[Path] = []
    scores: list[list[int]] = []
    active: list[float] = []
    guesses: list[float] = []
    for seed in seeds:
        dealt = sample_cards(cards, sample, seed, bots) if sample else list(cards)
        players = [
            TimedPlayer(
                make_bot(
                    name=f"Bot {i + 1}",
                    perception=perception,
                    judge=judge,
                    level=level,
                    seed=seed * 100 + i + 1,
                )
            )
            for i in range(bots)
        ]
        path = log_dir / f"selfplay-{level}-seed{seed}.jsonl"
        path.unlink(missing_ok=True)  # the event log appends; each game starts a new file
        with EventLog(path) as log:
            outcome = play_game(
                players,
                dealt,
                judge=judge,
                settings=GameSettings(seed=seed, rounds=rounds),
                clock=VirtualClock(),
                log=log,
                header={"perception": getattr(perception, "name", "?"), "level": level},
            )
        logs.append(path)
        scores.append(list(outcome.scores))
        for p in players:
            active += p.active_s
            guesses += p.guess_s
    turns = [t for p in logs for t in quality.read_turns(p)]
    return {
        "level": level,
        "bots": bots,
        "seeds": list(seeds),
        "logs": [str(p) for p in logs],
        "scores": scores,
        "spread": {
            "max_minus_min": statistics.fmean(max(s) - min(s) for s in scores) if scores else 0.0,
            "sd": statistics.fmean(statistics.pstdev(s) for s in scores) if scores else 0.0,
        },
        "active_ms": _ms(active),
        "guess_ms": _ms(guesses),
        "quality": quality.measure(turns),
        "table_runs": table_runs(logs),
    }


def table_runs(logs: Sequence[Path | str]) -> dict[str, Any]:
    """How long cards stay on the table: per game the longest run of turns one card was among
    the five (:func:`kiekai.eval.quality.longest_table_runs`), their maximum, and how many
    games had a card there more than 4 turns running."""
    per_game = quality.measure_logs(logs)["table_runs"]
    return {
        "per_game": per_game,
        "max": max(per_game, default=0),
        "games_over_4": sum(1 for r in per_game if r > 4),
    }


def sample_cards(cards: Sequence[Any], size: int, seed: int, bots: int) -> list[Any]:
    """``size`` of ``cards`` drawn without replacement by ``random.Random(seed * 7 + bots)``
    (the game's engine seed and its number of players), in draw order.

    Raises:
        ValueError: ``size`` is below 1 or larger than the deck.
    """
    import random

    if not 1 <= size <= len(cards):
        raise ValueError(f"cannot draw {size} cards from a deck of {len(cards)}")
    return random.Random(seed * 7 + bots).sample(list(cards), size)


def with_truth(result: dict[str, Any], labels: Path | str) -> dict[str, Any]:
    """``result`` of :func:`play_games` with its ``quality`` measured again against a deck's
    labels.csv (the truth of checkable words; the games never saw the file if it was hidden)."""
    out = dict(result)
    out["quality"] = quality.measure_logs(result["logs"], labels)
    return out


def _ms(seconds: Sequence[float]) -> dict[str, float]:
    if not seconds:
        return {"median": 0.0, "p90": 0.0, "count": 0}
    ordered = sorted(seconds)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return {
        "median": 1000.0 * statistics.median(ordered),
        "p90": 1000.0 * p90,
        "count": len(ordered),
    }
