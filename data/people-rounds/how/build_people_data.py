"""Collect the stand-ins' answers into data/people-rounds/ (deals, person turns, rounds with
the other players' guesses, raw guesses). Run from /work/people."""
import csv, json
from pathlib import Path
OUT = Path("/work/main/data/people-rounds")
actives = {"k": "A1", "m": "A2", "q": "A3", "r": "A4"}
deals, turns, splits = [], [], {}
for prefix, who in actives.items():
    d = Path(f"deals-{prefix}")
    deals += [json.loads(l) for l in open(d / "deals.jsonl")]
    for r in csv.DictReader(open(d / "active.tsv"), delimiter="\t"):
        turns.append({"deal": r["deal"].strip(), "played": r["played"].strip(), "three": r["three"].strip(),
                      "word": r["word"].strip().lower(), "active": who})
    for l in open(d / "splits.jsonl"):
        s = json.loads(l); splits[s["split"]] = s
guessers = {1: "G1", 2: "G2", 3: "G3", 4: "G4", 5: "G5"}
guesses = {}  # split -> [(guesser, word)]
raw = []
for g, name in guessers.items():
    key = {json.loads(l)["split"]: json.loads(l) for l in open(f"keys/guesser{g}.jsonl")}
    for r in csv.DictReader(open(f"standin/guesser{g}/guesses.tsv"), delimiter="\t"):
        pool = r["split"].strip(); orig = key[pool]["orig"]; word = r["word"].strip().lower()
        guesses.setdefault(orig, []).append((name, word))
        raw.append({"split": orig, "guesser": name, "pool": f"guesser{g}", "pool_id": pool, "word": word})
with open(OUT / "deals.jsonl", "w") as f:
    for d in deals: f.write(json.dumps(d) + "\n")
with open(OUT / "person-active.tsv", "w") as f:
    f.write("deal\tplayed\tthree\tword\tactive\n")
    for t in turns: f.write("\t".join(t[k] for k in ("deal", "played", "three", "word", "active")) + "\n")
with open(OUT / "guesses.tsv", "w") as f:
    f.write("split\tguesser\tpool\tpool_id\tword\n")
    for r in raw: f.write("\t".join(r[k] for k in ("split", "guesser", "pool", "pool_id", "word")) + "\n")
by_deal = {t["deal"]: t for t in turns}
with open(OUT / "rounds.jsonl", "w") as f:
    for sid, s in splits.items():
        deal = sid[1:]
        gs = sorted(guesses[sid])
        assert len(gs) == 2, (sid, gs)
        f.write(json.dumps({"id": sid, "deal": deal, "target": s["word"], "valid_words": [s["word"]],
                            "group_of_three": s["three"], "group_of_two": s["two"],
                            "other_players_guessed": [w for _, w in gs],
                            "active": by_deal[deal]["active"], "guessers": [g for g, _ in gs]}) + "\n")
print(len(deals), len(turns), len(splits), len(raw))
