"""`search-platform feedback REQUEST_ID --doc-id D --position N`: report a click on a search result."""

from __future__ import annotations

from typing import Annotated

import typer

from search_platform.cli.common import DEFAULT_API_URL, ApiKeyOption, ApiUrlOption, ExitCode, api_client
from search_platform.cli.output import FormatOption, OutputFormat, print_json, print_jsonl


def feedback(
    request_id: Annotated[str, typer.Argument(help="The request_id of the search (`query --format json`).")],
    doc_id: Annotated[str, typer.Option(help="The clicked hit's document.")],
    position: Annotated[int, typer.Option(min=1, help="The clicked hit's rank, from 1.")],
    chunk_id: Annotated[str | None, typer.Option(help="The clicked hit's chunk.")] = None,
    user_id: Annotated[str | None, typer.Option(help="The user (experiments assign arms by it).")] = None,
    output: FormatOption = OutputFormat.TABLE,
    url: ApiUrlOption = DEFAULT_API_URL,
    api_key: ApiKeyOption = None,
) -> None:
    """Report a click on a hit of a search; exits 1 when the service did not log it."""
    with api_client(url, api_key) as client:
        accepted = client.feedback(request_id, doc_id=doc_id, position=position, chunk_id=chunk_id, user_id=user_id)
    record = {"request_id": request_id, "accepted": accepted}
    if output is OutputFormat.JSON:
        print_json(record)
    elif output is OutputFormat.JSONL:
        print_jsonl([record])
    else:
        typer.echo("logged" if accepted else "not logged (search logging is off or its queue is full)")
    if not accepted:
        raise typer.Exit(int(ExitCode.FAILED))
