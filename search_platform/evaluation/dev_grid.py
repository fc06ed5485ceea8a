"""The sweep `search-platform tune` runs on the dev sets: the single legs for reference, then one family per
decision (lexical unit, BM25 fields, phrase clause, option clause, lead-passage list, definitions list, RRF constant
and depth, leg weights, other fusion methods), each varied around the current defaults."""

from __future__ import annotations

from search_platform.config import RetrievalSettings
from search_platform.domain.models import SearchMode
from search_platform.evaluation.macro_tuning import SweepConfig, weights

BASELINE = "default"
LEXICAL_UNITS = ("chunk", "document", "both")
RRF_KS = (5, 10, 20, 60)
CANDIDATE_KS = (100, 200)
LEG_WEIGHTS = ((1.5, 1.0), (2.0, 1.0), (3.0, 1.0), (1.0, 1.5))  # (bm25, dense)
CONVEX_ALPHAS = (0.3, 0.5)
PHRASE_BOOSTS = (0.0, 1.0, 3.0)  # the hyphenated-identifier phrase clause: off, as one more field, the default
OPTION_BOOSTS = (0.0, 1.0, 3.0)  # the query's options on the identifier-aware field: off, as one more field, strong
LEAD_WEIGHTS = (0.0, 0.25, 0.5, 1.0)  # the lead-passage dense list's weight on the semantic route (0: off)
DEFINITIONS_WEIGHTS = (0.0, 0.25, 0.5, 1.0)  # the definitions list's weight, every route or lexical (0: off)
CHUNK_FIELD_SETS: dict[str, dict[str, float]] = {
    "english": {"text": 1.0, "title": 0.5},
    "english+exact": {"text": 1.0, "text.exact": 0.5, "title": 0.5},
    "english+exact+ident": {"text": 1.0, "text.exact": 0.5, "text.ident": 0.5, "title": 0.5},
    "exact": {"text.exact": 1.0, "title.exact": 0.5},
}
DOCUMENT_FIELD_SETS: dict[str, dict[str, float]] = {
    "english": {"body": 1.0, "title": 0.5},
    "english+exact": {"body": 1.0, "body.exact": 0.5, "title": 0.5},
    "english+exact+ident": {"body": 1.0, "body.exact": 0.5, "body.ident": 0.5, "title": 0.5},
    "english+ident+title": {"body": 1.0, "body.ident": 0.5, "title": 1.0, "title.ident": 0.5},
    "exact": {"body.exact": 1.0, "title.exact": 0.5},
}



ROUTE_VARIANTS: dict[str, tuple[tuple[float, float], tuple[float, float], tuple[float, float]]] = {
    # (bm25, dense) of the lexical, semantic and mixed routes
    "lexical 1/0.25": ((1.0, 0.25), (0.5, 1.0), (1.0, 1.0)),
    "lexical 1/0.25 semantic 1/1": ((1.0, 0.25), (1.0, 1.0), (1.0, 1.0)),
    "lexical 1/0.25 mixed 1.5/1": ((1.0, 0.25), (0.5, 1.0), (1.5, 1.0)),
    "lexical 1/0.1 semantic 1/1 mixed 1.5/1": ((1.0, 0.1), (1.0, 1.0), (1.5, 1.0)),
}


def _current_table(settings: RetrievalSettings) -> dict[str, dict[str, float]]:
    return {route: arm.model_dump() for route, arm in settings.route_weights.items()}


def route_tables(settings: RetrievalSettings) -> dict[str, dict[str, dict[str, float]]]:
    """The route table of the settings with each route's bm25 and dense weights of ROUTE_VARIANTS (the opt-in
    lists keep their weights, so a variant differs from the defaults only in what it names)."""
    current = _current_table(settings)
    return {name: {route: {**current[route], "bm25": bm25, "dense": dense}
                   for route, (bm25, dense) in zip(("lexical", "semantic", "mixed"), variant, strict=True)}
            for name, variant in ROUTE_VARIANTS.items()}


def definitions_tables(settings: RetrievalSettings) -> dict[str, dict[str, dict[str, float]]]:
    """The route table of the settings with the definitions list at each of DEFINITIONS_WEIGHTS on every route
    (but the current one when every route already has it), and on the lexical route alone (but its current one)."""
    current = _current_table(settings)
    weighed = {arm["definitions"] for arm in current.values()}
    tables = {f"definitions {weight:g} on every route": {route: {**arm, "definitions": weight}
                                                         for route, arm in current.items()}
              for weight in DEFINITIONS_WEIGHTS if weighed != {weight}}
    lexical = current["lexical"]
    tables.update({f"definitions lexical {weight:g}": {**current, "lexical": {**lexical, "definitions": weight}}
                   for weight in DEFINITIONS_WEIGHTS if weight != lexical["definitions"]})
    return tables


def lead_tables(settings: RetrievalSettings) -> dict[str, dict[str, dict[str, float]]]:
    """The route table of the settings with the lead-passage list reweighed: on the semantic route (each of
    LEAD_WEIGHTS but the current one), and at the semantic route's weight on every route."""
    current = _current_table(settings)
    semantic = current["semantic"]["dense_lead"]
    tables = {f"lead semantic {lead:g}": {**current, "semantic": {**current["semantic"], "dense_lead": lead}}
              for lead in LEAD_WEIGHTS if lead != semantic}
    if semantic:
        tables[f"lead {semantic:g} on every route"] = {route: {**arm, "dense_lead": semantic}
                                                       for route, arm in current.items()}
    return tables


def default_grid(settings: RetrievalSettings) -> list[SweepConfig]:
    """Every configuration, the defaults first (the baseline)."""
    grid = [SweepConfig("default", BASELINE)]
    grid += [SweepConfig("legs", f"{mode.value} alone", mode=mode) for mode in (SearchMode.BM25, SearchMode.SEMANTIC)]
    grid += [SweepConfig("legs", "bm25 alone, chunk unit", mode=SearchMode.BM25,
                         retrieval={"lexical_unit": "chunk"})]
    grid += [SweepConfig("lexical unit", f"lexical unit {unit}", retrieval={"lexical_unit": unit})
             for unit in LEXICAL_UNITS if unit != settings.lexical_unit]
    grid += [SweepConfig("chunk fields", f"chunk fields {name}", retrieval={"chunk_fields": fields,
                                                                           "lexical_unit": "chunk"})
             for name, fields in CHUNK_FIELD_SETS.items()]
    grid += [SweepConfig("phrase", f"phrase boost {boost:g}", retrieval={"phrase_boost": boost})
             for boost in PHRASE_BOOSTS if boost != settings.phrase_boost]
    grid += [SweepConfig("option", f"option boost {boost:g}", retrieval={"option_boost": boost})
             for boost in OPTION_BOOSTS if boost != settings.option_boost]
    grid += [SweepConfig("document fields", f"document fields {name}", retrieval={"document_fields": fields})
             for name, fields in DOCUMENT_FIELD_SETS.items()]
    grid += [SweepConfig("lead", name, params={"fusion": "routed"}, retrieval={"route_weights": table})
             for name, table in lead_tables(settings).items()]
    grid += [SweepConfig("definitions", name, params={"fusion": "routed"}, retrieval={"route_weights": table})
             for name, table in definitions_tables(settings).items()]
    grid += [SweepConfig("rrf", f"rrf k={k} c={c}", params={"fusion": "rrf", "rrf_k": k, "candidate_k": c})
             for c in CANDIDATE_KS for k in RRF_KS]
    grid += [SweepConfig("weighted_rrf", f"weighted_rrf k={k} bm25={b:g} dense={d:g}",
                         params={"fusion": "weighted_rrf", "rrf_k": k, "weights": weights(b, d)})
             for k in (20, 60) for b, d in LEG_WEIGHTS]
    grid += [SweepConfig("convex", f"convex alpha={a:g} minmax",
                         params={"fusion": "convex", "alpha": a, "normalization": "minmax"}) for a in CONVEX_ALPHAS]
    if settings.fusion != "routed":  # else the baseline is this very configuration
        grid.append(SweepConfig("routed", "routed", params={"fusion": "routed"}))
    grid += [SweepConfig("routed", f"routed {name}", params={"fusion": "routed"}, retrieval={"route_weights": table})
             for name, table in route_tables(settings).items()]
    return grid
