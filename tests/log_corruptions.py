"""Damaged Kiek game logs for the replay tests (a test helper, not in the package).

:func:`game_log_lines` plays a short deterministic game (scripted seats, the table judge) and
returns its JSON lines; :func:`corruptions` derives the damaged variants that a break-it run
of ``kiekai replay`` tried (issue 11, point 4): a field of the record made null, a list, a
string; ``data`` of the wrong JSON type; a null in every field of the play, reveal, discard,
score and game-over events; ``players`` a string; a line nested 100,000 deep; lines that are
not JSON, not UTF-8 or cut short; counts that do not fit together. Each variant is
``(name, content bytes, first bad line number or None for a clean variant)``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from kiek_helpers import ScriptedPlayer, TableJudge, make_cards

from kiekai.clock import VirtualClock
from kiekai.events import EventLog
from kiekai.kiek.game import play_game
from kiekai.kiek.settings import GameSettings


def game_log_lines(tmp: Path, players: int = 3) -> list[str]:
    """The JSON lines of a whole 3-round game of ``players`` scripted seats (seed 7)."""
    words = [["dog", "red", "people"], ["dog", "cat"], ["red", "sky", "dog"], ["sea"]]
    seats = [ScriptedPlayer(f"Bot {i + 1}", words[i % 4]) for i in range(players)]
    path = tmp / "clean.jsonl"
    path.unlink(missing_ok=True)
    with EventLog(path) as log:
        play_game(
            seats,
            make_cards(40),
            judge=TableJudge(),
            settings=GameSettings(seed=7),
            clock=VirtualClock(),
            log=log,
        )
    return path.read_text(encoding="utf-8").splitlines()


def _index(lines: list[str], event_type: str) -> int:
    return next(i for i, line in enumerate(lines) if json.loads(line)["type"] == event_type)


def _edit(lines: list[str], index: int, change) -> list[str]:
    record = json.loads(lines[index])
    change(record)
    return [*lines[:index], json.dumps(record), *lines[index + 1 :]]


def _join(lines: list[str]) -> bytes:
    return ("\n".join(lines) + "\n").encode("utf-8")


def corruptions(lines: list[str]) -> Iterator[tuple[str, bytes, int | None]]:
    """Every damaged variant of the log ``lines`` (see the module docstring)."""
    play = _index(lines, "play")
    yield "clean", _join(lines), None

    # the record's own fields, on a mid-game event
    for value_name, value in [("null", None), ("list", [1]), ("string", "3"), ("float", 1.5),
                              ("bool", True), ("object", {"a": 1}), ("negative", -7)]:  # fmt: skip
        yield (
            f"turn-{value_name}",
            _join(_edit(lines, play, lambda r, v=value: r.update(turn=v))),
            play + 1,
        )
    for value_name, value in [("list", [0]), ("string", "0"), ("negative", -1)]:
        yield (
            f"player-{value_name}",
            _join(_edit(lines, play, lambda r, v=value: r.update(player=v))),
            play + 1,
        )
    for value_name, value in [("list", [1, 2]), ("string", "data"), ("number", 5), ("true", True)]:
        yield (
            f"data-{value_name}",
            _join(_edit(lines, play, lambda r, v=value: r.update(data=v))),
            play + 1,
        )
    yield "type-missing", _join(_edit(lines, play, lambda r: r.pop("type"))), play + 1
    yield "type-number", _join(_edit(lines, play, lambda r: r.update(type=3))), play + 1
    yield "type-empty", _join(_edit(lines, play, lambda r: r.update(type=""))), play + 1
    yield "type-unknown", _join(_edit(lines, play, lambda r: r.update(type="teleport"))), play + 1

    # a null in every field of the events the replay prints
    for event_type in (
        "play",
        "reveal",
        "discard",
        "score",
        "game-over",
        "verdict",
        "turn",
        "call",
    ):
        try:
            index = _index(lines, event_type)
        except StopIteration:
            continue
        for key in list(json.loads(lines[index])["data"]):
            if event_type in ("call",) and key in ("reasons",):
                continue
            variant = _edit(lines, index, lambda r, k=key: r["data"].update({k: None}))
            if variant != lines:
                yield f"{event_type}-{key}-null", _join(variant), index + 1

    # the header: players and names
    yield (
        "players-string",
        _join(_edit(lines, 0, lambda r: r["data"].update(players="Bot 1, Bot 2"))),
        1,
    )
    yield (
        "players-strings",
        _join(_edit(lines, 0, lambda r: r["data"].update(players=["a", "b"]))),
        1,
    )
    yield (
        "player-name-null",
        _join(_edit(lines, 0, lambda r: r["data"]["players"][0].update(name=None))),
        1,
    )
    yield "header-missing", _join(lines[1:]), 1
    yield "header-not-kiek", _join(_edit(lines, 0, lambda r: r["data"].update(game="kismet"))), 1

    # counts that do not fit together
    score = _index(lines, "score")
    yield (
        "score-lengths",
        _join(_edit(lines, score, lambda r: r["data"].update(points=[1]))),
        score + 1,
    )
    over = _index(lines, "game-over")
    yield (
        "ranking-out-of-range",
        _join(_edit(lines, over, lambda r: r["data"].update(ranking=[9, 0]))),
        over + 1,
    )
    yield (
        "winner-out-of-range",
        _join(_edit(lines, over, lambda r: r["data"].update(winner=6))),
        over + 1,
    )
    yield (
        "seat-list-huge",
        _join(_edit(lines, over, lambda r: r["data"].update(ranking=[0] * 10**5))),
        over + 1,
    )

    # lines that are not events
    deep = '{"type": "turn", "turn": 1, "data": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    yield "nested-100k", _join([*lines[:play], deep, *lines[play:]]), play + 1
    yield (
        "nested-40",
        _join(
            [
                *lines[:play],
                '{"type":"turn","data":{"x":' + "[" * 40 + "]" * 40 + "}}",
                *lines[play:],
            ]
        ),
        play + 1,
    )
    yield "not-json", _join([*lines[:play], "this is not json", *lines[play:]]), play + 1
    yield "array-line", _join([*lines[:play], "[1, 2, 3]", *lines[play:]]), play + 1
    yield "number-line", _join([*lines[:play], "42", *lines[play:]]), play + 1
    yield "null-line", _join([*lines[:play], "null", *lines[play:]]), play + 1
    yield "empty-object", _join([*lines[:play], "{}", *lines[play:]]), play + 1
    yield (
        "huge-int",
        _join([*lines[:play], '{"type":"turn","turn":' + "9" * 5000 + "}", *lines[play:]]),
        play + 1,
    )
    yield "nan-turn", _join([*lines[:play], '{"type":"turn","turn":NaN}', *lines[play:]]), play + 1
    yield "cut-mid-line", _join(lines[:play]) + lines[play][: len(lines[play]) // 2].encode(), None
    yield "cut-mid-file", _join([*lines[:play], lines[play][:20], *lines[play + 1 :]]), play + 1
    raw = _join(lines)
    cut = raw.index(lines[play].encode())
    yield "not-utf8", raw[:cut] + b"\xff\xfe\x80 junk\n" + raw[cut:], play + 1
    yield "nul-bytes", raw[:cut] + b'{"type":"\x00"}\n' + raw[cut:], play + 1
    # a lone surrogate (a deck file name that is not UTF-8) in a card's id and label, the
    # same on every line (one word read aloud changed alone would contradict the rules)
    card = json.loads(lines[play])["data"]["played"][0]
    label = json.loads(lines[1])["data"]["labels"][card]
    yield (
        "lone-surrogate",
        _join(
            [
                line.replace(f'"{card}"', f'"{card}\\ud800"').replace(
                    f'"{label}"', f'"{label}\\ud800"'
                )
                for line in lines
            ]
        ),
        None,
    )
    yield "crlf", "\r\n".join(lines).encode() + b"\r\n", None
    yield "bom", b"\xef\xbb\xbf" + raw, None
    yield "blank-lines", _join([lines[0], "", "   ", *lines[1:]]), None
    yield "empty-file", b"", 1
    yield "only-blank", b"\n\n\n", 1
    yield "binary", bytes(range(256)) * 4, 1
