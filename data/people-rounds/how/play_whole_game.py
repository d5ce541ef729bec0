"""A whole 4-player Kiek game played by stand-in persons, one per seat, through files.

The real engine (`kiekai.kiek.game.play_game`) runs the game: deals, the table, the stakes,
the used words ("ne bis in idem": every word an active player or a guesser wrote), the
judge's verdicts and the scores. Each seat is a folder OUT/seat-X that only that seat's
stand-in reads:

  NN-active.png + NN-active.txt   your turn: the table (T1-T3) and your hand (H1-H4), the
                                  used words; answer NN-active.answer.tsv:
                                  "played<TAB>three<TAB>word" (e.g. "H1,H3<TAB>T2,H1,H3<TAB>dogs")
  NN-guess.png + NN-guess.txt     another player's split (three on top, two below), the used
                                  words; answer NN-guess.answer.txt: one word
  NN-*.error.txt                  an answer the game refused, and why (answer again)
  game-over.txt                   the game has ended: stop

The guessers of a turn are asked at once (they are "people" to the runner). The three
keepers of each turn (rulebook, "The Next Turn") and the "ne bis in idem" calls are decided
for the stand-ins by a kiekai bot (level normal, labels+colour perception): the stand-ins
only write words. No overrules. The log (OUT/game.jsonl) is the engine's own.

Run from the repository root, e.g.:
    python data/people-rounds/how/play_whole_game.py /work/people/wg1 --seed 501
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

from kiekai.eval import common as ec
from kiekai.events import EventLog
from kiekai.kiek.bots import KiekBot
from kiekai.kiek.game import play_game
from kiekai.kiek.players import ActivePlay, ActiveView, GuessView, KeepView, RevealView
from kiekai.kiek.settings import GameSettings

DECK = Path("../shared/decks/imagenet-dev")
TOOL = Path("../shared/tools/people_rounds.py")
POLL_SECONDS = 2.0
SEATS = "ABCD"


def _tool():
    spec = importlib.util.spec_from_file_location("people_rounds", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


class FileSeat:
    """A seat played by a stand-in person who reads and writes files in ``folder``."""

    is_human = True

    def __init__(self, name: str, folder: Path, bot: KiekBot, tool) -> None:
        self.name = name
        self.folder = folder
        self.bot = bot
        self.tool = tool
        folder.mkdir(parents=True, exist_ok=True)

    # -- files ---------------------------------------------------------------------------
    def _wait(self, path: Path) -> str:
        while True:
            if path.exists():
                time.sleep(0.5)  # let the writer finish
                text = path.read_text(encoding="utf-8").strip()
                if text:
                    return text
            time.sleep(POLL_SECONDS)

    def _refuse(self, answer: Path, why: str) -> None:
        stem = answer.name.split(".")[0]
        (self.folder / f"{stem}.error.txt").write_text(
            f"Your answer {answer.read_text(encoding='utf-8').strip()!r} was refused: {why}\n"
            f"Write {answer.name} again.\n",
            encoding="utf-8",
        )
        answer.rename(answer.with_suffix(answer.suffix + f".refused-{int(time.time())}"))

    @staticmethod
    def _used(words) -> str:
        return ", ".join(words) if words else "(none yet)"

    # -- the player protocol ---------------------------------------------------------------
    def play_turn(self, view: ActiveView) -> ActivePlay:
        if view.hourglass is not None:
            view.hourglass.start()
        nn = f"{view.turn + 1:02d}"
        tags = {f"T{i + 1}": c for i, c in enumerate(view.table)}
        tags |= {f"H{i + 1}": c for i, c in enumerate(view.hand)}
        self.tool.sheet(
            [
                ("Table (on the table already)", [(c.path, t) for t, c in tags.items() if t[0] == "T"]),
                ("Your hand (play exactly two of these)", [(c.path, t) for t, c in tags.items() if t[0] == "H"]),
            ],
            self.folder / f"{nn}-active.png",
        )
        (self.folder / f"{nn}-active.txt").write_text(
            f"Turn {view.turn + 1}: you are the active player (stake {view.stake}).\n"
            f"Words already used in this game (you may not write these or a synonym): "
            f"{self._used(view.used_words)}\n"
            "Play exactly two cards of your hand. The three table cards and your two make five;\n"
            "choose THREE of the five and write ONE word true of those three and not of the other two.\n"
            f"Answer in {nn}-active.answer.tsv, one line: played<TAB>three<TAB>word\n"
            "e.g.  H1,H3<TAB>T2,H1,H3<TAB>dogs\n",
            encoding="utf-8",
        )
        answer = self.folder / f"{nn}-active.answer.tsv"
        while True:
            text = self._wait(answer)
            parts = [p.strip() for p in text.splitlines()[0].split("\t")]
            why = None
            if len(parts) != 3:
                why = "write three tab-separated fields: played, three, word"
            else:
                played = [p.strip().upper() for p in parts[0].split(",") if p.strip()]
                three = [p.strip().upper() for p in parts[1].split(",") if p.strip()]
                word = parts[2].strip().lower()
                five = [t for t in tags if t[0] == "T"] + played
                if len(played) != 2 or any(p not in tags or p[0] != "H" for p in played) or len(set(played)) != 2:
                    why = "played must be two different cards of your hand, e.g. H1,H3"
                elif len(three) != 3 or len(set(three)) != 3 or any(t not in five for t in three):
                    why = "three must be three different cards among T1-T3 and the two you played"
                elif not word or len(word.split()) != 1:
                    why = "write one word"
            if why is None:
                two = [t for t in five if t not in three]
                return ActivePlay(
                    tuple(tags[p].id for p in played),  # type: ignore[arg-type]
                    tuple(tags[t].id for t in three),  # type: ignore[arg-type]
                    tuple(tags[t].id for t in two),  # type: ignore[arg-type]
                    word,
                )
            self._refuse(answer, why)

    def guess(self, view: GuessView) -> str:
        nn = f"{view.turn + 1:02d}"
        self.tool.sheet(
            [
                ("THREE: the word is true of these", [(c.path, str(i + 1)) for i, c in enumerate(view.three)]),
                ("TWO: and not of these", [(c.path, str(i + 4)) for i, c in enumerate(view.two)]),
            ],
            self.folder / f"{nn}-guess.png",
        )
        (self.folder / f"{nn}-guess.txt").write_text(
            f"Turn {view.turn + 1}: another player split five cards and wrote one word true of the\n"
            "three (top) and not of the two (bottom). Guess that word.\n"
            f"Words already used in this game (nobody may write these or a synonym again): "
            f"{self._used(view.used_words)}\n"
            f"Answer in {nn}-guess.answer.txt: one word.\n",
            encoding="utf-8",
        )
        text = self._wait(self.folder / f"{nn}-guess.answer.txt")
        return text.splitlines()[0].strip().lower()

    def call_repeat(self, view: RevealView) -> bool:
        return self.bot.call_repeat(view)

    def keep_card(self, view: KeepView) -> str:
        return self.bot.keep_card(view)

    def tell(self, message: str) -> None:
        with open(self.folder.parent / "messages.txt", "a", encoding="utf-8") as out:
            out.write(f"{self.name}: {message}\n")

    def overrule(self, view: RevealView) -> dict:
        return {}

    def overrule_repeats(self, view) -> dict:
        return {}

    def stop(self, reason: str) -> None:
        (self.folder / "game-over.txt").write_text(f"The game stopped: {reason}\n", encoding="utf-8")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--deck", type=Path, default=DECK)
    args = parser.parse_args(argv)
    tool = _tool()
    cards = ec.load_deck_cards(args.deck)
    perception, _ = ec.load_perception_for(ec.GAME_LABELS, cards)
    judge = ec.make_judge("standard")
    seats = [
        FileSeat(f"Player {s}", args.out / f"seat-{s}",
                 KiekBot(f"keeper {s}", perception=perception, judge=judge, level="normal", seed=args.seed * 10 + i),
                 tool)
        for i, s in enumerate(SEATS)
    ]  # fmt: skip
    with EventLog(args.out / "game.jsonl") as log:
        outcome = play_game(
            seats, cards, judge=judge, settings=GameSettings(seed=args.seed, turn_seconds=1e9),
            log=log,
            header={"made_by": "data/people-rounds/how/play_whole_game.py", "seed": args.seed},
        )  # fmt: skip
    for seat in seats:
        (seat.folder / "game-over.txt").write_text("The game is over. Thank you!\n", encoding="utf-8")
    print(outcome)
    return 0


if __name__ == "__main__":
    sys.exit(main())
