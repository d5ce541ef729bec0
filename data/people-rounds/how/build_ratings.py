import csv, json
from collections import Counter
key = {(k["sheet"], k["n"]): k["file"] for k in json.load(open("rating/key.json"))}
rows = []
for r in (1, 2, 3, 4):
    for x in csv.DictReader(open(f"standin/rater{r}/ratings.tsv"), delimiter="\t"):
        x = {k.strip(): (v or "").strip().lower() for k, v in x.items()}
        f = key[(x["sheet"], int(x["n"]))]
        rows.append({"file": f, "rater": f"R{r}", "people": x["people"], "setting": x["setting"], "water": x["water"], "colour": x["colour"]})
rows.sort(key=lambda r: (r["file"], r["rater"]))
with open("/work/main/data/people-rounds/photo-ratings.tsv", "w") as f:
    f.write("file\trater\tpeople\tsetting\twater\tcolour\n")
    for r in rows: f.write("\t".join(r[k] for k in ("file", "rater", "people", "setting", "water", "colour")) + "\n")
by = {}
for r in rows: by.setdefault(r["file"], []).append(r)
print(len(by), Counter(len(v) for v in by.values()))
for fld in ("people", "setting", "water", "colour"):
    agree = sum(v[0][fld] == v[1][fld] for v in by.values()) / len(by)
    print(fld, round(agree, 3), Counter(r[fld] for r in rows).most_common(13))
both_people = sum(all(x["people"] == "yes" for x in v) for v in by.values())
print("both say people", both_people, "either", sum(any(x["people"] == "yes" for x in v) for v in by.values()))
