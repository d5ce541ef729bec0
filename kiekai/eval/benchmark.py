"""Timing perception and the bots' thinking (used by ``scripts/bench_perception.py``).

Speed targets live in a benchmark script that prints measured figures compared as ratios in
the same run, never in timed tests. This module holds the pieces, so that other scripts (the
bots' evaluation) can time the same way:

* :func:`copy_unlabelled` makes a photo folder without labels.csv (nothing can come from
  labels; a fresh cache folder makes the first pass really first);
* :func:`raw_forward_rate` times the classifier's batched forward alone (photos/s);
* :class:`TimedPlayer` wraps any :class:`kiekai.kiek.players.KiekPlayer` and records how long
  each decision takes; :func:`time_bot_game` plays a bot-only game with timed bots and
  returns the seconds per active turn, guess, keep and repeat call.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kiekai.deck import PHOTO_SUFFIXES, Card


def copy_unlabelled(source: Path, target: Path, count: int) -> list[Path]:
    """Copy the first ``count`` photos of ``source`` (by sorted relative path, sub-folders
    included; labels.csv and other files left behind) into the folder ``target``.

    Returns:
        The copied files.

    Raises:
        FileNotFoundError: ``source`` is not a folder or holds no photos.
    """
    if not source.is_dir():
        raise FileNotFoundError(f"{source} is not a folder of photos")
    photos = sorted(
        p for p in source.rglob("*") if p.is_file() and p.suffix.lower() in PHOTO_SUFFIXES
    )[:count]
    if not photos:
        raise FileNotFoundError(f"{source} holds no photos (.jpg, .png, .webp, .gif)")
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for photo in photos:
        destination = target / photo.relative_to(source).as_posix().replace("/", "__")
        shutil.copyfile(photo, destination)
        copied.append(destination)
    return copied


def raw_forward_rate(model: Any, batch: Any, repeats: int = 3) -> float:
    """Photos per second of ``model``'s forward pass alone on a ready tensor.

    Args:
        model: a ``torch.nn.Module`` in eval mode.
        batch: float32 tensor [B, 3, H, W] (already decoded and preprocessed).
        repeats: forward passes timed after one warm-up pass; the fastest counts (the least
            disturbed by other processes on a shared machine).

    Returns:
        ``B / fastest_seconds``.
    """
    import torch

    with torch.inference_mode():
        model(batch)
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            model(batch)
            best = min(best, time.perf_counter() - start)
    return batch.shape[0] / best


@dataclass
class TimedPlayer:
    """A :class:`kiekai.kiek.players.KiekPlayer` that records the seconds of each decision
    of the player it wraps (``time.perf_counter``).

    Attributes:
        inner: the wrapped player.
        seconds: decision name (``play_turn``, ``guess``, ``keep_card``, ``call_repeat``) ->
            seconds of each call.
    """

    inner: Any
    seconds: dict[str, list[float]] = field(
        default_factory=lambda: {"play_turn": [], "guess": [], "keep_card": [], "call_repeat": []}
    )

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def is_human(self) -> bool:
        return bool(self.inner.is_human)

    def _timed(self, method: str, view: Any) -> Any:
        start = time.perf_counter()
        try:
            return getattr(self.inner, method)(view)
        finally:
            self.seconds[method].append(time.perf_counter() - start)

    def play_turn(self, view: Any) -> Any:
        return self._timed("play_turn", view)

    def guess(self, view: Any) -> str:
        return self._timed("guess", view)

    def call_repeat(self, view: Any) -> bool:
        return self._timed("call_repeat", view)

    def keep_card(self, view: Any) -> str:
        return self._timed("keep_card", view)


def time_bot_game(
    make_bot: Callable[[str, int], Any],
    cards: Sequence[Card],
    *,
    judge: Any,
    bots: int = 3,
    seed: int = 1,
    rounds: int = 1,
) -> dict[str, list[float]]:
    """Play a bot-only game of Kiek with timed bots; return the seconds of every decision.

    Args:
        make_bot: ``make_bot(name, seed) -> KiekPlayer`` (e.g. a ``KiekBot`` with the
            perception under test), called once per seat.
        cards: the deck.
        judge: the game's judge.
        bots: players (3 to 8).
        seed: the game's seed (bot ``i`` gets ``seed * 100 + i + 1``, as ``kiekai play``).
        rounds: rounds to play (each bot is active once a round).

    Returns:
        decision name -> seconds of each call, all bots together.
    """
    from kiekai.clock import VirtualClock
    from kiekai.kiek.game import play_game
    from kiekai.kiek.settings import GameSettings

    players = [TimedPlayer(make_bot(f"Bot {i + 1}", seed * 100 + i + 1)) for i in range(bots)]
    play_game(
        players,
        cards,
        judge=judge,
        settings=GameSettings(seed=seed, rounds=rounds),
        clock=VirtualClock(),
    )
    out: dict[str, list[float]] = {}
    for player in players:
        for method, values in player.seconds.items():
            out.setdefault(method, []).extend(values)
    return out
