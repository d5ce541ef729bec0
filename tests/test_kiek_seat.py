"""kiekai/kiek/seat.py: what a person's seat decides, the same at the terminal and the web."""

from __future__ import annotations

import io
import threading
import time
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st
from kiek_helpers import TableJudge, make_cards
from rich.console import Console

from kiekai.clock import MonotonicClock
from kiekai.events import Event
from kiekai.judge.verdict import Verdict
from kiekai.kiek import rules, seat
from kiekai.kiek.engine import KiekEngine
from kiekai.kiek.players import ActivePlay, ActiveView, Hourglass, KeepView, TimeUp, WordVerdict
from kiekai.ui.kiek_terminal import LineReader, TerminalKiekPlayer
from kiekai.web.table import WebTable

CARDS = make_cards(20)


def active_view(hand_size: int = 4) -> ActiveView:
    return ActiveView(
        seat=0,
        turn=0,
        stake=1,
        table=tuple(CARDS[:3]),
        hand=tuple(CARDS[3 : 3 + hand_size]),
        used_words=(),
    )


# ---------------------------------------------------------------- the word


def test_a_word_is_refused_with_a_reason_and_one_word_is_not() -> None:
    judge = TableJudge()
    assert seat.refuse_word(judge, "  dog ") == ""
    assert seat.refuse_word(judge, "   ") == "nothing was typed"
    assert "is not one word" in seat.refuse_word(judge, "hot dog")


def test_the_cap_refuses_a_long_word_before_the_judge_reads_it() -> None:
    class Counting(TableJudge):
        asked = 0

        def check_word(self, text: str) -> Verdict:
            Counting.asked += 1
            return super().check_word(text)

    judge = Counting()
    longest = "x" * seat.MAX_WORD
    assert seat.refuse_word(judge, longest) == "" and Counting.asked == 1
    why = seat.refuse_word(judge, longest + "x")
    assert why == f"that is {seat.MAX_WORD + 1} characters; one word is at most {seat.MAX_WORD}"
    assert Counting.asked == 1


def test_the_terminal_and_the_web_refuse_the_same_long_word() -> None:
    word = "a" * (seat.MAX_WORD + 1)
    table = WebTable(["You", "Bot 1", "Bot 2"], [0], CARDS, {}, TableJudge())
    assert table.check_word(word) == seat.refuse_word(TableJudge(), word) != ""
    out = io.StringIO()
    person = TerminalKiekPlayer(
        "You",
        judge=TableJudge(),
        console=Console(file=out, width=200, color_system=None),
        reader=LineReader(io.StringIO(word + "\ndog\n")),
    )
    assert person._ask_word("Your guess", None) == "dog"
    assert f"one word is at most {seat.MAX_WORD}" in out.getvalue()


# ---------------------------------------------------------------- card choices


@given(
    chosen=st.lists(st.integers(-1, 9), max_size=5),
    count=st.integers(1, 3),
)
def test_a_choice_is_valid_exactly_when_it_is_count_different_allowed_numbers(
    chosen: list[int], count: int
) -> None:
    allowed = [4, 5, 6, 7]
    problem = seat.choice_problem(chosen, allowed, count, "in your hand")
    valid = len(chosen) == count == len(set(chosen)) and set(chosen) <= set(allowed)
    assert (problem is None) == valid
    if problem is not None and chosen:
        assert problem  # a reason is given whenever something was chosen


def test_a_refused_choice_says_what_was_wrong() -> None:
    allowed = [4, 5, 6, 7]
    assert (
        seat.choice_problem([9, 8], allowed, 2, "in your hand") == "9 and 8 are not in your hand."
    )
    assert seat.choice_problem([9], allowed, 1, "in your hand") == "9 is not in your hand."
    assert seat.choice_problem([4, 4], allowed, 2) == "A card counts once."
    assert seat.choice_problem([4, 5, 6], allowed, 2) == "That is 3 numbers."
    assert seat.choice_problem([-1, 4], allowed, 2) == "That number is far too long."
    assert seat.choice_problem([], allowed, 2) == ""
    assert seat.typed_numbers("4, 5 and 1234567890") == [4, 5, -1]


def test_a_chosen_play_lists_both_groups_in_table_order() -> None:
    view = active_view()
    play = seat.chosen_play(view, ["c06", "c04"], ["c06", "c00", "c04"], " dog ")
    assert play == ActivePlay(("c06", "c04"), ("c00", "c06", "c04"), ("c01", "c02"), "dog")
    with pytest.raises(ValueError):
        seat.chosen_play(view, ["c06", "c00"], ["c06", "c01", "c02"], "dog")  # c00 is no hand card
    with pytest.raises(ValueError):
        seat.chosen_play(
            view, ["c06", "c04"], ["c06", "c01", "c19"], "dog"
        )  # c19 is not in the five


# ---------------------------------------------------------------- time up


@given(
    hand=st.permutations([c.id for c in CARDS[3:7]]),
    pick=st.sampled_from([(), (0, 1), (1, 3), (3, 2)]),
    three=st.sampled_from([(), (0, 1, 2), (4, 3, 0), (2, 4, 1)]),
)
def test_time_up_keeps_what_was_chosen_and_splits_the_five(
    hand: list[str], pick: tuple[int, ...], three: tuple[int, ...]
) -> None:
    table = [c.id for c in CARDS[:3]]
    played_in = [hand[i] for i in pick]
    five = table + (played_in or hand[:2])
    three_in = [five[i] for i in three] if played_in else []
    played, group, rest = rules.time_up_split(table, hand, played_in, three_in)
    assert list(played) == (played_in or hand[:2])
    assert sorted(group + rest) == sorted(five) and len(group) == 3 and len(rest) == 2
    assert set(group) == set(three_in or five[:3])
    assert list(group) == [c for c in five if c in group]  # table order
    assert list(rest) == [c for c in five if c in rest]


def test_time_up_with_no_cards_chosen_is_the_engines_default() -> None:
    view = active_view()
    assert seat.time_up_play(view) is None
    events: list[Event] = []
    engine = KiekEngine(CARDS[:15], 3, judge=TableJudge(), seed=1, on_event=events.append)
    hand = [c.id for c in engine.hands[engine.active]]
    table = [c.id for c in engine.table]
    engine.play(None)
    play_event = next(e for e in events if e.type == "play")
    expected = rules.time_up_split(table, hand)
    assert (tuple(play_event.data["played"]), tuple(play_event.data["three"])) == expected[:2]
    assert tuple(play_event.data["two"]) == expected[2] and play_event.data["forfeited"]


def test_time_up_after_choosing_cards_keeps_them_with_no_word() -> None:
    view = active_view()
    assert seat.time_up_play(view, ["c05", "c06"]) == ActivePlay(
        ("c05", "c06"), ("c00", "c01", "c02"), ("c05", "c06"), ""
    )
    assert seat.time_up_play(view, ["c05", "c06"], ["c06", "c00", "c05"]) == ActivePlay(
        ("c05", "c06"), ("c00", "c05", "c06"), ("c01", "c02"), ""
    )


class _Scripted(LineReader):
    """Answers the given lines, then the hourglass runs out."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(io.StringIO())
        self.lines = list(lines)

    def readline(self, timeout: float | None = None) -> str:
        if not self.lines:
            raise TimeUp()
        return self.lines.pop(0)


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ([], None),
        (["6 7"], ActivePlay(("c05", "c06"), ("c00", "c01", "c02"), ("c05", "c06"), "")),
        (["6 7", "7 2 1"], ActivePlay(("c05", "c06"), ("c00", "c01", "c06"), ("c02", "c05"), "")),
        (
            ["6 7", "7 2 1", "hot dog"],
            ActivePlay(("c05", "c06"), ("c00", "c01", "c06"), ("c02", "c05"), ""),
        ),
    ],
)
def test_the_terminal_holds_a_timed_out_player_to_the_seats_default(
    typed: list[str], expected: ActivePlay | None
) -> None:
    person = TerminalKiekPlayer(
        "You",
        judge=TableJudge(),
        console=Console(file=io.StringIO(), width=200, color_system=None),
        reader=_Scripted(typed),
    )
    view = active_view()
    if expected is None:
        with pytest.raises(TimeUp):
            person.play_turn(view)
    else:
        assert person.play_turn(view) == expected


def test_a_chooser_who_does_not_answer_keeps_the_first_card_on_offer() -> None:
    view = KeepView(seat=1, new_active_seat=1, cards=tuple(CARDS[5:8]), kept=(), hand=())
    assert seat.time_up_keep(view) == "c05" == rules.time_up_keep(["c05", "c06", "c07"])
    with pytest.raises(ValueError):
        rules.time_up_keep([])


# ---------------------------------------------------------------- ne bis in idem


def test_a_used_word_is_named_by_its_number_or_by_the_word() -> None:
    used = ["dog", "The Sea", "red"]
    assert seat.used_word_named("2", used) == "The Sea"
    assert seat.used_word_named(" sea ", used) == "The Sea"  # as the table rules on words
    assert seat.used_word_named("RED", used) == "red"
    assert seat.used_word_named("4", used) is None and seat.used_word_named("", used) is None
    assert seat.used_word_named("2", used, by_number=False) is None
    assert seat.used_word_named("cat", used) is None


def test_a_posted_word_names_its_verdict() -> None:
    verdict = Verdict(False, 0.0, "unrelated", "new word")
    groups = (WordVerdict("Dogs", (1,), verdict), WordVerdict("red", (2, 3), verdict))
    assert seat.group_named(groups, "RED") is groups[1]
    assert seat.group_named(groups, "cat") is None


# ---------------------------------------------------------------- names and grammar


def test_the_person_is_you_and_the_others_are_named() -> None:
    names = seat.SeatNames(("Ann", "Bot 1", "Bot 2"), me="Ann")
    assert (names.who(0), names.whose(0)) == ("you", "your")
    assert (names.who(1), names.whose(2)) == ("Bot 1", "Bot 2's")
    assert names.writers([1, 2, 0]) == "Bot 1, Bot 2 and you"
    assert names.writers([2]) == "Bot 2" and names.writers([]) == ""
    assert names.name(5) == "player 6"
    assert seat.plural(1, "is", "are") == "is" and seat.plural(2, "is", "are") == "are"


def test_the_web_seat_holds_a_timed_out_player_to_the_same_default() -> None:
    """The page chose two cards and sent a three with a refused word; then time ran out:
    the web seat keeps both, as the terminal does (kiek/rules.py, time_up_split)."""
    table = WebTable(["You", "Bot 1", "Bot 2"], [0], CARDS, {}, TableJudge(), show_grace=0.0)
    player = table.player(0)
    view = replace(active_view(), hourglass=Hourglass(MonotonicClock(), 1.0))
    result: list[ActivePlay] = []
    thread = threading.Thread(target=lambda: result.append(player.play_turn(view)), daemon=True)
    thread.start()
    deadline = time.monotonic() + 5
    while table.seats[0].pending is None and time.monotonic() < deadline:
        time.sleep(0.01)
    with table.cond:
        pending = table.seats[0].pending
        assert pending is not None and pending.kind == "play"
        pending.played, pending.draft_cards = ("c05", "c06"), (4, 0, 1)
    thread.join(timeout=10)
    assert result == [ActivePlay(("c05", "c06"), ("c00", "c01", "c06"), ("c02", "c05"), "")]
