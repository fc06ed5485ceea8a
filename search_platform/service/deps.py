"""FastAPI dependencies as Annotated aliases."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from search_platform.service.resources import Resources


def get_resources(request: Request) -> Resources:
    """The process's Resources, built in the app lifespan."""
    resources: Resources = request.app.state.resources
    return resources


ResourcesDep = Annotated[Resources, Depends(get_resources)]
