"""The Textual app driven by a human through Textual's test pilot (App.run_test).

Tables run on a VirtualClock and the tests move time with ``app.advance``/``app.step``, so
nothing depends on real time.
"""

from __future__ import annotations

import asyncio

import pytest

from kiekai.clock import VirtualClock
from kiekai.kismet.table import BaseTable, VariantTable, make_table
from kiekai.ui.kismet_app import CARD_KEYS, KismetApp


def base_app(seed: int = 3, players: int = 4) -> tuple[KismetApp, BaseTable]:
    table = make_table(players, variant=False, seed=seed, clock=VirtualClock(), humans=1)
    assert isinstance(table, BaseTable)
    return KismetApp(table, realtime=False), table


def variant_app(seed: int = 3, players: int = 4) -> tuple[KismetApp, VariantTable]:
    table = make_table(players, variant=True, seed=seed, clock=VirtualClock(), humans=1, rounds=1)
    assert isinstance(table, VariantTable)
    return KismetApp(table, realtime=False), table


def text_of(app: KismetApp, selector: str) -> str:
    return str(app.query_one(selector).render())


def next_roll(app: KismetApp, table: BaseTable) -> None:
    """Run jobs until a fresh round has been rolled."""
    while table.game.phase != "cover":
        assert app.step(), "the game ended before the next roll"


def test_correct_cover_wins_the_card_and_shows_the_hand():
    async def scenario():
        app, table = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            next_roll(app, table)
            game = table.game
            slot = game.open_matching_slots()[0]
            card = game.circle[slot]
            await pilot.press(CARD_KEYS[slot])
            assert game.covers[0].slot == slot
            assert "hand: human" in text_of(app, f"#slot{slot}")
            assert "values" not in text_of(app, "#events")  # forming the sums is the game
            while game.phase == "cover" and len(game.covers) < 2:
                app.step()  # a bot's hand appears as it covers
            assert len(game.covers) == 2  # seed 3: three matching cards, so a bot covers one
            bot = next(c for c in game.covers.values() if c.player != 0)
            assert f"hand: bot{bot.player}" in text_of(app, f"#slot{bot.slot}")
            while game.phase == "cover":
                app.step()
            assert game.piles[0] == [card]
            assert "points: human" in text_of(app, "#scores")

    asyncio.run(scenario())


def test_wrong_cover_hands_back_the_top_card():
    async def scenario():
        app, table = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            game = table.game
            while not game.piles[0]:  # first win a card to have something to lose
                next_roll(app, table)
                if game.open_matching_slots():
                    await pilot.press(CARD_KEYS[game.open_matching_slots()[0]])
                while game.phase == "cover":
                    app.step()
            top = game.piles[0][-1]
            while True:
                next_roll(app, table)
                wrong = [s for s in game.open_slots() if s not in game.matching_slots()]
                if wrong and game.open_matching_slots():
                    break
                while game.phase == "cover":
                    app.step()
            before = len(game.piles[0])
            await pilot.press(CARD_KEYS[wrong[0]])
            while game.phase == "cover":
                app.step()
            assert len(game.piles[0]) == before - 1
            assert game.draw_pile[-1] == top or top in [c for c in game.circle if c]
            assert "human wrong" in text_of(app, "#status")

    asyncio.run(scenario())


def test_held_keys_and_keys_at_the_wrong_moment_do_no_harm():
    async def scenario():
        app, table = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press("a", "space", "x")  # before any roll
            assert table.game.covers == {}
            next_roll(app, table)
            await pilot.press(*("b" * 8))  # a held-down key repeats
            assert list(table.game.covers) == [0]
            assert "only one card" in table.message
            await pilot.press("space")
            assert "variant" in table.message

    asyncio.run(scenario())


def step_to_bot_roll(app: KismetApp, table: VariantTable, want_roller_match: bool):
    """Run jobs (taking the human's turns by keys) until a bot has just rolled and the
    roller's match situation is ``want_roller_match`` (and, for a clean knock, the human has
    a matching card when the roller has none)."""
    game = table.game
    while True:
        assert app.step(), "no more jobs"
        if game.phase == "turn" and game.roller != 0 and not game.laid_this_turn:
            roller_has = bool(game.matching(game.roller))
            if want_roller_match and roller_has:
                return
            if not want_roller_match and not roller_has and game.matching(0):
                return
        assert game.phase != "round_over", "round ended before the situation came up"


def test_pre_lay_and_knocks_by_keys():
    async def scenario():
        app, table = variant_app()
        game = table.game
        async with app.run_test(size=(100, 40)) as pilot:
            app.step()  # deal
            await pilot.press("a", "k", "enter")  # 2 and 12: 12 minus points, too many
            assert 0 not in game.pre_laid and "6 minus points" in table.message
            await pilot.press("k", "enter")  # untoggle 12: pre-lay the 2 only
            assert game.laid[0] == [2]
            # a wrong knock: the roller still has a matching card → turn back the 2
            step_to_bot_roll(app, table, want_roller_match=True)
            await pilot.press("space")
            assert game.laid[0] == [] and 2 in game.fronts[0]
            assert "wrong knock" in table.message
            await pilot.press("space", "space")  # held: one knock per turn
            assert "already knocked" in table.message
            # a right knock: the roller has no match, we do → we lay a card
            step_to_bot_roll(app, table, want_roller_match=False)
            mine = set(game.matching(0))
            await pilot.press("space")
            assert game.laid[0] and game.laid[0][-1] in mine
            assert "you knocked first" in table.message

    asyncio.run(scenario())


def test_own_turn_roll_lay_and_pass_by_keys():
    async def scenario():
        app, table = variant_app(seed=5, players=2)
        game = table.game
        async with app.run_test(size=(100, 40)) as pilot:
            app.step()
            await pilot.press("enter")  # pre-lay nothing
            await pilot.press("p")  # nothing rolled yet: no turn to pass
            assert "only during your own turn" in table.message
            assert game.next_roller == 0
            await pilot.press("r")
            assert game.phase == "turn" and game.roller == 0
            await pilot.press("r")
            assert "not your turn to roll" in table.message
            match = game.matching(0)
            assert match, "seed 5 gives the human a match on the first roll"
            await pilot.press(CARD_KEYS[match[0] - 2])
            assert game.laid[0] == [match[0]]
            await pilot.press("p")
            assert game.phase == "pass" and game.next_roller == 1

    asyncio.run(scenario())


class LoadedDice:
    """Stands in for the engine's ``random.Random``: ``randint`` returns the given pips."""

    def __init__(self, *pips: int) -> None:
        self.pips = list(pips)

    def randint(self, a: int, b: int) -> int:
        return self.pips.pop(0)


def test_joker_throw_lets_the_human_lay_a_second_card():
    async def scenario():
        app, table = variant_app(seed=1, players=3)
        game = table.game
        async with app.run_test(size=(100, 40)) as pilot:
            app.step()
            await pilot.press("enter")
            game.rng = LoadedDice(2, 2, 2)  # a joker throw: only the 4
            await pilot.press("r")
            await pilot.press("l")  # not a card key: ignored
            await pilot.press("k")  # the 12 first: refused, the 4 must come first
            assert "cannot make" in table.message
            await pilot.press("c", "k")  # the 4, then any card: the 12
            assert game.laid[0][-2:] == [4, 12]
            await pilot.press("j")  # a third card: refused
            assert "one card" in table.message and 11 in game.fronts[0]

    asyncio.run(scenario())


def test_tiny_terminal_and_resizing_hide_and_restore_the_table():
    async def scenario():
        app, table = base_app()
        async with app.run_test(size=(30, 8)) as pilot:
            assert app.screen.has_class("small")
            next_roll(app, table)
            await pilot.press(CARD_KEYS[table.game.open_slots()[0]])
            assert 0 in table.game.covers  # keys still work
            await pilot.resize_terminal(100, 40)
            await pilot.pause()
            assert not app.screen.has_class("small")
            await pilot.resize_terminal(10, 3)
            await pilot.pause()
            assert app.screen.has_class("small")

    asyncio.run(scenario())


def test_ctrl_c_and_q_leave_cleanly():
    async def scenario(key: str) -> int | None:
        app, _ = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press(key)
            await pilot.pause()
        return app.return_code

    assert asyncio.run(scenario("ctrl+c")) == 130  # 128 + SIGINT, as a shell reports it
    assert asyncio.run(scenario("q")) == 0
    assert asyncio.run(scenario("escape")) == 0


@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
def test_signals_close_the_app_so_the_terminal_is_restored(name):
    """``kill PID`` (SIGTERM, SIGINT) must end the app through Textual, which leaves the
    alternate screen and switches mouse reporting off; Python's default action on SIGTERM
    would kill the process and leave the terminal showing a frozen game."""
    import os
    import signal

    number = getattr(signal, name)
    received: list[int] = []
    previous = signal.signal(number, lambda signum, frame: received.append(signum))

    async def scenario() -> int | None:
        app, table = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            next_roll(app, table)
            os.kill(os.getpid(), number)
            for _ in range(50):
                await pilot.pause(0.01)
                if app.return_code is not None:
                    break
        return app.return_code

    try:
        code = asyncio.run(scenario())
        assert code == 128 + number
        assert received == []  # the app handled it, not the fallback handler
        # and the app gave the handler back when it closed
        os.kill(os.getpid(), number)
        assert received == [number]
    finally:
        signal.signal(number, previous)


def test_event_times_count_from_the_start_of_the_game_not_from_boot():
    """A monotonic clock reads seconds since boot (thousands); the events pane shows seconds
    since the table was opened."""

    async def scenario():
        clock = VirtualClock(start=5000.0)
        table = make_table(3, variant=False, seed=3, clock=clock, humans=1)
        app = KismetApp(table, realtime=False)
        clock.advance(2.0)  # the app opens; the game starts 2 s later
        async with app.run_test(size=(100, 40)):
            app.step()  # the first roll
            events = text_of(app, "#events")
            assert "2.00s roll" in events, events
            assert "5002" not in events

    asyncio.run(scenario())


def test_ctrl_p_opens_no_command_palette_over_the_game():
    """Textual's command palette (Ctrl-P) would take every later key into its search box."""

    async def scenario():
        app, table = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            next_roll(app, table)
            await pilot.press("ctrl+p")
            await pilot.pause()
            assert len(app.screen_stack) == 1, type(app.screen).__name__
            await pilot.press(CARD_KEYS[table.game.open_slots()[0]])
            assert 0 in table.game.covers  # the card key still reaches the game

    asyncio.run(scenario())


def test_caps_lock_letters_work_like_lower_case_keys():
    async def scenario():
        app, table = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            next_roll(app, table)
            slot = table.game.open_slots()[0]
            await pilot.press(CARD_KEYS[slot].upper())
            assert table.game.covers[0].slot == slot
        app, table = variant_app(seed=5, players=2)
        async with app.run_test(size=(100, 40)) as pilot:
            app.step()
            await pilot.press("enter", "R")  # pre-lay nothing, then take the dice
            assert table.game.phase == "turn" and table.game.roller == 0
            await pilot.press("P")
            assert table.game.phase == "pass"

    asyncio.run(scenario())
