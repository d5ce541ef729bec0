"""People rounds (rounds.jsonl lines) from whole games played by `play_whole_game.py`.

    python data/people-rounds/how/build_whole_game_rounds.py GAME_DIR... > rounds.jsonl

Game k (1-based, in the order given) becomes deal ``wgK`` (one deal per game, so a game's
turns all fall in one part of the split); turn t is round ``wKtTT``. ``target`` is the active
player's word, ``other_players_guessed`` the three guessers' words in seating order,
``active`` / ``guessers`` the seats (``K:A`` ... ``K:D``), and ``used_words`` every word written
before the turn in that game (rulebook, "Ne Bis in Idem": the active players' and the guessers'
words). A turn whose active player wrote nothing is left out.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SEATS = "ABCD"


def rounds_of(game_dir: Path, k: int) -> list[dict]:
    events = [json.loads(line) for line in open(game_dir / "game.jsonl", encoding="utf-8") if line.strip()]
    plays = {e["turn"]: e for e in events if e["type"] == "play"}
    used: list[str] = []
    out = []
    for e in events:
        if e["type"] != "reveal":
            continue
        turn, active = e["turn"], e["player"]
        words = list(e["data"]["words"])
        play = plays[turn]["data"]
        secret = (e["data"].get("secret") or "").strip().lower()
        seats = [(active + i) % len(words) for i in range(1, len(words))]
        if secret:
            out.append({
                "id": f"w{k}t{turn + 1:02d}",
                "deal": f"wg{k}",
                "target": secret,
                "valid_words": [secret],
                "group_of_three": play["three"],
                "group_of_two": play["two"],
                "other_players_guessed": [words[s].strip().lower() or "-" for s in seats],
                "active": f"{k}:{SEATS[active]}",
                "guessers": [f"{k}:{SEATS[s]}" for s in seats],
                "used_words": list(used),
            })  # fmt: skip
        for w in words:
            w = w.strip().lower()
            if w and w not in used:
                used.append(w)
    return out


def main(argv: list[str]) -> int:
    for k, folder in enumerate(argv, start=1):
        for line in rounds_of(Path(folder), k):
            print(json.dumps(line))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
