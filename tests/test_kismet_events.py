"""Kismet events are typed: the engine builds the event models, the log is read back
against them and the replay applies them by model type."""

from __future__ import annotations

import pytest

from kiekai.clock import VirtualClock
from kiekai.events import EVENT_DATA, Event, EventLog, KismetCover, KismetRoll, read_log
from kiekai.kismet.engine import replay
from kiekai.kismet.table import make_table, run_headless


@pytest.mark.parametrize("variant", [False, True])
def test_every_kismet_event_is_built_from_its_model(variant: bool, tmp_path) -> None:
    """Each logged event carries its model, reads back to it from the file, and the game
    rebuilt from the file's events writes the same log."""
    path = tmp_path / "game.jsonl"
    clock = VirtualClock()
    with EventLog(path) as log:
        table = make_table(3, variant=variant, seed=5, clock=clock, log=log)
        run_headless(table, clock)
    written = list(table.game.log.events)
    assert written and all(type(e.payload) is EVENT_DATA["kismet"][e.type] for e in written)
    read = list(read_log(path, game="kismet"))
    assert [e.payload for e in read] == [e.payload for e in written]
    again = replay(read)
    assert [e.to_json() for e in again.log.events] == [e.to_json() for e in written]


def test_a_kismet_event_with_a_field_of_another_name_is_refused() -> None:
    """The writer names every field its model has; a log line that misses one does not fit."""
    with pytest.raises(ValueError, match="no field 'slots'"):
        Event.of(KismetCover.model_validate({"slot": 1, "slots": 1}))
    clock = VirtualClock()
    table = make_table(3, variant=False, seed=8, clock=clock)
    run_headless(table, clock)
    events = list(table.game.log.events)
    roll = next(i for i, e in enumerate(events) if isinstance(e.payload, KismetRoll))
    renamed = {("throw" if k == "dice" else k): v for k, v in events[roll].data.items()}
    events[roll] = Event("roll", events[roll].turn, None, renamed)
    with pytest.raises(ValueError, match="'data.dice' is missing"):
        replay(events)


@pytest.mark.parametrize("variant", [False, True])
def test_the_prose_reads_the_typed_data_of_an_event_or_of_a_bare_dict(variant: bool) -> None:
    """The printed game is the same from the engine's typed events and from bare-dict
    events of the same data; an event whose data fits no Kismet model gets no line."""
    from kiekai.kismet.prose import describe, printout, round_result_lines

    clock = VirtualClock()
    table = make_table(3, variant=variant, seed=5, clock=clock, rounds=2)
    run_headless(table, clock)
    written = list(table.game.log.events)
    bare = [Event(e.type, e.turn, e.player, dict(e.data)) for e in written]
    assert all(e.payload is None for e in bare)
    assert list(printout(bare)) == list(printout(written))
    assert describe(Event("cover", 0, 1, {"slot": "c", "t": 1.0})) is None
    assert describe(Event("refill", 0, None, {"circle": []})) is None
    with pytest.raises(ValueError, match="round_over"):
        round_result_lines(written[0], {})
