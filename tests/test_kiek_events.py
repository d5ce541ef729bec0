"""Typed Kiek events end to end: the engine writes the event models, readers dispatch on them.

A field renamed on one side (writer or model) must break a test here, not leave a front end
showing a default.
"""

from __future__ import annotations

import pytest
from kiek_helpers import ScriptedPlayer, TableJudge, make_cards

from kiekai.clock import VirtualClock
from kiekai.events import (
    EVENT_DATA,
    Event,
    KiekGuess,
    KiekKeep,
    KiekPlay,
    KiekVerdict,
    check_event,
    typed,
)
from kiekai.kiek.describe import Describer, describe
from kiekai.kiek.game import play_game
from kiekai.kiek.settings import GameSettings


def _game(calls: bool = True) -> tuple[Event, ...]:
    words = [["dog", "red", "people"], ["dog", "cat"], ["red", "sky", "dog"]]
    players = [ScriptedPlayer(f"Bot {i + 1}", words[i], calls=calls) for i in range(3)]
    outcome = play_game(
        players,
        make_cards(30),
        judge=TableJudge(),
        settings=GameSettings(seed=4, rounds=2),
        clock=VirtualClock(),
    )
    return outcome.events


def test_every_written_event_carries_its_model_and_reads_back_to_it() -> None:
    """Each event of a game is built from its model: ``data`` is the model's dump, and the
    line read back (:func:`check_event`) gives the same model."""
    events = _game()
    assert {e.type for e in events} >= {"header", "setup", "turn", "play", "verdict", "score"}
    for event in events:
        assert event.payload is not None, event.type
        assert type(event.payload) is EVENT_DATA["kiek"][event.type]
        again = check_event(Event.from_json(event.to_json()), "kiek")
        assert again.payload == event.payload, event.type


def test_the_writer_refuses_a_field_its_model_does_not_name() -> None:
    """A misspelt or renamed field fails at the writer instead of reaching the log."""
    with pytest.raises(ValueError, match="no field 'wrod'"):
        Event.of(KiekGuess.model_validate({"word": "dog", "wrod": "dog"}))
    with pytest.raises(TypeError, match="not a registered event model"):
        Event.of(object())  # type: ignore[arg-type]


def test_a_field_left_at_its_default_is_not_written_but_reads_back() -> None:
    """The log holds the fields the engine set; a reader gets the model's defaults for the rest."""
    event = Event.of(KiekPlay(played=["a", "b"], three=["a", "b", "c"], two=["d", "e"]), turn=2)
    assert event.type == "play" and event.turn == 2
    assert dict(event.data) == {"played": ["a", "b"], "three": ["a", "b", "c"], "two": ["d", "e"]}
    read = check_event(Event.from_json(event.to_json()), "kiek").payload
    assert isinstance(read, KiekPlay) and read.forfeited is False and read.wrote_word is True


def test_a_dict_with_a_renamed_field_says_nothing_instead_of_defaults() -> None:
    """An event whose data lacks a required field (say ``guess`` renamed) does not fit its
    model: the describer shows no line for it rather than a verdict on an empty word."""
    good = {"secret": "dog", "guess": "hound", "accepted": True, "scored": 2}
    assert isinstance(typed(Event("verdict", 0, 1, good), "kiek"), KiekVerdict)
    lines = describe(Event("verdict", 0, 1, good))
    assert [line.plain for line in lines] == [
        "  seat 1: 'hound' vs 'dog': match +2 each",
    ]
    renamed = {k if k != "guess" else "guessed" for k in good}
    bad = {k: good.get(k, "hound") for k in renamed}
    assert typed(Event("verdict", 0, 1, bad), "kiek") is None
    assert describe(Event("verdict", 0, 1, bad)) == []


def test_every_event_type_but_the_secret_ones_is_described() -> None:
    """Every Kiek event model has a describing method, except a guess (never shown before
    the reveal) and a keep (the discard says what stays); a game's events say something."""
    from kiekai.kiek import describe as module

    assert set(EVENT_DATA["kiek"].values()) - set(module._HANDLERS) == {KiekGuess, KiekKeep}
    describer = Describer()
    said = {e.type for e in _game() if describer.describe(e)}
    assert said >= {"header", "setup", "turn", "play", "reveal", "verdict", "score", "game-over"}


def test_the_describer_uses_the_headers_names_and_the_setups_labels() -> None:
    """Players are named from the header and cards from its card names; styles tag the
    verdict's outcome."""
    describer = Describer()
    lines = [line for e in _game() for line in describer.describe(e)]
    text = "\n".join(line.plain for line in lines)
    assert "Bot 1" in text and "thing" in text and "c0" not in text
    assert any(line.kind == "rule" and "is active" in line.plain for line in lines)
    styles = {span.style for line in lines for span in line.spans}
    assert {"green", "red", "dim", "bold"} <= styles
    rows = [line for line in lines if line.kind == "row"]
    assert rows[0].cells == ("Place", "Player", "Points", "Last active turn")
    assert len(rows) == 4 and all(len(r.cells) == 4 for r in rows)


def test_the_web_log_panel_shows_the_describers_lines_not_a_scraped_printout() -> None:
    """The web table keeps the describer's lines (styles and all) for its log panel, the
    final table included as rows, and records each turn from the typed events."""
    from kiekai.web.table import WebTable

    events = _game()
    names = [p.name for p in events[0].payload.players]  # type: ignore[union-attr]
    table = WebTable(names, [0], make_cards(30), {}, TableJudge())
    for event in events:
        table.on_event(event)
    describer = Describer()
    expected = [line for e in events for line in describer.describe(e)][-len(table.log_lines) :]
    assert list(table.log_lines) == expected
    assert any(line.kind == "row" and line.cells[0] == "1" for line in table.log_lines)
    assert table.final is not None and table.final.winner in range(3)
    assert all(record.scored for record in table.turns)
    verdicts = [v for record in table.turns for v in record.verdicts.values()]
    assert verdicts and all(isinstance(v, KiekVerdict) for v in verdicts)


def test_the_engine_snapshot_is_a_frozen_copy_of_the_table() -> None:
    """:meth:`KiekEngine.snapshot` gives plain values that do not move with the engine."""
    import dataclasses

    from kiekai.kiek.engine import KiekEngine

    engine = KiekEngine(make_cards(30), 3, judge=TableJudge(), seed=1)
    snap = engine.snapshot()
    assert snap.phase == "play" and snap.turn == 0 and snap.waiting_for == (engine.active,)
    assert snap.hands == tuple(tuple(c.id for c in h) for h in engine.hands)
    assert snap.table == tuple(c.id for c in engine.table) and snap.scores == (0, 0, 0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.turn = 3  # type: ignore[misc]
    engine.play(None)
    assert snap.phase == "play" and engine.snapshot().phase == "keep"
