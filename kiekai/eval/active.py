"""Evaluate the Kiek active bot: truthfulness, guessability and variety of its words.

Usage::

    python scripts/eval_active.py --deck ../shared/decks/imagenet-dev [--games 6] \\
        [--players 4] [--levels easy,normal,hard] [--seed 0] [--out DIR]

Seeded games are whole games of the rules engine (:func:`kiekai.kiek.runner.play_game` on a
virtual clock, as ``kiekai play --bots N --humans 0`` plays them), dealt from the deck's
labelled photos: the engine deals, redeals and scores by :mod:`kiekai.kiek.rules` (rulebook,
"Preparations", "A Turn" and "The Next Turn"), and every seat is a ``KiekBot`` of the measured
level, which plays its 2 cards, guesses, calls repeats and keeps the cards that stay; every
word written goes out of play (ne bis in idem). A game lasts ``players x 3`` turns. Each
active turn is measured as it is played; a panel of guesser bots (one per level) guesses
each split for the measure only.

Measured per active level:

- **truthfulness**: as the held-out check has it (:class:`kiekai.eval.quality.TruthChecker`):
  a word is checkable when one of its WordNet noun senses covers one of the five cards (not a
  colour, a quality or an ``X-less``), and true when one sense covers the three and none the
  two; splits with a card that has no synset cannot be checked and are counted apart.
  Target: >= 95% of the checkable words. Also over the turns where a true
  word was possible (:func:`feasible_words`).
- **legality**: the play uses 2 cards of the hand and splits exactly the five cards 3/2, and
  the word does not repeat a used one (``Judge.is_repeat``).
- **guessability**: the share of the panel's guesses the judge (standard) matches with the
  word, and the mean points per turn at stake 1 (one per match).
- **variety**: distinct words / turns within each game and over all games, and the Shannon
  entropy of the words (bits).

Exit status: 0 on success, 2 on a user error (missing deck, too few labelled photos).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kiekai.eval import common as ec
from kiekai.eval.selfplay import TimedPlayer
from kiekai.kiek.rules import BASE_ROUNDS, cards_needed

LEVELS = ("easy", "normal", "hard")

#: A guesser: GuessView -> word.
Guess = Callable[[Any], str]


@dataclass(frozen=True)
class Feasibility:
    """Whether a true word was possible in a turn (see :func:`feasible_words`).

    Attributes:
        true_words: distinct checkable candidate words (including ``X-less``) that WordNet
            calls true of at least one legal play, before removing used words.
        possible: at least one of them does not repeat a used word (the judge's ne bis in
            idem, rulebook "The Next Turn").
        example: the first such unused word (sorted order), or ``None``.
        unjudged_plays: legal plays (of 6 pairs x 10 splits) left out because a card of the
            five has no WordNet synset (they cannot be judged either way).
    """

    true_words: int
    possible: bool
    example: str | None
    unjudged_plays: int


def feasible_words(
    table: Sequence[Any],
    hand: Sequence[Any],
    used: Sequence[str],
    word_of_synset: dict[Any, list[str]],
    taxonomy: ec.Taxonomy,
    is_repeat: Callable[[str, Sequence[str]], bool] | None = None,
) -> Feasibility:
    """Was a true word possible this turn? Over every legal play (2 of the hand's cards added
    to the table's 3, split 3-vs-2; rulebook, "A Turn"), collect the candidate words
    :meth:`kiekai.eval.common.Taxonomy.true_of` accepts (the same truth the turn is scored by):

    - a word X with a noun sense that is an ancestor-or-self of each of the three and no
      sense covering any of the two;
    - ``X-less`` (rulebook, "Imperfect Guesses") for a word X true of each of the two and, in
      no sense, of any of the three.

    Words the noun hierarchy cannot judge (:meth:`~kiekai.eval.common.Taxonomy.checkable`) are
    left out, as a written one would count as not true. A candidate equal (case-folded) to
    a used word is used; otherwise ``is_repeat(word, used)`` (the judge, standard) decides.
    Candidates are tried in sorted order and the judge is asked only until one is unused,
    so the cost stays one or two judge calls a turn.

    Args:
        word_of_synset: synset -> candidate words with that noun sense
            (:func:`synset_index`).
        used: words already written this game.
        is_repeat: the judge's ne bis in idem; ``None``: exact equality only.

    Returns:
        a :class:`Feasibility`.
    """
    used_set = {" ".join(u.lower().split()) for u in used}
    true: set[str] = set()
    unjudged = 0
    for a, b in itertools.combinations(range(len(hand)), 2):
        five = [*table, hand[a], hand[b]]
        synsets = [taxonomy.synset_of_card(c) for c in five]
        for three in itertools.combinations(range(5), 3):
            if any(x is None for x in synsets):
                unjudged += 1
                continue
            s3 = [synsets[i] for i in three]
            s2 = [synsets[i] for i in range(5) if i not in three]
            candidates = {
                word
                for synset in taxonomy.separating_ancestors(s3, s2)
                for word in word_of_synset.get(synset, ())
            } | {
                "-".join(word.split()) + "-less"
                for synset in taxonomy.separating_ancestors(s2, s3)
                for word in word_of_synset.get(synset, ())
            }
            for word in sorted(candidates - true):
                if taxonomy.checkable(word) and taxonomy.true_of(word, s3, s2):
                    true.add(word)
    example = None
    for word in sorted(true):
        if word in used_set:
            continue
        if is_repeat is not None and used and is_repeat(word, list(used)):
            continue
        example = word
        break
    return Feasibility(len(true), example is not None, example, unjudged)


def synset_index(words: Sequence[str], taxonomy: ec.Taxonomy) -> dict[Any, list[str]]:
    """synset -> the words among ``words`` that have it as a WordNet noun sense."""
    index: dict[Any, list[str]] = {}
    for word in words:
        for synset in taxonomy.noun_senses(word):
            index.setdefault(synset, []).append(word.strip().lower())
    return index


class _MeasuredSeat(TimedPlayer):
    """A seat of a measured game: a :class:`~kiekai.eval.selfplay.TimedPlayer` around the
    seat's bot that hands each of its active turns, the view it was shown and its play, to
    ``on_turn`` before the engine applies the play."""

    def __init__(self, player: Any, on_turn: Callable[[Any, Any], None]) -> None:
        super().__init__(player)
        self.on_turn = on_turn

    def play_turn(self, view: Any) -> Any:
        """The bot's play, measured by ``on_turn(view, play)``."""
        play = super().play_turn(view)
        self.on_turn(view, play)
        return play


@dataclass(frozen=True)
class _Measure:
    """What one turn is measured with (see :func:`play_games` for each part)."""

    panel: Mapping[str, Guess]
    taxonomy: ec.Taxonomy
    checker: Any
    word_of_synset: dict[Any, list[str]]
    accepts: Callable[[str, str], bool]
    is_repeat: Callable[[str, Sequence[str]], bool]
    players: int


def _is_legal(engine: Any, play: Any) -> bool:
    """Whether ``play`` is one of the engine's legal plays this turn (2 cards of the hand, the
    five split 3 vs 2; rulebook, "A Turn"): :meth:`~kiekai.kiek.engine.KiekEngine.legal_plays`,
    cards compared as sets."""
    chosen = (frozenset(play.played), frozenset(play.three), frozenset(play.two))
    return any(
        chosen == (frozenset(played), frozenset(three), frozenset(two))
        for played, three, two in engine.legal_plays()
    )


def _panel_guesses(m: _Measure, view: Any, three: list[Any], two: list[Any]) -> dict[str, str]:
    """Each panel guesser's word for the turn's split (seated left of the active player)."""
    from kiekai.kiek.players import GuessView

    gview = GuessView(
        seat=(view.seat + 1) % m.players,
        turn=view.turn,
        stake=view.stake,
        active_seat=view.seat,
        three=tuple(three),
        two=tuple(two),
        used_words=tuple(view.used_words),
    )
    return {name: guess(gview) for name, guess in m.panel.items()}


def _turn_record(m: _Measure, game: int, engine: Any, view: Any, play: Any) -> dict[str, Any]:
    """The measures of one active turn (the keys of :func:`play_games`' records), taken
    before ``engine`` applies ``play``."""
    table, hand, used = view.table, view.hand, list(view.used_words)
    feasible = feasible_words(table, hand, used, m.word_of_synset, m.taxonomy, m.is_repeat)
    by_id = {c.id: c for c in (*table, *hand)}
    legal = _is_legal(engine, play)
    three = [by_id[i] for i in play.three if i in by_id]
    two = [by_id[i] for i in play.two if i in by_id]
    s3, s2, missing = m.taxonomy.split_synsets(three, two)
    word = play.word
    # a card without a synset (either group) makes the split unjudgeable: counted as not
    # checkable and reported, never judged on the remaining cards
    judged = missing == 0 and len(s3) == 3 and len(s2) == 2
    verdict = m.checker.check(word, list(play.three), list(play.two)) if judged else None
    checkable = verdict is not None
    word_senses = set(m.taxonomy.noun_senses(word))
    guesses = _panel_guesses(m, view, three, two)
    matched = {name: m.accepts(word, w) for name, w in guesses.items()}
    return {
        "game": game,
        "turn": view.turn,
        "seat": view.seat,
        "table": [c.id for c in table],
        "hand": [c.id for c in hand],
        "played": list(play.played),
        "hand_size": len(hand),
        "used_before": len(used),
        "feasible": feasible.possible,
        "feasible_true_words": feasible.true_words,
        "feasible_example": feasible.example,
        "unjudged_plays": feasible.unjudged_plays,
        "cards_without_synset": missing,
        "word": word,
        "labels_three": [c.label for c in three],
        "labels_two": [c.label for c in two],
        "legal": legal,
        "checkable": checkable,
        "true": checkable and legal and bool(verdict),
        "true_declared": judged and legal and m.taxonomy.true_of(word, s3, s2, declared=True),
        "repeat": m.is_repeat(word, used),
        "shares_synset_with": next(
            (u for u in used if word_senses & set(m.taxonomy.noun_senses(u))), None
        ),
        "guesses": guesses,
        "matched": matched,
        "matches": sum(matched.values()),
    }


def play_games(
    cards: Sequence[Any],
    seats: Callable[[int], Sequence[Any]],
    panel: Mapping[str, Guess],
    taxonomy: ec.Taxonomy,
    judge: Any,
    games: int,
    players: int,
    seed: int,
    vocabulary: Sequence[str] = (),
    *,
    accepts: Callable[[str, str], bool] | None = None,
    is_repeat: Callable[[str, Sequence[str]], bool] | None = None,
) -> list[dict[str, Any]]:
    """Play ``games`` seeded games of Kiek through the engine and measure every active turn.

    Each game is a whole game of the rules engine (:func:`kiekai.kiek.runner.play_game` on a
    virtual clock, :data:`~kiekai.kiek.rules.BASE_ROUNDS` rounds): the engine deals and
    redeals by :mod:`kiekai.kiek.rules`, and the seats' bots play, guess, call repeats and
    choose the cards that stay (rulebook, "A Turn" and "The Next Turn"); every word written
    goes out of play. Each active turn is measured before the engine applies the play; the
    panel's guesses are asked for the measure only and take no part in the game.

    Args:
        cards: labelled cards to deal from (at least ``4 * players + 3``).
        seats: ``seats(game)`` gives the ``players`` bots of game ``game``.
        panel: guesser name -> ``guess`` function.
        taxonomy: WordNet ground truth.
        judge: the table's judge (matches, repeats, one-word checks).
        games: number of games; game ``g`` is played with engine seed ``seed * 1000 + g``.
        players: seats at the table (3 to 8).
        vocabulary: the candidate words (the whole vocabulary, whatever the level), for
            :func:`feasible_words` (empty: not counted).
        accepts: ``accepts(secret, guess)``; default the judge's match.
        is_repeat: ``is_repeat(word, used_words)``; default the judge's ne bis in idem.

    Returns:
        One dict per active turn (``game``, ``turn``, ``seat``, ``table`` and ``hand`` (card
        ids as dealt), ``played``, ``word``, ``true``,
        ``checkable``, ``legal``, ``repeat``, ``matches``, ``feasible`` (a true unused word
        was possible, see :func:`feasible_words`), ``feasible_true_words``,
        ``feasible_example``, ``unjudged_plays``, ``cards_without_synset`` (cards of the
        played split with no WordNet synset: such a turn is not checkable), guesses and the
        labels of the split).

    Raises:
        EvalError: fewer cards than the players need (:func:`kiekai.kiek.rules.cards_needed`).
    """
    from kiekai.clock import VirtualClock
    from kiekai.eval.quality import TruthChecker
    from kiekai.kiek.runner import play_game
    from kiekai.kiek.settings import GameSettings

    needed = cards_needed(players)
    if len(cards) < needed:
        raise ec.EvalError(
            f"the deck has {len(cards)} usable labelled photos; {players} players need {needed}"
        )
    measure = _Measure(
        panel=panel,
        taxonomy=taxonomy,
        # the held-out check's truth: checkable when a noun sense of the word covers one of
        # the five cards (a colour or quality is not; an X-less is not)
        checker=TruthChecker(
            {c.id: c.wnid for c in cards if getattr(c, "wnid", None)}, taxonomy.wn
        ),
        word_of_synset=synset_index(vocabulary, taxonomy),
        accepts=accepts or (lambda secret, guess: ec.judge_accepts(judge, secret, guess)),
        is_repeat=is_repeat
        or (lambda word, used: bool(used) and bool(judge.is_repeat(word, list(used)).accepted)),
        players=players,
    )
    records: list[dict[str, Any]] = []
    for g in range(games):
        engines: list[Any] = []

        def on_turn(view: Any, play: Any, game: int = g, engines: list[Any] = engines) -> None:
            records.append(_turn_record(measure, game, engines[0], view, play))

        play_game(
            [_MeasuredSeat(bot, on_turn) for bot in seats(g)],
            cards,
            judge=judge,
            settings=GameSettings(seed=seed * 1000 + g, rounds=BASE_ROUNDS),
            clock=VirtualClock(),
            on_engine=engines.append,
        )
    return records


def summarise(
    records: Sequence[dict[str, Any]], panel_size: int, players: int = 4
) -> dict[str, Any]:
    """Shares (in [0, 1]) and counts over turn records from :func:`play_games`
    (``players``: seats per game, so that the first round is the first ``players`` turns)."""
    n = len(records)
    first_round = players
    checkable = [r for r in records if r["checkable"]]
    true = sum(r["true"] for r in records)
    by_game: dict[int, list[str]] = {}
    for r in records:
        by_game.setdefault(r["game"], []).append(r["word"].strip().lower())
    per_game_distinct = [ec.share(len(set(ws)), len(ws)) for ws in by_game.values()]
    words = [r["word"].strip().lower() for r in records]
    low, high = ec.wilson_interval(sum(r["true"] for r in checkable), len(checkable))
    guesses = n * panel_size
    match_count = sum(r["matches"] for r in records)
    per_guesser: dict[str, float] = {}
    for name in records[0]["matched"] if records else []:
        per_guesser[name] = ec.share(sum(r["matched"][name] for r in records), n)
    return {
        "turns": n,
        "games": len(by_game),
        "truthful": ec.share(true, n),
        "truthful_count": true,
        "truthful_declared": ec.share(sum(r["true_declared"] for r in records), n),
        "feasible": ec.share(sum(1 for r in records if r["feasible"]), n),
        "truthful_when_feasible": ec.share(
            sum(1 for r in records if r["feasible"] and r["true"]),
            sum(1 for r in records if r["feasible"]),
        ),
        "truthful_first_round": ec.share(
            sum(1 for r in records if r["true"] and r["turn"] < first_round),
            sum(1 for r in records if r["turn"] < first_round),
        ),
        "truthful_of_checkable": ec.share(sum(r["true"] for r in checkable), len(checkable)),
        "truthful_of_checkable_ci95": [low, high],
        "uncheckable": n - len(checkable),
        "cards_without_synset": sum(r["cards_without_synset"] for r in records),
        "unjudged_plays": sum(r["unjudged_plays"] for r in records),
        "truthful_feasible_count": sum(1 for r in records if r["feasible"] and r["true"]),
        "feasible_count": sum(1 for r in records if r["feasible"]),
        "untrue_when_feasible_examples": [
            {
                "word": r["word"],
                "three": r["labels_three"],
                "two": r["labels_two"],
                "possible": r["feasible_example"],
            }
            for r in records
            if r["feasible"] and not r["true"]
        ][:10],
        "legal": ec.share(sum(r["legal"] for r in records), n),
        "repeats": sum(r["repeat"] for r in records),
        "synset_repeats": sum(1 for r in records if r["shares_synset_with"]),
        "synset_repeat_examples": list(
            dict.fromkeys(
                f"{r['word']} ~ {r['shares_synset_with']}"
                for r in records
                if r["shares_synset_with"]
            )
        )[:5],
        "guessability": ec.share(match_count, guesses),
        "points_per_turn": match_count / n if n else 0.0,
        "per_guesser": per_guesser,
        "distinct_per_game": sum(per_game_distinct) / len(per_game_distinct)
        if per_game_distinct
        else 0.0,
        "distinct_overall": ec.share(len(set(words)), n),
        "entropy_bits": ec.entropy_bits(words),
        "top_words": Counter(words).most_common(10),
        "untrue_examples": [
            {"word": r["word"], "three": r["labels_three"], "two": r["labels_two"]}
            for r in records
            if r["checkable"] and not r["true"]
        ][:10],
    }


def plot(result: dict[str, Any], path: Path) -> Path:
    """Save a PNG: truthfulness, guessability and within-game variety per active level."""
    plt = ec.pyplot()
    levels = list(result["levels"])
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    specs = [
        ("truthful", "truthful turns (%)", "#2f855a"),
        ("guessability", "panel guesses matched (%)", "#2b6cb0"),
        ("distinct_per_game", "distinct words / turns in a game (%)", "#805ad5"),
    ]
    for ax, (key, title, colour) in zip(axes, specs, strict=True):
        values = [100 * result["levels"][lvl][key] for lvl in levels]
        ax.bar(levels, values, color=colour)
        for i, v in enumerate(values):
            ax.text(i, v + 1.5, f"{v:.1f}", ha="center", fontsize=9)
        ax.set_ylim(0, 110)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("active bot level")
    axes[0].axhline(99, color="grey", linestyle="--", linewidth=1)
    fig.suptitle(f"Active bot over {result['config']['games']} seeded games per level")
    return ec.save_figure(fig, path)


def render_markdown(result: dict[str, Any], image: str | None) -> str:
    """The report section for ``docs/EVALUATION.md``: the bot-only games (when run), then
    the turn-by-turn measures of :func:`play_games`."""
    cfg = result["config"]
    lead = []
    if result.get("selfplay"):
        lead = [
            "### Bot-only games, measured like the held-out check",
            "",
            render_selfplay_markdown(result["selfplay"]),
            "",
        ]
        if result.get("selfplay_pixels"):
            lead += [
                "The same deck without its labels.csv (pixels only; truth checked against the "
                "hidden labels):",
                "",
                render_selfplay_markdown(result["selfplay_pixels"]),
                "",
            ]
        lead += ["### Truthfulness turn by turn in engine games", ""]
    rows = []
    for level, s in result["levels"].items():
        lo, hi = s["truthful_of_checkable_ci95"]
        rows.append(
            [
                level,
                s["turns"],
                ec.pct(s["truthful"]),
                f"{ec.pct(s['truthful_of_checkable'])} ({ec.pct(lo)}–{ec.pct(hi)})",
                ec.pct(s["truthful_declared"]),
                ec.pct(s["feasible"]),
                f"{ec.pct(s['truthful_when_feasible'])} "
                f"({s['truthful_feasible_count']}/{s['feasible_count']})",
                ec.pct(s["truthful_first_round"]),
                s["uncheckable"],
                ec.pct(s["legal"]),
                f"{s['repeats']} / {s['synset_repeats']}",
                ec.pct(s["guessability"])
                + " ("
                + " / ".join(ec.pct(v, 0) for v in s["per_guesser"].values())
                + ")",
                f"{s['points_per_turn']:.2f}",
                ec.pct(s["distinct_per_game"]),
                ec.pct(s["distinct_overall"]),
                f"{s['entropy_bits']:.2f}",
            ]
        )
    out = [
        *lead,
        f"Deck `{cfg['deck']}` ({cfg['cards']} labelled cards), perception **{cfg['perception']}**, "
        f"{cfg['games']} seeded games per level through the rules engine, each of "
        f"{cfg['players']} bots of the level x 3 rounds "
        f"(seed {cfg['seed']}); guesser panel: {', '.join(cfg['panel'])}; judge at standard strictness.",
        "",
        ec.markdown_table(
            [
                "level",
                "turns",
                "true (all)",
                "true (checkable, 95% CI)",
                "true (with vocabulary senses)",
                "a true word was possible",
                "true when possible",
                "true in round 1",
                "not checkable",
                "legal",
                "repeats (judge / shared synset)",
                "panel matched (per guesser)",
                "points/turn",
                "distinct/game",
                "distinct overall",
                "entropy (bits)",
            ],
            rows,
        ),
        "",
        "*true*: WordNet says one noun sense of the word is an ancestor-or-self of each of the "
        "three photos' synsets and no noun sense of it is one of any of the two's (a reader may "
        "take the word in any sense: *crane* is not true of three crane birds against two crane "
        "machines); *not checkable*: the word has no noun sense in "
        "WordNet or is mainly an adjective by WordNet's SemCor counts (a colour or quality, "
        "e.g. *natural*), so it counts as not true in *true (all)*; *with "
        "vocabulary senses*: also counting the synsets the bots' vocabulary declares for the "
        "word (e.g. *sports* for sports equipment). *panel matched*: share of the guesses of "
        "the panel (in the order listed) that the judge matches with the word; *points/turn*: "
        "matches per turn at stake 1. *a true word was possible*: some checkable word the bots "
        "may write (a vocabulary word, or *X-less* of one) is true by WordNet "
        "of some legal play (2 hand cards, a 3-vs-2 split) that turn and does not repeat a "
        "used word by the judge's ne bis in idem; *true when possible*: truthfulness over those turns; *round 1*: the first "
        "turn of every player, before words run out. *repeats*: the active word repeats a "
        "word written earlier in the game by the judge's ne bis in idem / by sharing a WordNet "
        "noun synset with it.",
        "",
    ]
    missing = sum(s["cards_without_synset"] for s in result["levels"].values())
    unjudged = sum(s["unjudged_plays"] for s in result["levels"].values())
    out += [
        f"Cards without a WordNet synset: {missing} in played splits (such turns count as not "
        f"checkable), {unjudged} possible plays left out of *a true word was possible*.",
        "",
    ]
    if image:
        out += [f"![active bot]({image})", ""]
    for level, s in result["levels"].items():
        top = ", ".join(f"{w} ({c})" for w, c in s["top_words"])
        out.append(f"- **{level}** most used words: {top}.")
        if s["untrue_examples"]:
            ex = "; ".join(
                f"*{e['word']}* for {', '.join(map(str, e['three']))} vs {', '.join(map(str, e['two']))}"
                for e in s["untrue_examples"][:3]
            )
            out.append(f"  Untrue examples: {ex}.")
        if s["untrue_when_feasible_examples"]:
            ex = "; ".join(
                f"*{e['word']}* for {', '.join(map(str, e['three']))} vs "
                f"{', '.join(map(str, e['two']))} (possible: *{e['possible']}*)"
                for e in s["untrue_when_feasible_examples"][:3]
            )
            out.append(f"  Untrue although a true word was possible: {ex}.")
        if s["synset_repeat_examples"]:
            out.append(
                "  Same synset as an earlier word: " + "; ".join(s["synset_repeat_examples"]) + "."
            )
    out += ["", f"Time: {result['seconds']:.1f} s in all."]
    return "\n".join(out)


def run(
    deck: Path | str,
    games: int = 6,
    players: int = 4,
    levels: Sequence[str] = LEVELS,
    seed: int = 0,
    perception_kind: str = "labels",
    clip_model: str | None = None,
    clip_checkpoint: str | None = None,
    loaded: tuple[list[Any], Any, list[Any]] | None = None,
) -> dict[str, Any]:
    """Play the seeded games with the project's bots at each level and summarise.

    Raises:
        EvalError: missing deck, bad ``players``/``games``, too few labelled cards.
    """
    if not 3 <= players <= 8:
        raise ec.EvalError(f"--players must be 3 to 8 (got {players})")
    if games < 1:
        raise ec.EvalError(f"--games must be at least 1 (got {games})")
    if loaded is None:
        cards = ec.load_deck_cards(deck)
        perception, usable = ec.load_perception_for(
            perception_kind, cards, clip_model, clip_checkpoint
        )
    else:
        cards, perception, usable = loaded
    from kiekai.kiek.bots import KiekBot, parse_level
    from kiekai.kiek.repeats import JudgeMemo

    full_vocabulary = ec.candidate_words()
    taxonomy = ec.Taxonomy(declared=ec.all_declared_senses())
    labelled = [c for c in usable if taxonomy.synset_of_card(c) is not None]
    judge = ec.make_judge("standard")
    memo = JudgeMemo(judge)  # one judge, no house rules: its answers hold for every game
    panel_bots = {
        f"guesser-{lvl}": KiekBot(
            f"guesser-{lvl}",
            perception=perception,
            judge=judge,
            level=lvl,
            seed=seed + 101 + i,
            memo=memo,
        )
        for i, lvl in enumerate(LEVELS)
    }
    panel = {name: bot.guess for name, bot in panel_bots.items()}
    started = time.perf_counter()
    per_level: dict[str, Any] = {}
    all_records: dict[str, Any] = {}
    for level in levels:
        try:
            parse_level(level)
        except ValueError as exc:
            raise ec.EvalError(f"--levels: {exc}") from None

        def seats(game: int, level: str = level) -> list[Any]:
            # every seat a bot of the measured level, seeded per game and seat
            return [
                KiekBot(
                    f"active-{level}-{i + 1}",
                    perception=perception,
                    judge=judge,
                    level=level,
                    seed=(seed * 1000 + game) * 100 + i + 1,
                    memo=memo,
                )
                for i in range(players)
            ]

        records = play_games(
            labelled, seats, panel, taxonomy, judge, games, players, seed, full_vocabulary
        )
        per_level[level] = summarise(records, len(panel), players)
        all_records[level] = records
    return {
        "levels": per_level,
        "records": all_records,
        "seconds": time.perf_counter() - started,
        "config": {
            "deck": ec.display_path(deck),
            "cards": len(labelled),
            "perception": getattr(perception, "name", perception_kind),
            "games": games,
            "players": players,
            "seed": seed,
            "panel": list(panel),
        },
    }


def run_selfplay(
    deck: Path | str,
    cards: Sequence[Any],
    perception: Any,
    levels: Sequence[str] = LEVELS,
    games: int = 3,
    bots: int = 4,
    seed: int = 0,
    log_dir: Path | None = None,
    labels: Path | str | None = None,
    sample: int | None = None,
) -> dict[str, Any]:
    """Bot-only games per level through the real engine (:mod:`kiekai.eval.selfplay`), measured
    as the held-out check measures them (:mod:`kiekai.eval.quality`).

    Args:
        deck: the deck folder (for the report and its labels.csv).
        cards, perception: the deck's cards and the bots' perception.
        levels: bot levels, all seats at one level per game (as ``kiekai play --level``).
        games: games per level, engine seeds ``seed + 1 .. seed + games``.
        bots: players per game.
        log_dir: where the game logs go (default: a temporary folder).
        labels: the labels.csv the truth is checked against (default the deck's, when it
            has one; the bots may never have seen it).
        sample: deal each game from its own ``sample`` cards of the deck (at most all of
            them: :func:`kiekai.eval.selfplay.sample_cards`); ``None``: the whole deck.

    Returns:
        ``{"levels": {level: play_games result with truth}, "config": ...}``.
    """
    import tempfile

    from kiekai.eval import selfplay

    judge = ec.make_judge("standard")
    if labels is None and (Path(deck) / "labels.csv").is_file():
        labels = Path(deck) / "labels.csv"
    folder = (
        Path(log_dir) if log_dir is not None else Path(tempfile.mkdtemp(prefix="kiekai-selfplay-"))
    )
    if sample:
        sample = min(sample, len(cards))
    seeds = list(range(seed + 1, seed + 1 + games))
    out: dict[str, Any] = {}
    started = time.perf_counter()
    for level in levels:
        try:
            result = selfplay.play_games(
                cards,
                perception,
                judge,
                level=level,
                seeds=seeds,
                bots=bots,
                log_dir=folder,
                sample=sample,
            )
        except ValueError as exc:
            raise ec.EvalError(f"cannot play bot-only games on {deck}: {exc}") from None
        out[level] = selfplay.with_truth(result, labels) if labels else result
    return {
        "levels": out,
        "seconds": time.perf_counter() - started,
        "config": {
            "deck": ec.display_path(deck),
            "perception": getattr(perception, "name", "?"),
            "games": games,
            "bots": bots,
            "seeds": seeds,
            "sample": sample,
            "labels": ec.display_path(labels) if labels else None,
            "logs": ec.display_path(folder),
        },
    }


#: The held-out targets the self-play table is read against (docs/bots.md, "Measured").
TARGETS = {
    "zipf_median": ">= 4.5",
    "rare_share": "<= 10%",
    "privative_share": "<= 10%",
    "unanimous_share": "<= 50%",
    "truth": ">= 95% with labels, >= 80% from pixels",
}


def render_selfplay_markdown(result: dict[str, Any]) -> str:
    """The report's table of bot-only games per level (median Zipf, rare, X-less and
    unanimous shares, truth, score spread, thinking time)."""
    cfg = result["config"]
    rows = []
    for level, r in result["levels"].items():
        q = r["quality"]
        truth = q.get("truth")
        rows.append(
            [
                level,
                q.get("turns", 0),
                f"{q.get('zipf_median', 0):.2f}",
                ec.pct(q.get("rare_share", 0)),
                ec.pct(q.get("privative_share", 0)),
                ec.pct(q.get("unanimous_share", 0)),
                "n/a" if truth is None else f"{ec.pct(truth)} ({q.get('truth_checkable', 0)})",
                f"{r['spread']['max_minus_min']:.1f} / {r['spread']['sd']:.1f}",
                f"{r['active_ms']['median']:.0f} / {r['active_ms']['p90']:.0f}",
                f"{r['guess_ms']['median']:.0f} / {r['guess_ms']['p90']:.0f}",
            ]
        )
    out = [
        f"{cfg['games']} bot-only games per level of {cfg['bots']} bots (engine seeds "
        f"{cfg['seeds'][0]}..{cfg['seeds'][-1]}, the bots seeded as `kiekai play` seeds them), "
        f"deck `{cfg['deck']}`"
        + (
            f" (each game dealt from its own {cfg['sample']} photos of it, drawn by its seed)"
            if cfg.get("sample")
            else ""
        )
        + f", perception **{cfg['perception']}**"
        + (f", truth checked against `{cfg['labels']}`" if cfg.get("labels") else "")
        + ". Measured from the game logs with the definitions of the held-out check "
        "(`kiekai.eval.quality`; the same figures as `../shared/tools/bots_quality.py`).",
        "",
        ec.markdown_table(
            [
                "level",
                "turns",
                "median Zipf",
                "rarer than Zipf 3.5",
                "X-less",
                "all guessers same word",
                "true (checkable)",
                "score spread (max-min / sd)",
                "active ms (median / p90)",
                "guess ms (median / p90)",
            ],
            rows,
        ),
        "",
        "Targets: " + "; ".join(f"{k} {v}" for k, v in TARGETS.items()) + ".",
        "",
    ]
    for level, r in result["levels"].items():
        words = r["quality"].get("secrets", [])
        top = Counter(w.lower() for w in words).most_common(12)
        out.append(f"- **{level}** active words: " + ", ".join(f"{w} ({c})" for w, c in top) + ".")
        untrue = r["quality"].get("untrue") or []
        if untrue:
            out.append(f"  Untrue by WordNet: {', '.join(sorted({u['word'] for u in untrue}))}.")
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deck", type=Path, default=ec.DEFAULT_DECK, help="labelled deck folder")
    p.add_argument(
        "--games",
        "--hands",
        dest="games",
        type=int,
        default=6,
        help="seeded games per level (each players x 3 turns)",
    )
    p.add_argument("--players", type=int, default=4, help="seats at the table, 3 to 8 (default 4)")
    p.add_argument("--levels", default=",".join(LEVELS), help="comma-separated active bot levels")
    p.add_argument("--seed", type=int, default=0)
    from kiekai.perception import KINDS

    p.add_argument(
        "--perception",
        choices=list(KINDS),
        default="labels",
        help="how the bots see the photos (classifier: pixels only, labels.csv ignored; the "
        "labels still score the results)",
    )
    p.add_argument("--clip-model", default=None)
    p.add_argument("--clip-checkpoint", default=None)
    p.add_argument(
        "--selfplay-games",
        type=int,
        default=3,
        help="bot-only games per level through the engine, measured like the held-out check "
        "(0: none)",
    )
    p.add_argument("--bots", type=int, default=4, help="players in the bot-only games")
    p.add_argument(
        "--sample",
        type=int,
        default=0,
        help="deal each bot-only game from its own N photos of the deck, drawn by the game's "
        "seed (0: the whole deck); many decks of the held-out check's size from one",
    )
    p.add_argument("--logs", type=Path, default=None, help="folder for the bot-only game logs")
    p.add_argument(
        "--labels",
        type=Path,
        default=None,
        help="labels.csv to check truth against (default: the deck's); for a copy of the deck "
        "without labels.csv, pass the original's",
    )
    p.add_argument(
        "--out", type=Path, default=None, help="folder for active.json, active.png, active.md"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        levels = [x.strip() for x in args.levels.split(",") if x.strip()]
        result = run(
            args.deck,
            args.games,
            args.players,
            levels,
            args.seed,
            args.perception,
            args.clip_model,
            args.clip_checkpoint,
        )
        if args.selfplay_games > 0:
            cards = ec.load_deck_cards(args.deck)
            perception, usable = ec.load_perception_for(
                args.perception, cards, args.clip_model, args.clip_checkpoint
            )
            result["selfplay"] = run_selfplay(
                args.deck,
                usable,
                perception,
                levels,
                args.selfplay_games,
                args.bots,
                args.seed,
                args.logs,
                args.labels,
                args.sample or None,
            )
            for level, r in result["selfplay"]["levels"].items():
                q = {k: v for k, v in r["quality"].items() if k not in ("secrets", "untrue")}
                print(
                    f"{level} self-play: {json.dumps(q)} spread {r['spread']} "
                    f"active ms {r['active_ms']} guess ms {r['guess_ms']}"
                )
        for level, s in result["levels"].items():
            print(
                f"{level}: {s['turns']} turns, true {ec.pct(s['truthful'])} "
                f"(of checkable {ec.pct(s['truthful_of_checkable'])}), legal {ec.pct(s['legal'])}, "
                f"repeats {s['repeats']}, panel matched {ec.pct(s['guessability'])}, "
                f"distinct/game {ec.pct(s['distinct_per_game'])}, entropy {s['entropy_bits']:.2f} bits"
            )
        if args.out:
            ec.write_outputs(args.out, "active", result, plot, render_markdown)
        return 0

    return ec.run_main(body)


if __name__ == "__main__":
    sys.exit(main())
