#!/usr/bin/env python3
"""Benchmark the pixel perception (classifier + colour) and the bots' thinking time.

    python scripts/bench_perception.py [--deck DIR] [--photos 400] [--rounds 1]

1. Copies the first ``--photos`` photos of ``--deck`` (default ``../shared/decks/imagenet-dev``)
   into a temporary folder **without** labels.csv, and gives the perceptions a fresh, empty
   cache folder, so the first pass computes everything.
2. First pass: the classifier (decode, preprocess, batched forward, cache write) and the colour
   features, in photos/s. In the same run, each model's raw speed on the same photos made
   ready beforehand: the classifier's batched forward over every batch of the pass as ready
   tensors, and the colour features (SLIC superpixels, the colour-name k-d tree) on the
   photos decoded beforehand, in the pass's threads (fastest of 2 whole passes each). Printed:
   each pass over its raw speed, and the whole pass over the summed raw speeds (the time per
   photo of one raw step after the other). The classifier's peak (one ready batch repeated,
   fastest of 3, ``--raw-batches`` of them) is printed too: it runs faster than any stream of
   different batches here, so it is shown, not used as the denominator.
3. Second run: new perception objects (empty memory) reading the same photos from the disk
   cache; the speed-up over the first pass (aim: >= 100x).
4. Scoring: ``scores(all photos, the vocabulary)`` once the photos are read.
5. Bots: a bot-only game (3 bots, ``--rounds`` rounds) on the copied photos with the
   ``classifier+colour`` perception; milliseconds per active turn and per guess.
6. When the source deck has a labels.csv with wnids, the classifier's top-1 / top-5 accuracy
   on the benchmarked photos (labels used for scoring only).

Figures depend on the machine and its load; ratios from the same run are what to compare.
The pieces live in :mod:`kiekai.eval.benchmark` (reuse them to time other bots).
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kiekai.paths import shared_dir  # noqa: E402

DEFAULT_DECK = shared_dir() / "decks" / "imagenet-dev"


def _ms(values: list[float]) -> str:
    if not values:
        return "-"
    return f"{1000 * statistics.median(values):.0f} ms median, {1000 * max(values):.0f} ms max (n={len(values)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck", type=Path, default=DEFAULT_DECK, help="source photo folder")
    parser.add_argument("--photos", type=int, default=400, help="photos to benchmark (first N)")
    parser.add_argument(
        "--raw-batches",
        type=int,
        default=2,
        help="batches timed, each repeated, for the classifier's peak forward rate",
    )
    parser.add_argument("--rounds", type=int, default=1, help="rounds of the timed bot game")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    os.environ.setdefault("KIEKAI_OFFLINE", "1")

    import numpy as np
    import torch

    from kiekai.deck import load_deck, open_rgb
    from kiekai.eval.benchmark import (
        copy_unlabelled,
        raw_forward_rate,
        raw_stream_rate,
        time_bot_game,
    )
    from kiekai.perception import classifier as classifier_module
    from kiekai.perception import colour as colour_module
    from kiekai.perception.classifier import ClassifierPerception
    from kiekai.perception.colour import ColourPerception

    def colour_raw_rate_of(sample: list) -> float:
        """Photos/s of the colour features alone on the pass's photos decoded beforehand (both
        sizes), in the pass's thread pool; the fastest of 2 passes counts."""
        from concurrent.futures import ThreadPoolExecutor

        small = [
            np.asarray(open_rgb(c, colour_module.DECODE_MAX_SIDE), dtype=np.uint8) for c in sample
        ]
        large = [
            np.asarray(open_rgb(c, colour_module.SUBJECT_MAX_SIDE), dtype=np.uint8) for c in sample
        ]
        with ThreadPoolExecutor(colour_module.COMPUTE_WORKERS) as pool:
            return raw_stream_rate(
                lambda pairs: list(
                    pool.map(lambda pair: colour_module._photo_features(*pair), pairs)
                ),
                [list(zip(small, large, strict=True))],
            )

    from kiekai.perception.compose import CompositePerception

    with tempfile.TemporaryDirectory(prefix="kiekai-bench-") as tmp:
        folder, cache = Path(tmp) / "photos", Path(tmp) / "cache"
        try:
            copy_unlabelled(args.deck, folder, args.photos)
        except FileNotFoundError as exc:
            print(f"error: {exc}; pass --deck FOLDER", file=sys.stderr)
            return 2
        start = time.perf_counter()
        cards = load_deck(folder, on_skip=lambda rel, why: print(f"skipped {rel}: {why}")).cards
        deck_s = time.perf_counter() - start
        n = len(cards)
        print(f"# Perception benchmark: {n} photos from {args.deck} (copied without labels.csv)")
        print(f"torch threads: {torch.get_num_threads()}, CPUs: {os.cpu_count()}")
        print(f"deck read and validated: {deck_s:.1f} s ({n / deck_s:.1f} photos/s)")

        start = time.perf_counter()
        classifier = ClassifierPerception(cache_root=cache, progress=False)
        print(
            f"classifier loaded (timm build + weights + hash check): {time.perf_counter() - start:.1f} s"
        )
        colour = ColourPerception(cache_root=cache)

        start = time.perf_counter()
        skipped = classifier.prepare(cards)
        first_classifier = time.perf_counter() - start
        start = time.perf_counter()
        skipped += colour.prepare(cards)
        first_colour = time.perf_counter() - start
        first = first_classifier + first_colour
        for card, reason in skipped:
            print(f"left out {card.id}: {reason}")

        batch_size = classifier_module.BATCH_SIZE
        failed = {card.id for card, _ in skipped}
        read = [c for c in cards if c.id not in failed]
        tensors = [
            torch.stack(
                [
                    classifier.transform(open_rgb(c, classifier_module.DECODE_MAX_SIDE))
                    for c in read[b : b + batch_size]
                ]
            )
            for b in range(0, len(read), batch_size)
        ]

        def forward(batch: torch.Tensor) -> None:
            with torch.inference_mode():
                classifier.model(batch)

        raw_rate = raw_stream_rate(forward, tensors)
        peak_rate = float(
            np.median([raw_forward_rate(classifier.model, t) for t in tensors[: args.raw_batches]])
        )
        del tensors
        colour_raw_rate = colour_raw_rate_of(read)
        summed_raw_rate = 1.0 / (1.0 / raw_rate + 1.0 / colour_raw_rate)

        start = time.perf_counter()
        classifier2 = ClassifierPerception(cache_root=cache, progress=False)
        colour2 = ColourPerception(cache_root=cache)
        classifier2.prepare(cards)
        colour2.prepare(cards)
        second = time.perf_counter() - start

        perception = CompositePerception([colour2, classifier2], name="classifier+colour")
        from kiekai.lexicon import load_vocabulary

        words = list(load_vocabulary().words)
        start = time.perf_counter()
        perception.scores(cards, words)
        scores_first = time.perf_counter() - start
        start = time.perf_counter()
        perception.scores(cards, words)
        scores_again = time.perf_counter() - start

        print()
        print("| step | time | photos/s |")
        print("| --- | --- | --- |")
        print(
            f"| first pass, classifier (decode + preprocess + forward + cache) | {first_classifier:.1f} s | {n / first_classifier:.1f} |"
        )
        print(f"| first pass, colour features | {first_colour:.1f} s | {n / first_colour:.1f} |")
        print(f"| first pass, both | {first:.1f} s | {n / first:.1f} |")
        print(
            f"| classifier raw batched forward (batch {batch_size}, the pass's photos as ready tensors) | - | {raw_rate:.1f} |"
        )
        print(
            f"| classifier peak forward (one ready batch repeated, fastest of 3; not the aim's denominator) | - | {peak_rate:.1f} |"
        )
        print(
            f"| colour features on the pass's photos as ready pixels ({colour_module.COMPUTE_WORKERS} threads, as in the pass) | - | {colour_raw_rate:.1f} |"
        )
        print(
            f"| summed raw: classifier forward + colour features (one after the other) | - | {summed_raw_rate:.1f} |"
        )
        print(
            f"| second run from the disk cache (new objects, both) | {second:.2f} s | {n / second:.0f} |"
        )
        print(
            f"| scores({n} photos x {len(words)} words), first call / again | {scores_first:.2f} s / {scores_again:.2f} s | - |"
        )
        print()
        print(
            f"first-pass classifier rate / raw forward rate: {n / first_classifier / raw_rate:.2f}"
        )
        print(
            f"first-pass colour rate / colour features on ready pixels: {n / first_colour / colour_raw_rate:.2f}"
        )
        print(
            f"first pass, both / summed raw (classifier forward + colour features): "
            f"{n / first / summed_raw_rate:.2f} (aim: >= 0.8)"
        )
        print(f"second run is {first / second:.0f}x faster than the first pass (aim: >= 100x)")

        from kiekai.judge import Judge
        from kiekai.kiek.bots import KiekBot

        judge = Judge("standard")
        usable = read
        times = time_bot_game(
            lambda name, seed: KiekBot(name, perception=perception, judge=judge, seed=seed),
            usable,
            judge=judge,
            seed=args.seed,
            rounds=args.rounds,
        )
        print()
        print(f"bots' thinking ({args.rounds} round(s), 3 bots, classifier+colour):")
        print(f"  active turn: {_ms(times['play_turn'])}")
        print(f"  guess:       {_ms(times['guess'])}")
        print(f"  keep card:   {_ms(times['keep_card'])}")

        labels = args.deck / "labels.csv"
        if labels.is_file():
            wnid_of = {}
            with labels.open(encoding="utf-8") as handle:
                for row in csv.DictReader(handle):
                    if row.get("wnid"):
                        wnid_of[row["file"].replace("/", "__")] = row["wnid"]
            scored = [c for c in usable if c.id in wnid_of and wnid_of[c.id] in classifier2.wnids]
            if scored:
                logits = classifier2.logits(scored)
                top5 = np.argsort(-logits, axis=1)[:, :5]
                truth = np.asarray([classifier2.wnids.index(wnid_of[c.id]) for c in scored])
                top1 = float((top5[:, 0] == truth).mean())
                top5_acc = float((top5 == truth[:, None]).any(axis=1).mean())
                print()
                print(
                    f"classifier accuracy on these {len(scored)} photos (labels.csv wnids, "
                    f"scoring only): top-1 {100 * top1:.1f} %, top-5 {100 * top5_acc:.1f} %"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
