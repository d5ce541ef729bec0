"""Quick check of the Kiek guesser on a rounds file (a developer tool; the full evaluation is
``scripts/eval_guesser.py``).

For each round (five photos split 3 vs 2, with the ``target`` word: the most specific
everyday category shared by the three and by neither of the two) the guesser ranks the
vocabulary with the labels perception (it sees the cards only through the perception;
``labels_*``, ``target`` and ``valid_words`` are used for scoring only). Printed, from one run:

- top-1 / top-5 exact match with ``target`` for the guesser
  (:func:`kiekai.kiek.bots.rank_guesses`) and for the baseline "word for the most specific
  WordNet ancestor shared by the three and not the two" (:func:`kiekai.kiek.bots.baseline_guess`);
- the same under the judge at standard strictness (``--judge``);
- validity: the guess is one of the round's ``valid_words``;
- the misses, most frequent first.

Usage::

    python scripts/guesser_quick_eval.py --rounds ../shared/eval/kiek-rounds-dev.jsonl \
        --deck ../shared/decks/imagenet-dev [--judge] [--specificity-weight W] [--zipf-weight W]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kiekai.paths import shared_dir  # noqa: E402


def main() -> None:
    """Command line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description="Quick top-1/top-5 check of the Kiek guesser.")
    parser.add_argument("--rounds", type=Path, default=shared_dir() / "eval/kiek-rounds-dev.jsonl")
    parser.add_argument("--deck", type=Path, default=shared_dir() / "decks/imagenet-dev")
    parser.add_argument("--judge", action="store_true", help="also score with the judge (standard)")
    parser.add_argument("--specificity-weight", type=float, default=None)
    parser.add_argument("--zipf-weight", type=float, default=None)
    parser.add_argument("--show", type=int, default=15, help="misses to list")
    args = parser.parse_args()

    from kiekai import deck as deck_module
    from kiekai.eval import common as ec
    from kiekai.kiek import bot_tuning, bots
    from kiekai.lexicon import load_vocabulary
    from kiekai.perception.labels import LabelsPerception

    if args.specificity_weight is not None:
        bot_tuning.SPECIFICITY_WEIGHT = args.specificity_weight  # read by word_prior
    if args.zipf_weight is not None:
        bot_tuning.ZIPF_WEIGHT = args.zipf_weight
    if not args.rounds.is_file():
        sys.exit(f"rounds file {args.rounds} not found; pass --rounds PATH")
    try:
        deck = deck_module.load_deck(args.deck, on_skip=lambda *_: None, on_problem=lambda *_: None)
    except deck_module.DeckError as exc:
        sys.exit(str(exc))
    by_id = {card.id: card for card in deck.cards}
    try:
        rounds = ec.load_rounds(args.rounds)
    except ec.EvalError as exc:
        sys.exit(str(exc))
    vocabulary = load_vocabulary()
    perception = LabelsPerception(deck.cards, vocabulary=vocabulary)
    judge = None
    if args.judge:
        from kiekai.judge import Judge

        judge = Judge("standard")

    started = time.perf_counter()
    tally = collections.Counter()
    misses = collections.Counter()
    for item in rounds:
        try:
            three = [by_id[i] for i in item.three]
            two = [by_id[i] for i in item.two]
        except KeyError as exc:
            sys.exit(f"round {item.id}: photo {exc} is not in the deck {args.deck}")
        target = item.target
        ranked = [w for w, _ in bots.rank_guesses(perception, three, two, (), vocabulary, k=5)]
        base = bots.baseline_guess(three, two) or ""
        tally["n"] += 1
        tally["top1"] += ranked[:1] == [target]
        tally["top5"] += target in ranked
        tally["valid1"] += bool(ranked) and ranked[0] in item.valid_words
        tally["base1"] += base == target
        if judge is not None:
            tally["jtop1"] += bool(ranked) and judge.match(target, ranked[0]).accepted
            tally["jtop5"] += any(judge.match(target, w).accepted for w in ranked)
            tally["jbase1"] += bool(base) and judge.match(target, base).accepted
        if ranked[:1] != [target]:
            misses[(target, ranked[0] if ranked else "", base)] += 1
    seconds = time.perf_counter() - started
    n = tally["n"]

    def pct(key: str) -> str:
        return f"{100 * tally[key] / n:5.1f}%"

    print(f"rounds: {n}  vocabulary: {len(vocabulary)} words  perception: labels")
    print(f"weights: specificity {bot_tuning.SPECIFICITY_WEIGHT}  zipf {bot_tuning.ZIPF_WEIGHT}")
    print(f"guesser  exact   top-1 {pct('top1')}  top-5 {pct('top5')}  valid top-1 {pct('valid1')}")
    print(f"baseline exact   top-1 {pct('base1')}")
    if judge is not None:
        print(f"guesser  judge   top-1 {pct('jtop1')}  top-5 {pct('jtop5')}")
        print(f"baseline judge   top-1 {pct('jbase1')}")
    print(f"time: {1000 * seconds / n:.1f} ms per round")
    print("misses (target -> guess | baseline):")
    for (target, guess, base), count in misses.most_common(args.show):
        print(f"  {count:3d}  {target} -> {guess} | {base}")


if __name__ == "__main__":
    main()
