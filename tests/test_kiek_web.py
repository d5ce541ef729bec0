"""The browser table's server (issue 12), tested over HTTP against a real uvicorn server:
seat links, answers, live updates, photos by content hash, and every kind of bad input
(stale or forged tokens, a second tab, a closed browser, a reload, oversized or malformed
posts, path tricks): a clear 4xx or a clean state, never a 500, and the log keeps every turn.

These tests use scripted bots and a table judge for speed; tests/test_kiek_browser.py plays
whole games in a real headless Chromium with the real bots and judge."""

from __future__ import annotations

import html
import json
import re
import threading
import time
from pathlib import Path

import httpx
import pytest
from kiek_helpers import ScriptedPlayer, TableJudge
from PIL import Image

from kiekai.deck import load_deck
from kiekai.display import card_names
from kiekai.events import EventLog, read_log
from kiekai.kiek.game import replay
from kiekai.kiek.settings import GameSettings
from kiekai.web.server import run_web_game, start_server
from kiekai.web.table import WebTable


@pytest.fixture
def deck(tmp_path_factory):
    folder = tmp_path_factory.mktemp("deck")
    for i in range(24):
        Image.new("RGB", (80, 60), (i * 37 % 256, i * 91 % 256, 120)).save(folder / f"p{i:02d}.png")
    (folder / "labels.csv").write_text(
        "file,label\n" + "".join(f"p{i:02d}.png,thing {i}\n" for i in range(24)), encoding="utf-8"
    )
    return list(load_deck(folder).cards)


class Table:
    """A web table with one or two people and scripted bots, served on a free port."""

    def __init__(
        self,
        cards,
        tmp_path,
        people=1,
        time_limit=60.0,
        judge=None,
        house_rules=None,
        make_bot=None,
        **waits,
    ):
        names = [f"Player {i + 1}" for i in range(people)] + [
            f"Bot {i + 1}" for i in range(4 - people)
        ]
        self.cards = cards
        self.judge = judge or TableJudge()
        self.house_rules = house_rules
        self.make_bot = make_bot
        self.table = WebTable(
            names, list(range(people)), cards, card_names(cards), self.judge, **waits
        )
        self.server = start_server(self.table)
        self.client = httpx.Client(base_url=self.server.base_url, timeout=10)
        self.log_path = tmp_path / "web.jsonl"
        self.outcome = None
        self.error: BaseException | None = None
        self.time_limit = time_limit

    def url(self, seat=0, path=""):
        return f"/seat/{self.table.seats[seat].token}{path}"

    def play(self, rounds=1, linger=0.3):
        def make_bot(seat, name):
            return ScriptedPlayer(
                name, ["dog", "red", "people", "sea", "sky"][seat % 5 :] + ["cat"]
            )

        def run():
            try:
                with EventLog(self.log_path) as log:
                    self.outcome = run_web_game(
                        self.table, self.server, self.make_bot or make_bot, self.cards, judge=self.judge,
                        settings=GameSettings(seed=3, rounds=rounds, turn_seconds=self.time_limit),
                        log=log, linger=linger,
                        house_rules=self.house_rules,
                    )  # fmt: skip
            except BaseException as exc:  # reported by the test
                self.error = exc

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def state(self, seat=0):
        response = self.client.get(self.url(seat, "/state"))
        assert response.status_code == 200, response.text
        return response.json()

    def pending(self, seat=0, kind=None, timeout=20.0):
        """Wait until the seat is asked something (of ``kind``); returns the Pending."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pending = self.table.seats[seat].pending
            if (
                pending is not None
                and not pending.answered
                and (kind is None or pending.kind == kind)
            ):
                return pending
            if not self.thread.is_alive():
                raise AssertionError(f"the game ended while waiting for {kind}: {self.error!r}")
            time.sleep(0.02)
        raise AssertionError(f"seat {seat} was not asked {kind} in {timeout} s")

    def post(self, seat, action, **fields):
        data = fields.pop("data", None) or fields
        return self.client.post(self.url(seat, f"/{action}"), data=data)

    def close(self):
        if hasattr(self, "thread") and self.thread.is_alive():
            self.table.stop("test over")
        if hasattr(self, "thread"):
            self.thread.join(timeout=20)
        self.client.close()
        if self.server._thread.is_alive():
            self.server.stop()


def answer_everything(
    t: Table, seat: int = 0, word: str = "dog", join=True, timeout=60.0, until=None
):
    """Answer every question of ``seat`` as a person would, until the game ends (or until
    the seat is asked a question of kind ``until``: that question is returned)."""
    end = time.monotonic() + timeout
    while t.thread.is_alive() and t.table.state != "over" and time.monotonic() < end:
        pending = t.table.seats[seat].pending
        if pending is None or pending.answered:
            time.sleep(0.02)
            continue
        if pending.kind == until:
            return pending
        if pending.kind == "play" and pending.step == 1:
            r = t.post(
                seat, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]}
            )
        elif pending.kind == "play":
            r = t.post(
                seat,
                "play",
                data={
                    "request": pending.id,
                    "step": "split",
                    "card": ["0", "1", "2"],
                    "word": word,
                },
            )
        elif pending.kind == "guess":
            r = t.post(seat, "guess", request=pending.id, word=word)
        elif pending.kind in ("reveal", "repeats"):
            r = t.post(seat, pending.kind, request=pending.id, do="done")
        else:
            r = t.post(seat, "keep", request=pending.id, card="0")
        assert r.status_code in (200, 409), r.text  # 409: the question moved on meanwhile
    if join:
        t.thread.join(timeout=20)


def test_a_person_plays_a_whole_web_game_and_the_log_replays(deck, tmp_path):
    """Every decision over HTTP; the log is the same EventLog as the terminal's and
    `replay` prints it; the page never shows a file name."""
    t = Table(deck, tmp_path)
    try:
        assert t.client.get(t.url()).status_code == 200  # opening the link joins and starts
        t.play(rounds=1, linger=2)
        answer_everything(t, join=False)
        final = t.state()
        assert final["state"] == "over" and "wins" in final["decision"]
        assert "p0" not in final["status"] + final["decision"]  # names, never file names
        t.thread.join(timeout=20)
        assert t.error is None and t.outcome is not None and t.outcome.turns == 4
        events = list(read_log(t.log_path))
        assert events[0].data["front_end"] == "web"
        assert events[0].data["players"][0] == {"seat": 0, "name": "Player 1", "human": True}
        assert events[-1].type == "game-over"
        assert [e.data["word"] for e in events if e.type == "guess" and e.player == 0] == [
            "dog"
        ] * 3
        from rich.console import Console

        console = Console(record=True, width=120)
        replay(t.log_path, console)
        assert "Final scores" in console.export_text()
    finally:
        t.close()


def test_forged_stale_and_malformed_tokens_are_refused(deck, tmp_path):
    t = Table(deck, tmp_path)
    try:
        for token in ("x" * 24, "short", "../../etc/passwd", "a" * 65, "%00" * 8):
            for path in ("", "/state", "/stream"):
                r = t.client.get(f"/seat/{token}{path}")
                assert r.status_code in (403, 404), (token, path, r.status_code)
                assert r.status_code != 500
        r = t.client.get("/seat/" + "A" * 24, headers={"accept": "text/html"})
        assert r.status_code == 403 and "not valid at this table" in r.text
        other = Table(deck, tmp_path)  # a link of another (earlier) table
        try:
            r = t.client.get(other.url(0))
            assert r.status_code == 403
            r = t.client.post(other.url(0, "/guess"), data={"request": "q1", "word": "dog"})
            assert r.status_code == 403 and "not valid" in r.json()["error"]
        finally:
            other.client.close()
            other.server.stop()
        assert t.client.get("/").status_code == 200
        assert t.table.seats[0].token not in t.client.get("/").text
    finally:
        t.server.stop()
        t.client.close()


def test_photos_by_content_hash_only(deck, tmp_path):
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        t.pending(0, "play")
        mine = t.table.cards[t.table.snapshot.hands[0][0]]
        good = t.client.get(t.url(0, f"/photo/{mine.sha256}.jpg"))
        assert good.status_code == 200 and good.headers["content-type"] == "image/jpeg"
        assert good.content[:2] == b"\xff\xd8"
        for path in (
            "/photo/../../etc/passwd",
            "/photo/..%2F..%2Fetc%2Fpasswd",
            "/photo/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
            f"/photo/{'0' * 64}.jpg",
            f"/photo/{mine.sha256}",
            f"/photo/{mine.sha256.upper()}.jpg",
            "/photo/" + str(mine.path).replace("/", "%2F"),
            "/photo/p00.png",
        ):
            r = t.client.get(t.url(0, path))
            # 405: the client resolved the dots to a seat's post route; never a file
            assert r.status_code in (404, 405) and b"root:" not in r.content, (path, r.status_code)
        for path in ("/static/../table.py", "/static/%2e%2e/table.py", f"/photo/{mine.sha256}.jpg"):
            r = t.client.get(path)  # no seat: the old public photo route is gone
            assert r.status_code == 404, (path, r.status_code)
    finally:
        t.close()


def test_bad_posts_get_a_clear_4xx_and_the_game_goes_on(deck, tmp_path):
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        pending = t.pending(0, "play")
        url = t.url(0, "/play")
        cases = [
            (
                dict(
                    content=b"x" * 5000,
                    headers={"content-type": "application/x-www-form-urlencoded"},
                ),
                413,
            ),
            (dict(json={"request": pending.id}), 415),
            (
                dict(
                    content=b"request=\xff\xfe",
                    headers={"content-type": "application/x-www-form-urlencoded"},
                ),
                400,
            ),
            (
                dict(
                    content=("&".join(f"f{i}=1" for i in range(40))).encode(),
                    headers={"content-type": "application/x-www-form-urlencoded"},
                ),
                400,
            ),
            (dict(data={"step": "cards"}), 400),  # no request id
            (dict(data={"request": "q999-abc", "step": "cards", "card": ["0", "1"]}), 409),  # stale
            (dict(data={"request": pending.id, "step": "cards", "card": ["0", "0"]}), 422),
            (dict(data={"request": pending.id, "step": "cards", "card": ["0", "9"]}), 422),
            (dict(data={"request": pending.id, "step": "cards", "card": ["x", "1"]}), 400),
            (
                dict(
                    data={
                        "request": pending.id,
                        "step": "split",
                        "card": ["0", "1", "2"],
                        "word": "dog",
                    }
                ),
                409,
            ),
            (dict(data={"request": pending.id, "step": ["cards", "split"]}), 400),
        ]
        for kwargs, status in cases:
            r = t.client.post(url, **kwargs)
            assert r.status_code == status, (kwargs, r.status_code, r.text)
            assert "error" in r.json() and r.json()["error"]
        assert t.client.post(t.url(0, "/nonsense"), data={"request": pending.id}).status_code == 404
        assert (
            t.client.post(t.url(0, "/guess"), data={"request": pending.id, "word": "x"}).status_code
            == 409
        )
        r = t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
        assert r.status_code == 200
        for word, why in (
            ("two words", "one word"),
            ("", "nothing was typed"),
            ("x" * 80, "at most"),
        ):
            r = t.post(
                0,
                "play",
                data={
                    "request": pending.id,
                    "step": "split",
                    "card": ["0", "1", "2"],
                    "word": word,
                },
            )
            assert r.status_code == 422 and why in r.json()["error"], r.text
            assert why in t.state()["decision"]  # the page says why, as the terminal does
        answer_everything(t)
        assert t.error is None and t.outcome is not None
        assert sum(1 for e in read_log(t.log_path) if e.type == "score") == 4
    finally:
        t.close()


def test_a_refused_word_keeps_the_chosen_cards_and_the_word_on_the_page(deck, tmp_path):
    """A refused word (a phrase) re-renders the question with the reason, the three cards
    still chosen and the word still in its box, for the active player and for a guesser:
    bad input loses nothing."""
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        pending = t.pending(0, "play")
        t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
        r = t.post(
            0,
            "play",
            data={
                "request": pending.id,
                "step": "split",
                "card": ["4", "1", "3"],
                "word": "very alive",
            },
        )
        assert r.status_code == 422
        decision = t.state()["decision"]
        assert "one word" in decision and 'value="very alive"' in decision
        checked = re.findall(r'name="card" value="(\d)" checked', decision)
        assert sorted(checked) == ["1", "3", "4"], decision
        r = t.post(0, "play", data={"request": pending.id, "step": "back"})
        assert 'value="very alive"' not in t.state()["decision"]  # other cards: a fresh form
        t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
        r = t.post(
            0,
            "play",
            data={"request": pending.id, "step": "split", "card": ["0", "1", "2"], "word": "dog"},
        )
        assert r.status_code == 200
        t.post(0, "reveal", request=t.pending(0, "reveal").id, do="done")
        t.post(0, "keep", request=t.pending(0, "keep").id, card="0")
        guess = t.pending(0, "guess")
        r = t.post(0, "guess", request=guess.id, word="two <words>")
        assert r.status_code == 422
        decision = t.state()["decision"]
        assert 'value="two &lt;words&gt;"' in decision  # kept, and escaped
        assert t.post(0, "guess", request=guess.id, word="dog").status_code == 200
    finally:
        t.close()


def test_reload_shows_the_current_question(deck, tmp_path):
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        pending = t.pending(0, "play")
        t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["1", "2"]})
        page = t.client.get(t.url())  # a reload, mid-turn
        assert page.status_code == 200
        assert pending.id in page.text and "click the three your word describes" in page.text
        assert t.state()["key"].startswith(pending.id)
    finally:
        t.close()


def test_a_stopped_game_says_why_in_a_sentence(deck, tmp_path):
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        t.pending(0, "play")
        t.table.stop("stopped with Ctrl-C")
        decision = t.state()["decision"]
        assert "The game stopped" in decision and "Stopped with Ctrl-C. The game log" in decision
    finally:
        t.close()


def read_events(lines, count, timeout=5.0):
    """The next ``count`` server-sent event names from an open stream's line iterator."""
    names = []
    end = time.monotonic() + timeout
    for line in lines:
        if line.startswith("event: "):
            names.append(line[7:])
            if len(names) >= count or "replaced" in names:
                break
        if time.monotonic() > end:
            break
    return names


def test_a_second_tab_takes_the_seat_and_the_first_is_told(deck, tmp_path):
    t = Table(deck, tmp_path)
    try:
        with t.client.stream("GET", t.url(0, "/stream")) as first:
            first_lines = first.iter_lines()
            assert read_events(first_lines, 1) == ["version"]
            with httpx.Client(base_url=t.server.base_url, timeout=10) as other:
                with other.stream("GET", t.url(0, "/stream")) as second:
                    assert read_events(second.iter_lines(), 1) == ["version"]
                    assert "replaced" in read_events(first_lines, 3)
        assert t.table.seats[0].streams == 0 or t.table.seats[0].streams <= 1
    finally:
        t.server.stop()
        t.client.close()


def test_a_closed_browser_runs_out_of_time_like_a_silent_player(deck, tmp_path):
    """Nobody answers at seat 0 (the browser was closed): the hourglass is turned after
    the grace, the turn is forfeited as for a silent player, untimed questions take the
    default, and the game still finishes with every turn in the log."""
    t = Table(deck, tmp_path, time_limit=0.6, show_grace=0.2, gone_grace=0.3, untimed_wait=5)
    try:
        t.client.get(t.url())  # joined, then the browser is closed: no live connection
        t.play(rounds=1)
        t.thread.join(timeout=60)
        assert t.error is None and t.outcome is not None, t.error
        events = list(read_log(t.log_path))
        time_ups = [(e.player, e.data["what"]) for e in events if e.type == "time-up"]
        assert (0, "word") in time_ups and (0, "guess") in time_ups
        plays = [e for e in events if e.type == "play" and e.player == 0]
        assert plays and plays[0].data["forfeited"] is True
        assert sum(1 for e in events if e.type == "score") == 4 and events[-1].type == "game-over"
    finally:
        t.close()


def test_two_people_never_see_each_others_hand_or_word_before_the_reveal(deck, tmp_path):
    t = Table(deck, tmp_path, people=2)
    try:
        t.client.get(t.url(0))
        t.client.get(t.url(1))  # both joined: the game starts
        t.play(rounds=1)
        pending = t.pending(0, "play")
        hand_1 = {t.table.card_names[c.id] for c in t.table.engine.hands[1]}
        state_0 = t.state(0)
        assert not any(f">{name}<" in state_0["status"].split("Your hand")[1] for name in hand_1 - {
            t.table.card_names[c.id] for c in t.table.engine.hands[0]})  # fmt: skip
        t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
        t.post(
            0,
            "play",
            data={"request": pending.id, "step": "split", "card": ["0", "1", "2"], "word": "zebra"},
        )
        guess = t.pending(1, "guess")
        for seat in (0, 1):
            view = t.state(seat)
            assert "zebra" not in json.dumps(view)  # the secret is not shown before the reveal
        # the writer of the word waits for the others: their page says so, in their words
        waiting = t.state(0)["decision"]
        assert "The others are guessing your word" in waiting and "choosing" not in waiting
        t.post(1, "guess", request=guess.id, word="okapi")
        reveal = t.pending(0, "reveal")
        assert "zebra" in t.state(1)["decision"] and "okapi" in t.state(0)["decision"]
        assert "read aloud: your word was" in t.state(0)["decision"]
        assert "read aloud: Player 1's word was" in html.unescape(t.state(1)["decision"])
        # the table's overrule button: seat 1 overrules its own verdict, both see it; it
        # would score seat 1, so it counts once seat 0 agrees (docs/rules.md, "Who rules")
        r = t.post(1, "reveal", request=t.pending(1, "reveal").id, do="overrule", word="okapi")
        assert r.status_code == 200
        assert "overruled by Player 2" in t.state(0)["decision"]
        assert "counts only if another person agrees" in t.state(0)["decision"]
        r = t.post(0, "reveal", request=reveal.id, do="agree", word="okapi")
        assert r.status_code == 200, r.text
        assert "agreed by Player 1" in t.state(1)["decision"]
        t.post(0, "reveal", request=reveal.id, do="done")
        other = threading.Thread(target=answer_everything, args=(t, 1), daemon=True)
        other.start()
        answer_everything(t, 0)
        other.join(timeout=20)  # its last request ends before the client is closed
        events = list(read_log(t.log_path))
        overrule = next(e for e in events if e.type == "overrule")
        assert (
            overrule.player == 1 and overrule.data["guess"] == "okapi" and overrule.data["accepted"]
        )
        assert overrule.data["agreed"] == [0]
        verdict = next(e for e in events if e.type == "verdict" and e.player == 1)
        assert verdict.data["overruled"] and verdict.data["scored"] == 1
    finally:
        t.close()


def _rows(decision: str) -> list[str]:
    """The decision's table rows as plain text, one string a row."""
    rows = re.findall(r"<tr>(.*?)</tr>", decision, re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", row)).split()) for row in rows]


def test_a_ruling_made_on_the_web_page_is_applied_by_the_next_game(deck, tmp_path):
    """Issue 10 item 4 in the browser table: two bots guessed 'puppy' for the person's
    'dog' (no match at standard); the reveal shows the word once with both names, the
    person's overrule button rules it a match for both (one overrule event) and saves it;
    the next web game, whose judge reads the house-rules file, rules 'puppy' a match by
    itself and says it is a house rule."""
    from kiekai.judge import Judge
    from kiekai.judge.house_rules import HouseRules

    path = tmp_path / "house-rules.tsv"

    def make_bot(seat, name):
        return ScriptedPlayer(
            name,
            [["cat", "sea", "tree"][seat - 1]],
            guesses=["puppy" if seat < 3 else "cat", "stone"],
        )

    outcomes = []
    for game in (0, 1):
        rules = HouseRules.load(path, missing_ok=True)
        t = Table(
            deck,
            tmp_path / f"g{game}",
            judge=Judge("standard", house_rules=rules),
            house_rules=rules,
            make_bot=make_bot,
        )
        (tmp_path / f"g{game}").mkdir()
        try:
            t.client.get(t.url())
            t.play(rounds=1)
            pending = t.pending(0, "play", timeout=60)
            t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
            t.post(
                0,
                "play",
                data={
                    "request": pending.id,
                    "step": "split",
                    "card": ["0", "1", "2"],
                    "word": "dog",
                },
            )
            reveal = t.pending(0, "reveal", timeout=60)
            rows = [r for r in _rows(t.state(0)["decision"]) if "puppy" in r]
            assert len(rows) == 1 and rows[0].startswith("Bot 1, Bot 2 puppy"), rows
            if game == 0:
                assert "no match" in rows[0]
                r = t.post(0, "reveal", request=reveal.id, do="overrule", word="Puppy")
                assert r.status_code == 200, r.text
                assert (
                    "(overruled by Player 1)"
                    in [r for r in _rows(t.state(0)["decision"]) if "puppy" in r][0]
                )
            else:
                assert "puppy match" in rows[0] and "house rule" in rows[0].lower()
            t.post(0, "reveal", request=reveal.id, do="done")
            answer_everything(t, word="grass")
            assert t.error is None, t.error
            outcomes.append(list(read_log(t.log_path)))
        finally:
            t.close()
    first, second = outcomes
    overrules = [e for e in first if e.type == "overrule"]
    assert (
        len(overrules) == 1
        and overrules[0].data["guessers"] == [1, 2]
        and overrules[0].data["guess"] == "puppy"
    )
    assert path.read_text(encoding="utf-8").count("dog\tpuppy\tyes\tstandard") == 1
    assert not [e for e in second if e.type == "overrule"]
    verdicts = [
        e for e in second if e.type == "verdict" and e.turn == 0 and e.data["guess"] == "puppy"
    ]
    assert [(e.player, e.data["relation"], e.data["scored"]) for e in verdicts] == [
        (1, "house-rule", 1),
        (2, "house-rule", 1),
    ]


def test_after_a_call_the_page_overrules_the_judges_repeat_verdicts(deck, tmp_path):
    """Ne Bis in Idem on the web page: Bot 1 writes 'hound' after 'dog' was used and calls;
    the person is shown the judge's repeat verdict on every word and rules 'hound' no
    repeat and their own 'grass' a repeat of 'cat' (a used word must be named: a post
    without one is refused with 422); both rulings are logged, decide the call and are
    saved as house rules; the status says so in words."""
    from kiekai.judge.house_rules import HouseRules

    path = tmp_path / "house-rules.tsv"
    rules = HouseRules.load(path, missing_ok=True)
    scripts = {1: (["hound"], ["cat", "fish", "bird"]), 2: (["sea"], ["moon", "wave", "leaf", "rock"]),
               3: (["sky"], ["star", "rain", "snow", "ice"])}  # fmt: skip

    def make_bot(seat, name):
        words, guesses = scripts[seat]
        return ScriptedPlayer(name, words, guesses=guesses, calls=seat == 1)

    t = Table(deck, tmp_path, house_rules=rules, make_bot=make_bot)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        pending = t.pending(0, "play", timeout=60)
        t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
        t.post(
            0,
            "play",
            data={"request": pending.id, "step": "split", "card": ["0", "1", "2"], "word": "dog"},
        )
        pending = answer_everything(t, word="grass", until="repeats", join=False)
        assert pending is not None and pending.view.turn == 1
        rows = _rows(t.state(0)["decision"])
        assert any(r.startswith("hound Bot 1 repeats “dog”") for r in rows), rows
        assert any(r.startswith("grass Player 1 no repeat") for r in rows), rows
        r = t.post(0, "repeats", request=pending.id, do="overrule", word="hound")
        assert r.status_code == 200, r.text
        r = t.post(0, "repeats", request=pending.id, do="overrule", word="grass")
        assert r.status_code == 422 and "used word" in r.text
        r = t.post(0, "repeats", request=pending.id, do="overrule", word="grass", used="cat")
        assert r.status_code == 200, r.text
        rows = _rows(t.state(0)["decision"])
        assert any(
            r.startswith("hound Bot 1") and "no repeat (overruled by Player 1)" in r for r in rows
        ), rows
        assert any(
            r.startswith("grass Player 1") and "repeats “cat” (overruled by Player 1)" in r
            for r in rows
        ), rows
        t.post(0, "repeats", request=pending.id, do="done")
        answer_everything(t, word="grass", join=False)
        status = html.unescape(t.state(0)["status"])
        t.thread.join(timeout=20)
        assert t.error is None, t.error
    finally:
        t.close()
    events = list(read_log(t.log_path))
    rulings = [
        (e.player, e.data["word"], e.data["repeats"], e.data["used"])
        for e in events
        if e.type == "overrule-repeat"
    ]
    assert rulings == [(0, "hound", False, "dog"), (0, "grass", True, "cat")]
    call = next(e for e in events if e.type == "call" and e.turn == 1)
    assert (
        call.data["right"] and call.data["repeats"] == {"0": "cat"} and call.data["credited"] == 1
    )
    saved = path.read_text(encoding="utf-8")
    assert "dog\thound\tno\tstandard" in saved and "cat\tgrass\tyes\tstandard" in saved
    assert status  # the final page renders
    replay(t.log_path, __import__("rich.console").console.Console(record=True, width=120))


def test_start_now_gives_the_empty_seats_to_bots(deck, tmp_path):
    t = Table(deck, tmp_path, people=2)
    try:
        t.client.get(t.url(0))
        assert t.state(0)["state"] == "lobby"
        assert t.post(0, "start").status_code == 200
        assert t.post(0, "start").status_code == 409
        t.play(rounds=1)
        t.pending(0, "play")
        # Player 2 opens the link late: the page says a bot plays the seat and it is to watch
        assert t.client.get(t.url(1)).status_code == 200
        assert not t.table.seats[1].joined
        late = html.unescape(t.state(1)["status"])
        assert "a bot plays Player 2 (bot)" in late and "You watch Player 2 (bot)" in late
        assert "The bot's hand" in late and "Your hand" not in late
        assert 'Player 2 (bot) (you) <span class="tag">bot</span>' in late
        answer_everything(t, 0)
        events = list(read_log(t.log_path))
        players = events[0].data["players"]
        assert players[1] == {"seat": 1, "name": "Player 2 (bot)", "human": False}
        assert t.outcome is not None
    finally:
        t.close()


def test_web_seat_links_and_host(deck, tmp_path):
    t = Table(deck, tmp_path)
    try:
        assert t.server.base_url.startswith("http://127.0.0.1:")
        assert t.server.seat_url(0).endswith(t.table.seats[0].token)
        with pytest.raises(ValueError, match="bot"):
            t.server.seat_url(1)
        assert len(t.table.seats[0].token) >= 24
        everywhere = start_server(t.table, host="0.0.0.0")
        try:
            import socket

            assert everywhere.base_url == f"http://{socket.gethostname()}:{everywhere.port}"
        finally:
            everywhere.stop()
    finally:
        t.server.stop()
        t.client.close()


def test_templates_escape_what_people_type(deck, tmp_path):
    """HTML typed as a word or put in a label is shown as text, never as markup."""
    cards = [
        deck[0].__class__(**{**deck[0].__dict__, "label": "<script>alert(1)</script>"})
    ] + deck[1:]
    t = Table(cards, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        pending = t.pending(0, "play")
        state = t.state()
        assert "<script>alert" not in state["status"] + state["decision"]
        t.post(0, "play", data={"request": pending.id, "step": "cards", "card": ["0", "1"]})
    finally:
        t.close()


def test_play_command_refuses_bad_web_options():
    from typer.testing import CliRunner

    from kiekai.cli import app

    runner = CliRunner()
    for args, message in (
        (["--web", "--seats", "0"], "at least one seat"),
        (["--seats", "2"], "add --web"),
        (["--web", "--port", "70000"], "--port"),
        (["--turn-seconds", "0"], "--turn-seconds"),
    ):
        result = runner.invoke(app, ["play", *args])
        assert result.exit_code == 2, result.output
        assert message in result.output


def test_the_page_names_its_own_icon_so_the_browser_asks_for_no_missing_favicon(deck, tmp_path):
    """Without a linked icon Chromium requests /favicon.ico, gets a 404 and logs a console
    error on every page load; the page links a served icon instead (allowed by img-src 'self')."""
    t = Table(deck, tmp_path)
    try:
        page = t.client.get(t.url()).text
        href = re.search(r'<link rel="icon" href="([^"]+)"', page)
        assert href, "no icon linked"
        r = t.client.get(href.group(1))
        assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    finally:
        t.server.stop()
        t.client.close()


def test_package_ships_the_templates_and_scripts():
    web = Path(__file__).resolve().parents[1] / "kiekai" / "web"
    for name in (
        "templates/page.html",
        "templates/_decision.html",
        "static/table.js",
        "static/table.css",
    ):
        assert (web / name).is_file()
    assert "cdn" not in (web / "templates" / "page.html").read_text().lower()  # works offline


def test_the_deal_decodes_each_photo_once_and_at_most_photo_decodes_at_a_time(
    deck, tmp_path, monkeypatch
):
    """Every photo the game can show is decoded once, at the deal, at most PHOTO_DECODES at
    a time (a huge PNG holds hundreds of MB while it is decoded: twenty at once took 14 GB
    before); every page asking for the new cards at the same moment then decodes nothing."""
    import kiekai.deck
    from kiekai.web.app import PHOTO_DECODES

    real = kiekai.deck.open_rgb
    calls: list[str] = []
    busy = [0, 0]  # now, most at once
    guard = threading.Lock()

    def slow_open_rgb(card, *args, **kwargs):
        with guard:
            calls.append(card.sha256)
            busy[0] += 1
            busy[1] = max(busy)
        time.sleep(0.3)
        try:
            return real(card, *args, **kwargs)
        finally:
            with guard:
                busy[0] -= 1

    monkeypatch.setattr(kiekai.deck, "open_rgb", slow_open_rgb)
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        t.pending(0, "play")
        snap = t.table.snapshot
        dealt = [
            t.table.cards[c].sha256 for c in [*snap.table, *(c for h in snap.hands for c in h)]
        ]
        assert sorted(calls) == sorted(dealt) and busy[1] <= PHOTO_DECODES
        decoded = len(calls)
        wanted = [t.table.cards[c].sha256 for c in [*snap.table, *snap.hands[0]]] * 5
        results: list[int] = []

        def fetch(sha):
            with httpx.Client(base_url=t.server.base_url, timeout=30) as client:
                results.append(client.get(t.url(0, f"/photo/{sha}.jpg")).status_code)

        threads = [threading.Thread(target=fetch, args=(sha,)) for sha in wanted]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert results == [200] * len(wanted)
        assert len(calls) == decoded  # the requests decoded nothing
    finally:
        t.close()


@pytest.mark.parametrize("host", ["0", "", "0x0", "0.0.0.0"])
def test_every_spelling_of_every_address_is_known_as_such(deck, tmp_path, host):
    """``--host 0`` (or "", 0x0) binds 0.0.0.0 like ``--host 0.0.0.0``: the server knows it
    listens everywhere, and its links name the machine, not "http://0:port"."""
    import socket

    t = Table(deck, tmp_path)
    try:
        everywhere = start_server(t.table, host=host)
        try:
            assert everywhere.everywhere and everywhere.reachable_from_network
            assert everywhere.base_url == f"http://{socket.gethostname()}:{everywhere.port}"
        finally:
            everywhere.stop()
        assert not t.server.everywhere and not t.server.reachable_from_network
    finally:
        t.server.stop()
        t.client.close()


@pytest.mark.slow
def test_play_web_on_host_0_says_other_devices_can_join(tmp_path):
    """The real command with ``--host 0`` prints the warning that ``--host 0.0.0.0`` prints
    (before, only the literal strings 0.0.0.0 and :: did, while 0, "" and 0x0 listened on
    every address silently)."""
    import os
    import signal
    import subprocess
    import sys

    process = subprocess.Popen(
        [sys.executable, "-m", "kiekai", "play", "--web", "--no-open", "--host", "0", "--bots", "2",
         "--seed", "1", "--log", str(tmp_path / "g.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ, "COLUMNS": "200"},
    )  # fmt: skip
    lines: list[str] = []
    try:
        end = time.monotonic() + 300
        while time.monotonic() < end:
            line = process.stdout.readline().decode("utf-8", "replace")
            if not line:
                break
            lines.append(line)
            if "/seat/" in line:
                break
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    text = "".join(lines)
    assert "Listening on every network address: other devices on your network can open" in text, (
        text
    )
    assert "http://0:" not in text


def test_a_wrong_host_or_busy_port_fails_before_the_deck_and_judge_load(tmp_path):
    """``--host`` and ``--port`` are checked by binding first (under a second, not after the
    deck, perception and judge have loaded, leaving an empty game log behind)."""
    import socket

    from typer.testing import CliRunner

    from kiekai.cli import app

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        for extra in (["--host", "no.such.host.invalid"], ["--port", str(busy.getsockname()[1])]):
            log = tmp_path / "game.jsonl"
            result = CliRunner().invoke(
                app, ["play", "--web", "--no-open", "--bots", "2", "--log", str(log), *extra]
            )
            assert result.exit_code == 2, result.output
            assert "cannot listen on" in result.output and "Game log" not in result.output
            assert not log.exists()
    finally:
        busy.close()


def test_an_ipv6_host_may_be_written_in_brackets(deck, tmp_path):
    from kiekai.web.server import listen

    try:
        probe = listen("::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    probe.close()
    t = Table(deck, tmp_path)
    try:
        bracketed = start_server(t.table, host="[::1]")
        try:
            assert bracketed.base_url == f"http://[::1]:{bracketed.port}"
            assert httpx.get(bracketed.base_url + "/", timeout=10).status_code == 200
        finally:
            bracketed.stop()
    finally:
        t.server.stop()
        t.client.close()


def test_every_answer_carries_a_strict_content_security_policy(deck, tmp_path):
    """A second wall behind autoescaping: the pages run only their own script (no inline
    script or style exists), cannot be framed, and send no Referer with the seat's link."""
    t = Table(deck, tmp_path)
    try:
        for path in (t.url(), t.url(path="/state"), "/", "/static/table.js", t.url(path=f"/photo/{deck[0].sha256}.jpg"),
                     "/seat/forged-token-xxxxxxxxxx", "/nothing"):  # fmt: skip
            r = t.client.get(path)
            policy = r.headers.get("content-security-policy", "")
            assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, path
            assert r.headers.get("x-content-type-options") == "nosniff", path
            assert r.headers.get("referrer-policy") == "no-referrer", path
        page = t.client.get(t.url()).text
        assert "<script>" not in page and " style=" not in page and "onclick" not in page
        with t.client.stream("GET", t.url(path="/stream")) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert "content-security-policy" in stream.headers
            assert next(stream.iter_lines()).startswith("retry:")
    finally:
        t.server.stop()
        t.client.close()


def test_a_dealt_photo_broken_mid_game_is_still_served_from_the_deal(deck, tmp_path):
    """The photos are encoded at the deal: a dealt file cut short or removed later in the
    game changes nothing for the pages (the same JPEG, the page renders)."""
    t = Table(deck, tmp_path)
    try:
        t.client.get(t.url())
        t.play(rounds=1)
        t.pending(0, "play")
        mine = t.table.cards[t.table.snapshot.hands[0][0]]
        before = t.client.get(t.url(0, f"/photo/{mine.sha256}.jpg"))
        assert before.status_code == 200
        other = t.table.cards[t.table.snapshot.hands[0][1]]
        other_before = t.client.get(t.url(0, f"/photo/{other.sha256}.jpg")).content
        data = mine.path.read_bytes()
        mine.path.write_bytes(data[: len(data) // 3])
        other.path.unlink()
        after = t.client.get(t.url(0, f"/photo/{mine.sha256}.jpg"))
        assert after.status_code == 200 and after.content == before.content
        assert t.client.get(t.url(0, f"/photo/{other.sha256}.jpg")).content == other_before
        page = t.client.get(t.url(0))
        assert page.status_code == 200 and "Traceback" not in page.text
    finally:
        t.close()


def test_a_photo_broken_before_the_deal_is_a_404_said_once_in_the_log(tmp_path, caplog):
    """A dealt file broken between reading the deck and the deal: one warning naming the
    card and why, a ``None`` (the route's 404; the page shows the card's name), no raise."""
    import logging

    from kiekai.web.photos import DealtPhotos

    for name, red in (("a.png", 200), ("b.png", 100)):
        Image.new("RGB", (64, 48), (red, 30, 40)).save(tmp_path / name)
    good, broken = load_deck(tmp_path).cards
    broken.path.write_bytes(broken.path.read_bytes()[:40])
    photos = DealtPhotos()
    with caplog.at_level(logging.WARNING, logger="kiekai.web.photos"):
        photos.prepare([good, broken])
        photos.prepare([good, broken])  # a redeal: nothing encoded again, nothing said again
    assert photos.jpeg(good.sha256)[:2] == b"\xff\xd8"
    assert photos.has(broken.sha256) and photos.jpeg(broken.sha256) is None
    said = [r.getMessage() for r in caplog.records if r.name == "kiekai.web.photos"]
    assert len(said) == 1 and "b.png" in said[0] and "cannot be shown" in said[0], said
