"""Golden logs: whole bot-only games recorded once, replayed to the same game after a change.

A refactor that keeps behaviour (the architecture step) must play the same games: the same
seed deals the same cards, the bots choose the same plays and words, the judge rules the same
and the scores add up the same. :data:`GAMES` names the games (Kiek bot-only games with labels
and with pixels only, 3 and 5 bots, three seeds, one round each; headless Kismet, the base game
and the variant, three seeds); :func:`record` plays each through the command line into
``tests/golden/NAME.jsonl``; :func:`play` plays one again into a temporary file; and
:func:`game_signature` reduces a log to what the game *is*: per event its type, turn and seat
and the data fields that carry cards, words, verdicts and scores (:data:`SIGNATURE_KEYS`),
leaving out what may change with encoding (key order, fields added, clock readings, paths,
versions).

The Kiek games are dealt from a small deck of the first :data:`DECK_SIZE` photos of the shared
dev deck (``../shared/decks/imagenet-dev``, by file name), built by :func:`make_deck` as
symbolic links, with their labels.csv rows (``labels``) or without labels.csv (``pixels``,
the classifier and colours), so a first pass over it takes seconds; every game reads an empty
house-rules file (the user's own rulings would change verdicts).

Usage::

    python scripts/record_golden_logs.py            # (re)record tests/golden/*.jsonl
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiekai.eval import common as ec

#: Where the golden logs live in the repository.
GOLDEN_DIR = ec.REPO / "tests" / "golden"
#: Photos of the small Kiek deck: the first this many files of the dev deck's labels.csv.
DECK_SIZE = 30
#: Data fields that make up a game (cards, words, verdicts, scores; Kismet's dice, cards and
#: chips). Anything else in an event's data is encoding.
SIGNATURE_KEYS: tuple[str, ...] = (
    # Kiek
    "table", "hand_size", "hands", "each", "played", "three", "two", "stake", "forfeited",
    "word", "words", "secret", "callers", "right", "credited", "repeats", "ruled", "points",
    "totals", "penalised", "card", "for", "cards", "turns_played", "scores", "ranking",
    "winner", "round", "verdicts", "accepted",
    # Kismet
    "game", "players", "circle", "dice", "values", "slot", "value", "result", "chips",
    "minus", "knock",
)  # fmt: skip


@dataclass(frozen=True)
class GoldenGame:
    """One recorded game.

    Attributes:
        name: the log's file stem in :data:`GOLDEN_DIR`.
        args: the ``kiekai`` command-line arguments after the program name, without
            ``--log`` (the deck and house-rules paths are filled in by :func:`command`).
        deck: ``"labels"``, ``"pixels"`` (the small dev deck, :func:`make_deck`) or ``""``.
    """

    name: str
    args: tuple[str, ...]
    deck: str = ""


def _kiek(perception: str, bots: int, seed: int) -> GoldenGame:
    extra = ("--perception", "classifier") if perception == "pixels" else ("--perception", "labels")
    args = (
        "play",
        "--bots",
        str(bots),
        "--humans",
        "0",
        "--seed",
        str(seed),
        "--rounds",
        "1",
        *extra,
    )
    return GoldenGame(f"kiek-{perception}-{bots}bots-seed{seed}", args, perception)


def _kismet(variant: bool, seed: int) -> GoldenGame:
    kind = "--variant" if variant else "--base-game"
    args = ("kismet", "--humans", "0", "--bots", "3", "--seed", str(seed), kind)
    return GoldenGame(f"kismet-{'variant' if variant else 'base'}-seed{seed}", args)


#: Every golden game.
GAMES: tuple[GoldenGame, ...] = tuple(
    [_kiek(p, b, s) for p in ("labels", "pixels") for b in (3, 5) for s in (1, 2, 3)]
    + [_kismet(v, s) for v in (False, True) for s in (1, 2, 3)]
)


def make_deck(folder: Path, kind: str, source: Path | None = None) -> Path:
    """Build the small Kiek deck in ``folder``: the first :data:`DECK_SIZE` photos of
    ``source`` (default: the shared dev deck) by their labels.csv order, as symbolic links
    under ``photos/``, with those rows of labels.csv for ``kind == "labels"``.

    Raises:
        FileNotFoundError: ``source`` has no labels.csv.
        ValueError: ``kind`` is neither ``labels`` nor ``pixels``.
    """
    if kind not in ("labels", "pixels"):
        raise ValueError(f"unknown golden deck kind {kind!r}: use labels or pixels")
    source = Path(source or ec.SHARED / "decks" / "imagenet-dev")
    with open(source / "labels.csv", encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        fields = list(reader.fieldnames or [])
        rows = sorted(reader, key=lambda r: r["file"])[:DECK_SIZE]
    (folder / "photos").mkdir(parents=True, exist_ok=True)
    for row in rows:
        link = folder / row["file"]
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.exists():
            link.symlink_to((source / row["file"]).resolve())
    if kind == "labels":
        with open(folder / "labels.csv", "w", encoding="utf-8", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
    return folder


def cli_args(game: GoldenGame, log: Path, workdir: Path) -> list[str]:
    """The ``kiekai`` arguments (after the program name) that play ``game`` into ``log``;
    its deck and an empty house-rules file are made under ``workdir``."""
    args = [*game.args, "--log", str(log)]
    if game.deck:
        deck = make_deck(workdir / f"deck-{game.deck}", game.deck)
        rules = workdir / "house-rules.tsv"
        rules.touch()
        args += ["--deck", str(deck), "--house-rules", str(rules)]
    return args


def command(game: GoldenGame, log: Path, workdir: Path) -> list[str]:
    """The full command line (this Python, ``-m kiekai``) of :func:`cli_args`."""
    return [sys.executable, "-m", "kiekai", *cli_args(game, log, workdir)]


def play(game: GoldenGame, workdir: Path, timeout: float = 600) -> Path:
    """Play ``game`` again through the command line; the path of its new log.

    Raises:
        RuntimeError: the command failed (its output in the message).
    """
    workdir.mkdir(parents=True, exist_ok=True)
    log = workdir / f"{game.name}.jsonl"
    if log.exists():
        log.unlink()
    env = {**os.environ, "COLUMNS": "120"}
    done = subprocess.run(
        command(game, log, workdir), capture_output=True, text=True, timeout=timeout, env=env,
        cwd=ec.REPO,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(
            f"{game.name}: exit {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        )
    return log


def _project(value: Any) -> Any:
    """A JSON value with photo paths reduced to their file names (deck folders differ)."""
    if isinstance(value, str) and value.endswith((".jpg", ".jpeg", ".png", ".JPEG")):
        return Path(value).name
    if isinstance(value, list):
        return [_project(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _project(v) for k, v in sorted(value.items())}
    return value


def game_signature(events: Iterable[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a log's game is: per event ``(type, turn, player, {key: value})`` over
    :data:`SIGNATURE_KEYS` present in its data (photo paths as file names); header events
    (versions, paths, options) are left out."""
    out: list[tuple[Any, ...]] = []
    for event in events:
        kind = event.get("type")
        if kind == "header":
            continue
        data = event.get("data") or {}
        kept = {k: _project(data[k]) for k in SIGNATURE_KEYS if k in data}
        out.append((kind, event.get("turn"), event.get("player"), json.dumps(kept, sort_keys=True)))
    return out


def read_events(path: Path) -> list[dict[str, Any]]:
    """The events of a JSON-lines log, in order."""
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def first_difference(
    golden: Sequence[tuple[Any, ...]], now: Sequence[tuple[Any, ...]]
) -> str | None:
    """Where two signatures first differ, in words (``None`` when they are the same)."""
    for i, (a, b) in enumerate(zip(golden, now, strict=False)):
        if a != b:
            return f"event {i}: golden {a} != now {b}"
    if len(golden) != len(now):
        return f"golden has {len(golden)} events, now {len(now)}"
    return None


def record(
    games: Sequence[GoldenGame] = GAMES, folder: Path = GOLDEN_DIR, echo: Any = print
) -> None:
    """Play every game into ``folder`` (the golden logs)."""
    import tempfile

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for game in games:
            log = play(game, Path(tmp))
            (folder / f"{game.name}.jsonl").write_text(
                log.read_text(encoding="utf-8"), encoding="utf-8"
            )
            echo(f"recorded {game.name}: {len(read_events(log))} events")


def main(argv: Sequence[str] | None = None) -> int:
    """``scripts/record_golden_logs.py``: record every golden game."""
    import argparse

    parser = argparse.ArgumentParser(description="Record the golden logs (tests/golden/).")
    parser.add_argument(
        "--only", nargs="*", default=None, help="game names to record (default: all)"
    )
    args = parser.parse_args(argv)
    games = [g for g in GAMES if args.only is None or g.name in args.only]
    record(games)
    return 0
