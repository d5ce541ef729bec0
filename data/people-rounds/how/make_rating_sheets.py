"""Contact sheets of dev photos for stand-in raters: 20 photos a sheet, numbered 1-20.
The key (sheet, number -> file) stays outside the raters' folders."""
import csv, json, random, sys
from pathlib import Path
from PIL import Image, ImageDraw, ImageFont
DECK = Path("/work/shared/decks/imagenet-dev")
OUT = Path(sys.argv[1]); OUT.mkdir(parents=True, exist_ok=True)
files = sorted(r["file"] for r in csv.DictReader(open(DECK / "labels.csv")))
random.Random(2026).shuffle(files)
T = 280
font = ImageFont.truetype("DejaVuSans-Bold.ttf", 30)
key = []
for s in range(0, len(files), 20):
    chunk = files[s:s + 20]; sid = f"sheet{s // 20:02d}"
    im = Image.new("RGB", (5 * (T + 10) + 10, 4 * (T + 50) + 10), (235, 235, 235)); d = ImageDraw.Draw(im)
    for i, f in enumerate(chunk):
        x, y = 10 + (i % 5) * (T + 10), 10 + (i // 5) * (T + 50)
        p = Image.open(DECK / f).convert("RGB"); p.thumbnail((T, T))
        im.paste(p, (x + (T - p.width) // 2, y + 40 + (T - p.height) // 2))
        d.text((x + 4, y + 2), str(i + 1), fill="black", font=font)
        key.append({"sheet": sid, "n": i + 1, "file": f})
    im.save(OUT / f"{sid}.png")
json.dump(key, open(sys.argv[2], "w"), indent=0)
