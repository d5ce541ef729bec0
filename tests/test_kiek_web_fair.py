"""A fair browser table (issue 21): hidden information stays hidden by every channel, rulings
name who made them and need another person's agreement when they would score their maker,
and the table stays up after the game with its final page.

Over HTTP against a real uvicorn server with scripted bots and a table judge (the helpers of
tests/test_kiek_web.py); tests/test_kiek_browser.py plays in Chromium."""

from __future__ import annotations

import threading
import time

import httpx
from kiek_helpers import ScriptedPlayer, TableJudge
from test_kiek_web import Table, answer_everything, deck  # noqa: F401  (deck: a fixture)

from kiekai.events import EventLog, read_log
from kiekai.kiek.game import play_game
from kiekai.kiek.settings import GameSettings


def _dealt(t: Table) -> tuple[list[str], list[list[str]]]:
    """The content hashes of the table's cards and of each hand, now."""
    snap = t.table.snapshot
    sha = {c: t.table.cards[c].sha256 for c in t.table.cards}
    return [sha[c] for c in snap.table], [[sha[c] for c in hand] for hand in snap.hands]


def _two_people(deck, tmp_path, **kwargs) -> Table:  # noqa: F811
    t = Table(deck, tmp_path, people=2, **kwargs)
    t.client.get(t.url(0))
    t.client.get(t.url(1))  # both joined: the game starts
    t.play(rounds=1)
    return t


def _both_answer(t: Table, word_1: str = "dog") -> None:
    """Both people answer every question until the game ends (seat 1 in a thread, joined
    before returning, so nothing is still posting when the test closes the client)."""
    helper = threading.Thread(target=answer_everything, args=(t, 1, word_1), daemon=True)
    helper.start()
    answer_everything(t, 0)
    helper.join(timeout=30)


# --------------------------------------------------------------------- photos


def test_a_seat_gets_only_the_photos_it_may_see_and_every_other_name_the_same_404(
    deck,  # noqa: F811
    tmp_path,
):
    """Its hand and the table: 200. The other person's hand, a card set aside, a hash of no
    card and a malformed name: one and the same 404 (status and body), so a refusal tells
    nothing about the deck. On today's main every photo of the deck is served to anyone."""
    t = _two_people(deck, tmp_path)
    try:
        t.pending(0, "play")
        table, hands = _dealt(t)
        for sha in table + hands[0]:
            r = t.client.get(t.url(0, f"/photo/{sha}.jpg"))
            assert r.status_code == 200 and r.content[:2] == b"\xff\xd8"
        dealt = set(table) | {sha for hand in hands for sha in hand}
        aside = next(c.sha256 for c in deck if c.sha256 not in dealt)
        theirs = [sha for sha in hands[1] if sha not in hands[0]]
        refusals = {
            (r.status_code, r.text)
            for r in (
                t.client.get(t.url(0, f"/photo/{name}"))
                for name in [f"{sha}.jpg" for sha in [*theirs, aside, "0" * 64]] + ["x.jpg"]
            )
        }
        assert len(refusals) == 1, refusals
        ((status, text),) = refusals
        assert status == 404 and "no photo you can see" in text
        # nor does any other response name them: seat 0's state holds none of their hashes
        state = t.client.get(t.url(0, "/state")).text
        assert not [sha for sha in theirs if sha in state]
        assert all(sha in state for sha in hands[0])
        # and the other way round: seat 1 sees its own hand, not seat 0's
        assert t.client.get(t.url(1, f"/photo/{hands[1][0]}.jpg")).status_code == 200
        only_mine = [sha for sha in hands[0] if sha not in hands[1]]
        assert t.client.get(t.url(1, f"/photo/{only_mine[0]}.jpg")).status_code == 404
    finally:
        t.close()


def test_forged_and_missing_tokens_get_no_photo_and_the_same_answer_for_every_hash(
    deck,  # noqa: F811
    tmp_path,
):
    """No token (the old public route), a forged token and another table's token: the same
    refusal whether the hash is a card of this deck's deal, of its deck, or of nothing."""
    t = _two_people(deck, tmp_path)
    other = Table(deck, tmp_path)  # a link of another table
    try:
        t.pending(0, "play")
        table, hands = _dealt(t)
        names = [table[0], hands[1][0], deck[-1].sha256, "0" * 64]
        assert {t.client.get(f"/photo/{sha}.jpg").status_code for sha in names} == {404}
        for token_path in ("/seat/" + "A" * 24, "/seat/short", other.url(0)):
            answers = {
                (r.status_code, r.text)
                for r in (t.client.get(f"{token_path}/photo/{sha}.jpg") for sha in names)
            }
            assert len(answers) == 1, (token_path, answers)
            ((status, _text),) = answers
            assert status in (403, 404) and status != 200
        assert t.client.get(other.url(0, f"/photo/{table[0]}.jpg")).status_code == 403
    finally:
        other.client.close()
        other.server.stop()
        t.close()


def test_no_photo_answer_depends_on_another_seats_earlier_request(
    deck,  # noqa: F811
    tmp_path,
    monkeypatch,
):
    """A spy on the photo decoder: every dealt card is decoded exactly once, at the deal,
    before any page asks; afterwards no request of any seat decodes anything, and a photo
    answers the same bytes to a seat whether or not another seat fetched it first. On
    today's main the first request decodes and the next ones answer from a cache shared
    by every seat (2-7 ms against 91-177 ms: the other person's hand by timing)."""
    import kiekai.deck

    real = kiekai.deck.open_rgb
    decoded: list[tuple[str, float]] = []
    first_request: list[float] = []

    def spy(card, *args, **kwargs):
        decoded.append((card.sha256, time.monotonic()))
        return real(card, *args, **kwargs)

    monkeypatch.setattr(kiekai.deck, "open_rgb", spy)
    t = _two_people(deck, tmp_path)
    try:
        t.pending(0, "play")
        table, hands = _dealt(t)
        dealt = sorted({*table, *(sha for hand in hands for sha in hand)})
        assert sorted(sha for sha, _ in decoded) == dealt  # each once, nothing else
        before = len(decoded)
        first_request.append(time.monotonic())
        assert all(at < first_request[0] for _, at in decoded)
        # seat 1 fetches the table first; seat 0 then gets the same bytes, decoding nothing
        by_1 = [t.client.get(t.url(1, f"/photo/{sha}.jpg")).content for sha in table]
        by_0 = [t.client.get(t.url(0, f"/photo/{sha}.jpg")).content for sha in table]
        fresh = t.client.get(t.url(0, f"/photo/{hands[0][0]}.jpg")).content  # nobody asked
        again = t.client.get(t.url(0, f"/photo/{hands[0][0]}.jpg")).content
        assert by_0 == by_1 and fresh == again and fresh[:2] == b"\xff\xd8"
        assert len(decoded) == before
    finally:
        t.close()


# --------------------------------------------------------------------- who rules


def _to_the_reveal(t: Table, secret: str = "zebra", guess: str = "okapi"):
    """Seat 0 (active) writes ``secret``, seat 1 guesses ``guess``; returns both reveals."""
    pending = t.pending(0, "play")
    t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
    r = t.post(
        0,
        "play",
        data={"request": pending.id, "step": "split", "card": ["0", "1", "2"], "word": secret},
    )
    assert r.status_code == 200, r.text
    t.post(1, "guess", request=t.pending(1, "guess").id, word=guess)
    return t.pending(0, "reveal"), t.pending(1, "reveal")


def test_the_active_players_overrule_is_theirs_and_needs_the_other_persons_agreement(
    deck,  # noqa: F811
    tmp_path,
):
    """The issue's two-person game: the active player (Player 1) overrules Player 2's guess
    to a match, which would score Player 1. Without Player 2's agreement it does not count
    (no overrule event, the judge's verdict stands, Player 1 is told why). On today's main
    it counted and was logged as Player 2's ruling."""
    t = _two_people(deck, tmp_path)
    try:
        reveal_0, reveal_1 = _to_the_reveal(t)
        r = t.post(0, "reveal", request=reveal_0.id, do="overrule", word="okapi")
        assert r.status_code == 200, r.text
        page_1 = t.state(1)["decision"]
        assert "(overruled by Player 1)" in page_1 and "would score Player 1" in page_1
        assert 'value="agree"' in page_1  # Player 2 may agree
        assert 'value="agree"' not in t.state(0)["decision"]  # not to one's own ruling
        assert t.post(0, "reveal", request=reveal_0.id, do="agree", word="okapi").status_code == 409
        t.post(1, "reveal", request=reveal_1.id, do="done")  # goes on without agreeing
        t.post(0, "reveal", request=reveal_0.id, do="done")
        _both_answer(t)
        assert t.error is None, t.error
        events = list(read_log(t.log_path))
        assert not [e for e in events if e.type == "overrule"]
        verdict = next(e for e in events if e.type == "verdict" and e.turn == 0 and e.player == 1)
        assert not verdict.data["accepted"] and not verdict.data["overruled"]
        assert any("would score you" in n for n in t.table.seats[0].notices)
    finally:
        t.close()


def test_an_agreed_overrule_is_credited_to_the_person_who_made_it(deck, tmp_path):  # noqa: F811
    """The same overrule with Player 2's agreement: it counts, the log and the page credit
    Player 1 (``player`` 0, ``agreed`` [1]) and the house rule names Player 1."""
    from kiekai.judge.house_rules import HouseRules

    rules = HouseRules.load(tmp_path / "house-rules.tsv", missing_ok=True)
    t = _two_people(deck, tmp_path, house_rules=rules)
    try:
        reveal_0, reveal_1 = _to_the_reveal(t)
        t.post(0, "reveal", request=reveal_0.id, do="overrule", word="okapi")
        r = t.post(1, "reveal", request=reveal_1.id, do="agree", word="okapi")
        assert r.status_code == 200, r.text
        assert "agreed by Player 2" in t.state(0)["decision"]
        assert "counts only if another person agrees" not in t.state(0)["decision"]
        t.post(1, "reveal", request=reveal_1.id, do="done")
        t.post(0, "reveal", request=reveal_0.id, do="done")
        end = time.monotonic() + 20
        while "overruled the judge" not in t.state(1)["status"] and time.monotonic() < end:
            time.sleep(0.05)
        assert "Player 1 overruled the judge (Player 2 agreed)" in t.state(1)["status"]
        _both_answer(t)
        assert t.error is None, t.error
        events = list(read_log(t.log_path))
        (overrule,) = [e for e in events if e.type == "overrule"]
        assert overrule.player == 0 and overrule.data["agreed"] == [1]
        verdict = next(e for e in events if e.type == "verdict" and e.turn == 0 and e.player == 1)
        assert verdict.data["overruled"] and verdict.data["scored"] == 1
        text = (tmp_path / "house-rules.tsv").read_text(encoding="utf-8")
        assert "\nzebra\tokapi\tyes\tstandard\tPlayer 1\n" in text  # the ruled_by column
        assert rules.ruled_by(rules.lookup("zebra", "okapi", "standard")) == "Player 1"
    finally:
        t.close()


def test_a_ruling_that_scores_nobody_who_made_it_needs_no_agreement(deck, tmp_path):  # noqa: F811
    """Player 2 rules a bot's matching guess no match: that scores nobody, so it counts
    without anyone agreeing, credited to Player 2."""
    t = _two_people(deck, tmp_path)
    try:
        reveal_0, reveal_1 = _to_the_reveal(t, secret="sea", guess="okapi")  # Bot 2: "sea"
        assert ">sea<" in t.state(1)["decision"]
        t.post(1, "reveal", request=reveal_1.id, do="overrule", word="sea")
        assert "counts only if another person agrees" not in t.state(0)["decision"]
        t.post(0, "reveal", request=reveal_0.id, do="done")
        t.post(1, "reveal", request=reveal_1.id, do="done")
        _both_answer(t)
        assert t.error is None, t.error
        (overrule,) = [e for e in read_log(t.log_path) if e.type == "overrule"]
        assert overrule.player == 1 and not overrule.data["accepted"]
        assert overrule.data["agreed"] == []
    finally:
        t.close()


def test_the_runner_asks_agreement_of_another_person_not_of_a_bot(deck, tmp_path):  # noqa: F811
    """The rule holds for every front end: two people (plain answers, as the terminal
    gives), the active one rules a guess a match that would score them; alone it does not
    count, with the other person making the same ruling it does."""
    cards = deck
    results = []
    for other_agrees in (False, True):
        ann = ScriptedPlayer("Ann", ["zebra"], human=True)
        bob = ScriptedPlayer("Bob", ["sea"], guesses=["okapi"], human=True)
        ann.rulings = {"okapi": True}
        if other_agrees:
            bob.rulings = {"okapi": True}
        bots = [ScriptedPlayer(f"Bot {i}", ["sky"], guesses=["cat"]) for i in (1, 2)]
        with EventLog(tmp_path / f"g{other_agrees}.jsonl") as log:
            play_game(
                [ann, bob, *bots], cards, judge=TableJudge(), log=log,
                settings=GameSettings(seed=1, rounds=1, turn_seconds=60),
            )  # fmt: skip
        overrules = [e for e in read_log(log.path) if e.type == "overrule" and e.turn == 0]
        results.append((overrules, ann.told))
    (none, told), (agreed, _) = results
    assert none == [] and any("would score you" in line for line in told)
    assert len(agreed) == 1 and {agreed[0].player, *agreed[0].data["agreed"]} == {0, 1}


# --------------------------------------------------------------------- the end of the game


def test_the_table_stays_up_after_the_game_with_the_final_page_until_everyone_leaves(
    deck,  # noqa: F811
    tmp_path,
):
    """After the game the server still answers: the final scores, every turn's words,
    "Leave the table"; when both people have left, close_after_game closes it and the
    pages are told (on today's main the server exits with the game: a reload fails)."""
    t = _two_people(deck, tmp_path)
    try:
        _both_answer(t, "sea")
        assert t.error is None and t.outcome is not None
        assert t.server._thread.is_alive()  # the game is over, the table is not
        final = t.state(0)
        assert final["state"] == "over"
        page = final["decision"]
        assert "wins" in page and "The game's words" in page and 'data-action="leave"' in page
        words = [e.data["words"] for e in read_log(t.log_path) if e.type == "reveal"]
        assert len(words) == 4 and all(f">{w[e]}<" in page for e, w in enumerate(words) if w[e])
        assert t.client.get(t.url(1)).status_code == 200  # a reload shows the final page
        why: list[str] = []
        closer = threading.Thread(target=lambda: why.append(t.server.close_after_game(30, 0.3)))
        closer.start()
        assert t.post(0, "leave").status_code == 200
        assert "You left the table" in t.state(0)["decision"]
        assert t.server._thread.is_alive()  # Player 2 is still looking
        t.post(1, "leave")
        closer.join(timeout=30)
        assert why == ["everyone left the table"]
        assert not t.server._thread.is_alive()
    finally:
        t.close()


def test_leave_is_refused_while_the_game_is_on(deck, tmp_path):  # noqa: F811
    t = _two_people(deck, tmp_path)
    try:
        t.pending(0, "play")
        r = t.post(0, "leave")
        assert r.status_code == 409 and "still on" in r.json()["error"]
    finally:
        t.close()


def test_the_reveal_shows_the_words_once(deck, tmp_path):  # noqa: F811
    """While the words are read aloud the reveal panel has the words with the judge's
    verdicts; the "This turn" panel does not repeat them with an empty verdict column."""
    t = _two_people(deck, tmp_path)
    try:
        reveal_0, _ = _to_the_reveal(t)
        state = t.state(0)
        assert "okapi" in state["decision"] and "<th>The judge</th>" in state["decision"]
        assert "<th>Verdict</th>" not in state["status"]
        assert 'class="words"' not in state["status"]  # (the table log still says the words)
    finally:
        t.close()


def test_a_photo_request_with_a_good_token_after_the_game_still_works(deck, tmp_path):  # noqa: F811
    """The final page's photos (the last turn's cards) still load after the game."""
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        answer_everything(t)
        table, _ = _dealt(t)
        with httpx.Client(base_url=t.server.base_url, timeout=10) as client:
            assert client.get(t.url(0, f"/photo/{table[0]}.jpg")).status_code == 200
    finally:
        t.close()


def test_the_table_log_names_who_ruled_and_who_agreed():
    """The log's lines (the page's table log and `kiekai replay`) say who made a ruling and
    who agreed to it."""
    from kiekai.events import Event, KiekHeader, KiekOverrule
    from kiekai.kiek.describe import Describer

    describer = Describer()
    header = KiekHeader.model_validate(
        {"game": "kiek", "format": 1, "seed": 1, "rounds": 1, "time_limit": 60.0,
         "players": [{"seat": i, "name": n, "human": i < 2}
                     for i, n in enumerate(["Ann", "Bob", "Bot 1"])]}
    )  # fmt: skip
    describer.describe(Event.of(header))
    ruling = KiekOverrule(
        guesser=1, guessers=[1], secret="zebra", guess="okapi", accepted=True, agreed=[1]
    )
    text = " ".join(
        span.text for line in describer.describe(Event.of(ruling, player=0)) for span in line.spans
    )
    assert "Overruled by Ann (agreed by Bob):" in text and "'okapi'" in text
