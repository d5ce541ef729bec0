"""One test per rule of shared/rules/kismet.txt (base game and variant), on the pure engine.

Dice are loaded through a stand-in RNG (:class:`LoadedDice`); circles and piles are laid out
by hand where a rule needs a particular table.
"""

from __future__ import annotations

from collections import Counter

import pytest

from kiekai.events import EventLog, read_log
from kiekai.kismet.engine import (
    BaseGame,
    IllegalAction,
    KismetCard,
    VariantGame,
    placements,
    replay,
)
from kiekai.kismet.rules import (
    DEFAULT_RULES,
    Rules,
    RulesFileError,
    derived_chip_points,
    load_rules,
    reach_probability,
    reachable_values,
)


class LoadedDice:
    """Stands in for ``random.Random`` in an engine: ``randint`` returns the given pips."""

    def __init__(self, *pips: int) -> None:
        self.pips = list(pips)

    def randint(self, a: int, b: int) -> int:
        return self.pips.pop(0)


def cards(*values: int, set_: int = 0) -> list[KismetCard]:
    return [KismetCard(v, set_) for v in values]


# --- rules data ------------------------------------------------------------------------


def test_chip_points_follow_two_dice_frequency():
    assert derived_chip_points() == {
        2: 6, 3: 5, 4: 4, 5: 3, 6: 2, 7: 1, 8: 2, 9: 3, 10: 4, 11: 5, 12: 6,
    }  # fmt: skip


def test_values_are_sums_of_two_dice_as_in_the_tactical_hints():
    assert reachable_values((2, 3, 5)) == {5, 7, 8}
    assert reachable_values((2, 4, 5)) == {6, 7, 9}
    assert reachable_values((3, 3, 5)) == {6, 8}
    assert reachable_values((1, 1, 1)) == {2}
    with pytest.raises(ValueError, match="three dice"):
        reachable_values((1, 7, 2))


def test_reach_probability_is_exact_and_symmetric():
    assert reach_probability(2) == pytest.approx(16 / 216)  # two or three 1s
    assert reach_probability(7) == max(reach_probability(v) for v in range(2, 13))
    assert all(reach_probability(v) == reach_probability(14 - v) for v in range(2, 13))


def test_rules_file_overrides_chip_points(tmp_path):
    path = tmp_path / "house.toml"
    path.write_text("[chips]\n7 = 3\n12 = 10\n[variant]\npre_lay_limit = 8\n")
    rules = load_rules(path)
    assert rules.points(7) == 3 and rules.points(12) == 10 and rules.points(2) == 6
    assert rules.pre_lay_limit == 8
    game = BaseGame(2, seed=0, rules=rules)
    game.piles[0] = cards(7, 12)
    assert game.score(0) == 13


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[chips]\n13 = 2\n", "not a card value"),
        ("[chips]\n7 = -1\n", "integers >= 0"),
        ("[chips]\n7 = 'x'\n", "integers >= 0"),
        ("[dice]\nsides = 8\n", "unknown table"),
        ("[variant]\npre_lay_limit = -2\n", "pre_lay_limit"),
        ("not = [toml", "not readable TOML"),
    ],
)
def test_bad_rules_files_are_named_errors(tmp_path, text, fragment):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(RulesFileError, match=fragment) as info:
        load_rules(path)
    assert str(path) in str(info.value)


def test_missing_rules_file_is_a_named_error(tmp_path):
    with pytest.raises(RulesFileError, match="does not exist"):
        load_rules(tmp_path / "nope.toml")


# --- base game: setup ---------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 9))
def test_setup_uses_one_card_set_per_player_and_an_11_card_circle(players):
    game = BaseGame(players, seed=4)
    everything = [c for c in game.circle if c is not None] + game.draw_pile
    assert len(everything) == 11 * players
    assert Counter(c.value for c in everything) == {v: players for v in range(2, 13)}
    assert {c.set for c in everything} == set(range(players))
    assert len([c for c in game.circle if c is not None]) == 11


@pytest.mark.parametrize("players", [0, 1, 9])
def test_player_count_outside_2_to_8_is_refused(players):
    with pytest.raises(ValueError, match="2 to 8 players"):
        BaseGame(players)
    with pytest.raises(ValueError, match="2 to 8 players"):
        VariantGame(players)


def test_same_seed_same_shuffle_and_dice():
    a, b = BaseGame(5, seed=11), BaseGame(5, seed=11)
    assert a.circle == b.circle and a.draw_pile == b.draw_pile
    assert a.roll() == b.roll()
    assert BaseGame(5, seed=12).draw_pile != a.draw_pile


# --- base game: a round -----------------------------------------------------------------


def base_table(players=3, circle=(5, 7, 8, 2, 3, 4, 6, 9, 10, 11, 12), pile=(2, 3, 4, 5, 6, 7)):
    game = BaseGame(players, seed=0)
    game.circle = list(cards(*circle, set_=1))
    game.draw_pile = list(cards(*pile, set_=2))
    return game


def test_roll_gives_three_dice_and_their_values():
    game = base_table()
    game.rng = LoadedDice(2, 3, 5)
    assert game.roll() == (2, 3, 5)
    assert game.values == {5, 7, 8}
    assert game.matching_slots() == [0, 1, 2]


def test_one_card_per_player():
    game = base_table()
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    game.cover(0, 0, t=1.0)
    with pytest.raises(IllegalAction, match="already on card a: one card per player"):
        game.cover(0, 1, t=1.1)


def test_first_hand_wins_the_card_and_ties_go_by_time_stamp():
    game = base_table()
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    game.cover(1, 0, t=2.0)
    with pytest.raises(IllegalAction, match="already covers card a"):
        game.cover(2, 0, t=2.5)  # later hand: refused
    outcome = game.cover(0, 0, t=1.5)  # earlier stamp arriving late: wins the card
    assert outcome.displaced == 1
    assert game.covers[0].slot == 0 and 1 not in game.covers
    game.cover(1, 1, t=2.6)  # the displaced player covers another card
    assert game.covers[1].slot == 1


def test_round_ends_when_every_player_has_covered():
    game = base_table(players=2)
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    game.cover(0, 3, t=1.0)
    assert not game.round_complete()
    game.cover(1, 4, t=1.2)
    assert game.round_complete()


def test_round_ends_when_no_matching_card_remains_uncovered():
    game = base_table(players=4)
    game.rng = LoadedDice(2, 3, 5)  # 5, 7, 8 match
    game.roll()
    for player, slot in enumerate([0, 1, 2]):
        assert not game.round_complete()
        game.cover(player, slot, t=float(player))
    assert game.round_complete()  # seat 3 has not covered, but nothing matching is left


def test_correct_cards_go_onto_the_pile_in_order_of_the_hands():
    game = base_table(players=2)
    game.rng = LoadedDice(2, 3, 5, 2, 3, 5)
    game.roll()
    game.cover(0, 2, t=1.0)  # 8
    game.end_round()
    game.roll()
    game.cover(0, 1, t=2.0)  # 7
    game.end_round()
    assert [c.value for c in game.piles[0]] == [8, 7]
    assert game.score(0) == DEFAULT_RULES.points(8) + DEFAULT_RULES.points(7)


def test_wrong_card_costs_the_top_of_the_pile_slid_under_the_draw_pile():
    game = base_table(players=2)
    game.piles[1] = cards(12, 3, set_=3)
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    game.cover(1, 3, t=1.0)  # a 2: wrong for 5, 7, 8
    reveals = game.end_round()
    assert not reveals[0].correct
    assert reveals[0].handed_back == KismetCard(3, 3)
    assert game.piles[1] == cards(12, set_=3)
    assert game.draw_pile[-1] == KismetCard(3, 3)  # under the pile
    assert game.circle[3] == KismetCard(2, 1)  # the wrong card stays in the circle


def test_wrong_card_with_an_empty_pile_costs_nothing():
    game = base_table(players=2)
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    pile_before = list(game.draw_pile)
    game.cover(0, 3, t=1.0)
    (reveal,) = game.end_round()
    assert reveal.handed_back is None and game.piles[0] == []
    assert game.draw_pile == pile_before


def test_circle_is_refilled_to_11_from_the_top_of_the_draw_pile():
    game = base_table(players=2)
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    game.cover(0, 0, t=1.0)
    game.cover(1, 2, t=1.1)
    game.end_round()
    assert game.circle[0] == KismetCard(2, 2) and game.circle[2] == KismetCard(3, 2)
    assert len(game.draw_pile) == 4 and None not in game.circle


def test_all_11_cards_are_removed_when_none_could_be_taken():
    game = base_table(
        players=2, circle=(2, 3, 4, 4, 3, 2, 3, 4, 2, 3, 4), pile=tuple(range(2, 13)) + (7,)
    )
    game.rng = LoadedDice(6, 6, 6)  # only 12
    game.roll()
    assert game.round_complete()  # nothing to find: the round is over at once
    game.end_round()
    assert len(game.removed) == 11
    assert [c.value for c in game.circle] == list(range(2, 13))
    assert [c.value for c in game.draw_pile] == [7]


def test_game_ends_when_the_circle_cannot_be_refilled():
    game = base_table(players=2, pile=(9,))
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    game.cover(0, 0, t=1.0)
    game.cover(1, 1, t=1.1)
    game.end_round()  # two gaps, one card left
    assert game.over
    assert game.scores() == [DEFAULT_RULES.points(5), DEFAULT_RULES.points(7)]
    assert game.winners() == [0]  # 5 is worth 3, 7 only 1
    with pytest.raises(IllegalAction):
        game.roll()


def test_actions_at_the_wrong_moment_are_illegal_and_change_nothing():
    game = base_table()
    with pytest.raises(IllegalAction):
        game.cover(0, 0, t=0.0)  # before the roll
    with pytest.raises(IllegalAction):
        game.end_round()
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    with pytest.raises(IllegalAction):
        game.roll()
    for bad in [(7, 0), (0, 11), (0, -1)]:
        with pytest.raises(IllegalAction):
            game.cover(*bad, t=0.0)
    assert game.covers == {}


def test_events_are_logged_and_read_back(tmp_path):
    path = tmp_path / "game.jsonl"
    with EventLog(path) as log:
        game = BaseGame(3, seed=2, log=log)
        game.roll(t=0.5)
        game.end_round(t=1.0)
    types = [e.type for e in read_log(path)]
    assert types[:2] == ["setup", "roll"]
    assert "refill" in types or "game_over" in types


# --- variant --------------------------------------------------------------------------


def variant(players=3, prelays=None, dice=()):
    game = VariantGame(players, seed=0)
    game.start_round()
    for p in range(players):
        game.pre_lay(p, (prelays or {}).get(p, ()))
    game.rng = LoadedDice(*dice)
    return game


def test_each_player_gets_his_own_eleven_cards():
    game = VariantGame(4)
    game.start_round()
    assert all(front == list(range(2, 13)) for front in game.fronts)
    assert game.phase == "pre_lay"


def test_pre_lay_is_at_most_six_minus_points():
    game = VariantGame(2)
    game.start_round()
    with pytest.raises(IllegalAction, match="6 minus points"):
        game.pre_lay(0, (2, 7))  # 6 + 1
    game.pre_lay(0, (5, 7, 8))  # 3 + 1 + 2 = 6
    assert game.laid[0] == [5, 7, 8] and 7 not in game.fronts[0]
    with pytest.raises(IllegalAction, match="already chosen"):
        game.pre_lay(0, ())
    with pytest.raises(IllegalAction):
        game.pre_lay(1, (7, 7))
    assert game.phase == "pre_lay"
    game.pre_lay(1, ())
    assert game.phase == "await_roll"


def test_roll_only_by_the_next_roller_and_one_card_per_turn():
    game = variant(dice=(2, 3, 5))
    with pytest.raises(IllegalAction, match="seat 0"):
        game.roll(1)
    game.roll(0)
    with pytest.raises(IllegalAction, match="cannot make"):
        game.lay(0, 2)
    game.lay(0, 8)
    with pytest.raises(IllegalAction, match="one card"):
        game.lay(0, 7)
    game.pass_turn(0)
    assert game.next_roller == 1 and not game.overlooked


def test_joker_throw_lays_the_matching_card_and_any_other():
    game = variant(dice=(2, 2, 2))
    game.roll(0)
    with pytest.raises(IllegalAction, match="cannot make"):
        game.lay(0, 12)  # the matching 4 must come first
    game.lay(0, 4)
    game.lay(0, 12)
    assert game.laid[0][-2:] == [4, 12]
    with pytest.raises(IllegalAction):
        game.lay(0, 11)


def test_joker_throw_without_the_matching_card_lays_nothing():
    game = variant(prelays={0: (4,)}, dice=(2, 2, 2))
    game.roll(0)
    with pytest.raises(IllegalAction):
        game.lay(0, 12)
    assert not game.can_lay(0)


def test_turn_ends_when_the_neighbour_takes_the_dice_and_knocking_stops():
    game = variant(dice=(2, 3, 5, 1, 1, 2))
    game.roll(0)
    game.pass_turn(0)  # overlooked 5, 7, 8
    game.roll(1)  # seat 1 takes the dice: seat 0's overlooked card can no longer be knocked
    late = game.knock(2)  # judged on seat 1's turn (1, 1, 2 → 2, 3; seat 1 has both)
    assert (late.valid, late.result) == (False, "no_penalty")
    assert game.fronts[0] == list(range(2, 13))
    with pytest.raises(IllegalAction, match="roller"):
        game.knock(1)


def test_knock_when_roller_has_no_match_first_valid_knocker_lays():
    # the rulebook's example: Andreas (0) rolls 2, 6, 6 → 8 or 12 and has neither
    game = VariantGame(5, seed=0)
    game.fronts = [[2, 6], [4, 11], [7, 8, 12], [12], [2, 9]]
    game.laid = [[3], [6], [5], [4], [10]]
    game.phase = "await_roll"
    game.rng = LoadedDice(2, 6, 6)
    game.roll(0)
    britta = game.knock(1, t=1.0)
    christian = game.knock(2, t=1.1, value=8)
    doris = game.knock(3, t=1.2)
    ernst = game.knock(4, t=1.3)
    assert (britta.result, britta.card) == ("penalty", 6)  # Britta turns over a 6
    assert (ernst.result, ernst.card) == ("penalty", 10)  # Ernst turns over a 10
    # why: "they have neither an 8 nor a 12" (the values the dice make), logged with it
    assert (britta.why, britta.values) == ("cannot_lay", (8, 12)) == (ernst.why, ernst.values)
    knocks = [e.data for e in game.log.events if e.type == "knock"]
    assert knocks[0]["why"] == "cannot_lay" and knocks[0]["values"] == [8, 12]
    assert "why" not in knocks[1] and christian.why == ""
    assert (christian.result, christian.card) == ("lay", 8)
    assert doris.result == "too_slow" and game.fronts[3] == [12]
    assert game.fronts[1] == [4, 6, 11] and game.fronts[2] == [7, 12]


def test_knock_while_the_roller_still_has_a_match_is_wrong():
    game = variant(prelays={1: (12,)}, dice=(2, 3, 5))
    game.roll(0)
    outcome = game.knock(1)
    assert (outcome.valid, outcome.result, outcome.card) == (False, "penalty", 12)
    assert (outcome.why, outcome.values) == ("roller_can_lay", (5, 7, 8))
    assert 12 in game.fronts[1] and game.laid[1] == []


def test_knock_without_a_matching_card_is_wrong():
    game = variant(prelays={0: (5, 7, 8), 1: (9,)}, dice=(2, 3, 5))
    game.fronts[1] = [2, 3]  # nothing matching 5, 7, 8
    game.roll(0)  # the roller has no 5, 7, 8 either
    outcome = game.knock(1)
    assert (outcome.result, outcome.card) == ("penalty", 9)


def test_wrong_knock_with_nothing_laid_down_costs_nothing():
    game = variant(dice=(2, 3, 5))
    game.roll(0)
    outcome = game.knock(2)
    assert (outcome.valid, outcome.result, outcome.card) == (False, "no_penalty", None)
    assert game.fronts[2] == list(range(2, 13))


def test_after_the_roller_lays_his_last_match_others_may_knock():
    game = variant(prelays={0: (5, 7)}, dice=(2, 3, 5))
    game.roll(0)
    game.lay(0, 8)  # no 5, 7, 8 left in front of him
    outcome = game.knock(1)
    assert (outcome.result, outcome.card) == ("lay", 5)  # 5 and 8 are worth 3 and 2: the 5


def test_knock_on_an_overlooked_card_first_knocker_lays_or_roller_turns_back():
    game = variant(prelays={0: (12,)}, dice=(2, 3, 5, 2, 3, 5))
    game.roll(0)
    game.pass_turn(0)
    assert game.overlooked
    first = game.knock(2, t=1.0)
    second = game.knock(1, t=1.1)
    assert (first.result, first.card) == ("lay", 5)
    assert second.result == "too_slow"
    # second turn: the first knocker has no matching card → the roller turns one back
    game.fronts[2] = [2, 3]
    game.roll(1)
    game.pass_turn(1)
    knock = game.knock(2)
    assert knock.result == "roller_turns_back"


def test_roller_turns_back_his_last_laid_card():
    game = variant(prelays={0: (12,)}, dice=(2, 3, 5))
    game.fronts[1] = [2, 3]
    game.roll(0)
    game.pass_turn(0)  # overlooked his 5, 7, 8
    outcome = game.knock(1)
    assert (outcome.result, outcome.card) == ("roller_turns_back", 12)
    assert 12 in game.fronts[0] and game.laid[0] == []


def test_each_player_knocks_once_per_turn():
    game = variant(dice=(2, 3, 5))
    game.roll(0)
    game.knock(1)
    with pytest.raises(IllegalAction, match="already knocked"):
        game.knock(1)


def test_round_ends_when_a_player_has_laid_all_cards_and_places_by_minus_points():
    game = variant(players=3, dice=(2, 3, 5))
    game.fronts = [[8], [2, 12], [7]]
    game.roll(0)
    game.lay(0, 8)
    assert game.phase == "round_over" and game.winner == 0
    assert game.placements == [1, 3, 2]  # 0 | 12 | 1 minus points
    assert game.tallies == [0, 12, 1]
    with pytest.raises(IllegalAction):
        game.knock(1)


def test_tallies_add_up_over_rounds_and_the_first_roller_moves_on():
    game = VariantGame(2, seed=0)
    for round_no in range(2):
        game.start_round()
        assert game.next_roller == round_no % 2
        game.pre_lay(0, ())
        game.pre_lay(1, ())
        game.fronts = [[8], [2, 12]]
        game.rng = LoadedDice(2, 3, 5)
        game.roll(round_no % 2)
        if round_no % 2 == 0:
            game.lay(0, 8)
        else:
            game.pass_turn(1)
            game.knock(0)  # roller 1 has no match, seat 0 has the 8
    assert game.tallies == [0, 24]
    assert game.history == [[1, 2], [1, 2]]
    assert game.match_winners() == [0]


def test_placements_share_places_on_ties():
    assert placements([0, 5, 5, 9]) == [1, 2, 2, 4]


def test_rules_object_changes_the_pre_lay_limit():
    game = VariantGame(2, rules=Rules(pre_lay_limit=12))
    game.start_round()
    game.pre_lay(0, (2, 12))
    assert game.laid[0] == [2, 12]


# --- issue 13: what the engine tells a front end ---------------------------------------


def test_a_turn_that_times_out_is_not_an_overlook_and_replays():
    """Reading 18: a player who sat idle has not "passed on his turn", so the front end's
    time limit ends the turn without an overlook and nobody gets a free knock."""
    game = variant(dice=(2, 3, 5))
    game.roll(0)  # seat 0 could lay the 5, 7 or 8
    game.pass_turn(0, t=30.0, timed_out=True)
    assert game.overlooked is False and game.phase == "pass"
    knock = game.knock(1, t=30.5)  # the roller still has a match: a wrong knock
    assert not knock.valid
    passed = next(e for e in game.log.events if e.type == "pass")
    assert passed.data["timed_out"] is True and passed.data["overlooked"] is False
    seeded = VariantGame(3, seed=0)  # seeded dice (a log replays from its seed)
    seeded.start_round()
    for p in range(3):
        seeded.pre_lay(p, ())
    seeded.roll(0)
    seeded.pass_turn(0, t=30.0, timed_out=True)
    again = replay(seeded.log.events)
    assert [e.to_json() for e in again.log.events] == [e.to_json() for e in seeded.log.events]
    assert again.overlooked is False and again.phase == "pass"


def test_a_real_pass_over_a_match_is_still_an_overlook():
    game = variant(dice=(2, 3, 5))
    game.roll(0)
    game.pass_turn(0, t=3.0)
    assert game.overlooked is True


def test_reveals_name_the_place_and_logs_carry_the_circle_and_fronts():
    game = base_table(players=2)
    game.rng = LoadedDice(2, 3, 5)
    game.roll(t=0.0)
    roll = next(e for e in game.log.events if e.type == "roll")
    assert [KismetCard.from_id(c).value for c in roll.data["circle"]] == [
        5, 7, 8, 2, 3, 4, 6, 9, 10, 11, 12
    ]  # fmt: skip
    game.cover(0, 2, t=1.0)
    (reveal,) = game.end_round(t=2.0)
    assert reveal.slot == 2 and reveal.card.value == 8
    assert next(e for e in game.log.events if e.type == "reveal").data["slot"] == 2
    vgame = variant(players=2, prelays={0: (2,)}, dice=(2, 3, 5))
    vgame.roll(0)
    vroll = next(e for e in vgame.log.events if e.type == "roll")
    assert vroll.data["fronts"] == [list(range(3, 13)), list(range(2, 13))]


def test_card_ids_read_back_and_bad_ids_are_named():
    assert KismetCard.from_id("12/3") == KismetCard(12, 3)
    for bad in ("13/0", "7", "x/1", "7/-1"):
        with pytest.raises(ValueError, match="not a Kismet card id"):
            KismetCard.from_id(bad)


def test_engine_messages_name_circle_places_by_letter_not_number():
    game = base_table()
    game.rng = LoadedDice(2, 3, 5)
    game.roll()
    game.cover(1, 10, t=1.0)
    with pytest.raises(IllegalAction) as info:
        game.cover(2, 10, t=2.0)
    assert "card k" in str(info.value) and "10" not in str(info.value)
