"""Bot -> person pools: 48 bot turns (4 bot-only games: 2 with labels, 2 pixels only) and 48
person turns, in 4 blind pools of 24 (6 labels bot + 6 pixels bot + 12 person turns each).
Run from the round's working folder after `people_rounds.py botlog bots-labels|bots-pixels ...`
as `python make_bot_person_pools.py ROUND` (1-4). The seeds as run: person turns drawn by
random.Random(2025 + ROUND), pool k (0-3) mixed with --seed 300 + 10 * (ROUND - 1) + k."""
import json, random, shutil, subprocess, sys
from pathlib import Path
ROUND = int(sys.argv[1]) if len(sys.argv) > 1 else 1
HERE = Path.cwd()
TOOL = "/work/shared/tools/people_rounds.py"
PY = "/tmp/pr/bin/python"
def load(d):
    return [json.loads(l) for l in open(Path(d) / "splits.jsonl")]
lab = load(HERE / "bots-labels"); pix = load(HERE / "bots-pixels")
assert len(lab) >= 24 and len(pix) >= 24, (len(lab), len(pix))
persons = []
for p in "kmqr":
    d = Path(f"/work/people/deals-{p}")
    persons += [(d, s) for s in load(d)]
rng = random.Random(2025 + ROUND)
rng.shuffle(persons)
persons = persons[:48]
lab = [(HERE / "bots-labels", s) for s in lab[:24]]
pix = [(HERE / "bots-pixels", s) for s in pix[:24]]
for k in range(4):
    src = HERE / f"src{k+1}"
    if src.exists(): shutil.rmtree(src)
    src.mkdir()
    chosen = lab[6*k:6*k+6] + pix[6*k:6*k+6] + persons[12*k:12*k+12]
    with open(src / "splits.jsonl", "w") as f:
        for d, s in chosen:
            perception = "labels" if d.name == "bots-labels" else ("pixels" if d.name == "bots-pixels" else "")
            f.write(json.dumps({**s, **({"perception": perception} if perception else {})}) + "\n")
            shutil.copy(d / f"split-{s['split']}.png", src / f"split-{s['split']}.png")
    pool = HERE / f"pool{k+1}"
    if pool.exists(): shutil.rmtree(pool)
    subprocess.run([PY, TOOL, "mix", str(pool), str(HERE / f"key{k+1}.jsonl"), str(src), "--seed", str(300 + 10 * (ROUND - 1) + k)], check=True)
    print(k + 1, len(list(pool.glob("*.png"))))
