"""A user's script: mypy --strict must pass on it with nothing but the installed SDK (no Any leaks)."""

from search_platform_client import Document, Health, Hit, Job, SearchClient, SearchOptions, SearchResponse


def top_titles(client: SearchClient, query: str) -> list[str]:
    response: SearchResponse = client.search(query, SearchOptions(mode="hybrid", page_size=5), explain=True)
    hits: list[Hit] = response.hits
    return [f"{hit.rank}. {hit.title} ({hit.score:.3f})" for hit in hits]


def index_and_wait(client: SearchClient, texts: dict[str, str]) -> Job:
    documents = [Document(doc_id=doc_id, content=text) for doc_id, text in texts.items()]
    queued = client.ingest(documents, idempotency_key="typed-usage")
    return client.wait_for_job(queued.job_id, on_progress=lambda job: print(job.documents_done))


def ready(client: SearchClient) -> bool:
    health: Health = client.health()
    return health.ok and all(dependency.ok for dependency in health.dependencies.values())
