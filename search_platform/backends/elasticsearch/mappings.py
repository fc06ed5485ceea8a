"""Chunk index settings and mappings, versioned index names behind an alias.

One index holds two kinds of record: a `chunk` per passage (BM25 fields and the embedding) and a `document` per
ingested document (its whole text for document-level BM25, the names it defines, and what re-embedding
needs). Prose fields are analysed in English by the project's analysis plugin (plugins/analysis), with an unstemmed
`exact` and an identifier-aware `ident` sub-field beside them.
"""

from __future__ import annotations

import enum
import hashlib
from typing import Any

from elasticsearch import Elasticsearch

from search_platform.backends.elasticsearch.errors import translated_errors
from search_platform.config import ElasticsearchSettings
from search_platform.domain.errors import IndexOutdatedError
from search_platform.text.definitions import MAX_NAME_CHARS

# what an index holds: bump it when the mapping changes or ingestion derives a stored field differently (the
# `defines` names); an older alias is refused on write until `search-platform reindex` rebuilds it
# 3: document records hold the names they define (`defines`); 4: option lists define every option; 5: a hanging
# option (`--help display help`, as man prints it) defines its option, and ingestion joins hyphenated line breaks;
# 6: a break after a word's own ASCII hyphen (`--one-` then `file-system`) is joined, a U+2010 break in `--inter`
# `active` no longer adds a hyphen; the body keeps a blank line between paragraphs, and an option's optional
# argument may nest (`-e[CHAR[WIDTH]]`); 7: a justified line's wide gaps (`-execdir  runs programs`, man(1) filling
# a full line) end no line head, and a line under a full one at the same indentation defines nothing; 8: a word that
# man(1) in the C locale broke with an ASCII hyphen (`de-` then `scribed`, `POSIXLY_COR-` then `RECT`) is whole again;
# 9: a line longer than any printed one, and each line of a text whose paragraphs are all one line (line breaks lost
# by an export), defines what starts its sentences; 10: a C declaration's pointer marks are no part of its name
# (`const char *sqlite3_column_name(`, `char **backtrace_symbols(` define the function)
MAPPING_VERSION = 10
SIMILARITY = "sp_bm25"
ENGLISH_ANALYZER = "sp_english"  # standard tokens, possessives, lowercase, English stop words, Porter stems
IDENTIFIER_ANALYZER = "sp_identifier"  # --options, dotted.names, snake_case kept whole, plus their parts
EXACT_ANALYZER = "standard"
EMBEDDING_FIELD = "embedding"


class RecordKind(enum.StrEnum):
    """What one record of the chunk index is."""

    CHUNK = "chunk"
    DOCUMENT = "document"


def document_record_id(*, tenant: str, doc_id: str) -> str:
    """Deterministic id of a document's own record: one per (tenant, doc_id), never a chunk's id."""
    key = f"{tenant}\x1f{doc_id}\x1fdocument"
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:40]


def versioned_index_name(alias: str, version: int = MAPPING_VERSION) -> str:
    """The concrete index an alias points to, e.g. sp-chunks-v2."""
    return f"{alias}-v{version}"


def _plain_text(analyzer: str) -> dict[str, Any]:
    return {"type": "text", "analyzer": analyzer, "similarity": SIMILARITY}


def _prose(**extra: Any) -> dict[str, Any]:
    """A prose field: English analysis, with `exact` (unstemmed) and `ident` (identifier-aware) sub-fields."""
    subfields = {"exact": _plain_text(EXACT_ANALYZER), "ident": _plain_text(IDENTIFIER_ANALYZER),
                 **extra.pop("fields", {})}
    return {**_plain_text(ENGLISH_ANALYZER), "fields": subfields, **extra}


def index_body(settings: ElasticsearchSettings, *, dims: int) -> dict[str, Any]:
    """Settings and mappings of the chunk index."""
    return {
        "settings": {
            "number_of_shards": settings.number_of_shards,
            "number_of_replicas": settings.number_of_replicas,
            "similarity": {SIMILARITY: {"type": "BM25", "k1": settings.bm25_k1, "b": settings.bm25_b}},
        },
        "mappings": {
            "dynamic": "strict",
            "_source": {"excludes": [EMBEDDING_FIELD]},
            "properties": {
                "kind": {"type": "keyword"},
                "doc_id": {"type": "keyword"},
                "chunk_index": {"type": "integer"},
                "chunk_count": {"type": "integer"},
                "chunk_ids": {"type": "keyword", "index": False, "doc_values": False},
                "content_hash": {"type": "keyword"},
                "text": _prose(),
                "title": _prose(fields={"keyword": {"type": "keyword", "ignore_above": 512}}),
                "section": _prose(),
                "body": _prose(),
                "tech": _plain_text(EXACT_ANALYZER),
                "defines": {"type": "keyword", "ignore_above": MAX_NAME_CHARS},
                "content": {"type": "text", "index": False},
                "content_type": {"type": "keyword"},
                "source": {"type": "keyword"},
                "tags": {"type": "keyword"},
                "lang": {"type": "keyword"},
                "tenant": {"type": "keyword"},
                "indexed_at": {"type": "date"},
                EMBEDDING_FIELD: {
                    "type": "dense_vector",
                    "dims": dims,
                    "index": True,
                    "similarity": "cosine",
                    "index_options": _vector_index_options(settings),
                },
            },
        },
    }


def _vector_index_options(settings: ElasticsearchSettings) -> dict[str, Any]:
    options: dict[str, Any] = {"type": settings.vector_index_type}
    if settings.vector_index_type.endswith("hnsw"):
        options.update(m=settings.hnsw_m, ef_construction=settings.hnsw_ef_construction)
    return options


def ensure_index(client: Elasticsearch, settings: ElasticsearchSettings, *, alias: str, dims: int) -> str:
    """Create the versioned index behind alias if the alias is missing; return the alias. An alias in front of an
    index that needs a re-index (see outdated_reasons) raises IndexOutdatedError."""
    with translated_errors():
        if client.indices.exists_alias(name=alias):
            reasons = outdated_reasons(client, alias=alias, dims=dims)
            if reasons:
                raise IndexOutdatedError(f"{'; '.join(reasons)}: run `search-platform reindex --alias {alias}`", 409)
            return alias
        index = versioned_index_name(alias)
        body = index_body(settings, dims=dims)
        if not client.indices.exists(index=index):
            client.options(ignore_status=400).indices.create(
                index=index, settings=body["settings"], mappings=body["mappings"]
            )
        client.indices.put_alias(index=index, name=alias, is_write_index=True)
    return alias


def outdated_reasons(client: Elasticsearch, *, alias: str, dims: int) -> list[str]:
    """Why the indices behind an existing alias cannot take this version's writes: an older mapping version (its
    records lack fields this version writes), or vectors of another dimension (another embedding model's).
    Empty when the alias is current."""
    with translated_errors():
        indices = list(client.indices.get_alias(name=alias))
        # 404 with {}: no index shows the field, as a restarted node answers while it recovers (not a refusal)
        field_mappings = client.options(ignore_status=404).indices.get_field_mapping(
            index=alias, fields=EMBEDDING_FIELD).body
    reasons = []
    older = sorted(index for index in indices if not is_current(index, alias))
    if older:
        reasons.append(f"{alias} points at {', '.join(older)}, not at mapping version {MAPPING_VERSION} "
                       f"({versioned_index_name(alias)})")
    other = {index: found for index, found in sorted(vector_dims(field_mappings).items()) if found != dims}
    if other:
        held = ", ".join(f"{index}: {found}" for index, found in other.items())
        reasons.append(f"{alias} holds vectors of another embedding model ({held} dimensions; the current model "
                       f"makes {dims})")
    return reasons


def vector_dims(field_mappings: dict[str, Any]) -> dict[str, int]:
    """The embedding field's dims per index, from a get_field_mapping answer (indices without the field left out)."""
    found = {}
    for index, body in field_mappings.items():
        field = body.get("mappings", {}).get(EMBEDDING_FIELD, {}).get("mapping", {}).get(EMBEDDING_FIELD, {})
        if "dims" in field:
            found[index] = int(field["dims"])
    return found


def is_current(index: str, alias: str) -> bool:
    """Whether a concrete index behind alias has this mapping version (the reindex command may add a suffix)."""
    current = versioned_index_name(alias)
    return index == current or index.startswith(f"{current}-")


def swap_alias(client: Elasticsearch, *, alias: str, new_index: str) -> None:
    """Point alias at new_index atomically, removing it from every other index."""
    with translated_errors():
        current = list(client.indices.get_alias(name=alias)) if client.indices.exists_alias(name=alias) else []
        actions: list[dict[str, Any]] = [{"remove": {"index": index, "alias": alias}} for index in current]
        actions.append({"add": {"index": new_index, "alias": alias, "is_write_index": True}})
        client.indices.update_aliases(actions=actions)


def delete_index(client: Elasticsearch, *, alias: str) -> None:
    """Delete every index behind alias (tests and evaluation runs clean up with this)."""
    with translated_errors():
        if not client.indices.exists_alias(name=alias):
            return
        indices = list(client.indices.get_alias(name=alias))
        if indices:
            client.indices.delete(index=",".join(indices), ignore_unavailable=True)
