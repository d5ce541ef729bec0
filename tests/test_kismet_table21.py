"""Issue 21 (point 4), the Kismet points of the tmux play-test, one test (or more) each.

Each test fails on the main branch before issue 21 and names the rulebook sentence
(../shared/rules/kismet.txt) or the Reading of docs/kismet.md it rests on. Tables run on a
VirtualClock (time moves with ``app.advance``/``app.step``), except the test of the log's
``t`` on the real monotonic clock.
"""

from __future__ import annotations

import statistics

import pytest

from kiekai.clock import MonotonicClock, VirtualClock
from kiekai.events import Event
from kiekai.kismet.bots import CHOICE_RT_FLOOR_S, CoverPlan, ReflexBot, _pre_lay_options
from kiekai.kismet.engine import KismetCard, VariantGame, replay
from kiekai.kismet.prose import describe, printout
from kiekai.kismet.rules import DEFAULT_RULES, VALUES
from kiekai.kismet.table import BaseTable, VariantTable, make_table, seat_names
from kiekai.ui.kismet_app import COUNTDOWN_S, KismetApp


class LoadedDice:
    """Stands in for the engine's ``random.Random``: ``randint`` returns the given pips."""

    def __init__(self, *pips: int) -> None:
        self.pips = list(pips)

    def randint(self, a: int, b: int) -> int:
        return self.pips.pop(0)


def text_of(app: KismetApp, selector: str) -> str:
    return str(app.query_one(selector).render())


def base_app(seed: int = 3, players: int = 4, **kw) -> tuple[KismetApp, BaseTable]:
    table = make_table(players, variant=False, seed=seed, clock=VirtualClock(), humans=1)
    assert isinstance(table, BaseTable)
    return KismetApp(table, realtime=False, **kw), table


def variant_app(seed: int = 2, players: int = 3, rounds: int = 1, **kw):
    table = make_table(
        players, variant=True, seed=seed, clock=VirtualClock(), humans=1, rounds=rounds
    )
    assert isinstance(table, VariantTable)
    return KismetApp(table, realtime=False, **kw), table


def cards(*values: int, set_: int = 1) -> list[KismetCard]:
    return [KismetCard(v, set_) for v in values]


# --- variant: the round's results stay --------------------------------------------------


@pytest.mark.asyncio
async def test_variant_round_results_stay_until_the_person_starts_the_next_round():
    """Before, the next round was dealt 2 s after the last card, wiping the places. With a
    person at the table the results stay (a minute later too) and Enter deals the next."""
    app, table = variant_app(rounds=2)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        app.step()
        await pilot.press("enter")  # pre-lay nothing
        while game.phase != "round_over":  # the person sits out; his turns time out
            assert app.step()
        placements = list(game.placements)
        app.advance(60.0)
        assert game.phase == "round_over" and game.round == 0
        assert "place" in text_of(app, "#rows")
        assert "Enter starts round 2 of 2" in text_of(app, "#status")
        await pilot.press("enter")
        assert game.round == 1 and game.phase == "pre_lay"
        assert game.history[0] == placements  # the first round's places are kept


def test_bots_alone_still_go_on_after_a_short_pause():
    table = make_table(3, variant=True, seed=4, clock=VirtualClock(), rounds=2)
    from kiekai.kismet.table import run_headless

    assert isinstance(table.clock, VirtualClock)
    run_headless(table, table.clock)
    assert len(table.game.history) == 2


# --- base game: the round limit is visible -----------------------------------------------


def _two_seat_base_app() -> tuple[KismetApp, BaseTable]:
    """The person and one bot; the circle holds four 4s and the dice make only 2 and 4, so
    the bot takes one 4 and three stay open: the round runs to its limit."""
    app, table = base_app(players=2)
    game = table.game
    game.circle = cards(4, 4, 4, 4, 7, 8, 9, 10, 11, 12, 7)
    game.rng = LoadedDice(1, 1, 3)
    return app, table


@pytest.mark.asyncio
async def test_base_round_limit_is_counted_down_and_times_up_is_said():
    app, table = _two_seat_base_app()
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        app.advance(COUNTDOWN_S)
        assert game.phase == "cover"
        assert f"{table.round_limit:.0f} s left" in text_of(app, "#dice")
        app.advance(5.0)
        assert f"{table.round_limit - 5:.0f} s left" in text_of(app, "#dice")
        app.advance(table.round_limit - 5 + 0.01)
        assert game.phase == "roll" and table.last_round.timed_out
        assert "time's up" in text_of(app, "#dice")
        assert "Time's up" in text_of(app, "#status")


def test_a_round_that_every_player_finished_is_not_timed_out():
    table = make_table(3, variant=False, seed=1, clock=VirtualClock())
    table.start()
    while table.game.round == 0:
        due = table.scheduler.next_due()
        table.clock.advance(due - table.clock.now())
        table.run_due()
    assert table.last_round is not None and not table.last_round.timed_out


# --- variant: idle at "r takes the dice" -------------------------------------------------


@pytest.mark.asyncio
async def test_idle_at_take_the_dice_is_said_truthfully_in_the_event_and_the_message():
    """Reading 18: the table takes the dice for an idle person after the turn limit; the
    roll event says so (``timed_out``), the event list does not claim "you roll", and the
    log replays to the same game."""
    app, table = variant_app(seed=5, players=2)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        app.step()
        await pilot.press("enter")
        assert game.phase == "await_roll" and game.next_roller == 0
        app.advance(table.turn_limit + 0.01)
        assert game.phase == "turn" and game.roller == 0
        roll = next(e for e in reversed(game.log.events) if e.type == "roll")
        assert roll.data["timed_out"] is True
        line = describe(roll, app.names)
        assert "the table rolls" in line and "you roll" not in line
        assert "the table rolled for you" in table.message
        assert "the table rolls" in text_of(app, "#events")
    again = replay(game.log.events)
    assert again.log.events[-1].data == game.log.events[-1].data


# --- the log's t --------------------------------------------------------------------------


def test_a_persons_game_clock_counts_from_0_and_never_jumps():
    """The log's ``t`` started at 0.0 in setup and then jumped to the machine's monotonic
    reading (366.39 s). Now a person's game counts from its setup."""
    from kiekai.commands.kismet import GuardedLog, _table

    table, clock = _table(2, 1, True, "normal", 7, 1, DEFAULT_RULES, GuardedLog(None))
    assert isinstance(clock, MonotonicClock)
    table.start()
    table.run_due()  # the deal, at once
    table.human_pre_lay(0, ())
    stamps = [float(e.data.get("t", 0.0)) for e in table.game.log.events]
    assert stamps[0] == 0.0
    assert all(0.0 <= t < 5.0 for t in stamps), stamps
    assert stamps == sorted(stamps)


def test_key_stamps_are_put_on_the_game_clock():
    clock = MonotonicClock(origin=100.0)
    assert clock.stamp(103.5) == pytest.approx(3.5)
    assert MonotonicClock.from_now().now() < 1.0


# --- the person's name ---------------------------------------------------------------------


def test_the_person_is_you_in_events_as_in_messages():
    names = seat_names(3, 1)
    assert names[0] == "you"

    def line(kind: str, data: dict, player: int = 0) -> str:
        text = describe(Event(type=kind, turn=1, player=player, data=data), names)
        assert text is not None
        return text

    assert "you cover card c" in line("cover", {"slot": 2, "t": 1.0})
    assert "you take the 9" in line(
        "reveal", {"slot": 1, "card": "9/0", "value": 9, "correct": True, "points": 3, "t": 1}
    )
    assert "you pass" in line("pass", {"overlooked": False, "t": 1.0})
    assert "your time ran out" in line("pass", {"overlooked": False, "timed_out": True})
    assert "you roll 1, 2 and 3" in line("roll", {"dice": [1, 2, 3], "values": [3, 4, 5]})
    assert "you knock first and lay the 5" in line(
        "knock", {"valid": True, "result": "lay", "card": 5, "roller": 1}
    )
    assert "(you still have a 7)" in line(
        "knock",
        {"valid": False, "result": "penalty", "card": 2, "roller": 0, "why": "roller_can_lay",
         "values": [7]},
        player=1,
    )  # fmt: skip
    assert "human" not in " ".join(names.values())


# --- refilled cards at once --------------------------------------------------------------


@pytest.mark.asyncio
async def test_refilled_cards_are_shown_at_once_with_who_won_the_card_before():
    app, table = base_app()
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        while True:
            while game.phase != "cover":
                assert app.step()
            while game.phase == "cover":
                assert app.step()
            won = [r for r in table.last_round.reveals if r.correct]
            if won and not game.over:
                break
        reveal = won[0]
        shown = text_of(app, f"#slot{reveal.slot}")
        new = game.circle[reveal.slot]
        assert new is not None and new != reveal.card
        assert shown.split("\n")[0] == str(new.value)  # the new card, before the next roll
        assert f"{app.names[reveal.player]} won {reveal.card.value}" in shown


# --- bots beaten to a card ---------------------------------------------------------------


def test_a_bot_beaten_to_its_card_turns_to_another_at_once_not_at_its_planned_time():
    """Two bots reach for the same 4 (planned at 1.0 s and 2.0 s); the first hand lands at
    1.0 s. The second bot sees it then and chooses among the matches it has found (another
    4): its reaction counts from 1.0 s, a choice reaction (>= the floor), not a new search
    started at its own planned 2.0 s."""
    table = make_table(3, variant=False, seed=0, clock=VirtualClock())
    assert isinstance(table, BaseTable)
    game = table.game
    game.circle = cards(4, 4, 7, 8, 9, 10, 11, 12, 7, 8, 9)
    game.rng = LoadedDice(1, 1, 3)  # makes 2 and 4
    for seat, delay in ((0, 1.0), (1, 2.0)):
        bot = table.bots[seat]
        first = [CoverPlan(delay, 0)]

        def plan(circle, open_slots, dice, bot=bot, first=first):
            return first.pop() if first else ReflexBot.plan_cover(bot, circle, open_slots, dice)

        bot.plan_cover = plan  # type: ignore[method-assign]
    table.bots[2].plan_cover = lambda *a: None  # type: ignore[method-assign]
    table.start()
    table.run_due(0.0)  # the roll
    table.clock.advance(1.0)
    table.run_due()
    assert game.covers[0].slot == 0
    due = table.scheduler.due_of("bot1")
    assert due is not None and due != 2.0
    assert due >= 1.0 + CHOICE_RT_FLOOR_S
    table.clock.advance(due - table.clock.now())
    table.run_due(due)  # bot1 covers the other 4, and with no 4 left open the round ends
    cover = next(e for e in game.log.events if e.type == "cover" and e.player == 1)
    assert cover.data["slot"] == 1 and cover.data["t"] == due
    late = [r for r in table.reactions if r.seat == 1 and r.kind == "cover"]
    assert late and late[0].seconds == pytest.approx(due - 1.0)


def test_a_re_plan_is_a_choice_among_found_cards_faster_than_a_new_search():
    bot = ReflexBot("normal", seed=1)
    circle = [4, 4, 7, 8, 9, 10, 11, 12, 7, 8, 9]
    full = [bot.plan_cover(circle, range(11), (1, 1, 3)).delay for _ in range(400)]
    again = [bot.replan_cover(circle, [1, *range(2, 11)], (1, 1, 3)).delay for _ in range(400)]
    assert min(again) >= CHOICE_RT_FLOOR_S
    assert statistics.median(again) < statistics.median(full)
    assert bot.replan_cover(circle, range(2, 11), (1, 1, 3)) is None  # no 4 left open


# --- pre-lays --------------------------------------------------------------------------------


def test_bots_do_not_all_pre_lay_the_2():
    """The 2 and the 12 are equally hard to roll and cost the same 6 minus points: equally
    good pre-lays are drawn at random (before, every seeking bot took the 2)."""
    chosen = [ReflexBot("expert", seed=s).plan_pre_lay(list(VALUES)) for s in range(60)]
    assert chosen.count((2,)) >= 15 and chosen.count((12,)) >= 15, chosen
    best = _pre_lay_options(tuple(VALUES), 6, tuple(sorted(DEFAULT_RULES.chips.items())))[:2]
    assert set(best) == {(2,), (12,)}


# --- play again ------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_n_plays_again_at_the_end():
    made: list[VariantTable] = []

    def new_table():
        fresh = make_table(3, variant=True, seed=9, clock=VirtualClock(), humans=1, rounds=1)
        made.append(fresh)
        return fresh

    app, table = variant_app(new_table=new_table)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        app.step()
        await pilot.press("enter")
        while not table.done:
            assert app.step()
        assert "n plays again" in text_of(app, "#status")
        await pilot.press("n")
        assert app.table is made[0] and app.finished == [table]
        assert app.table.started
        app.step()  # the new deal
        assert app.table.game.phase == "pre_lay"
        assert "Pre-lay" in text_of(app, "#status")


@pytest.mark.asyncio
async def test_without_a_new_table_the_end_offers_only_q():
    app, table = variant_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        app.step()
        await pilot.press("enter")
        while not table.done:
            assert app.step()
        await pilot.press("n")
        assert app.table is table and "q leaves" in text_of(app, "#status")


# --- knocking: joker throws and overlooks --------------------------------------------------


def _joker_game() -> VariantGame:
    """Seat 0 rolls 2, 2, 2; seat 1 still has its 4, seat 2 has laid its 4 (pre-lay)."""
    game = VariantGame(3, seed=0)
    game.start_round()
    game.pre_lay(0, ())
    game.pre_lay(1, ())
    game.pre_lay(2, (4,))
    game.rng = LoadedDice(2, 2, 2)
    game.roll(0)
    return game


def test_a_knock_between_the_jokers_4_and_its_extra_card_is_right():
    """Rulebook, "Knocking": the others may knock "if they could lay down a card themselves
    and the player no longer has a matching card in front of him". After the 4 of a 2-2-2
    joker throw the roller has no matching card (the extra card is "any other card", not a
    matching one), so a knock by a player with a 4 is right, and the roller keeps his extra
    card ("he may lay down that card and, in addition, any other card")."""
    game = _joker_game()
    game.lay(0, 4, t=1.0)
    outcome = game.knock(1, t=1.5)
    assert outcome.valid and outcome.result == "lay" and outcome.card == 4
    game.lay(0, 12, t=2.0)  # the extra card is still his
    assert game.laid[0] == [4, 12]


def test_a_knock_on_a_joker_before_the_roller_lays_his_4_is_wrong():
    game = _joker_game()
    game.laid[1] = [9]
    outcome = game.knock(1, t=0.5)
    assert not outcome.valid and outcome.why == "roller_can_lay"
    assert outcome.result == "penalty" and outcome.card == 9


def test_a_knock_on_a_joker_without_the_4_is_wrong():
    game = _joker_game()
    game.lay(0, 4, t=1.0)
    outcome = game.knock(2, t=1.5)  # seat 2 laid its 4 before the round
    assert not outcome.valid and outcome.why == "cannot_lay" and outcome.values == (4,)


def test_an_overlook_is_not_announced_at_the_table_only_in_the_printed_game():
    """Rulebook, "Knocking": the others "may knock when the player passes on his turn and
    overlooks that he could lay down a card": they have to see it themselves; an event
    line saying "overlooking ... others may knock" would spot it for the person."""
    names = seat_names(3, 1)
    event = Event(type="pass", turn=3, player=1, data={"overlooked": True, "t": 4.0})
    shown = describe(event, names, show_values=False)
    assert shown is not None and "overlook" not in shown and "knock" not in shown
    printed = "\n".join(printout([event], names))
    assert "overlooking a card" in printed


@pytest.mark.asyncio
async def test_the_event_list_does_not_say_a_bot_overlooked():
    app, table = variant_app(seed=5, players=2)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        app.step()
        await pilot.press("enter")
        game.log.append(Event(type="pass", turn=9, player=1, data={"overlooked": True, "t": 1}))
        app.redraw()
        events = text_of(app, "#events")
        assert "bot1 passes" in events and "overlook" not in events


@pytest.mark.asyncio
async def test_the_dice_line_speaks_to_the_person_in_the_second_person():
    app, table = variant_app(seed=5, players=2)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.press("s")
        app.step()
        await pilot.press("enter", "r")
        dice = text_of(app, "#dice")
        assert "you have the dice" in dice and "you has" not in dice
