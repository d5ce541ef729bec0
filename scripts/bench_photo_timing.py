#!/usr/bin/env python
"""Benchmark the photo timing channel of the browser table (issue 21, point 1).

A table of two people and two bot seats is dealt from a deck of large JPEGs (default 40
photos of 3000x2000 pixels, written to a temporary folder with a fixed seed), served by
the real web server on 127.0.0.1, and fetched with one keep-alive HTTP client per person.
Printed, in milliseconds (median over ``--repeats`` rounds) and as ratios:

- **fresh / seen**: person A fetching a photo nobody fetched before (its own hand) against
  a photo person B fetched just before (the table). Before issue 21 the first fetch
  decoded the photo and later ones answered from a cache shared by every seat, so a
  ratio far above 1 told A which photos B had seen (the issue measured 2-7 ms cached,
  91-177 ms fresh). With the photos encoded once at the deal it should be about 1.
- **theirs / nothing**: A asking for a photo of B's hand against a hash of no card: both
  refused the same way; a ratio far from 1 would tell A which hashes B holds.

It also prints how long the deal's encoding took (the game's start waits for it).

Works on a checkout from before issue 21 too (it then fetches ``/photo/<hash>.jpg``, the
old public route, where "theirs" is not refused), so the two figures can be put side by
side: ``PYTHONPATH=/path/to/old/checkout python scripts/bench_photo_timing.py``.

Usage::

    .venv/bin/python scripts/bench_photo_timing.py               # 40 photos, ~1 minute
    .venv/bin/python scripts/bench_photo_timing.py --photos 24 --side 1500 --repeats 5
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx
from PIL import Image


def make_deck(folder: Path, count: int, side: int, seed: int) -> None:
    """``count`` JPEGs of ``side`` x ``2/3 side`` pixels with noise (so they do not shrink
    to nothing), fixed seed."""
    rng = random.Random(seed)
    width, height = side, side * 2 // 3
    for i in range(count):
        base = Image.new("RGB", (width, height), (rng.randrange(256), 90, rng.randrange(256)))
        noise = Image.effect_noise((width, height), 60).convert("RGB")
        Image.blend(base, noise, 0.5).save(folder / f"photo-{i:03d}.jpg", quality=92)


class Silent:
    """The smallest bot seat: the benchmark never plays, it only deals."""

    is_human = False

    def __init__(self, name: str) -> None:
        self.name = name


def timed_get(client: httpx.Client, path: str) -> tuple[float, int]:
    """Milliseconds to fetch ``path`` whole, and the status."""
    start = time.perf_counter()
    response = client.get(path)
    _ = response.content
    return (time.perf_counter() - start) * 1000, response.status_code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=40, help="photos in the deck (>= 19)")
    parser.add_argument("--side", type=int, default=3000, help="longer side of each photo")
    parser.add_argument("--repeats", type=int, default=3, help="fresh tables measured")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    if args.photos < 19:
        parser.error("--photos must be at least 19 (4 players x 4 cards + 3 on the table)")

    from kiekai.deck import load_deck
    from kiekai.display import card_names
    from kiekai.judge import Judge
    from kiekai.kiek.engine import KiekEngine
    from kiekai.web.server import start_server
    from kiekai.web.table import WebTable

    fresh_ms: list[float] = []
    seen_ms: list[float] = []
    theirs_ms: list[float] = []
    nothing_ms: list[float] = []
    deal_s: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_deck(folder, args.photos, args.side, args.seed)
        cards = list(load_deck(folder).cards)
        judge = Judge("standard")
        for repeat in range(args.repeats):
            names = ["A", "B", "Bot 1", "Bot 2"]
            table = WebTable(names, [0, 1], cards, card_names(cards), judge)
            server = start_server(table)
            try:
                engine = KiekEngine(cards, 4, judge=judge, seed=args.seed + repeat)
                start = time.perf_counter()
                table.attach(engine)  # the deal: photos are encoded here, after issue 21
                deal_s.append(time.perf_counter() - start)
                snap = table.snapshot
                assert snap is not None
                sha = {c.id: c.sha256 for c in cards}
                on_table = [sha[c] for c in snap.table]
                hand_a = [sha[c] for c in snap.hands[0]]
                hand_b = [sha[c] for c in snap.hands[1] if sha[c] not in hand_a]
                tokens = [table.seats[0].token, table.seats[1].token]
                with (
                    httpx.Client(base_url=server.base_url, timeout=60) as a,
                    httpx.Client(base_url=server.base_url, timeout=60) as b,
                ):
                    seat_route = timed_get(a, f"/seat/{tokens[0]}/photo/{hand_a[0]}.jpg")[1]
                    per_seat = seat_route == 200

                    def path(token: str | None, digest: str, per_seat: bool = per_seat) -> str:
                        if per_seat:
                            return f"/seat/{token}/photo/{digest}.jpg"
                        return f"/photo/{digest}.jpg"

                    # B looks at the table first; then A fetches the same photos
                    for digest in on_table:
                        timed_get(b, path(tokens[1], digest))
                    for digest in on_table:
                        seen_ms.append(timed_get(a, path(tokens[0], digest))[0])
                    for digest in hand_a[1:]:  # (the first was the route probe)
                        fresh_ms.append(timed_get(a, path(tokens[0], digest))[0])
                    for digest in hand_b:
                        timed_get(b, path(tokens[1], digest))  # B looks at its hand
                        theirs_ms.append(timed_get(a, path(tokens[0], digest))[0])
                        nothing = f"{random.Random(digest).getrandbits(256):064x}"
                        nothing_ms.append(timed_get(a, path(tokens[0], nothing))[0])
            finally:
                table.stop("benchmark over")
                server.stop()

    def med(values: list[float]) -> float:
        return statistics.median(values)

    print(f"photos: {args.photos} JPEGs of {args.side}x{args.side * 2 // 3}, {args.repeats} tables")
    print(f"route: {'per seat (/seat/TOKEN/photo/...)' if per_seat else 'public (/photo/...)'}")
    print(f"deal (encoding every dealt photo): median {med(deal_s):.2f} s")
    print("| request by A | median ms | n |")
    print("|---|---|---|")
    for label, values in (
        ("a photo B fetched just before (the table)", seen_ms),
        ("a photo nobody fetched (A's hand)", fresh_ms),
        ("a photo of B's hand", theirs_ms),
        ("a hash of no card", nothing_ms),
    ):
        print(f"| {label} | {med(values):.2f} | {len(values)} |")
    print(f"fresh / seen ratio: {med(fresh_ms) / med(seen_ms):.2f} (1 = no timing channel)")
    print(f"theirs / nothing ratio: {med(theirs_ms) / med(nothing_ms):.2f} (1 = no channel)")


if __name__ == "__main__":
    main()
