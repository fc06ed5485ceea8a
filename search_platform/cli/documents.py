"""`search-platform documents get|delete|delete-where|purge-tenant`: the document lifecycle through the API (only
its URL and key are needed); the same endpoints as the SDK's get_document, delete_document, delete_documents and
purge_tenant."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from search_platform.cli.common import (
    DEFAULT_API_URL,
    ApiKeyOption,
    ApiUrlOption,
    ExitCode,
    api_client,
    fail,
    new_app,
)
from search_platform.cli.output import FormatOption, OutputFormat, print_json

app = new_app("Look up and delete documents, purge a tenant (through the API).")
DocId = Annotated[str, typer.Argument(help="The document's doc_id.")]
IndexOption = Annotated[str | None, typer.Option(help="The alias (default: the service's default alias).")]
TenantOption = Annotated[str | None, typer.Option(help="The document's tenant (keys spanning every tenant only; "
                                                       "a tenant-bound key always means its own).")]


def _emit(data: dict[str, Any], output: OutputFormat, line: str) -> None:
    if output is OutputFormat.TABLE:
        typer.echo(line)
    else:
        print_json(data)


@app.command()
def get(doc_id: DocId, index: IndexOption = None, tenant: TenantOption = None,
        output: FormatOption = OutputFormat.TABLE, url: ApiUrlOption = DEFAULT_API_URL,
        api_key: ApiKeyOption = None) -> None:
    """Show a document as indexed: chunk count, content hash, indexed_at (exit 1 when it is not there)."""
    with api_client(url, api_key) as client:
        info = client.get_document(doc_id, index=index, tenant=tenant)
    _emit(info.model_dump(mode="json"), output,
          f"{info.doc_id} (tenant {info.tenant}, {info.index}): {info.chunk_count} chunks, hash {info.content_hash}, "
          f"indexed {info.indexed_at}")


@app.command()
def delete(doc_id: DocId, index: IndexOption = None, tenant: TenantOption = None,
           output: FormatOption = OutputFormat.TABLE, url: ApiUrlOption = DEFAULT_API_URL,
           api_key: ApiKeyOption = None) -> None:
    """Delete a document, including any older ingest of it still queued or running."""
    with api_client(url, api_key) as client:
        result = client.delete_document(doc_id, index=index, tenant=tenant)
    _emit(result.model_dump(mode="json"), output, f"deleted {doc_id}: {result.records_deleted} records")


@app.command("delete-where")
def delete_where(
    source: Annotated[list[str] | None, typer.Option(help="Delete documents of this source (repeatable).")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="Delete documents with this tag (repeatable).")] = None,
    doc_id: Annotated[list[str] | None, typer.Option(help="Delete this doc_id (repeatable).")] = None,
    index: IndexOption = None, tenant: TenantOption = None, output: FormatOption = OutputFormat.TABLE,
    url: ApiUrlOption = DEFAULT_API_URL, api_key: ApiKeyOption = None,
) -> None:
    """Delete every document matching all the given criteria (at least one of --source, --tag, --doc-id)."""
    if not (source or tag or doc_id):
        fail("name at least one of --source, --tag, --doc-id", ExitCode.USAGE)
    with api_client(url, api_key) as client:
        result = client.delete_documents(index=index, tenant=tenant, doc_ids=doc_id or (), sources=source or (),
                                         tags=tag or ())
    _emit(result.model_dump(mode="json"), output,
          f"deleted {len(result.documents)} documents ({result.records_deleted} records)")


@app.command("purge-tenant")
def purge_tenant(
    tenant: Annotated[str, typer.Argument(help="The tenant whose documents, own indices and keys go.")],
    yes: Annotated[bool, typer.Option("--yes", help="Confirm: this cannot be undone.")] = False,
    output: FormatOption = OutputFormat.TABLE, url: ApiUrlOption = DEFAULT_API_URL, api_key: ApiKeyOption = None,
) -> None:
    """Admin: remove every record, own index and API key of a tenant (needs --yes)."""
    if not yes:
        fail(f"purging tenant {tenant!r} cannot be undone: add --yes", ExitCode.USAGE)
    with api_client(url, api_key) as client:
        result = client.purge_tenant(tenant)
    _emit(result.model_dump(mode="json"), output,
          f"purged {tenant}: {result.records_deleted} records, indices {', '.join(result.indices_deleted) or '-'}, "
          f"{len(result.keys_deleted)} keys")
