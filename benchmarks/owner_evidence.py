"""Can the page of a name's owner win an exact lookup that fusion gives to a neighbour? `HashMap::entry` asks for the
page of HashMap, which defines `entry`, not for `hash_map::Entry`, which names it more often; `BufWriter::into_inner`
for BufWriter's page, not `IntoInnerError`'s; `shred --iterations` for the page of shred. Three variants of the
evidence, each applied offline to the five recorded document lists of benchmarks/definitions.py (`--runs`) and fused
with the routed weighted RRF of the settings:

- owner defined, in the definitions list: a document that defines both a qualified name's owner and its member
  (`hashmap` and `entry`), or a name ending with the qualified name (`std::fs::read_dir` for `fs::read_dir`), goes
  first in the definitions list;
- owner titled, a list of its own: the documents whose title has the owner as a word (`std::collections::HashMap`,
  `shred invocation`) and which define the member; the owner is the qualifier of a qualified name or the word just
  before a name in the query (`shred` in `shred --iterations`); ordered as document and passage BM25 rank them,
  weighed on one route at a time;
- prose goes on: a line does not define the names of its head when the line above is prose (more than
  MAX_HEAD_WORDS words) that ends inside a sentence (with a word or a comma) at most PROSE_INDENT_SLACK columns
  to the right (the first line of a GNU info paragraph is indented 3): `XGETTEXT_OPTIONS variable in po/Makevars.`
  under `The use of this macro is an alternative to the use of the` defines nothing.

    .venv/bin/python benchmarks/owner_evidence.py \\
        --dataset datasets/gnu-info --dataset datasets/postgresql-docs --dataset datasets/rust-std \\
        --dataset datasets/golden/python-docs.json --corpus var/demo-corpus \\
        --runs var/runs-v6.json --out benchmarks/reports/owner-evidence.md

The variants only reorder, add or drop documents the corpus text decides (defined names are computed here from
each document's body as ingestion computes them). Prints measured numbers only; it changes nothing.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from definitions import list_weights, recorded_runs, settings_hybrid
from lexical_lists import (
    CATEGORIES,
    Ranker,
    command_line,
    per_query,
    publish,
    score,
    table_header,
    table_row,
    weighted_rrf,
)

from search_platform.config import RouteName, Settings
from search_platform.evaluation.session import load_eval_dataset
from search_platform.ingestion.pipeline import document_body
from search_platform.text import definitions
from search_platform.text.definitions import defined_names, query_names

QUALIFIERS = ("::", ".")
TITLE_WORD_SPLIT = re.compile(r"::|\.(?=\w)|[\s()\[\],:;]+")
TITLED_WEIGHTS = (0.25, 0.5, 1.0)
PROSE_INDENT_SLACK = 3
_SENTENCE_GOES_ON = re.compile(r"[\w,]$")


@dataclass(frozen=True, slots=True)
class Page:
    title_words: frozenset[str]
    defines: frozenset[str]
    defines_without_prose: frozenset[str]


def owner_member_pairs(text: str) -> list[tuple[str, str]]:
    """(owner, member) pairs a query writes: a qualified name's qualifier and last part, and a word followed by a
    name (`shred` and `--iterations`)."""
    pairs: list[tuple[str, str]] = []
    words = text.split()
    for word, following in itertools.pairwise(words):
        owner = word.strip(",;:?\"'`").lower()
        pairs += [(owner, name) for name in query_names(following) if name != owner]
    for name in query_names(text):
        for qualifier in QUALIFIERS:
            if qualifier in name:
                owner, member = name.rsplit(qualifier, 1)
                pairs.append((owner.rsplit(qualifier, 1)[-1], member))
                break
    return pairs


def owner_defined(page: Page, text: str) -> bool:
    for name in query_names(text):
        qualifier = next((q for q in QUALIFIERS if q in name), None)
        if qualifier is None:
            continue
        owner, member = name.rsplit(qualifier, 1)
        if name in page.defines or any(defined.endswith(qualifier + name) for defined in page.defines):
            return True
        if owner.rsplit(qualifier, 1)[-1] in page.defines and member in page.defines:
            return True
    return False


def defines_without_prose(text: str) -> frozenset[str]:
    """defined_names, except that a line under prose that goes on with its sentence defines nothing."""
    lines = text.split("\n")
    kept = [line if not index or not prose_goes_on(lines[index - 1], line) else "" for index, line in
            enumerate(lines)]
    return frozenset(defined_names("\n".join(kept)))


def prose_goes_on(before: str, line: str) -> bool:
    words = before.split()
    return (len(words) > definitions.MAX_HEAD_WORDS and bool(_SENTENCE_GOES_ON.search(before.rstrip()))
            and bool(line.strip()) and indentation(line) >= indentation(before) - PROSE_INDENT_SLACK)


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def pages(path: Path, corpus: Path | None) -> tuple[list[str], dict[str, Page]]:
    """The dataset's query texts, in order, and every document's title words and defined names."""
    dataset, documents = load_eval_dataset(path, corpus if path.is_file() else None)
    by_id = {}
    for document in documents:
        body = document_body(document)
        by_id[document.doc_id] = Page(
            title_words=frozenset(word.lower() for word in TITLE_WORD_SPLIT.split(document.title) if word),
            defines=frozenset(defined_names(body)), defines_without_prose=defines_without_prose(body))
    return [query.text for query in dataset.queries], by_id


Variant = Callable[[str, Mapping[str, Any], Mapping[str, Page]], dict[str, list[str]]]


def owner_defined_first(text: str, lists: Mapping[str, Any], by_id: Mapping[str, Page]) -> dict[str, list[str]]:
    listed = list(lists["definitions"])
    candidates = listed + [doc for doc in lists["doc"] if doc not in listed]
    first = [doc for doc in candidates if owner_defined(by_id[doc], text)]
    return {"definitions": first + [doc for doc in listed if doc not in first]}


def owner_titled(text: str, lists: Mapping[str, Any], by_id: Mapping[str, Page]) -> dict[str, list[str]]:
    pairs = owner_member_pairs(text)
    titled = [doc for doc, page in by_id.items()
              if any(owner in page.title_words and member in page.defines for owner, member in pairs)]
    order = {doc: rank for rank, doc in reversed(list(enumerate([*lists["doc"], *lists["passage"]])))}
    return {"titled": sorted(titled, key=lambda doc: order.get(doc, len(order)))}


def without_prose(text: str, lists: Mapping[str, Any], by_id: Mapping[str, Page]) -> dict[str, list[str]]:
    names = set(query_names(text))
    return {"definitions": [doc for doc in lists["definitions"] if by_id[doc].defines_without_prose & names]}


def varied(runs: Mapping[str, Any], texts: Mapping[str, Sequence[str]], by_dataset: Mapping[str, Mapping[str, Page]],
           variant: Variant) -> dict[str, Any]:
    return {name: [{**query, "lists": {**query["lists"], **variant(text, query["lists"], by_dataset[name])}}
                   for query, text in zip(queries, texts[name], strict=True)]
            for name, queries in runs.items()}


def with_titled(settings: Settings, route: str, weight: float) -> Ranker:
    table = settings.retrieval.route_weights
    k = settings.retrieval.rrf_k

    def fuse(lists: Mapping[str, Any], query_route: str) -> list[str]:
        arm = table[cast(RouteName, query_route)]
        weights = {**list_weights(arm, arm.definitions), "titled": weight if query_route == route else 0.0}
        return weighted_rrf(lists, weights, k=k)
    return fuse


def changed_queries(before: Sequence[float], after: Sequence[float], texts: Sequence[str]) -> list[str]:
    return [f"`{text}` {old:.3f} → {new:.3f}" for text, old, new in zip(texts, before, after, strict=True)
            if abs(new - old) > 1e-9]


def report(runs: Mapping[str, Any], texts: Mapping[str, Sequence[str]],
           by_dataset: Mapping[str, Mapping[str, Page]], settings: Settings, command: str) -> str:
    names = list(runs)
    fuse = settings_hybrid(settings)
    rows: list[tuple[str, Mapping[str, Any], Ranker]] = [
        ("the settings (recorded lists)", runs, fuse),
        ("owner defined, first in the definitions list", varied(runs, texts, by_dataset, owner_defined_first), fuse),
        ("prose goes on: definitions without prose lines", varied(runs, texts, by_dataset, without_prose), fuse)]
    titled = varied(runs, texts, by_dataset, owner_titled)
    rows += [(f"owner titled, its own list at {weight:g} on the {route} route", titled,
              with_titled(settings, route, weight))
             for route in ("lexical", "mixed") for weight in TITLED_WEIGHTS]
    lines = ["# The page of a name's owner: three variants of the evidence (nDCG@10)", "",
             f"Command: `{command}`  ",
             f"Routed weighted RRF of the settings (k={settings.retrieval.rrf_k}) over the five recorded lists; "
             "each dataset: all / exact_match / conceptual / mixed", "",
             *table_header(("variant",), names, "all/exact/conceptual/mixed")]
    lines += [table_row(label, score(variant_runs, ranker), details=CATEGORIES, digits=4)
              for label, variant_runs, ranker in rows]
    lines += ["", "Queries that change, against the settings:", ""]
    for label, variant_runs, ranker in rows[1:]:
        changes = [f"{name}: {change}" for name in names
                   for change in changed_queries(per_query(runs[name], fuse), per_query(variant_runs[name], ranker),
                                                 texts[name])]
        lines.append(f"- {label}: " + ("; ".join(changes) if changes else "none"))
    return "\n".join(lines) + "\n"


def main() -> None:
    args, settings, runs = recorded_runs(__doc__.split("\n\n")[0])
    texts: dict[str, list[str]] = {}
    by_dataset: dict[str, dict[str, Page]] = {}
    for path, name in zip(args.dataset, runs, strict=True):
        texts[name], by_dataset[name] = pages(path, args.corpus)
    publish(report(runs, texts, by_dataset, settings, command_line("owner_evidence.py", args)), args.out)


if __name__ == "__main__":
    main()
