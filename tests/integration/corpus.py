"""A small corpus for integration tests, each document written to exercise one behaviour."""

from __future__ import annotations

DOCUMENTS: list[dict[str, object]] = [
    {
        "doc_id": "cabinet-parts",
        "title": "Cabinet hardware catalogue",
        "content": "Our workshop restores oak furniture from the early twentieth century. Every piece is sanded by "
        "hand, treated with linseed oil and left to cure for a week before the final wax. Replacement hinge "
        "KX9ZQ4471 is kept in stock for the 2019 cabinet series.",
        "tags": ["hardware"],
        "source": "catalogue",
    },
    # Decoys: codes that look like KX9ZQ4471 to the embedding model but are different tokens to BM25.
    {
        "doc_id": "retired-codes",
        "title": "Retired codes",
        "content": "Codes KX9ZQ4417, KX9QZ4471 and KZ9XQ4471 are retired.",
        "tags": ["hardware"],
        "source": "catalogue",
    },
    {
        "doc_id": "old-part-numbers",
        "title": "Old part numbers",
        "content": "KX9ZQ4714 and KX9ZQ7441 were replaced last year.",
        "tags": ["hardware"],
        "source": "catalogue",
    },
    {
        "doc_id": "tomatoes",
        "title": "Growing tomatoes",
        "content": "Tomatoes need six hours of sun and steady watering. Mulch keeps the soil moist during "
        "hot summers, and drip irrigation saves water.",
        "tags": ["garden"],
        "source": "garden-notes",
    },
    {
        "doc_id": "python-paths",
        "title": "Working with file paths",
        "content": "Use os.path.join to build file paths portably. The pathlib module offers Path objects "
        "with the / operator for the same purpose.",
        "tags": ["python"],
        "source": "python-notes",
    },
    {
        "doc_id": "network-errors",
        "title": "Network error codes",
        "content": "ERR_NETWORK_TIMEOUT_504 means the upstream gateway did not answer in time. Increase the "
        "client timeout or retry with exponential backoff.",
        "tags": ["python", "ops"],
        "source": "runbook",
    },
    {
        "doc_id": "bread",
        "title": "Sourdough basics",
        "content": "A sourdough starter is flour and water fermented by wild yeast. Feed it daily and bake "
        "when it doubles in size.",
        "tags": ["kitchen"],
        "source": "recipes",
    },
    {
        "doc_id": "release-notes",
        "title": "Release notes",
        "content": "TypeScript 5.7 adds checks for never-initialized variables. CVE-2024-12345 was fixed in "
        "the bundled parser.",
        "tags": ["ops"],
        "source": "runbook",
    },
]

LONG_DOCUMENT: dict[str, object] = {
    "doc_id": "long-guide",
    "title": "A long guide",
    "content_type": "markdown",
    "content": "\n\n".join(
        f"## Section {n}\n\n"
        + " ".join(f"Paragraph {n} sentence {s} talks about topic {n * 7 + s}." for s in range(12))
        for n in range(1, 7)
    ),
    "source": "guides",
}
