"""Evaluate the Kiek guesser on guessing rounds, beside a plain WordNet baseline.

Usage::

    python scripts/eval_guesser.py --rounds ../shared/eval/kiek-rounds-dev.jsonl \\
        --deck ../shared/decks/imagenet-dev [--perception labels|clip|auto|classifier|colour] [--out DIR]

Each round (see :func:`kiekai.eval.common.load_rounds`) shows five photos split 3/2. The guesser
sees only the photos, through the perception, and the words already used (none here);
``target``, ``valid_words`` and the labels are used for scoring only. Reported, on the same
rounds and in the same run:

- **guesser**: ``kiekai.kiek.bots.rank_guesses`` (top 5, no noise) — top-1 and top-5 match
  with the target under the project's judge (``Judge(strictness).match``, standard by
  default); top-1 match with any valid word; and *validity*: the top-1 guess is truly true of
  the three and, in none of its senses, of the two by WordNet on the deck's wnids
  (:meth:`kiekai.eval.common.Taxonomy.true_of`). Also the top-1 of a ``KiekBot`` at each level.
- **baseline**: the first lemma of the most specific WordNet ancestor shared by the three
  and not the two (:meth:`kiekai.eval.common.Taxonomy.baseline_word`), computed from the deck's
  wnids alone, without the perception or the bots; scored by the same judge and by the
  simple synset-match judge (about 75% on the dev rounds).
- the ceiling of the validity check: the share of targets that WordNet itself calls true.

Exit status: 0 on success, 2 on a user error (missing deck or rounds file, a round naming a
photo the deck lacks).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from kiekai.eval import common as ec

#: A guesser: (three cards, two cards, used words) -> words, best first.
Guesser = Callable[[Sequence[Any], Sequence[Any], Sequence[str]], list[str]]

LEVELS = ("easy", "normal", "hard")
TOP_K = 5


def normalise_id(path: str) -> str:
    """A card id as the deck writes it: ``/`` separators, no leading ``./``."""
    return str(PurePosixPath(path.replace("\\", "/")))


def resolve_round_cards(
    rounds: Sequence[ec.Round], all_cards: Sequence[Any], usable_cards: Sequence[Any]
) -> tuple[list[tuple[ec.Round, list[Any], list[Any]]], list[str]]:
    """Attach the deck's :class:`kiekai.deck.Card` objects to each round.

    Args:
        rounds: the rounds to score.
        all_cards: every card the deck holds.
        usable_cards: the cards the perception can score (e.g. labelled ones).

    Returns:
        ``(scorable, skipped)``: ``(round, three cards, two cards)`` for rounds whose five
        photos are all usable, and one line per round left out (a photo the perception
        cannot score).

    Raises:
        EvalError: a round names a photo that is not in the deck at all (wrong deck).
    """
    by_id = {normalise_id(card.id): card for card in all_cards}
    usable = {normalise_id(card.id) for card in usable_cards}
    scorable: list[tuple[ec.Round, list[Any], list[Any]]] = []
    skipped: list[str] = []
    for rnd in rounds:
        ids = [normalise_id(p) for p in (*rnd.three, *rnd.two)]
        absent = [i for i in ids if i not in by_id]
        if absent:
            raise _missing_photos_error(rnd, absent)
        unusable = [i for i in ids if i not in usable]
        if unusable:
            skipped.append(f"round {rnd.id}: perception cannot score {', '.join(unusable)}")
            continue
        scorable.append((rnd, [by_id[i] for i in ids[:3]], [by_id[i] for i in ids[3:]]))
    return scorable, skipped


def _missing_photos_error(rnd: ec.Round, absent: Sequence[str]) -> ec.EvalError:
    """The error for a round naming photos the deck lacks (the rounds belong to another deck)."""
    return ec.EvalError(
        f"round {rnd.id} names photo(s) not in the deck: {', '.join(absent)}; "
        "pass the deck the rounds file was built from with --deck"
    )


def baseline_guesses(
    scorable: Sequence[tuple[ec.Round, list[Any], list[Any]]], taxonomy: ec.Taxonomy
) -> list[str | None]:
    """The baseline's word for each round, from the deck's wnids alone (no perception)."""
    out: list[str | None] = []
    for _rnd, three, two in scorable:
        s3 = [taxonomy.synset_of_card(c) for c in three]
        s2 = [taxonomy.synset_of_card(c) for c in two]
        if any(s is None for s in s3):
            out.append(None)
            continue
        out.append(taxonomy.baseline_word(s3, [s for s in s2 if s is not None]))
    return out


def evaluate(
    scorable: Sequence[tuple[ec.Round, list[Any], list[Any]]],
    guesser: Guesser,
    taxonomy: ec.Taxonomy,
    accepts: Callable[[str, str], bool],
    level_guessers: dict[str, Guesser] | None = None,
) -> dict[str, Any]:
    """Score a guesser and the baseline on the same rounds.

    Args:
        scorable: rounds with their cards (from :func:`resolve_round_cards`).
        guesser: returns the ranked guesses (at least 1, ideally ``TOP_K``) for a split.
        taxonomy: WordNet ground truth for validity and the baseline.
        accepts: the judge, ``accepts(secret, guess) -> bool``.
        level_guessers: optional extra guessers (e.g. bots per level) scored on top-1 only.

    Returns:
        A JSON-serialisable dict: ``summary`` (shares in [0, 1] and counts), ``per_target``
        (one row per target word) and ``rounds`` (one record per round).
    """
    level_guessers = level_guessers or {}
    baseline = baseline_guesses(scorable, taxonomy)
    records: list[dict[str, Any]] = []
    started = time.perf_counter()
    for (rnd, three, two), base in zip(scorable, baseline, strict=True):
        s3, s2, missing = taxonomy.split_synsets(three, two)
        # a card without a synset, in either group, leaves the round unjudged by WordNet
        # (counted in ``judged_by_wordnet``), never judged on the remaining cards
        judged = missing == 0
        guesses = [g for g in guesser(three, two, ()) if g][:TOP_K]
        top1 = guesses[0] if guesses else ""
        record: dict[str, Any] = {
            "id": rnd.id,
            "target": rnd.target,
            "labels_three": list(rnd.labels_three),
            "labels_two": list(rnd.labels_two),
            "guesses": guesses,
            "top1": accepts(rnd.target, top1) if top1 else False,
            "top5": any(accepts(rnd.target, g) for g in guesses),
            "top1_synset": taxonomy.synset_match(rnd.target, top1),
            "top1_any_valid": any(accepts(w, top1) for w in rnd.valid_words) if top1 else False,
            "top1_valid": judged and taxonomy.true_of(top1, s3, s2),
            "top1_valid_declared": judged and taxonomy.true_of(top1, s3, s2, declared=True),
            "baseline": base,
            "baseline_top1": accepts(rnd.target, base) if base else False,
            "baseline_synset": taxonomy.synset_match(rnd.target, base or ""),
            "baseline_valid": bool(base) and judged and taxonomy.true_of(base or "", s3, s2),
            "target_valid": judged and taxonomy.true_of(rnd.target, s3, s2),
            "target_valid_declared": judged and taxonomy.true_of(rnd.target, s3, s2, declared=True),
            "judged_by_wordnet": judged,
        }
        for level, level_guesser in level_guessers.items():
            words = level_guesser(three, two, ())
            word = words[0] if words else ""
            record[f"level_{level}"] = word
            record[f"level_{level}_top1"] = accepts(rnd.target, word) if word else False
        records.append(record)
    elapsed = time.perf_counter() - started

    n = len(records)

    def rate(key: str) -> dict[str, Any]:
        count = sum(1 for r in records if r[key])
        low, high = ec.wilson_interval(count, n)
        return {"count": count, "share": ec.share(count, n), "ci95": [low, high]}

    summary: dict[str, Any] = {
        "rounds": n,
        "guesser_top1": rate("top1"),
        "guesser_top5": rate("top5"),
        "guesser_top1_synset": rate("top1_synset"),
        "guesser_top1_any_valid": rate("top1_any_valid"),
        "guesser_top1_valid": rate("top1_valid"),
        "guesser_top1_valid_declared": rate("top1_valid_declared"),
        "baseline_top1": rate("baseline_top1"),
        "baseline_synset": rate("baseline_synset"),
        "baseline_valid": rate("baseline_valid"),
        "baseline_none": sum(1 for r in records if not r["baseline"]),
        "unjudged_rounds": sum(1 for r in records if not r["judged_by_wordnet"]),
        "target_valid": rate("target_valid"),
        "target_valid_declared": rate("target_valid_declared"),
        "seconds_per_round": elapsed / n if n else 0.0,
        "levels": {level: rate(f"level_{level}_top1") for level in level_guessers},
    }
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        groups[r["target"]].append(r)
    per_target = []
    for target, rows in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        wrong = Counter(r["guesses"][0] for r in rows if r["guesses"] and not r["top1"])
        per_target.append(
            {
                "target": target,
                "rounds": len(rows),
                "top1": ec.share(sum(r["top1"] for r in rows), len(rows)),
                "top5": ec.share(sum(r["top5"] for r in rows), len(rows)),
                "valid": ec.share(sum(r["top1_valid"] for r in rows), len(rows)),
                "baseline_top1": ec.share(sum(r["baseline_top1"] for r in rows), len(rows)),
                "common_miss": wrong.most_common(1)[0][0] if wrong else "",
            }
        )
    return {"summary": summary, "per_target": per_target, "rounds": records}


def plot(result: dict[str, Any], path: Path) -> Path:
    """Save a PNG: overall bars (guesser vs baseline) and per-target top-1 bars."""
    plt = ec.pyplot()
    s = result["summary"]
    rows = result["per_target"]
    fig, (ax1, ax2) = plt.subplots(
        1, 2, figsize=(13, max(4.5, 0.28 * len(rows) + 1.5)), gridspec_kw={"width_ratios": [1, 1.6]}
    )
    names = [
        "guesser\ntop-1",
        "guesser\ntop-5",
        "guesser\nvalid",
        "baseline\ntop-1",
        "baseline\nsynset judge",
    ]
    keys = [
        "guesser_top1",
        "guesser_top5",
        "guesser_top1_valid",
        "baseline_top1",
        "baseline_synset",
    ]
    values = [100 * s[k]["share"] for k in keys]
    errs = [
        [max(0.0, 100 * (s[k]["share"] - s[k]["ci95"][0])) for k in keys],
        [max(0.0, 100 * (s[k]["ci95"][1] - s[k]["share"])) for k in keys],
    ]
    colours = ["#2b6cb0", "#63b3ed", "#90cdf4", "#c05621", "#f6ad55"]
    ax1.bar(names, values, yerr=errs, color=colours, capsize=4)
    for i, v in enumerate(values):
        ax1.text(i, 2, f"{v:.1f}", ha="center", fontsize=9, color="white", fontweight="bold")
    ax1.set_ylim(0, 110)
    ax1.set_ylabel("% of rounds (95% Wilson interval)")
    ax1.set_title(f"Guesser vs WordNet baseline ({s['rounds']} rounds)")
    labels = [f"{r['target']} ({r['rounds']})" for r in rows][::-1]
    y = range(len(rows))
    ax2.barh(
        [i + 0.2 for i in y],
        [100 * r["top1"] for r in rows][::-1],
        height=0.4,
        label="guesser top-1",
        color="#2b6cb0",
    )
    ax2.barh(
        [i - 0.2 for i in y],
        [100 * r["baseline_top1"] for r in rows][::-1],
        height=0.4,
        label="baseline",
        color="#c05621",
    )
    ax2.set_yticks(list(y), labels, fontsize=8)
    ax2.set_xlim(0, 100)
    ax2.set_xlabel("% of the target's rounds matched (judge)")
    ax2.set_title("Per target word (rounds)", pad=22)
    ax2.legend(loc="lower center", bbox_to_anchor=(0.5, 1.04), ncol=2, fontsize=8, frameon=False)
    return ec.save_figure(fig, path)


def render_markdown(result: dict[str, Any], image: str | None) -> str:
    """The report section for ``docs/EVALUATION.md`` (``image``: the plot's relative path)."""
    s = result["summary"]
    cfg = result.get("config", {})

    def row(name: str, key: str, note: str) -> list[str]:
        lo, hi = s[key]["ci95"]
        return [
            name,
            f"{ec.pct(s[key]['share'])}",
            f"{s[key]['count']}/{s['rounds']}",
            f"{ec.pct(lo)}–{ec.pct(hi)}",
            note,
        ]

    out = [
        f"Rounds: `{cfg.get('rounds_file', '?')}` ({s['rounds']} scored"
        + (f", {len(result.get('skipped', []))} left out" if result.get("skipped") else "")
        + f"); deck `{cfg.get('deck', '?')}`; perception **{cfg.get('perception', '?')}**; "
        f"judge at **{cfg.get('strictness', 'standard')}** strictness; vocabulary of "
        f"{cfg.get('vocabulary_size', '?')} words. The guesser sees only the photos (through "
        "the perception) and no used words; targets and labels are used only for scoring.",
        "",
        ec.markdown_table(
            ["measure", "share", "count", "95% CI", "how"],
            [
                row("guesser top-1 = target", "guesser_top1", "judge(target, best guess)"),
                row("guesser top-5 ∋ target", "guesser_top5", "any of the 5 best guesses"),
                row(
                    "guesser top-1 = a valid word",
                    "guesser_top1_any_valid",
                    "any listed valid word",
                ),
                row(
                    "guesser top-1 is true (validity)",
                    "guesser_top1_valid",
                    "WordNet: a sense covers the 3, no sense covers either of the 2",
                ),
                row(
                    "guesser top-1, synset-match judge",
                    "guesser_top1_synset",
                    "same word or a shared noun synset",
                ),
                row(
                    "**baseline** top-1 = target",
                    "baseline_top1",
                    "most specific separating WordNet ancestor, same judge",
                ),
                row("baseline, synset-match judge", "baseline_synset", "the ~75% reference"),
                row(
                    "target itself true by WordNet", "target_valid", "ceiling of the validity check"
                ),
                row(
                    "guesser top-1 true, vocabulary senses too",
                    "guesser_top1_valid_declared",
                    "also the synsets the vocabulary declares (e.g. sports = sports equipment)",
                ),
                row(
                    "target true, vocabulary senses too",
                    "target_valid_declared",
                    "ceiling of that check",
                ),
            ],
        ),
        "",
        f"Rounds with a photo that has no WordNet synset (not judged by WordNet, so counted as "
        f"not true): {s.get('unjudged_rounds', 0)}.",
        "",
    ]
    if s.get("levels"):
        out += [
            "Top-1 of a `KiekBot` guesser at each level (levels change vocabulary and noise):",
            "",
            ec.markdown_table(
                ["level", "top-1 = target", "count"],
                [
                    [lvl, ec.pct(v["share"]), f"{v['count']}/{s['rounds']}"]
                    for lvl, v in s["levels"].items()
                ],
            ),
            "",
        ]
    if image:
        out += [f"![guesser vs baseline]({image})", ""]
    out += [
        "Per target word (top-1 / top-5 / validity of the guesser, the baseline's top-1, and the "
        "guesser's most common wrong top-1):",
        "",
        ec.markdown_table(
            ["target", "rounds", "top-1", "top-5", "valid", "baseline", "common miss"],
            [
                [
                    r["target"],
                    r["rounds"],
                    ec.pct(r["top1"], 0),
                    ec.pct(r["top5"], 0),
                    ec.pct(r["valid"], 0),
                    ec.pct(r["baseline_top1"], 0),
                    r["common_miss"],
                ]
                for r in result["per_target"]
            ],
        ),
        "",
        f"Time: {1000 * s['seconds_per_round']:.1f} ms per round for the guesser (perception "
        "scores included).",
    ]
    return "\n".join(out)


def project_guessers(
    perception: Any, vocabulary: Sequence[str], judge: Any, seed: int, levels: Sequence[str]
) -> tuple[Guesser, dict[str, Guesser]]:
    """The project's guesser ranking and one ``KiekBot`` guesser per level."""
    from kiekai.kiek.bots import KiekBot, rank_guesses
    from kiekai.kiek.players import GuessView

    def ranking(three: Sequence[Any], two: Sequence[Any], used: Sequence[str]) -> list[str]:
        return ec.ranked_words(
            rank_guesses(
                perception, list(three), list(two), tuple(used), vocabulary, k=TOP_K, judge=judge
            )
        )

    level_guessers: dict[str, Guesser] = {}
    for level in levels:
        try:
            bot = KiekBot(
                f"guesser-{level}", perception=perception, judge=judge, level=level, seed=seed
            )
        except ValueError as exc:
            raise ec.EvalError(f"--levels: {exc}") from None

        def guess(
            three: Sequence[Any], two: Sequence[Any], used: Sequence[str], bot: Any = bot
        ) -> list[str]:
            view = GuessView(
                seat=1,
                turn=0,
                stake=1,
                active_seat=0,
                three=tuple(three),
                two=tuple(two),
                used_words=tuple(used),
            )
            return [bot.guess(view)]

        level_guessers[level] = guess
    return ranking, level_guessers


def run(
    rounds_file: Path | str,
    deck: Path | str,
    perception_kind: str = "labels",
    clip_model: str | None = None,
    clip_checkpoint: str | None = None,
    strictness: str = "standard",
    seed: int = 0,
    limit: int | None = None,
    levels: Sequence[str] = LEVELS,
    loaded: tuple[list[Any], Any, list[Any]] | None = None,
) -> dict[str, Any]:
    """Load everything and evaluate the project's guesser and the baseline.

    Args:
        loaded: optional ``(all_cards, perception, usable_cards)`` already loaded (used by
            ``make_evaluation.py`` to share one perception between scripts).

    Raises:
        EvalError: missing rounds file or deck, or rounds that name photos the deck lacks.
    """
    rounds = ec.load_rounds(rounds_file, limit=limit)
    if loaded is None:
        cards = ec.load_deck_cards(deck)
        perception, usable = ec.load_perception_for(
            perception_kind, cards, clip_model, clip_checkpoint
        )
    else:
        cards, perception, usable = loaded
    scorable, skipped = resolve_round_cards(rounds, cards, usable)
    if not scorable:
        raise ec.EvalError("no round can be scored: the perception cannot see any round's photos")
    judge = ec.make_judge(strictness)
    vocabulary = ec.load_vocabulary()
    taxonomy = ec.Taxonomy(declared=ec.all_declared_senses())
    ranking, level_guessers = project_guessers(perception, vocabulary, judge, seed, levels)
    result = evaluate(
        scorable,
        ranking,
        taxonomy,
        lambda secret, guess: ec.judge_accepts(judge, secret, guess),
        level_guessers,
    )
    result["skipped"] = skipped
    result["config"] = {
        "rounds_file": ec.display_path(rounds_file),
        "deck": ec.display_path(deck),
        "perception": getattr(perception, "name", perception_kind),
        "strictness": strictness,
        "seed": seed,
        "vocabulary_size": len(vocabulary),
        "levels": list(levels),
    }
    return result


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("--rounds", type=Path, default=ec.DEFAULT_ROUNDS, help="rounds file (.jsonl)")
    p.add_argument("--deck", type=Path, default=ec.DEFAULT_DECK, help="deck folder the rounds use")
    from kiekai.perception import KINDS

    p.add_argument(
        "--perception",
        choices=list(KINDS),
        default="labels",
        help="how the bots see the photos (classifier: pixels only, labels.csv ignored; the "
        "labels still score the results)",
    )
    ec.add_round_scoring_args(p)
    p.add_argument(
        "--levels",
        default=",".join(LEVELS),
        help="comma-separated KiekBot levels also scored on top-1 ('' for none)",
    )
    p.add_argument(
        "--out", type=Path, default=None, help="folder for guesser.json, guesser.png, guesser.md"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        result = run(
            args.rounds,
            args.deck,
            args.perception,
            args.clip_model,
            args.clip_checkpoint,
            args.strictness,
            args.seed,
            args.limit,
            [x.strip() for x in args.levels.split(",") if x.strip()],
        )
        s = result["summary"]
        print(
            f"rounds {s['rounds']}: guesser top-1 {ec.pct(s['guesser_top1']['share'])}, "
            f"top-5 {ec.pct(s['guesser_top5']['share'])}, valid {ec.pct(s['guesser_top1_valid']['share'])}; "
            f"baseline top-1 {ec.pct(s['baseline_top1']['share'])} "
            f"(synset-match judge {ec.pct(s['baseline_synset']['share'])})"
        )
        for line in result["skipped"]:
            print(f"left out: {line}", file=sys.stderr)
        if args.out:
            ec.write_outputs(args.out, "guesser", result, plot, render_markdown)
        return 0

    return ec.run_main(body)


if __name__ == "__main__":
    sys.exit(main())
