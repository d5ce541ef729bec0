"""Bot -> person pools that show each turn's used words (the sixth round on).

A turn of a whole game is played with the game's used words in view (rulebook, "Ne Bis in
Idem"): once *animals* is used, the active player writes something else. Sheets without them
make later bot turns look wrong to a guesser who would have written *animals*. So every sheet
here carries a line with the words used in that game before the turn ("(none yet)" on a first
turn and on a single deal), for bot and person turns alike:

- bot turns: bot-only games (engine logs, LOGS_LABELS and LOGS_PIXELS);
- person turns of whole games (`play_whole_game.py` folders, WHOLE);
- person turns of single deals (`/work/people/deals-{k,m,q,r}`, no used words).

Run from the round's working folder:
    python make_used_word_pools.py ROUND --labels L1.jsonl L2.jsonl --pixels P1.jsonl P2.jsonl \
        --whole WG1 WG2
Pool k (0-3) holds bot turns 6k..6k+5 of each perception, whole-game person turns 6k..6k+5 and
single-deal person turns 6k..6k+5 (drawn by random.Random(2025 + ROUND)), mixed by
`people_rounds.py mix --seed 300 + 10 * (ROUND - 1) + k`. Each key line keeps `used` and
`source` (bot / whole / deal).
"""

import argparse
import functools
import importlib.util
import json
import os
import random
import shutil
import subprocess
import textwrap
from pathlib import Path

from PIL import Image, ImageDraw

TOOL = Path("/work/shared/tools/people_rounds.py")
PY = "/tmp/pr/bin/python"
PERSON_DEALS = [Path(f"/work/people/deals-{p}") for p in "kmqr"]


@functools.cache
def tool():
    os.environ.setdefault("PEOPLE_DECK", "/work/shared/decks/imagenet-dev")
    spec = importlib.util.spec_from_file_location("people_rounds", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def log_turns(log: Path, by: str, perception: str, prefix: str) -> list[dict]:
    """The turns of one engine log with the words used before each (every word written)."""
    events = [json.loads(line) for line in open(log) if line.strip()]
    plays = {e["turn"]: e["data"] for e in events if e["type"] == "play" and not e["data"].get("forfeited")}
    used: list[str] = []
    out = []
    for e in events:
        if e["type"] != "reveal":
            continue
        secret = (e["data"].get("secret") or "").strip().lower()
        if e["turn"] in plays and secret:
            p = plays[e["turn"]]
            out.append({"split": f"{prefix}t{e['turn']:02d}", "three": p["three"], "two": p["two"],
                        "word": secret, "by": by, "log": str(log), "used": list(used),
                        **({"perception": perception} if perception else {})})  # fmt: skip
        for w in e["data"]["words"]:
            w = (w or "").strip().lower()
            if w and w not in used:
                used.append(w)
    return out


def banner(png: Path, used: list[str]) -> None:
    """Add the used-words line on top of a sheet."""
    t = tool()
    im = Image.open(png).convert("RGB")
    text = "Words already used in this game (nobody may write these or a synonym): " + (
        ", ".join(used) if used else "(none yet)"
    )
    lines = textwrap.wrap(text, width=max(40, im.width // 17))
    band = 16 + 36 * len(lines)
    out = Image.new("RGB", (im.width, im.height + band), (255, 250, 220))
    draw = ImageDraw.Draw(out)
    for i, line in enumerate(lines):
        draw.text((12, 8 + 36 * i), line, fill="black", font=t.font())
    out.paste(im, (0, band))
    out.save(png)


def write_source(folder: Path, turns: list[dict]) -> None:
    t = tool()
    deck = t.DECK
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    with open(folder / "splits.jsonl", "w") as f:
        for s in turns:
            fix = lambda c: c if c.startswith("photos/") else "photos/" + Path(c).name  # noqa: E731
            three, two = [fix(c) for c in s["three"]], [fix(c) for c in s["two"]]
            png = folder / f"split-{s['split']}.png"
            t.sheet([("Group of THREE (the word is true of these)", [(deck / c, f"{j+1}") for j, c in enumerate(three)]),
                     ("Group of TWO (and not of these)", [(deck / c, "") for c in two])], png)  # fmt: skip
            banner(png, s.get("used", []))
            f.write(json.dumps({**s, "three": three, "two": two}) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("round", type=int)
    ap.add_argument("--labels", nargs="+", type=Path, required=True)
    ap.add_argument("--pixels", nargs="+", type=Path, required=True)
    ap.add_argument("--whole", nargs="+", type=Path, required=True)
    args = ap.parse_args()
    here = Path.cwd()
    lab = [s for i, log in enumerate(args.labels) for s in log_turns(log, "bot", "labels", f"bl{i}")][:24]
    pix = [s for i, log in enumerate(args.pixels) for s in log_turns(log, "bot", "pixels", f"bp{i}")][:24]
    whole = [
        {**s, "source": "whole"}
        for i, game in enumerate(args.whole)
        for s in log_turns(game / "game.jsonl", "person", "", f"w{i + 1}")
    ][:24]
    singles = [json.loads(line) for d in PERSON_DEALS for line in open(d / "splits.jsonl")]
    random.Random(2025 + args.round).shuffle(singles)
    singles = [{**s, "used": [], "source": "deal"} for s in singles[:24]]
    for s in lab + pix:
        s["source"] = "bot"
    assert len(lab) == len(pix) == len(whole) == len(singles) == 24, (len(lab), len(pix), len(whole), len(singles))
    for k in range(4):
        src = here / f"src{k + 1}"
        write_source(src, lab[6 * k:6 * k + 6] + pix[6 * k:6 * k + 6] + whole[6 * k:6 * k + 6] + singles[6 * k:6 * k + 6])
        pool = here / f"pool{k + 1}"
        if pool.exists():
            shutil.rmtree(pool)
        seed = 300 + 10 * (args.round - 1) + k
        subprocess.run([PY, str(TOOL), "mix", str(pool), str(here / f"key{k + 1}.jsonl"), str(src), "--seed", str(seed)], check=True)
        print(k + 1, len(list(pool.glob("*.png"))))


if __name__ == "__main__":
    main()
