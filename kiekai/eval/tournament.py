"""Self-play tournament of the Kiek bots: score distributions per bot level.

Usage::

    python scripts/eval_tournament.py [--deck ../shared/decks/imagenet-dev] [--games 6] \\
        [--players 3] [--seed 0] [--out DIR]

Each game is a whole game of Kiek by the rules engine (``kiekai.kiek.game.play_game``, 3
rounds, rulebook "End of the Game") between ``KiekBot`` players, one seat per level in
turn (seat ``i`` of game ``g`` plays level ``LEVELS[(i + g) % 3]``, so every level sits in
every seat equally often when ``games`` is a multiple of 3). Game ``g`` uses engine seed
``seed + g``, bot seeds derived from it and a virtual clock, so the tournament is
deterministic. The labels perception is used (the deck needs labels.csv); without
``--deck`` the dev deck, or the package's default deck when the dev deck is absent.

Reported per level: final points (mean, standard deviation, quartiles, box plot), wins
(shared ties count as the engine ranks them: to the player who played last), points scored
as the active player and as a guesser per turn, and the share of the level's own active
words that WordNet calls true of its split.

Exit status: 0 on success, 2 on a user error (missing deck, bad numbers).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kiekai.eval import common as ec
from kiekai.events import KiekPlay, KiekReveal, KiekScore, typed

LEVELS = ("easy", "normal", "hard")


def level_of_seat(seat: int, game: int, levels: Sequence[str] = LEVELS) -> str:
    """The level seated at ``seat`` in game ``game`` (levels rotate one seat per game)."""
    return levels[(seat + game) % len(levels)]


def game_records(
    outcome: Any, seat_levels: Sequence[str], cards_by_id: dict[str, Any], taxonomy: ec.Taxonomy
) -> dict[str, Any]:
    """Per-seat figures of one finished game from its events (``play``, ``reveal``,
    ``score``): final points, points as active player and as guesser, turns as active
    player, and how many of the seat's active words WordNet calls true of the split."""
    n = len(seat_levels)
    active_points = [0] * n
    guess_points = [0] * n
    active_turns = [0] * n
    true_words = [0] * n
    unjudged = [0] * n
    split: dict[int, tuple[list[str], list[str]]] = {}
    for event in outcome.events:
        data = typed(event, "kiek")
        if event.player is None:
            continue
        if isinstance(data, KiekPlay):
            split[event.player] = (list(data.three), list(data.two))
        elif isinstance(data, KiekReveal):
            active = event.player
            word = data.words[active] if active < len(data.words) else ""
            active_turns[active] += 1
            three, two = split.get(active, ([], []))
            s3 = [taxonomy.synset_of_card(cards_by_id[i]) for i in three if i in cards_by_id]
            s2 = [taxonomy.synset_of_card(cards_by_id[i]) for i in two if i in cards_by_id]
            known = [s for s in (*s3, *s2) if s is not None]
            unjudged[active] += bool(word) and len(known) != 5
            if word and len(known) == 5:
                true_words[active] += taxonomy.true_of(word, s3, s2)
        elif isinstance(data, KiekScore):
            for seat, p in enumerate(data.points):
                if seat == event.player:
                    active_points[seat] += p
                else:
                    guess_points[seat] += p
    winner = outcome.winner
    return {
        "seats": [
            {
                "seat": seat,
                "level": seat_levels[seat],
                "score": outcome.scores[seat],
                "won": seat == winner,
                "active_points": active_points[seat],
                "guess_points": guess_points[seat],
                "active_turns": active_turns[seat],
                "true_words": true_words[seat],
                "unjudged_words": unjudged[seat],
            }
            for seat in range(n)
        ],
        "turns": outcome.turns,
    }


def summarise(games: Sequence[dict[str, Any]], levels: Sequence[str]) -> dict[str, Any]:
    """Per-level statistics over the seat records of all games."""
    out: dict[str, Any] = {}
    for level in levels:
        seats = [s for g in games for s in g["seats"] if s["level"] == level]
        scores = [s["score"] for s in seats]
        turns = sum(s["active_turns"] for s in seats)
        guess_turns = sum(
            g["turns"] - s["active_turns"] for g in games for s in g["seats"] if s["level"] == level
        )
        if not seats:
            continue
        q = statistics.quantiles(scores, n=4) if len(scores) >= 2 else [scores[0]] * 3
        out[level] = {
            "seat_games": len(seats),
            "scores": scores,
            "mean": statistics.fmean(scores),
            "stdev": statistics.stdev(scores) if len(scores) >= 2 else 0.0,
            "quartiles": q,
            "min": min(scores),
            "max": max(scores),
            "wins": sum(s["won"] for s in seats),
            "win_rate": ec.share(sum(s["won"] for s in seats), len(seats)),
            "active_points_per_turn": ec.share(sum(s["active_points"] for s in seats), turns),
            "guess_points_per_turn": ec.share(sum(s["guess_points"] for s in seats), guess_turns),
            "true_words": ec.share(sum(s["true_words"] for s in seats), turns),
        }
    return out


def plot(result: dict[str, Any], path: Path) -> Path:
    """Save a box plot of final scores per level (PNG)."""
    plt = ec.pyplot()
    levels = list(result["levels"])
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.boxplot([result["levels"][lvl]["scores"] for lvl in levels], showmeans=True)
    ax.set_xticks(range(1, len(levels) + 1), levels)
    ax.set_ylabel("final points per game")
    ax.set_xlabel("bot level")
    cfg = result["config"]
    ax.set_title(
        f"Self-play: {cfg['games']} games of {cfg['players']} bots (seeds {cfg['seed']}..{cfg['seed'] + cfg['games'] - 1})",
        fontsize=10,
    )
    return ec.save_figure(fig, path)


def render_markdown(result: dict[str, Any], image: str | None) -> str:
    """The report section for ``docs/EVALUATION.md``."""
    cfg = result["config"]
    rows = [
        [
            level,
            s["seat_games"],
            f"{s['mean']:.1f} ± {s['stdev']:.1f}",
            f"{s['min']} / {s['quartiles'][0]:.1f} / {s['quartiles'][1]:.1f} / {s['quartiles'][2]:.1f} / {s['max']}",
            f"{s['wins']} ({ec.pct(s['win_rate'], 0)})",
            f"{s['active_points_per_turn']:.2f}",
            f"{s['guess_points_per_turn']:.2f}",
            ec.pct(s["true_words"]),
        ]
        for level, s in result["levels"].items()
    ]
    out = [
        f"{cfg['games']} seeded games (engine seeds {cfg['seed']}..{cfg['seed'] + cfg['games'] - 1}) of "
        f"{cfg['players']} bots, one seat per level in rotation, 3 rounds each, deck `{cfg['deck']}` "
        f"({cfg['cards']} cards), perception **{cfg['perception']}**, judge at standard strictness, "
        "virtual clock.",
        "",
        ec.markdown_table(
            [
                "level",
                "games",
                "points (mean ± sd)",
                "min / Q1 / median / Q3 / max",
                "wins",
                "points/turn as active",
                "points/turn as guesser",
                "active words true",
            ],
            rows,
        ),
        "",
    ]
    if image:
        out += [f"![tournament scores]({image})", ""]
    out.append(f"Time: {result['seconds']:.1f} s for {cfg['games']} games.")
    return "\n".join(out)


def run(
    deck: Path | str | None = None,
    games: int = 6,
    players: int = 3,
    seed: int = 0,
    levels: Sequence[str] = LEVELS,
    loaded: tuple[list[Any], Any, list[Any]] | None = None,
) -> dict[str, Any]:
    """Play the tournament and summarise it.

    Raises:
        EvalError: missing deck, bad numbers, a deck too small for the players.
    """
    if not 3 <= players <= 8:
        raise ec.EvalError(f"--players must be 3 to 8 (got {players})")
    if games < 1:
        raise ec.EvalError(f"--games must be at least 1 (got {games})")
    if deck is None and loaded is None and not ec.DEFAULT_DECK.is_dir():
        deck, cards = "the embedded default deck", _default_deck_cards()
        deck_text = deck
        perception, usable = ec.load_perception_for("labels", cards)
    elif loaded is None:
        deck = deck if deck is not None else ec.DEFAULT_DECK
        deck_text = ec.display_path(deck)
        cards = ec.load_deck_cards(deck)
        perception, usable = ec.load_perception_for("labels", cards)
    else:
        cards, perception, usable = loaded
        deck_text = ec.display_path(deck) if deck is not None else "the caller's cards"
    usable = list(usable)
    from kiekai.clock import VirtualClock
    from kiekai.kiek.bots import KiekBot
    from kiekai.kiek.game import play_game
    from kiekai.kiek.repeats import JudgeMemo
    from kiekai.kiek.settings import GameSettings

    judge = ec.make_judge("standard")
    memo = JudgeMemo(judge)  # one judge, no house rules: its answers hold for every game
    taxonomy = ec.Taxonomy()
    by_id = {c.id: c for c in usable}
    started = time.perf_counter()
    records = []
    for g in range(games):
        seat_levels = [level_of_seat(s, g, levels) for s in range(players)]
        bots = [
            KiekBot(
                f"{lvl}-{s}",
                perception=perception,
                judge=judge,
                level=lvl,
                seed=(seed + g) * 100 + s,
                memo=memo,
            )
            for s, lvl in enumerate(seat_levels)
        ]
        try:
            outcome = play_game(
                bots,
                usable,
                judge=judge,
                settings=GameSettings(seed=seed + g),
                clock=VirtualClock(),
            )
        except ValueError as exc:
            raise ec.EvalError(f"cannot play on deck {deck}: {exc}") from None
        records.append(game_records(outcome, seat_levels, by_id, taxonomy))
    return {
        "levels": summarise(records, levels),
        "games": records,
        "seconds": time.perf_counter() - started,
        "config": {
            "deck": deck_text,
            "cards": len(usable),
            "perception": getattr(perception, "name", "labels"),
            "games": games,
            "players": players,
            "seed": seed,
        },
    }


def _default_deck_cards() -> list[Any]:
    """The cards of the package's embedded default deck (``kiekai.default_deck``).

    Raises:
        EvalError: the package has no usable default deck.
    """
    from kiekai.deck import DeckError

    try:
        from kiekai.default_deck import default_deck

        return list(default_deck().cards)
    except (ImportError, DeckError) as exc:
        raise ec.EvalError(f"no --deck given, no dev deck, and no default deck: {exc}") from None


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deck", type=Path, default=None, help="labelled deck (default: the dev deck)")
    p.add_argument("--games", type=int, default=6, help="games to play (default 6)")
    p.add_argument("--players", type=int, default=3, help="bots per game, 3 to 8 (default 3)")
    p.add_argument("--seed", type=int, default=0, help="engine seed of the first game")
    p.add_argument("--out", type=Path, default=None, help="folder for tournament.json/.png/.md")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        result = run(args.deck, args.games, args.players, args.seed)
        for level, s in result["levels"].items():
            print(
                f"{level}: mean {s['mean']:.1f} ± {s['stdev']:.1f} points over {s['seat_games']} games, "
                f"wins {s['wins']}, active words true {ec.pct(s['true_words'])}"
            )
        if args.out:
            ec.write_outputs(args.out, "tournament", result, plot, render_markdown)
        return 0

    return ec.run_main(body)


if __name__ == "__main__":
    sys.exit(main())
