"""Evaluate a perception backend: zero-shot accuracy on a labelled deck and embedding speed.

Usage::

    python scripts/eval_perception.py --deck ../shared/decks/imagenet-dev \\
        [--perception clip|labels] [--clip-model NAME] [--clip-checkpoint PATH] [--out DIR]

**Accuracy** (needs real weights for ``clip``; the ``labels`` backend reads labels.csv, so
its figures measure its word scoring on known labels, not vision). For every labelled card
the backend's scores (``Perception.scores(cards, words)``, float32 [N, V]) rank candidates:

- *label task*: candidates are the deck's distinct labels (as in ImageNet zero-shot
  classification, Radford et al. 2021); the rank of the card's own label.
- *category task*: candidates are the bots' vocabulary (``kiekai.lexicon``); the card's true
  categories are the vocabulary words with a WordNet noun sense that is an ancestor-or-self
  of the card's synset. Reported: the rank of the best-ranked true category (1 + the untrue
  words scoring at least as high), the rank of the most specific one (deepest synset), and
  whether the top word is true (precision at 1).

Ranks are 1-based: the number of candidates scoring at least as high as the true one (ties
count against the card); top-k = share of cards whose rank is at most k.

**Speed** (images per second, wall clock, same images, same process): the project's path
(``ClipPerception.embed_images`` with an empty embedding cache: decode, preprocess, encode,
cache write; and again from the disk cache) against open_clip's raw batched
``model.encode_image`` on tensors already preprocessed, and with decoding and
preprocessing included. Speed does not depend on the
weights' values: when no CLIP weights exist, the default architecture is randomly
initialised, saved to a temporary file and loaded through the same ``--clip-checkpoint``
path — labelled as such, and no accuracy is ever reported from random weights.

Exit status: 0 on success (also when CLIP weights are missing: that is reported), 2 on a
user error (missing deck, no labelled photos).
"""

from __future__ import annotations

import argparse
import logging
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np  # noqa: E402

from kiekai.eval import common as ec

TOP_KS = (1, 5)


def rank_of(scores: np.ndarray, column: int) -> int:
    """1-based rank of ``scores[column]`` in a 1-D score vector, ties counted pessimistically
    (every other candidate with an equal or higher score ranks ahead)."""
    value = scores[column]
    return int(np.sum(scores >= value))


def rank_stats(ranks: Sequence[int]) -> dict[str, Any]:
    """top-1 / top-5 shares (in [0, 1]), mean and median rank of a list of 1-based ranks."""
    arr = np.asarray(ranks, dtype=np.float64)
    if arr.size == 0:
        return {"n": 0, "top1": 0.0, "top5": 0.0, "mean_rank": 0.0, "median_rank": 0.0}
    return {
        "n": int(arr.size),
        "top1": float(np.mean(arr <= 1)),
        "top5": float(np.mean(arr <= 5)),
        "mean_rank": float(arr.mean()),
        "median_rank": float(np.median(arr)),
    }


def label_task(perception: Any, cards: Sequence[Any]) -> dict[str, Any]:
    """Rank of each card's own label among the deck's distinct labels.

    Returns:
        :func:`rank_stats` plus ``candidates`` (number of distinct labels).
    """
    labelled = [c for c in cards if c.label]
    labels = sorted({c.label for c in labelled})
    if not labelled:
        return {**rank_stats([]), "candidates": 0}
    column = {label: j for j, label in enumerate(labels)}
    scores = np.asarray(perception.scores(labelled, labels), dtype=np.float32)
    ranks = [rank_of(scores[i], column[c.label]) for i, c in enumerate(labelled)]
    return {**rank_stats(ranks), "candidates": len(labels)}


def category_task(
    perception: Any, cards: Sequence[Any], vocabulary: Sequence[str], taxonomy: ec.Taxonomy
) -> dict[str, Any]:
    """Ranks of each card's true categories (vocabulary words naming an ancestor-or-self of
    its synset) among the whole vocabulary.

    Returns:
        ``best`` and ``most_specific`` (:func:`rank_stats`), ``precision_at_1`` (share of
        covered cards whose top word is true), ``covered`` (cards with at least one true
        vocabulary word) and ``cards``, ``candidates``.
    """
    synsets = [(c, taxonomy.synset_of_card(c)) for c in cards]
    synsets = [(c, s) for c, s in synsets if s is not None]
    senses = [taxonomy.noun_senses(w) for w in vocabulary]
    covered: list[tuple[Any, list[int], int]] = []
    for card, synset in synsets:
        ancestors = taxonomy.ancestors(synset)
        true_cols = []
        depth_best, specific = -1, -1
        for j, word_senses in enumerate(senses):
            hits = [s for s in word_senses if s in ancestors]
            if hits:
                true_cols.append(j)
                depth = max(s.max_depth() for s in hits)
                if depth > depth_best:
                    depth_best, specific = depth, j
        if true_cols:
            covered.append((card, true_cols, specific))
    if not covered:
        return {
            "best": rank_stats([]),
            "most_specific": rank_stats([]),
            "precision_at_1": 0.0,
            "covered": 0,
            "cards": len(synsets),
            "candidates": len(vocabulary),
        }
    scores = np.asarray(
        perception.scores([c for c, _, _ in covered], list(vocabulary)), dtype=np.float32
    )
    best, specific_ranks, p_at_1 = [], [], []
    for i, (_card, true_cols, specific) in enumerate(covered):
        row = scores[i]
        mask = np.ones(row.shape[0], dtype=bool)
        mask[true_cols] = False
        # first relevant item: 1 + the other (untrue) words scoring at least as high
        best.append(1 + int(np.sum(row[mask] >= row[true_cols].max())))
        specific_ranks.append(rank_of(row, specific))
        p_at_1.append(int(np.argmax(row)) in set(true_cols))
    return {
        "best": rank_stats(best),
        "most_specific": rank_stats(specific_ranks),
        "precision_at_1": float(np.mean(p_at_1)),
        "covered": len(covered),
        "cards": len(synsets),
        "candidates": len(vocabulary),
    }


# --------------------------------------------------------------------------- speed


def random_checkpoint(model_name: str, folder: Path) -> Path:
    """Save a randomly initialised open_clip ``model_name`` (seed 0) to ``folder`` and return
    the file, for speed measurements only (its outputs mean nothing)."""
    import open_clip
    import torch

    torch.manual_seed(0)
    quiet = logging.getLogger()
    level = quiet.level
    quiet.setLevel(logging.ERROR)  # open_clip warns that the weights are random: we know
    try:
        model = open_clip.create_model(model_name, pretrained=None, device="cpu")
    finally:
        quiet.setLevel(level)
    path = folder / f"random-{model_name}.pt"
    torch.save(model.state_dict(), path)
    return path


def measure_speed(
    cards: Sequence[Any],
    clip_model: str | None,
    clip_checkpoint: str | None,
    repeats: int = 2,
) -> dict[str, Any]:
    """Images per second of the project's CLIP image path and of open_clip's raw
    ``encode_image``, on the same cards, in the same process.

    The project's path is ``ClipPerception.embed_images`` (decode with
    ``kiekai.deck.open_rgb``, CLIP preprocessing, batched ``encode_image``, on-disk cache
    write): cold (a fresh, empty cache folder) and warm (a new instance reading that disk
    cache). The raw figures use the very model and preprocessing the project loaded, in the
    project's batch size: once on tensors already preprocessed (pure ``encode_image``) and
    once including decoding and preprocessing. After one warm-up forward pass, the paths
    run in turn ``repeats`` times and each keeps its shortest time (as ``timeit`` does), so
    that load from other processes does not favour one path.

    Returns:
        ``images``, ``batch_size``, ``threads``, ``repeats``, ``model_key`` and for each path
        ``seconds`` and ``images_per_second``; ``overhead`` = raw encode rate / project cold
        rate.

    Raises:
        kiekai.models.ModelUnavailable: the CLIP weights cannot be loaded.
    """
    import torch

    from kiekai.deck import open_rgb
    from kiekai.perception import clip as clip_module

    cards = list(cards)
    batch_size = clip_module.BATCH_SIZE
    best = {
        "decode": float("inf"),
        "encode": float("inf"),
        "cold": float("inf"),
        "warm": float("inf"),
    }
    model_key = ""
    with tempfile.TemporaryDirectory(prefix="kiekai-speed-cache-") as tmp:
        for attempt in range(max(1, repeats)):
            cache = Path(tmp) / f"cache-{attempt}"
            cold_perception = clip_module.ClipPerception(
                model_name=clip_model, checkpoint=clip_checkpoint, progress=False, cache_root=cache
            )
            model, preprocess = cold_perception.model, cold_perception.preprocess
            model_key = cold_perception.model_key
            start = time.perf_counter()
            tensors = [preprocess(open_rgb(c, clip_module.DECODE_MAX_SIDE)) for c in cards]
            best["decode"] = min(best["decode"], time.perf_counter() - start)
            with torch.inference_mode():
                if attempt == 0:  # warm-up: first-call allocations are charged to no path
                    model.encode_image(torch.stack(tensors[:1]), normalize=True)
                start = time.perf_counter()
                for i in range(0, len(tensors), batch_size):
                    model.encode_image(torch.stack(tensors[i : i + batch_size]), normalize=True)
                best["encode"] = min(best["encode"], time.perf_counter() - start)
            start = time.perf_counter()
            cold_perception.embed_images(cards)
            best["cold"] = min(best["cold"], time.perf_counter() - start)
            warm_perception = clip_module.ClipPerception(
                model_name=clip_model, checkpoint=clip_checkpoint, progress=False, cache_root=cache
            )
            start = time.perf_counter()
            warm_perception.embed_images(cards)
            best["warm"] = min(best["warm"], time.perf_counter() - start)
    n = len(cards)

    def rate(seconds: float) -> float:
        return n / seconds if seconds > 0 else float("inf")

    decode_encode = best["decode"] + best["encode"]
    return {
        "images": n,
        "batch_size": batch_size,
        "threads": torch.get_num_threads(),
        "repeats": max(1, repeats),
        "model_key": model_key,
        "project_cold": {"seconds": best["cold"], "images_per_second": rate(best["cold"])},
        "project_warm": {"seconds": best["warm"], "images_per_second": rate(best["warm"])},
        "raw_encode": {"seconds": best["encode"], "images_per_second": rate(best["encode"])},
        "raw_decode_encode": {"seconds": decode_encode, "images_per_second": rate(decode_encode)},
        "overhead": rate(best["encode"]) / rate(best["cold"]) if best["cold"] > 0 else float("nan"),
    }


# --------------------------------------------------------------------------- run


def run(
    deck: Path | str,
    kind: str = "labels",
    clip_model: str | None = None,
    clip_checkpoint: str | None = None,
    limit: int | None = None,
    speed_images: int = 64,
    max_words: int | None = None,
    loaded: tuple[list[Any], Any, list[Any]] | None = None,
) -> dict[str, Any]:
    """Accuracy of the ``kind`` backend (when it loads with real weights) and CLIP speed.

    Args:
        deck: a labelled deck folder.
        kind: ``labels`` or ``clip``.
        limit: score only the first ``limit`` labelled cards (in id order).
        speed_images: cards timed in the speed test (0 = no speed test).
        max_words: use only the first ``max_words`` vocabulary words in the category task
            (quick checks; ``None`` = all).
        loaded: optional ``(all_cards, perception, usable)`` already loaded for ``kind``.

    Returns:
        ``accuracy`` (or ``None`` with ``accuracy_note``), ``speed`` (or ``None`` with
        ``speed_note``), ``config``.

    Raises:
        EvalError: missing deck or a deck with no labelled photos.
    """
    from kiekai.models import ModelUnavailable

    cards = loaded[0] if loaded else ec.load_deck_cards(deck)
    taxonomy = ec.Taxonomy()
    result: dict[str, Any] = {"accuracy": None, "speed": None, "notes": []}
    weights_missing = False
    perception = None
    usable: list[Any] = []
    if loaded is not None:
        _, perception, usable = loaded
    else:
        try:
            perception, usable = ec.load_perception_for(kind, cards, clip_model, clip_checkpoint)
        except ec.EvalError as exc:
            if kind != "clip":
                raise
            weights_missing = True
            result["notes"].append(
                f"CLIP weights are missing, so no zero-shot accuracy is reported: {exc}"
            )
    if perception is not None:
        labelled = [c for c in usable if c.label or c.wnid]
        if limit is not None:
            labelled = labelled[:limit]
        if not labelled:
            raise ec.EvalError(f"deck {deck} has no labelled photos (labels.csv with label/wnid)")
        vocabulary = list(ec.load_vocabulary())[:max_words]
        start = time.perf_counter()
        result["accuracy"] = {
            "cards": len(labelled),
            "label_task": label_task(perception, labelled),
            "category_task": category_task(perception, labelled, vocabulary, taxonomy),
            "seconds": time.perf_counter() - start,
        }
        if kind == "labels":
            result["notes"].append(
                "The labels backend reads each photo's label and wnid from labels.csv: these "
                "figures measure how it scores words against known labels, not vision."
            )
    if speed_images > 0:
        speed_cards = cards[:speed_images]
        checkpoint = clip_checkpoint
        with tempfile.TemporaryDirectory(prefix="kiekai-random-clip-") as tmp:
            if weights_missing or (
                kind != "clip" and not clip_checkpoint and not _clip_loadable(clip_model)
            ):
                from kiekai.models import default_clip

                name = clip_model or default_clip()[0]
                checkpoint = str(random_checkpoint(name, Path(tmp)))
                clip_model = name
                result["speed_random_init"] = True
                result["notes"].append(
                    f"Speed measured with {name} randomly initialised (no CLIP weights on this "
                    "machine); speed does not depend on the weights' values, but nothing here "
                    "measures accuracy."
                )
            else:
                result["speed_random_init"] = False
            try:
                result["speed"] = measure_speed(speed_cards, clip_model, checkpoint)
            except (ec.EvalError, ModelUnavailable) as exc:
                result["notes"].append(f"CLIP speed not measured: {exc}")
    result["config"] = {
        "deck": ec.display_path(deck),
        "perception": kind,
        "clip_model": clip_model,
        "clip_checkpoint": ec.display_path(clip_checkpoint),
        "speed_images": speed_images,
    }
    return result


def _clip_loadable(clip_model: str | None) -> bool:
    """Whether real CLIP weights resolve without a download (hub cache or env checkpoint)."""
    from kiekai.models import ModelUnavailable, resolve_clip

    try:
        resolve_clip(clip_model, allow_download=False)
    except ModelUnavailable:
        return False
    return True


def plot(result: dict[str, Any], path: Path) -> Path | None:
    """Save a PNG of the accuracy (top-1/top-5 per task) and speed bars; ``None`` if neither."""
    acc, speed = result.get("accuracy"), result.get("speed")
    if not acc and not speed:
        return None
    plt = ec.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    ax = axes[0]
    if acc:
        tasks = [
            ("own label", acc["label_task"]),
            ("best true\ncategory", acc["category_task"]["best"]),
            ("most specific\ncategory", acc["category_task"]["most_specific"]),
        ]
        x = np.arange(len(tasks))
        ax.bar(x - 0.2, [100 * t["top1"] for _, t in tasks], 0.4, label="top-1", color="#2b6cb0")
        ax.bar(x + 0.2, [100 * t["top5"] for _, t in tasks], 0.4, label="top-5", color="#90cdf4")
        ax.set_xticks(x, [n for n, _ in tasks])
        ax.set_ylim(0, 105)
        ax.set_ylabel("% of labelled cards")
        ax.set_title(f"Zero-shot ranking ({result['config']['perception']})")
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no accuracy:\nCLIP weights missing", ha="center", va="center")
        ax.set_axis_off()
    ax = axes[1]
    if speed:
        names = [
            "raw encode_image",
            "raw decode+encode",
            "project (cold cache)",
            "project (warm cache)",
        ]
        keys = ["raw_encode", "raw_decode_encode", "project_cold", "project_warm"]
        values = [speed[k]["images_per_second"] for k in keys]
        ax.barh(names[::-1], values[::-1], color=["#c05621", "#dd6b20", "#ed8936", "#f6ad55"][::-1])
        for y, v in enumerate(values[::-1]):
            ax.text(v, y, f" {v:.1f}", va="center", fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("images per second (log scale)")
        random_note = " — random weights" if result.get("speed_random_init") else ""
        ax.set_title(f"CLIP embedding speed, {speed['images']} images{random_note}", fontsize=10)
    else:
        ax.text(0.5, 0.5, "speed not measured", ha="center", va="center")
        ax.set_axis_off()
    return ec.save_figure(fig, path)


def render_markdown(results: Sequence[dict[str, Any]], image: str | None) -> str:
    """The report section for ``docs/EVALUATION.md`` from one or more :func:`run` results."""
    out: list[str] = []
    rows = []
    for r in results:
        acc = r.get("accuracy")
        if not acc:
            continue
        lab, cat = acc["label_task"], acc["category_task"]
        rows.append(
            [
                r["config"]["perception"],
                acc["cards"],
                f"{ec.pct(lab['top1'])} / {ec.pct(lab['top5'])} / {lab['mean_rank']:.1f} (of {lab['candidates']})",
                f"{ec.pct(cat['best']['top1'])} / {ec.pct(cat['best']['top5'])} / {cat['best']['mean_rank']:.1f}",
                f"{ec.pct(cat['most_specific']['top1'])} / {ec.pct(cat['most_specific']['top5'])} / {cat['most_specific']['mean_rank']:.1f}",
                ec.pct(cat["precision_at_1"]),
                f"{cat['covered']}/{cat['cards']} (of {cat['candidates']} words)",
            ]
        )
    if rows:
        out += [
            ec.markdown_table(
                [
                    "perception",
                    "cards",
                    "own label: top-1 / top-5 / mean rank",
                    "best true category: top-1 / top-5 / mean rank",
                    "most specific category: top-1 / top-5 / mean rank",
                    "top word true",
                    "cards with a true vocabulary word",
                ],
                rows,
            ),
            "",
        ]
    for r in results:
        for note in r.get("notes", []):
            out.append(f"- **{r['config']['perception']}**: {note}")
    out.append("")
    for r in results:
        s = r.get("speed")
        if not s:
            continue
        tag = " (randomly initialised: speed only)" if r.get("speed_random_init") else ""
        out += [
            f"CLIP embedding speed, `{s['model_key'].split('/')[0]}`{tag}, {s['images']} images of the "
            f"deck, batch {s['batch_size']}, {s['threads']} torch threads, measured in one run "
            f"(best of {s.get('repeats', 1)} alternating passes):",
            "",
            ec.markdown_table(
                ["path", "seconds", "images/s"],
                [
                    [
                        "open_clip raw `encode_image` (preprocessed tensors)",
                        f"{s['raw_encode']['seconds']:.2f}",
                        f"{s['raw_encode']['images_per_second']:.1f}",
                    ],
                    [
                        "open_clip raw, decode + preprocess + encode",
                        f"{s['raw_decode_encode']['seconds']:.2f}",
                        f"{s['raw_decode_encode']['images_per_second']:.1f}",
                    ],
                    [
                        "kiekai clip perception, empty cache",
                        f"{s['project_cold']['seconds']:.2f}",
                        f"{s['project_cold']['images_per_second']:.1f}",
                    ],
                    [
                        "kiekai clip perception, cached embeddings",
                        f"{s['project_warm']['seconds']:.2f}",
                        f"{s['project_warm']['images_per_second']:.1f}",
                    ],
                ],
            ),
            "",
            f"Ratios in this run: the project's cold path runs at {1 / s['overhead']:.2f}x the "
            "raw `encode_image` rate (its extra work: decoding, preprocessing, the cache write) "
            f"and at {s['project_cold']['images_per_second'] / s['raw_decode_encode']['images_per_second']:.2f}x "
            "the raw path that decodes and preprocesses too (1.00 = no overhead of its own; on "
            "a machine shared with other work, single timings vary by 10-20%); cached "
            f"embeddings load {s['project_warm']['images_per_second'] / s['raw_encode']['images_per_second']:.0f}x "
            "faster than encoding.",
            "",
        ]
        break
    if image:
        out.append(f"![perception]({image})")
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deck", type=Path, default=ec.DEFAULT_DECK, help="labelled deck folder")
    p.add_argument("--perception", choices=["labels", "clip"], default="clip")
    p.add_argument(
        "--clip-model", default=None, help="open_clip architecture (default: the project's)"
    )
    p.add_argument("--clip-checkpoint", default=None, help="open_clip weights file")
    p.add_argument("--limit", type=int, default=None, help="score only the first N labelled cards")
    p.add_argument(
        "--speed-images", type=int, default=64, help="images in the speed test (0: none)"
    )
    p.add_argument(
        "--max-words", type=int, default=None, help="first N vocabulary words only (quick checks)"
    )
    p.add_argument("--out", type=Path, default=None, help="folder for perception.json/.png/.md")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run from the command line; returns the exit status (0 ok, 2 user error)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        result = run(
            args.deck,
            args.perception,
            args.clip_model,
            args.clip_checkpoint,
            args.limit,
            args.speed_images,
            args.max_words,
        )
        for note in result["notes"]:
            print(note)
        acc = result["accuracy"]
        if acc:
            lab, cat = acc["label_task"], acc["category_task"]
            print(
                f"{args.perception}: own label top-1 {ec.pct(lab['top1'])} top-5 {ec.pct(lab['top5'])} "
                f"mean rank {lab['mean_rank']:.1f} of {lab['candidates']}; best true category top-1 "
                f"{ec.pct(cat['best']['top1'])} top-5 {ec.pct(cat['best']['top5'])}; "
                f"top word true {ec.pct(cat['precision_at_1'])}"
            )
        s = result["speed"]
        if s:
            print(
                f"speed ({s['images']} images): raw encode_image {s['raw_encode']['images_per_second']:.1f}/s, "
                f"project cold {s['project_cold']['images_per_second']:.1f}/s, warm "
                f"{s['project_warm']['images_per_second']:.1f}/s"
                + (" [random weights]" if result.get("speed_random_init") else "")
            )
        if args.out:
            ec.write_json(args.out / "perception.json", result)
            image = plot(result, args.out / "perception.png")
            (args.out / "perception.md").write_text(
                render_markdown([result], "perception.png" if image else None) + "\n", "utf-8"
            )
            print(f"wrote {args.out / 'perception.json'}")
        return 0

    return ec.run_main(body)


if __name__ == "__main__":
    sys.exit(main())
