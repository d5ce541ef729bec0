"""Evaluate the synonym judge on a labelled pairs TSV, beside baselines, in one run.

Prints Markdown tables:

1. per strictness: accuracy, precision and recall of the judge and of four baselines
   measured on the same pairs in the same run:
   - *exact*: accept iff the normalised texts are equal (case, spaces, punctuation,
     articles, diacritics, numerals);
   - *lemma*: accept iff the two words share a lemma (inflection, spelling, compounds);
   - *synset*: lemma, or the two words share any WordNet synset;
   - *embedding*: lemma, or MiniLM cosine >= t, with t the best threshold for that
     level *on this file* (an optimistic, oracle-tuned baseline);
2. per relation kind (the ``kind`` column, when present): the judge's accuracy at each
   level and the number of pairs; and per evidence that decided (form, everyday lexicon,
   WordNet rule, fitted model, ...): how many pairs it settled and how many of those
   verdicts are right;
3. Spearman rank correlation of the judge's score (standard level; 1 or 0 where a rule
   decides), of the fitted model's probability for every pair (a graded similarity) and
   of the MiniLM cosine alone (same "a photo of {word}." template) with human similarity ratings: SimLex-999 (Hill, Reichart & Korhonen
   2015), WordSim-353 similarity and relatedness splits (Agirre et al. 2009, of
   Finkelstein et al. 2002), RG-65 (Rubenstein & Goodenough 1965) and MEN (Bruni et al.
   2014). SimLex-999 and MEN are not used by scripts/fit_judge.py; RG-65 and the
   WordSim-353 relatedness-only pairs are (as training labels), so their figures are
   not independent.

Usage::

    python scripts/eval_judge.py ../shared/eval/judge-pairs-dev.tsv [--sim-dir DIR]
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kiekai.judge import Judge  # noqa: E402
from kiekai.judge.features import evidence  # noqa: E402
from kiekai.judge.lexical import lemmas, sense_weights  # noqa: E402
from kiekai.judge.normalize import compound_key, normalise  # noqa: E402
from kiekai.judge.resources import cosine, prefetch_embeddings  # noqa: E402
from kiekai.paths import shared_dir  # noqa: E402

LEVELS = ("strict", "standard", "lenient")
SIM_FILES = (
    ("SimLex-999", "EN-SIMLEX-999.txt"),
    ("WordSim-353 similarity", "EN-WS-353-SIM.txt"),
    ("WordSim-353 relatedness", "EN-WS-353-REL.txt"),
    ("RG-65", "EN-RG-65.txt"),
    ("MEN", "EN-MEN-TR-3k.txt"),
)


def read_pairs(path: Path) -> list[dict[str, str]]:
    """Rows of a TSV with at least secret, guess, strict, standard, lenient columns.

    Raises:
        SystemExit(2): missing file or columns (message on stderr).
    """
    if not path.is_file():
        sys.exit(f"error: pairs file {path} not found")
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        need = {"secret", "guess", *LEVELS}
        missing = need - set(reader.fieldnames or [])
        if missing:
            print(f"error: {path} lacks columns {sorted(missing)}", file=sys.stderr)
            raise SystemExit(2)
        return [{k: (v or "") for k, v in r.items()} for r in reader]


def prf(pred: list[bool], gold: list[bool]) -> tuple[float, float, float]:
    """Accuracy, precision and recall of boolean predictions (precision of none = 1.0)."""
    p, g = np.array(pred, bool), np.array(gold, bool)
    acc = float((p == g).mean()) if len(g) else float("nan")
    tp = float((p & g).sum())
    prec = tp / p.sum() if p.sum() else 1.0
    rec = tp / g.sum() if g.sum() else 1.0
    return acc, prec, rec


def baselines(rows, gold: dict[str, list[bool]]) -> dict[str, dict[str, list[bool]]]:
    """Predictions of the four baselines per level (see module docstring)."""
    norm = [(normalise(r["secret"]), normalise(r["guess"])) for r in rows]
    prefetch_embeddings([w for pair in norm for w in pair if w])
    exact = [bool(a) and a == b for a, b in norm]
    lemma = [
        bool(a and b) and (compound_key(a) == compound_key(b) or bool(lemmas(a) & lemmas(b)))
        for a, b in norm
    ]
    synset = [
        lm or bool(a and b and {s for s, _ in sense_weights(a)} & {s for s, _ in sense_weights(b)})
        for (a, b), lm in zip(norm, lemma, strict=True)
    ]
    cos = [cosine(a, b) if a and b else -1.0 for a, b in norm]
    out = {
        "exact match": {},
        "lemma match": {},
        "shared WordNet synset": {},
        "embedding (oracle t)": {},
    }
    for lv in LEVELS:
        out["exact match"][lv] = exact
        out["lemma match"][lv] = lemma
        out["shared WordNet synset"][lv] = synset
        best, best_t = -1.0, 0.0
        for t in np.linspace(0.2, 1.0, 81):
            pred = [lm or c >= t for lm, c in zip(lemma, cos, strict=True)]
            acc = prf(pred, gold[lv])[0]
            if acc > best:
                best, best_t = acc, float(t)
        out["embedding (oracle t)"][lv] = [
            lm or c >= best_t for lm, c in zip(lemma, cos, strict=True)
        ]
        out["embedding (oracle t)"].setdefault("_t", {})[lv] = round(best_t, 2)
    return out


def model_probability(judge: Judge, secret: str, guess: str) -> float:
    """The fitted model's P(accept) at the judge's level for any pair with meaning
    features, whether or not a rule decides it in use (1.0 for forms, 0.0 for pairs
    rejected before any meaning evidence): a graded similarity, unlike ``Verdict.score``,
    which is 1 or 0 where a rule decides."""
    ev = evidence(secret, guess)  # WordNet and MiniLM evidence, no lexicon: features
    if ev.features is None:
        return 1.0 if ev.accept_from == "strict" else 0.0
    return judge.model.level(judge.strictness).probability(ev.features)


def spearman_table(sim_dir: Path, judge: Judge) -> list[tuple[str, int, float, float, float]]:
    """(name, n pairs, Spearman of judge score, of the fitted model's probability, of the
    MiniLM cosine) per benchmark."""
    from scipy.stats import spearmanr

    rows = []
    for name, fname in SIM_FILES:
        path = sim_dir / fname
        if not path.is_file():
            continue
        pairs, gold = [], []
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split()
            if len(parts) == 3:
                pairs.append((parts[0].lower(), parts[1].lower()))
                gold.append(float(parts[2]))
        verdicts = judge.match_many(pairs)
        scores = [v.score for v in verdicts]
        model = [model_probability(judge, a, b) for a, b in pairs]
        cos = [cosine(normalise(a), normalise(b)) for a, b in pairs]
        rows.append(
            (
                name,
                len(pairs),
                float(spearmanr(scores, gold)[0]),
                float(spearmanr(model, gold)[0]),
                float(spearmanr(cos, gold)[0]),
            )
        )
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation and print the Markdown tables to stdout."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "pairs",
        type=Path,
        help="labelled pairs TSV (secret, guess, strict, standard, lenient[, kind])",
    )
    ap.add_argument("--sim-dir", type=Path, default=shared_dir() / "eval" / "word-similarity")
    args = ap.parse_args(argv)
    rows = read_pairs(args.pairs)
    gold = {lv: [r[lv].strip() == "1" for r in rows] for lv in LEVELS}
    t0 = time.perf_counter()
    judges = {lv: Judge(lv) for lv in LEVELS}
    pred = {
        lv: [v.accepted for v in judges[lv].match_many([(r["secret"], r["guess"]) for r in rows])]
        for lv in LEVELS
    }
    base = baselines(rows, gold)
    elapsed = time.perf_counter() - t0

    print(f"## Accuracy on `{args.pairs.name}` ({len(rows)} pairs)\n")
    print("| method | level | accuracy | precision | recall |")
    print("| --- | --- | ---: | ---: | ---: |")
    for lv in LEVELS:
        a, p, r = prf(pred[lv], gold[lv])
        print(f"| **judge** | {lv} | **{a:.3f}** | {p:.3f} | {r:.3f} |")
        for name, by_level in base.items():
            a, p, r = prf(by_level[lv], gold[lv])
            extra = f" (t={by_level['_t'][lv]})" if "_t" in by_level else ""
            print(f"| {name}{extra} | {lv} | {a:.3f} | {p:.3f} | {r:.3f} |")

    if rows and "kind" in rows[0]:
        print("\n## Judge accuracy per relation kind\n")
        print("| kind | pairs | strict | standard | lenient |")
        print("| --- | ---: | ---: | ---: | ---: |")
        idx = defaultdict(list)
        for i, r in enumerate(rows):
            idx[r["kind"] or "-"].append(i)
        for kind in sorted(idx, key=lambda k: (-len(idx[k]), k)):
            ii = idx[kind]
            accs = [np.mean([pred[lv][i] == gold[lv][i] for i in ii]) for lv in LEVELS]
            print(f"| {kind} | {len(ii)} | " + " | ".join(f"{a:.2f}" for a in accs) + " |")
        wrongly_accepted = [
            (rows[i]["secret"], rows[i]["guess"], lv)
            for lv in LEVELS
            for i, r in enumerate(rows)
            if r["kind"] in {"antonym", "cohyponym"} and pred[lv][i]
        ]
        print(
            f"\nAntonym or co-hyponym pairs accepted at any level: {len(wrongly_accepted)} {wrongly_accepted or ''}"
        )

    print("\n## Judge accuracy per deciding evidence\n")
    print("| evidence | pairs | strict | standard | lenient |")
    print("| --- | ---: | ---: | ---: | ---: |")
    by_source = defaultdict(list)
    for i, r in enumerate(rows):
        by_source[judges["standard"].evidence(r["secret"], r["guess"]).source or "-"].append(i)
    for source in sorted(by_source, key=lambda k: (-len(by_source[k]), k)):
        ii = by_source[source]
        accs = [np.mean([pred[lv][i] == gold[lv][i] for i in ii]) for lv in LEVELS]
        print(f"| {source} | {len(ii)} | " + " | ".join(f"{a:.2f}" for a in accs) + " |")

    sim = spearman_table(args.sim_dir, judges["standard"])
    if sim:
        print("\n## Spearman correlation with human similarity ratings\n")
        print(
            "| benchmark | pairs | judge score (standard) | fitted model probability "
            "(standard) | MiniLM cosine alone |"
        )
        print("| --- | ---: | ---: | ---: | ---: |")
        for name, n, rho_j, rho_m, rho_c in sim:
            print(f"| {name} | {n} | {rho_j:.3f} | {rho_m:.3f} | {rho_c:.3f} |")
    print(
        f"\n(judging and baselines on {len(rows)} pairs took {elapsed:.1f} s including model loading)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
