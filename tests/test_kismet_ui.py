"""The Textual app driven by a human through Textual's test pilot (App.run_test).

Each test is a coroutine run by pytest-asyncio (one event loop per test, made by the plugin).
Tables run on a VirtualClock and the tests move time with ``app.advance``/``app.step``, so
nothing depends on real time. Tests named ``test_<n>_…`` cover point n of issue 13.
"""

from __future__ import annotations

import contextlib
import itertools

import pytest

from kiekai.clock import VirtualClock
from kiekai.kismet.rules import reachable_values
from kiekai.kismet.table import BaseTable, VariantTable, describe, make_table
from kiekai.ui.kismet_app import CARD_KEYS, COUNTDOWN_S, MIN_SIZE, KismetApp


def base_app(seed: int = 3, players: int = 4, level: str = "normal") -> tuple[KismetApp, BaseTable]:
    table = make_table(
        players, variant=False, seed=seed, clock=VirtualClock(), humans=1, level=level
    )
    assert isinstance(table, BaseTable)
    return KismetApp(table, realtime=False), table


def variant_app(
    seed: int = 3, players: int = 4, level: str = "normal"
) -> tuple[KismetApp, VariantTable]:
    table = make_table(
        players, variant=True, seed=seed, clock=VirtualClock(), humans=1, rounds=1, level=level
    )
    assert isinstance(table, VariantTable)
    return KismetApp(table, realtime=False), table


def text_of(app: KismetApp, selector: str) -> str:
    return str(app.query_one(selector).render())


def visible_lines(app: KismetApp, selector: str) -> list[str]:
    """The lines of a widget's text that fit in its content area (the rest is cut off)."""
    widget = app.query_one(selector)
    return text_of(app, selector).splitlines()[: widget.content_region.height]


async def start(pilot, app: KismetApp) -> None:
    """Any key starts the game (the variant deals at once: run the deal)."""
    await pilot.press("s")
    assert app.table.started
    if app.variant:
        app.step()


def next_roll(app: KismetApp, table: BaseTable) -> None:
    """Run jobs until a fresh round has been rolled."""
    while table.game.phase != "cover":
        assert app.step(), "the game ended before the next roll"


@contextlib.asynccontextmanager
async def rolled_base_game(size: tuple[int, int] = (100, 40)):
    """A base game in the app, started and rolled once: yields ``(app, table, pilot)``."""
    app, table = base_app()
    async with app.run_test(size=size) as pilot:
        await start(pilot, app)
        next_roll(app, table)
        yield app, table, pilot


def finish_round(app: KismetApp, table: BaseTable) -> None:
    while table.game.phase == "cover":
        assert app.step()


class LoadedDice:
    """Stands in for the engine's ``random.Random``: ``randint`` returns the given pips."""

    def __init__(self, *pips: int) -> None:
        self.pips = list(pips)

    def randint(self, a: int, b: int) -> int:
        return self.pips.pop(0)


# --- the basics ---------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_correct_cover_wins_the_card_and_shows_the_hand():
    async with rolled_base_game() as (app, table, pilot):
        game = table.game
        slot = game.open_matching_slots()[0]
        card = game.circle[slot]
        await pilot.press(CARD_KEYS[slot])
        assert game.covers[0].slot == slot
        assert "you" in text_of(app, f"#slot{slot}")
        assert "values" not in text_of(app, "#events")  # forming the sums is the game
        while game.phase == "cover" and len(game.covers) < 2:
            app.step()  # a bot's hand appears as it covers
        assert len(game.covers) == 2  # seed 3: three matching cards, so a bot covers one
        bot = next(c for c in game.covers.values() if c.player != 0)
        assert f"bot{bot.player}" in text_of(app, f"#slot{bot.slot}")
        finish_round(app, table)
        assert game.piles[0] == [card]
        assert "you" in text_of(app, "#scores")


@pytest.mark.asyncio
async def test_wrong_cover_hands_back_the_top_card():
    app, table = base_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        game = table.game
        while not game.piles[0]:  # first win a card to have something to lose
            next_roll(app, table)
            if game.open_matching_slots():
                await pilot.press(CARD_KEYS[game.open_matching_slots()[0]])
            finish_round(app, table)
        top = game.piles[0][-1]
        while True:
            next_roll(app, table)
            wrong = [s for s in game.open_slots() if s not in game.matching_slots()]
            if wrong and game.open_matching_slots():
                break
            finish_round(app, table)
        before = len(game.piles[0])
        await pilot.press(CARD_KEYS[wrong[0]])
        finish_round(app, table)
        assert len(game.piles[0]) == before - 1
        assert game.draw_pile[-1] == top or top in [c for c in game.circle if c]
        assert "you wrong" in text_of(app, f"#slot{wrong[0]}")  # shown on the card
        assert f"hand back the {top.value}" in text_of(app, "#events")


@pytest.mark.asyncio
async def test_held_keys_and_keys_at_the_wrong_moment_do_no_harm():
    app, table = base_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("a", "space", "x")  # during the countdown
        assert table.game.covers == {}
        next_roll(app, table)
        await pilot.press(*("b" * 8))  # a held-down key repeats
        assert list(table.game.covers) == [0]
        assert "one card per player" in table.message
        await pilot.press("space")
        assert "variant" in table.message


def step_to_bot_roll(app: KismetApp, table: VariantTable, want_roller_match: bool):
    """Run jobs until a bot has just rolled and the roller's match situation is
    ``want_roller_match`` (and, for a clean knock, the human has a matching card when the
    roller has none)."""
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


@pytest.mark.asyncio
async def test_pre_lay_and_knocks_by_keys():
    app, table = variant_app()
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
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


@pytest.mark.asyncio
async def test_too_many_pre_lay_points_are_said_plainly_before_and_at_enter():
    """Toggling past the limit says so (not "Enter confirms"); Enter then names the cards
    in words ("2 and 12 make 12"), not as a Python list."""
    app, table = variant_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("a")
        assert table.message == "pre-lay 2: 6 of 6 minus points; Enter confirms"
        await pilot.press("k")
        assert "12 minus points, more than 6" in table.message
        assert "Enter confirms" not in table.message
        await pilot.press("enter")
        assert "2 and 12 make 12" in table.message and "[" not in table.message


@pytest.mark.asyncio
async def test_own_turn_roll_lay_and_pass_by_keys():
    app, table = variant_app(seed=5, players=2)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter")  # pre-lay nothing
        assert game.next_roller == 0
        await pilot.press("r")
        assert game.phase == "turn" and game.roller == 0
        await pilot.press("r")
        assert "you have rolled" in table.message
        match = game.matching(0)
        assert match, "seed 5 gives the human a match on the first roll"
        await pilot.press(CARD_KEYS[match[0] - 2])
        assert game.laid[0] == [match[0]]
        await pilot.press("p")
        assert game.phase == "pass" and game.next_roller == 1


@pytest.mark.asyncio
async def test_joker_throw_lets_the_human_lay_a_second_card():
    app, table = variant_app(seed=1, players=3)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter")
        game.rng = LoadedDice(2, 2, 2)  # a joker throw: only the 4
        await pilot.press("r")
        await pilot.press("l")  # not a card key: a message, nothing else
        assert "does nothing" in table.message
        await pilot.press("k")  # the 12 first: refused, the 4 must come first
        assert "cannot make" in table.message
        await pilot.press("c", "k")  # the 4, then any card: the 12
        assert game.laid[0][-2:] == [4, 12]
        await pilot.press("j")  # a third card: refused
        assert "one card" in table.message and 11 in game.fronts[0]


@pytest.mark.asyncio
async def test_ctrl_c_and_q_leave_cleanly():
    async def scenario(key: str) -> int | None:
        app, _ = base_app()
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.press(key)
            await pilot.pause()
        return app.return_code

    assert await scenario("ctrl+c") == 130  # 128 + SIGINT, as a shell reports it
    assert await scenario("q") == 0
    assert await scenario("escape") == 0


@pytest.mark.asyncio
@pytest.mark.parametrize("name", ["SIGTERM", "SIGINT"])
async def test_signals_close_the_app_so_the_terminal_is_restored(name):
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
            await start(pilot, app)
            next_roll(app, table)
            os.kill(os.getpid(), number)
            for _ in range(50):
                await pilot.pause(0.01)
                if app.return_code is not None:
                    break
        return app.return_code

    try:
        code = await scenario()
        assert code == 128 + number
        assert received == []  # the app handled it, not the fallback handler
        # and the app gave the handler back when it closed
        os.kill(os.getpid(), number)
        assert received == [number]
    finally:
        signal.signal(number, previous)


@pytest.mark.asyncio
async def test_event_times_count_from_the_start_of_the_game_not_from_boot():
    """A monotonic clock reads seconds since boot (thousands); the events pane shows seconds
    since the table was opened."""
    clock = VirtualClock(start=5000.0)
    table = make_table(3, variant=False, seed=3, clock=clock, humans=1)
    app = KismetApp(table, realtime=False)
    clock.advance(2.0)  # the app opens; the player presses a key 2 s later
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        app.step()  # the first roll, after the countdown
        events = text_of(app, "#events")
        assert f"{2 + COUNTDOWN_S:.2f}s roll" in events, events
        assert "5002" not in events and "5005" not in events


@pytest.mark.asyncio
async def test_ctrl_p_opens_no_command_palette_over_the_game():
    """Textual's command palette (Ctrl-P) would take every later key into its search box."""
    async with rolled_base_game() as (app, table, pilot):
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert len(app.screen_stack) == 1, type(app.screen).__name__
        await pilot.press(CARD_KEYS[table.game.open_slots()[0]])
        assert 0 in table.game.covers  # the card key still reaches the game


@pytest.mark.asyncio
async def test_caps_lock_letters_work_like_lower_case_keys():
    async with rolled_base_game() as (app, table, pilot):
        slot = table.game.open_slots()[0]
        await pilot.press(CARD_KEYS[slot].upper())
        assert table.game.covers[0].slot == slot
    app, table = variant_app(seed=5, players=2)
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter", "R")  # pre-lay nothing, then take the dice
        assert table.game.phase == "turn" and table.game.roller == 0
        await pilot.press("P")
        assert table.game.phase == "pass"


# --- issue 13 -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_1_a_terminal_too_small_pauses_the_game_and_keys_do_nothing():
    app, table = base_app()
    game = table.game
    async with app.run_test(size=(60, 15)) as pilot:
        assert app.screen.has_class("small")
        await pilot.press("s")  # too small to play: the key does not even start it
        assert not table.started
        await pilot.resize_terminal(100, 40)
        await pilot.pause()
        await start(pilot, app)
        next_roll(app, table)
        events_before = len(game.log.events)
        await pilot.resize_terminal(60, 15)  # the window shrinks mid-round
        await pilot.pause()
        assert app.screen.has_class("small") and table.paused
        assert "paused" in text_of(app, "#small")
        slot = game.open_matching_slots()[0]
        await pilot.press(CARD_KEYS[slot], "x", "space")
        app.advance(60.0)  # a minute behind the note: no bot acts, no round limit
        assert game.covers == {} and game.phase == "cover"
        assert len(game.log.events) == events_before
        await pilot.resize_terminal(100, 40)
        await pilot.pause()
        assert not table.paused and not app.screen.has_class("small")
        await pilot.press(CARD_KEYS[slot])
        assert game.covers[0].slot == slot  # keys work again
        app.advance(10.0)
        assert len(game.log.events) > events_before + 1  # and the bots go on


@pytest.mark.parametrize("variant", [False, True])
@pytest.mark.parametrize("players", [4, 8])
@pytest.mark.asyncio
async def test_1_at_the_minimum_size_the_whole_table_is_visible(variant, players):
    """At :data:`MIN_SIZE` nothing is cut off: status, board, scores and at least 3 event
    lines lie inside the screen, and no text is wider than its box."""
    app, table = (variant_app if variant else base_app)(players=players)
    async with app.run_test(size=MIN_SIZE) as pilot:
        await start(pilot, app)
        if variant:
            await pilot.press("enter")
            while table.game.phase not in ("turn",):
                app.step()
        else:
            next_roll(app, table)
        await pilot.pause()
        assert not app.screen.has_class("small")
        screen = app.screen.region
        boxes = ["#status", "#dice", "#scores", "#events"]
        boxes += ["#rows"] if variant else [f"#slot{i}" for i in range(11)]
        for selector in boxes:
            widget = app.query_one(selector)
            assert widget.region.height > 0, selector
            assert screen.contains_region(widget.region), (selector, widget.region)
        assert app.query_one("#events").content_region.height >= 3
        for selector in ["#scores", "#rows"] if variant else ["#scores"]:
            box = app.query_one(selector).content_region
            lines = text_of(app, selector).rstrip("\n").splitlines()
            assert len(lines) <= box.height, (selector, lines)
            assert max(map(len, lines)) <= box.width, (selector, lines)
        if not variant:
            inner = app.query_one("#slot0").content_region.width
            assert inner >= len("bot7 won 12")  # the longest text on a card


@pytest.mark.asyncio
async def test_2_the_game_waits_for_a_key_then_counts_down_to_the_first_roll():
    app, table = base_app()
    async with app.run_test(size=(100, 40)) as pilot:
        app.advance(30.0)  # nobody pressed anything: nothing happens
        assert not table.started and table.game.phase == "roll"
        assert "press any key to start" in text_of(app, "#status")
        await pilot.press("x")
        assert table.started and table.game.phase == "roll"
        assert f"{COUNTDOWN_S:.0f} s" in text_of(app, "#status")
        app.advance(COUNTDOWN_S - 0.5)
        assert table.game.phase == "roll" and "1 s" in text_of(app, "#status")
        assert "first roll in" in text_of(app, "#dice")
        app.advance(0.5)
        assert table.game.phase == "cover"  # the first roll, at the end of the countdown
        assert not table.game.covers  # no bot had a head start


def no_match_dice(circle_values: set[int]) -> tuple[int, int, int]:
    for dice in itertools.product(range(1, 7), repeat=3):
        if not reachable_values(dice) & circle_values:
            return dice
    raise AssertionError("every roll matches this circle")


@pytest.mark.asyncio
async def test_3_dice_stay_visible_on_a_no_match_roll_and_during_the_reveal():
    app, table = base_app()
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        dice = no_match_dice({c.value for c in game.circle if c is not None})
        seeded, game.rng = game.rng, LoadedDice(*dice)
        app.advance(COUNTDOWN_S)  # roll, and the round ends at once: nothing matches
        game.rng = seeded
        assert game.phase == "roll" and game.round == 1
        shown = text_of(app, "#dice")
        assert "  ".join(map(str, dice)) in shown and "no card" in shown
        assert "No card matched" in text_of(app, "#status")
        # an ordinary round: the dice stay up while the results are shown
        next_roll(app, table)
        rolled = game.dice
        wrong = [s for s in game.open_slots() if s not in game.matching_slots()]
        await pilot.press(CARD_KEYS[wrong[0]])
        finish_round(app, table)
        assert game.dice is None  # the engine has moved on to the next round
        assert "  ".join(map(str, rolled)) in text_of(app, "#dice")
        assert "you wrong" in text_of(app, f"#slot{wrong[0]}")


@pytest.mark.asyncio
async def test_5_plain_words_points_not_values_letters_not_numbers():
    app, table = base_app()
    game, rules = table.game, table.game.rules
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        while True:  # a card whose value and chip points differ (not a 4)
            next_roll(app, table)
            good = [s for s in game.open_matching_slots() if game.circle[s].value != 4]
            if good:
                break
            finish_round(app, table)
        slot, value = good[0], game.circle[good[0]].value
        points = rules.points(value)
        await pilot.press(CARD_KEYS[slot])
        while game.phase == "cover" and len(game.covers) < 2:
            app.step()
        taken = next((c for c in game.covers.values() if c.player != 0), None)
        if taken is not None:  # a key on a card a bot holds names it by letter
            await pilot.press(CARD_KEYS[taken.slot])
            assert f"card {CARD_KEYS[slot]}" in table.message  # one card per round
        finish_round(app, table)
        card_text = text_of(app, f"#slot{slot}")
        assert f"you won {value}" in card_text and "+" not in card_text.split("\n")[1]
        assert f"take the {value} ({CARD_KEYS[slot]}): +{points} points" in text_of(app, "#events")
        assert f"you +{value}" not in text_of(app, "#status")
        scores = text_of(app, "#scores")
        assert "1 cards" not in scores and "chip" in scores and "points" in scores
        assert "slot" not in text_of(app, "#events") + table.message


@pytest.mark.asyncio
async def test_5_a_held_card_is_named_by_letter():
    app, table = base_app(level="expert")
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        next_roll(app, table)
        while not game.covers:
            app.step()
        (held,) = game.covers.values()
        await pilot.press(CARD_KEYS[held.slot])
        assert f"card {CARD_KEYS[held.slot]}" in table.message
        assert "slot" not in table.message and str(held.slot) not in table.message


@pytest.mark.asyncio
async def test_5_a_wrong_knock_with_nothing_laid_says_why_it_costs_nothing():
    app, table = variant_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter")  # pre-lay nothing: nothing to turn back
        step_to_bot_roll(app, table, want_roller_match=True)
        await pilot.press("space")
        assert "wrong knock" in table.message
        assert "no cost" in table.message and "laid nothing down" in table.message


@pytest.mark.asyncio
async def test_5_a_wrong_knock_says_why_it_was_wrong_on_one_80_column_line():
    """The message names the rule that was broken: the roller still has a matching card
    (which), or you have none of the values the dice make (which); the status line and the
    event line show it whole at 80 columns (no "…")."""

    async def scenario():
        app, table = variant_app()
        game = table.game
        async with app.run_test(size=(80, 24)) as pilot:
            await start(pilot, app)
            await pilot.press("a", "enter")  # pre-lay the 2: a wrong knock turns it back
            step_to_bot_roll(app, table, want_roller_match=True)
            roller, has = game.roller, sorted(game.matching(game.roller))
            await pilot.press("space")
            name = app.names[roller]
            assert f"{name} still has a" in table.message and str(has[0]) in table.message
            assert "your 2 goes face up again" in table.message
            status = text_of(app, "#status").splitlines()
            assert status[1].strip() == table.message and "…" not in status[1]
            events = text_of(app, "#events").splitlines()
            knock = next(line for line in events if "you knock wrongly" in line)
            assert f"({name} still has a" in knock and "…" not in knock

    await scenario()

    async def no_match_of_own():
        app, table = variant_app()
        game = table.game
        async with app.run_test(size=(80, 24)) as pilot:
            await start(pilot, app)
            await pilot.press("enter")
            while not (
                game.phase == "turn" and game.roller != 0 and not game.matching(game.roller)
                and not game.laid_this_turn
            ):  # fmt: skip
                assert app.step(), "the situation did not come up"
                assert game.phase != "round_over"
            values = sorted(game.values)
            # the person holds none of the values the dice make (as late in a round)
            game.fronts[0] = [v for v in game.fronts[0] if v not in values]
            await pilot.press("space")
            assert f"you have no {values[0]}" in table.message, table.message

    await no_match_of_own()


@pytest.mark.asyncio
async def test_5_round_results_are_a_small_table():
    app, table = variant_app(seed=2, players=3)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter")
        while game.phase != "round_over":  # the human sits out; his turns time out
            assert app.step()
        rows = text_of(app, "#rows").splitlines()
        header = next(line for line in rows if line.startswith("card"))
        assert header.split()[-4:] == ["laid", "minus", "total", "place"]
        for seat in range(3):
            line = next(r for r in rows if r.startswith(app.names[seat]))
            assert line.split()[-1] == str(game.placements[seat])
            assert line.split()[-2] == str(game.tallies[seat])
        assert "placements [" not in text_of(app, "#events")


@pytest.mark.asyncio
async def test_6_variant_messages_agree_with_the_prompt_before_the_roll():
    app, table = variant_app(seed=5, players=2)
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter")
        assert "Your turn: r takes the dice" in text_of(app, "#status")
        await pilot.press("p")
        assert "take the dice first" in table.message
        assert "only during your own turn" not in table.message
        await pilot.press("e")  # a card key before rolling
        assert "take the dice first" in table.message
        await pilot.press("r")
        await pilot.press("r")
        assert "you have rolled" in table.message and "not your turn" not in table.message


@pytest.mark.asyncio
async def test_7_bots_pre_lays_stay_hidden_until_everyone_has_chosen():
    app, table = variant_app()
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        assert all(game.pre_laid.get(s) for s in (1, 2, 3))  # the bots have chosen
        rows = text_of(app, "#rows").splitlines()
        for seat in (1, 2, 3):
            line = next(r for r in rows if r.startswith(f"bot{seat}"))
            assert "face down" in line
            shown = line.replace("11 cards", "")
            assert not any(ch.isdigit() for ch in shown[len(f"bot{seat}") :]), line
        events = text_of(app, "#events")
        assert "has chosen" in events and "pre-lays" not in events
        await pilot.press("enter")  # the human chooses: now all cards lie face up
        rows = text_of(app, "#rows").splitlines()
        line = next(r for r in rows if r.startswith("bot1"))
        assert "face down" not in line
        assert all(str(v) in line.split() for v in game.fronts[1])


@pytest.mark.asyncio
async def test_8_a_joker_throw_tells_about_the_extra_card():
    app, table = variant_app(seed=1, players=3)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter")
        game.rng = LoadedDice(2, 2, 2)
        await pilot.press("r")
        status = text_of(app, "#status")
        assert "Joker throw" in status and "4" in status and "one more card" in status
        await pilot.press("c")  # the 4
        status = text_of(app, "#status")
        assert "one more card of your choice" in status
        assert "joker" in table.message


@pytest.mark.asyncio
async def test_9_the_event_list_is_redrawn_for_the_new_size():
    app, table = base_app(level="expert")
    async with app.run_test(size=(100, 44)) as pilot:
        await start(pilot, app)
        while table.game.round < 4:
            assert app.step()
        await pilot.pause()
        last = describe(
            [e for e in table.game.log.events if describe(e) is not None][-1],
            app.names,
            show_values=False,
            origin=app.origin,
        )
        tall = visible_lines(app, "#events")
        assert last in tall and len(tall) > 10
        await pilot.resize_terminal(100, 26)  # smaller, still above the minimum
        await pilot.pause()
        await pilot.pause()
        short = visible_lines(app, "#events")
        assert last in short  # the newest event, not the oldest, stays in view
        assert len(short) < len(tall)
        await pilot.resize_terminal(100, 44)
        await pilot.pause()
        await pilot.pause()
        assert len(visible_lines(app, "#events")) == len(tall)


@pytest.mark.asyncio
async def test_10_unknown_keys_get_a_message_in_the_base_game():
    async with rolled_base_game() as (app, table, pilot):
        await pilot.press("x")
        assert "'x' does nothing here" in table.message and "a-k" in table.message
        await pilot.press("f5")
        assert "f5 does nothing here" in table.message
        assert table.game.covers == {}


@pytest.mark.asyncio
async def test_10_sitting_idle_in_the_variant_is_no_overlook_and_gives_no_free_knock():
    app, table = variant_app(seed=5, players=2, level="expert")
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        await pilot.press("enter", "r")
        assert game.roller == 0 and game.matching(0), "seed 5: the human has a match"
        turn = game.turn
        while game.turn == turn:  # the human does nothing until the next roll
            assert app.step()
        passed = next(e for e in game.log.events if e.type == "pass" and e.turn == turn)
        assert passed.data["timed_out"] and not passed.data["overlooked"]
        knocks = [e for e in game.log.events if e.type == "knock" and e.turn == turn]
        assert not any(k.data["valid"] for k in knocks)
        assert game.laid[0] == []  # nobody made him turn anything back or laid on it


@pytest.mark.asyncio
async def test_10_the_turn_limit_of_the_person_in_the_variant_is_counted_down_on_screen():
    """A turn left idle ends after VariantTable.turn_limit seconds (taking the dice too):
    the dice line shows the seconds left, so it is no surprise."""
    app, table = variant_app(seed=5, players=2)
    game = table.game
    async with app.run_test(size=(80, 24)) as pilot:
        await start(pilot, app)
        await pilot.press("enter")
        assert game.next_roller == 0 and game.phase == "await_roll"
        assert f"{table.turn_limit:.0f} s left" in text_of(app, "#dice")
        await pilot.press("r")
        app.advance(12.0)
        assert f"{table.turn_limit - 12:.0f} s left" in text_of(app, "#dice")
        await pilot.press("p")  # passed: nothing waits on the person any more
        assert "s left" not in text_of(app, "#dice")


@pytest.mark.asyncio
async def test_the_variants_last_roll_stays_on_screen_between_rounds():
    """Variant: when a round ends the dice are put away (VariantGame.dice is None until the
    next roll), but the roll that ended it stays readable beside the dice: its pips, who
    rolled and in which round; before the first roll there is none to show."""
    app, table = variant_app(seed=2, players=3)
    game = table.game
    async with app.run_test(size=(100, 40)) as pilot:
        await start(pilot, app)
        assert "last roll" not in text_of(app, "#dice")
        await pilot.press("enter")
        while game.phase != "round_over":  # the human sits out; his turns time out
            assert app.step()
        assert game.dice is None
        last = next(e for e in reversed(game.log.events) if e.type == "roll")
        shown = " ".join(text_of(app, "#dice").split())
        pips = " ".join(map(str, last.data["dice"]))
        assert f"last roll {pips} ({app.names[last.player]}, round 1)" in shown, shown
