"""The Kiek game, by job: the runner (:mod:`kiekai.kiek.runner`: :func:`play_game`), the
terminal printer (:mod:`kiekai.kiek.printer`: :class:`EventPrinter`) and the replay
(:mod:`kiekai.kiek.replay`: :func:`replay`). This module gives them under one name for the
commands, scripts and tests that import them from here."""

from __future__ import annotations

from kiekai.kiek.printer import EventPrinter
from kiekai.kiek.replay import MAX_REPLAY_PROBLEMS, ReplayResult, replay
from kiekai.kiek.runner import (
    HUMAN_RETRIES,
    LOG_FORMAT,
    GameAborted,
    GameOutcome,
    play_game,
    versions,
)

__all__ = [
    "HUMAN_RETRIES",
    "LOG_FORMAT",
    "MAX_REPLAY_PROBLEMS",
    "EventPrinter",
    "GameAborted",
    "GameOutcome",
    "ReplayResult",
    "play_game",
    "replay",
    "versions",
]
