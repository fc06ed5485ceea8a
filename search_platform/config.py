"""Settings for every part of the platform, read from SP_* environment variables and `.env`.

Built once (get_settings / Settings(...)) and passed down; nothing here runs at import time.
"""

from __future__ import annotations

import enum
import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Environment(enum.StrEnum):
    """Where the platform runs; production refuses unsafe settings."""

    DEV = "dev"
    TEST = "test"
    PROD = "prod"


class ElasticsearchSettings(BaseModel):
    """How to reach Elasticsearch and shape the chunk index."""

    url: str = "http://127.0.0.1:9200"  # several nodes: comma-separated, the client fails over between them
    username: str = "elastic"  # the superuser: infra only (provisioning, health probes, admin clients)
    password: SecretStr = SecretStr("")
    # the least-privilege user (role sp_service: sp-* indices, cluster monitor) of the API, workers and CLI
    service_username: str = Field(default="sp-service", pattern=r"^[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,506}$")
    service_password: SecretStr = SecretStr("")
    index_alias: str = "sp-chunks"
    request_timeout_s: Annotated[float, Field(gt=0)] = 30.0
    max_retries: Annotated[int, Field(ge=0, le=10)] = 3
    retry_on_timeout: bool = True
    number_of_shards: Annotated[int, Field(ge=1)] = 1
    number_of_replicas: Annotated[int, Field(ge=0)] = 0
    bm25_k1: Annotated[float, Field(ge=0)] = 1.2
    bm25_b: Annotated[float, Field(ge=0, le=1)] = 0.75
    vector_index_type: Literal["hnsw", "int8_hnsw", "int4_hnsw", "bbq_hnsw", "flat", "int8_flat"] = "int8_hnsw"
    hnsw_m: Annotated[int, Field(ge=2, le=512)] = 16
    hnsw_ef_construction: Annotated[int, Field(ge=10, le=3200)] = 100
    # the fs repository of `search-platform snapshots` (registered on first use)
    snapshot_repository: str = Field(default="sp-backups", pattern=r"^[a-z0-9][a-z0-9._-]{0,127}$")
    # where that repository keeps its files: relative to the node's first path.repo entry (infra.snapshot_dir
    # locally, /usr/share/elasticsearch/snapshots in docker-compose), or an absolute path under path.repo
    snapshot_location: str = Field(default="sp-backups", min_length=1)

    @property
    def data_credentials(self) -> tuple[str, str]:
        """The user and password of the data paths (API, workers, CLI): the service user; outside prod, the
        superuser while no service password is set (scripts/bootstrap.sh sets one)."""
        service_password = self.service_password.get_secret_value()
        if service_password:
            return self.service_username, service_password
        return self.username, self.password.get_secret_value()

    @property
    def hosts(self) -> list[str]:
        """Every node URL in `url`, in order."""
        return [part.strip() for part in self.url.split(",") if part.strip()]

    @model_validator(mode="after")
    def _hosts_present(self) -> ElasticsearchSettings:
        if not self.hosts:
            raise ValueError("elasticsearch.url names no node: give one URL or a comma-separated list")
        return self


class RedisSettings(BaseModel):
    """Redis: Celery broker, result backend and job-status store."""

    url: str = "redis://127.0.0.1:6379/0"
    job_ttl_s: Annotated[int, Field(ge=60)] = 7 * 24 * 3600
    # a task taken but not acked (its worker died) goes back to the queue after this long; a running batch renews
    # its lease (workers/lease.py), so only a dead worker's batch expires. It must outlast the longest retry
    # countdown (a retry waits in its worker unacked, unrenewed). With the defaults a batch of a SIGKILLed worker is
    # redelivered within 240 s + one sweep (<= 10 s).
    visibility_timeout_s: Annotated[int, Field(ge=1)] = 240


EmbeddingModelName = Literal["all-minilm-l6-v2", "all-mpnet-base-v2"]  # the keys of embeddings MODELS (tested)


class EmbeddingSettings(BaseModel):
    """Which embedding model encodes chunks and queries."""

    # onnx fp32: torch's vectors (max abs diff 2e-7) without torch, 3x faster per query; int8 is one setting away
    # but lost hybrid nDCG@10 on rust-std (MiniLM 0.0057, mpnet 0.012; > 0.005); sentence-transformers needs the
    # torch extra
    backend: Literal["sentence-transformers", "onnx", "fake"] = "onnx"
    # a name in embeddings/registry.py MODELS; mpnet lifted hybrid nDCG@10 over MiniLM on every dev set measured
    # (docs/relevance.md, "Embedding models") at about 4x the encoder CPU per chunk
    model: EmbeddingModelName = "all-mpnet-base-v2"
    model_path: Path | None = None  # None: the registry's packaged weights of `model`; else a local model directory
    model_cache_dir: Path = Field(  # models the registry unpacks from their packages (e.g. split archives)
        default_factory=lambda: Path.home() / ".cache" / "search-platform" / "models")
    batch_size: Annotated[int, Field(ge=1, le=1024)] = 32
    device: str = "cpu"
    query_cache_size: Annotated[int, Field(ge=0)] = 1024
    query_cache_redis: bool = False  # also share query vectors between API processes through Redis
    query_cache_ttl_s: Annotated[int, Field(ge=1)] = 24 * 3600
    query_cache_timeout_s: Annotated[float, Field(gt=0)] = 0.2  # a slower Redis answer counts as a miss
    onnx_quantize: bool = False  # onnx backend: int8 dynamic quantisation of the weights
    onnx_cache_dir: Path = Field(default_factory=lambda: Path.home() / ".cache" / "search-platform" / "onnx")
    onnx_threads: Annotated[int, Field(ge=1)] | None = None  # onnx backend: intra-op threads; None: os.cpu_count()
    # passage vectors by (model fingerprint, text) on disk, so unchanged text is never encoded twice (re-runs,
    # re-indexing, evaluation); about 1.5 KB per 384-dim chunk; None: off
    passage_cache_dir: Path | None = Field(
        default_factory=lambda: Path.home() / ".cache" / "search-platform" / "vectors")
    # backend=fake only: seconds each call to embed passages sleeps, so tests can run a batch slower than the
    # visibility timeout without a model
    fake_delay_s: Annotated[float, Field(ge=0)] = 0.0

    @model_validator(mode="after")
    def _delay_only_when_fake(self) -> EmbeddingSettings:
        if self.fake_delay_s and self.backend != "fake":
            raise ValueError("embedding.fake_delay_s is for the fake backend only (SP_EMBEDDING__BACKEND=fake)")
        return self


class ChunkingSettings(BaseModel):
    """Token-aware chunk size and overlap (tokens of the embedding model's tokenizer)."""

    max_tokens: Annotated[int, Field(ge=16, le=512)] = 200
    overlap_tokens: Annotated[int, Field(ge=0)] = 32

    @model_validator(mode="after")
    def _overlap_smaller_than_size(self) -> ChunkingSettings:
        if self.overlap_tokens >= self.max_tokens:
            raise ValueError("chunking.overlap_tokens must be smaller than chunking.max_tokens")
        return self


FusionName = Literal["rrf", "weighted_rrf", "convex", "dbsf", "routed"]  # the keys of FUSERS (a unit test checks)


class ArmWeights(BaseModel):
    """Per-leg weights of an arm (weighted_rrf, dbsf); bm25 also weighs the passage BM25 list, dense_lead the
    lead-passage dense list (documents ranked by their first chunk), definitions the list of documents that define
    one of the query's names; those two run only when they weigh more than 0."""

    model_config = ConfigDict(extra="forbid")

    bm25: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    dense: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 1.0
    dense_lead: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0
    definitions: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0

    @model_validator(mode="after")
    def _not_both_zero(self) -> ArmWeights:
        if self.bm25 == 0 and self.dense == 0:
            raise ValueError("weights must not all be 0")
        return self


RouteName = Literal["lexical", "semantic", "mixed"]
DEFINITIONS_WEIGHT = 0.25
LEXICAL_DEFINITIONS_WEIGHT = 0.5


def _default_route_weights() -> dict[RouteName, ArmWeights]:
    # chosen by the macro nDCG@10 of every dev set (benchmarks/reports/tuning-dev-sets.md): identifier lookups
    # lean on the lexical lists, sentences on the dense ones; a sentence also asks what a page is for, which its
    # lead passage says (benchmarks/reports/dense-aggregation.md: +0.009 macro, every dev set up); on every route
    # the page that defines a name the query writes gets a list of its own (benchmarks/reports/definitions.md),
    # weighed more where the query is nothing but names (0.5 on the lexical route: exact matches 0.981 -> 0.985,
    # no dev set or category down; 0.5 on every route costs python-docs)
    definitions = DEFINITIONS_WEIGHT
    return {"lexical": ArmWeights(bm25=1.0, dense=0.25, definitions=LEXICAL_DEFINITIONS_WEIGHT),
            "semantic": ArmWeights(bm25=0.3, dense=1.0, dense_lead=0.5, definitions=definitions),
            "mixed": ArmWeights(bm25=1.0, dense=1.0, definitions=definitions)}


class RetrievalSettings(BaseModel):
    """Defaults for the query path; every request may override the k's within the limits."""

    top_k: Annotated[int, Field(ge=1, le=100)] = 10
    candidate_k: Annotated[int, Field(ge=1, le=1000)] = 100
    # k=10 beat 20 and 60 on every dev set (tuning-dev-sets.md); on the five lists of routed fusion, 4 to 7 beat 10
    # (0.901 against 0.8985 macro) and 5 lost on no dev set (benchmarks/reports/rrf-k.md)
    rrf_k: Annotated[int, Field(ge=1)] = 5
    leg_timeout_s: Annotated[float, Field(gt=0)] = 10.0
    num_candidates_factor: Annotated[float, Field(ge=1)] = 2.0
    min_num_candidates: Annotated[int, Field(ge=1, le=10000)] = 100
    # the int8 kNN ranks by quantized vectors; oversample k by this factor and rescore with the float vectors
    knn_rescore_oversample: Annotated[float, Field(ge=1, le=10)] | None = None
    # BM25 fields and their boosts, per record kind: chunks (passages) and whole documents (document-level BM25)
    chunk_fields: dict[str, Annotated[float, Field(ge=0)]] = Field(
        default_factory=lambda: {"text": 1.0, "title": 0.5})
    document_fields: dict[str, Annotated[float, Field(ge=0)]] = Field(
        default_factory=lambda: {"body": 1.0, "title": 0.5})
    # grouped by document, BM25 scores whole documents ("document"), their best chunk ("chunk"), or both as two
    # ranked lists fused with the dense one ("both": whole-document evidence and exact passages)
    lexical_unit: Literal["chunk", "document", "both"] = "both"
    fusion: FusionName = "routed"  # weighted RRF whose weights follow the query's route (route_weights)
    # the legs' weights in weighted fusion (weighted_rrf, dbsf); bm25's also weighs the bm25_passage list
    bm25_weight: Annotated[float, Field(ge=0)] = 1.0
    dense_weight: Annotated[float, Field(ge=0)] = 1.0
    # fusion=routed: the weighted-RRF weights of each query route (retrieval/routing.py classifies the query)
    route_weights: dict[RouteName, ArmWeights] = Field(default_factory=_default_route_weights)
    tech_boost: Annotated[float, Field(ge=0)] = 1.0
    # a phrase clause per hyphenated identifier of the query (`--max-unchanged-stats` as the phrase "max unchanged
    # stats"), on the unstemmed field of each record kind; 3 (1 scored the same) lifted gnu-info +0.017 and moved
    # no other dev set (benchmarks/reports/phrase-boost.md); inside a sentence only options and compounds with a
    # digit are phrased (benchmarks/reports/sqlite-docs.md); 0 turns it off
    phrase_boost: Annotated[float, Field(ge=0)] = 3.0
    chunk_phrase_field: str = "text.exact"  # the phrase clause's field on chunks
    document_phrase_field: str = "body.exact"  # the phrase clause's field on document records
    # one more clause for the query's options and operands given a value (`-xdev`, `--follow=name`,
    # `status=progress`) on an identifier-aware field, which keeps `-executable` whole where the English field
    # stems it to "execut"; as one more field (1): gnu-info exact_match 0.964 -> 0.979, no other set moved, 0.5 to
    # 3 within 0.0003 (benchmarks/reports/option-clause.md); 0 turns it off
    option_boost: Annotated[float, Field(ge=0)] = 1.0
    chunk_option_field: str = "text.ident"  # the option clause's field on chunks
    document_option_field: str = "body.ident"  # the option clause's field on document records
    # a query of at most this many words is an identifier lookup: its plain words also match identifier parts in
    # `tech` (a bare `copyfile` finds `shutil.copyfile`); 0: never (benchmarks/tech_field.py measures it)
    tech_lookup_max_words: Annotated[int, Field(ge=0)] = 2
    # a lookup (tech_lookup_max_words words at most) also matches its words as written, unstemmed, on the phrase
    # field of each record kind at this boost: `locate` then counts more on the page that writes `locate` than on
    # one that writes `locations`; 0 turns it off
    lookup_exact_boost: Annotated[float, Field(ge=0)] = 0.0
    max_top_k: Annotated[int, Field(ge=1, le=1000)] = 100
    max_candidate_k: Annotated[int, Field(ge=1, le=10000)] = 1000
    max_query_chars: Annotated[int, Field(ge=16)] = 2000
    window: Annotated[int, Field(ge=1, le=10000)] = 100
    max_window: Annotated[int, Field(ge=1, le=10000)] = 1000

    @field_validator("route_weights")
    @classmethod
    def _every_route_weighed(cls, table: dict[RouteName, ArmWeights]) -> dict[RouteName, ArmWeights]:
        """A table that names some routes keeps the defaults of the others."""
        return {**_default_route_weights(), **table}

    @model_validator(mode="after")
    def _window_within_max(self) -> RetrievalSettings:
        if self.window > self.max_window:
            raise ValueError("retrieval.window must be at most retrieval.max_window")
        return self


class RerankSettings(BaseModel):
    """The optional cross-encoder stage that rescores the fused top_n; a model path makes it available per request,
    enabled makes it the default."""

    enabled: bool = False
    model_path: Path | None = None  # a local cross-encoder directory; nothing is downloaded
    top_n: Annotated[int, Field(ge=1, le=1000)] = 50
    budget_ms: Annotated[float, Field(gt=0)] = 500
    batch_size: Annotated[int, Field(ge=1, le=1024)] = 16
    max_length: Annotated[int, Field(ge=8, le=8192)] = 256

    @model_validator(mode="after")
    def _model_present(self) -> RerankSettings:
        if self.enabled and self.model_path is None:
            raise ValueError("rerank.enabled needs a local cross-encoder directory: set SP_RERANK__MODEL_PATH")
        if self.model_path is not None and not self.model_path.is_dir():
            raise ValueError(f"SP_RERANK__MODEL_PATH={self.model_path} is not a directory (a local cross-encoder "
                             "model directory, with config.json and the tokenizer)")
        return self


class IngestionSettings(BaseModel):
    """Batching and retry budget of the Celery ingestion pipeline."""

    documents_per_task: Annotated[int, Field(ge=1, le=1000)] = 16
    bulk_chunk_size: Annotated[int, Field(ge=1)] = 500
    bulk_max_retries: Annotated[int, Field(ge=0)] = 3
    bulk_initial_backoff_s: Annotated[float, Field(ge=0)] = 1.0
    task_max_retries: Annotated[int, Field(ge=0)] = 5
    task_backoff_s: Annotated[float, Field(ge=0)] = 2.0
    task_backoff_max_s: Annotated[float, Field(ge=0)] = 60.0
    max_document_bytes: Annotated[int, Field(ge=1)] = 5_000_000
    worker_concurrency: Annotated[int, Field(ge=1)] = 1
    bulk_mode_min_documents: Annotated[int, Field(ge=0)] = 1000  # jobs this big load with refresh off; 0: never
    bulk_mode_zero_replicas: bool = False  # bulk mode also drops replicas (restored, then re-copied, afterwards)
    # a document with more fails alone, with a reason. At the default chunk size 1 MB of the dev corpora's text
    # makes 1,600-2,100 chunks, so a reference manual of up to about 4 MB fits. Kept under Elasticsearch's
    # 10,000-hit window, through which a document's records are read.
    max_chunks_per_document: Annotated[int, Field(ge=1, le=9998)] = 9000
    max_batch_bytes: Annotated[int, Field(ge=1)] = 200_000  # a batch also ends before its content passes this
    # a batch running longer is stopped and fails (resumable); 0 (default): none. Off by default: billiard's hard
    # limit replaces the pool child, which must load the model again, and on a loaded machine that alone can take
    # longer than the limit. Batches are bounded by size instead (documents_per_task, max_batch_bytes, the cap).
    task_time_limit_s: Annotated[int, Field(ge=0)] = 0
    max_inflight_batches_per_tenant: Annotated[int, Field(ge=0)] = 2  # per-tenant lanes (ingestion/lanes.py); 0: off


class ServiceSettings(BaseModel):
    """The HTTP query service."""

    host: str = "127.0.0.1"
    port: Annotated[int, Field(ge=1, le=65535)] = 8000
    max_ingest_documents: Annotated[int, Field(ge=1)] = 5000
    max_request_bytes: Annotated[int, Field(ge=1024)] = 100_000_000  # larger request bodies get 413
    log_format: Literal["json", "text"] = "json"  # json: one object per line, with the request id
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = "INFO"


class AuthSettings(BaseModel):
    """API keys: whether the API requires them, the default per-key rate limit and the optional hashing pepper."""

    enabled: bool = True
    rate_limit_per_minute: Annotated[int, Field(ge=1, le=1_000_000)] = 600
    pepper: SecretStr = SecretStr("")  # HMAC key for stored key hashes; changing it invalidates every key
    key_prefix: str = "sp:apikey"
    rate_limit_prefix: str = "sp:ratelimit"


NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"


class AnalyticsSettings(BaseModel):
    """Search logs: where they go and how the background writer batches them."""

    enabled: bool = True
    log_alias: str = Field(default="sp-search-logs", pattern=r"^[a-z0-9][a-z0-9._-]{0,127}$")
    queue_size: Annotated[int, Field(ge=1, le=1_000_000)] = 10_000
    batch_size: Annotated[int, Field(ge=1, le=10_000)] = 500
    flush_interval_s: Annotated[float, Field(gt=0, le=300)] = 2.0
    shutdown_timeout_s: Annotated[float, Field(gt=0)] = 10.0
    max_leg_hit_ids: Annotated[int, Field(ge=0, le=1000)] = 100
    user_id_key: SecretStr = SecretStr("")  # HMAC key of logged user/session ids (pseudonymised, never raw)
    rollover_max_age: str | None = Field(default="7d", pattern=r"^\d+(d|h|m|s)$")
    rollover_max_size: str | None = Field(default="5gb", pattern=r"^\d+(b|kb|mb|gb|tb)$")


class ArmSettings(BaseModel):
    """One arm of an experiment: its traffic share and the retrieval parameters it overrides (None: default)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    share: Annotated[float, Field(gt=0, le=1)]
    fusion: FusionName | None = None
    rrf_k: Annotated[int, Field(ge=1, le=100_000)] | None = None
    candidate_k: Annotated[int, Field(ge=1, le=10_000)] | None = None
    weights: ArmWeights | None = None
    alpha: Annotated[float, Field(ge=0, le=1)] | None = None
    normalization: Literal["minmax", "zscore"] | None = None


class ExperimentSettings(BaseModel):
    """An online experiment: arms with traffic shares summing to at most 1 (the rest is not in the experiment)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=NAME_PATTERN)
    enabled: bool = True
    arms: list[ArmSettings] = Field(min_length=1)

    @model_validator(mode="after")
    def _arms_consistent(self) -> ExperimentSettings:
        names = [arm.name for arm in self.arms]
        if len(set(names)) != len(names):
            raise ValueError(f"experiment {self.name!r}: arm names must be unique, got {names}")
        total = sum(arm.share for arm in self.arms)
        if total > 1 + 1e-9:
            raise ValueError(f"experiment {self.name!r}: arm shares sum to {total:g}, over 1")
        return self


class ClusterSettings(BaseModel):
    """The optional local multi-node Elasticsearch cluster (`search-platform cluster up`), beside the main node."""

    home: Path = Path("/var/lib/search-platform-cluster")
    nodes: Annotated[int, Field(ge=2, le=9)] = 3
    http_base_port: Annotated[int, Field(ge=1024, le=65000)] = 9201  # node N listens on base + N - 1
    # above ES's default transport range 9300-9400, where a node without transport.port (such as a second
    # single node) binds the first free port
    transport_base_port: Annotated[int, Field(ge=1024, le=65000)] = 9401
    heap: str = Field(default="1g", pattern=r"^\d+[mg]$")


class InfraSettings(BaseModel):
    """Local services provisioned by infra/: where they live and how big they are."""

    home: Path = Path("/var/lib/search-platform")
    download_cache: Path = Path.home() / ".cache" / "search-platform"
    es_version: str = "9.5.4"
    es_sha512: str = (
        "a75df614854ace52dd0bce977662b3792873ac077ec0af9026cd0b2a0eb119e4"
        "49910f8eb8ed577d1a83c51c6ee6af71bf5004c3cf5b418c979186de8b5dd9e6"
    )
    es_heap: str = Field(default="4g", pattern=r"^\d+[mg]$")
    es_user: str = "search-es"
    java_home: Path = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
    redis_server: Path = Path("/usr/bin/redis-server")
    start_timeout_s: Annotated[float, Field(gt=0)] = 180.0
    # path.repo of the local node: the directory fs snapshot repositories live in; unset: <home>/es-snapshots
    snapshot_dir: Path | None = None
    cluster: ClusterSettings = ClusterSettings()

    @property
    def snapshot_path(self) -> Path:
        """path.repo of the local node (snapshot_dir, else es-snapshots under home)."""
        return self.snapshot_dir if self.snapshot_dir is not None else self.home / "es-snapshots"


class Settings(BaseSettings):
    """All settings; env vars look like SP_ELASTICSEARCH__PASSWORD."""

    model_config = SettingsConfigDict(
        env_prefix="SP_",
        env_nested_delimiter="__",
        env_file=".env",
        env_file_encoding="utf-8",
        extra="ignore",
    )

    environment: Environment = Environment.DEV
    elasticsearch: ElasticsearchSettings = ElasticsearchSettings()
    redis: RedisSettings = RedisSettings()
    embedding: EmbeddingSettings = EmbeddingSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    ingestion: IngestionSettings = IngestionSettings()
    rerank: RerankSettings = RerankSettings()
    service: ServiceSettings = ServiceSettings()
    auth: AuthSettings = AuthSettings()
    analytics: AnalyticsSettings = AnalyticsSettings()
    experiments: list[ExperimentSettings] = Field(default_factory=list)
    infra: InfraSettings = InfraSettings()

    @model_validator(mode="after")
    def _secrets_present(self) -> Settings:
        password = self.elasticsearch.password.get_secret_value()
        if not password:
            raise ValueError(
                "elasticsearch.password is empty: set SP_ELASTICSEARCH__PASSWORD (scripts/bootstrap writes one to .env)"
            )
        if self.environment is Environment.PROD and len(password) < 16:
            raise ValueError("elasticsearch.password must be at least 16 characters in prod")
        self._service_credentials_valid(password)
        if self.environment is Environment.PROD and not self.auth.enabled:
            raise ValueError("auth.enabled=false is for local development only, not prod (SP_AUTH__ENABLED)")
        names = [experiment.name for experiment in self.experiments]
        if len(set(names)) != len(names):
            raise ValueError(f"experiments: names must be unique, got {names}")
        if self.embedding.backend == "fake" and self.environment is Environment.PROD:
            raise ValueError("embedding.backend=fake is for unit tests only, not prod")
        return self

    def _service_credentials_valid(self, admin_password: str) -> None:
        es = self.elasticsearch
        service_password = es.service_password.get_secret_value()
        if es.service_username == es.username:
            raise ValueError("elasticsearch.service_username must differ from elasticsearch.username (the superuser)")
        if self.environment is Environment.PROD and (len(service_password) < 16 or service_password == admin_password):
            raise ValueError("elasticsearch.service_password must be set (SP_ELASTICSEARCH__SERVICE_PASSWORD), at "
                             "least 16 characters and differ from elasticsearch.password in prod")

    @model_validator(mode="after")
    def _visibility_outlasts_backoff(self) -> Settings:
        if self.redis.visibility_timeout_s <= self.ingestion.task_backoff_max_s:
            raise ValueError("redis.visibility_timeout_s must exceed ingestion.task_backoff_max_s, or a retry "
                             "waiting for its countdown is redelivered to a second worker")
        return self

    @model_validator(mode="after")
    def _torch_extra_installed(self) -> Settings:
        needs = []
        if self.embedding.backend == "sentence-transformers":
            needs.append("embedding.backend=sentence-transformers (SP_EMBEDDING__BACKEND=onnx needs no torch)")
        if self.rerank.model_path is not None:
            needs.append("rerank.model_path (a CrossEncoder)")
        if needs and not all(_importable(module) for module in ("torch", "sentence_transformers")):
            raise ValueError(f"{' and '.join(needs)}: needs torch and sentence-transformers, not installed; "
                             "install the torch extra: uv pip install -e '.[torch]'")
        return self


def _importable(module: str) -> bool:
    """Whether a top-level module can be imported (found without importing it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except ImportError:
        return False


class SettingsError(RuntimeError):
    """Settings failed validation; the message names each bad setting."""


def describe_validation_error(error: ValidationError) -> str:
    """Turn a pydantic ValidationError into one line per bad setting, named as its env var."""
    lines = []
    for problem in error.errors():
        path = "__".join(str(part) for part in problem["loc"]).upper()
        name = f"SP_{path}" if path else "settings"
        lines.append(f"{name}: {problem['msg']}")
    return "invalid settings:\n  " + "\n  ".join(lines)


def load_settings(**overrides: object) -> Settings:
    """Build Settings from the environment and `.env`, raising SettingsError with readable messages."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as error:
        raise SettingsError(describe_validation_error(error)) from error


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, built on first use (never at import time)."""
    return load_settings()
