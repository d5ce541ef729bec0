"""Property tests: random (also illegal) action sequences never lose or duplicate a card,
and an illegal action leaves the state unchanged."""

from __future__ import annotations

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from kiekai.kismet.engine import BaseGame, IllegalAction, VariantGame

ACTIONS_BASE = st.lists(
    st.tuples(st.sampled_from(["roll", "cover", "end"]), st.integers(-1, 8), st.integers(-1, 11)),
    max_size=120,
)


def base_snapshot(game: BaseGame):
    return (
        list(game.circle),
        list(game.draw_pile),
        copy.deepcopy(game.piles),
        dict(game.covers),
        game.phase,
    )


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 10_000), actions=ACTIONS_BASE)
def test_base_game_conserves_cards_under_any_actions(players, seed, actions):
    game = BaseGame(players, seed)
    t = 0.0
    for kind, player, slot in actions:
        t += 0.1
        before = base_snapshot(game)
        try:
            if kind == "roll":
                game.roll(t)
            elif kind == "cover":
                game.cover(player, slot, t)
            else:
                game.end_round(t)
        except IllegalAction:
            assert base_snapshot(game) == before
        cards = (
            [c for c in game.circle if c is not None]
            + game.draw_pile
            + game.removed
            + [c for pile in game.piles for c in pile]
        )
        assert len(cards) == len(set(cards)) == 11 * players
        assert game.scores() == [game.score(p) for p in range(players)]


ACTIONS_VARIANT = st.lists(
    st.tuples(
        st.sampled_from(["roll", "lay", "pass", "knock", "start"]),
        st.integers(-1, 8),
        st.integers(1, 13),
    ),
    max_size=150,
)


def variant_snapshot(game: VariantGame):
    return (copy.deepcopy(game.fronts), copy.deepcopy(game.laid), game.phase, list(game.tallies))


@settings(max_examples=60, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 10_000), actions=ACTIONS_VARIANT)
def test_variant_keeps_every_players_eleven_cards_under_any_actions(players, seed, actions):
    game = VariantGame(players, seed)
    game.start_round()
    for p in range(players):
        game.pre_lay(p, (7,) if p % 2 else ())
    for kind, player, value in actions:
        if game.phase in ("await_roll", "pass") and kind == "roll":
            player = game.next_roller  # keep the game moving
        before = variant_snapshot(game)
        try:
            if kind == "roll":
                game.roll(player)
            elif kind == "lay":
                game.lay(player, value)
            elif kind == "pass":
                game.pass_turn(game.roller if game.roller is not None else player)
            elif kind == "knock":
                game.knock(player)
            elif game.phase == "round_over":
                game.start_round()
                for p in range(players):
                    game.pre_lay(p, ())
        except IllegalAction:
            assert variant_snapshot(game) == before
        for p in range(players):
            assert sorted(game.fronts[p] + game.laid[p]) == list(range(2, 13))
        if game.phase == "round_over":
            assert any(not front for front in game.fronts)
