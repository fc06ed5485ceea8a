"""POST /v1/feedback: a click on a search result, logged next to the search it belongs to."""

from __future__ import annotations

from fastapi import APIRouter, status

from search_platform.auth.request_ids import RequestIds
from search_platform.service.auth import SearchPrincipal
from search_platform.service.deps import ResourcesDep
from search_platform.service.openapi import KEYED, WITH_BODY, error_responses
from search_platform.service.schemas import FeedbackBody, FeedbackResponseBody

router = APIRouter()


@router.post(
    "/v1/feedback",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=FeedbackResponseBody,
    responses=error_responses(*KEYED, *WITH_BODY, 404),
)
async def feedback(body: FeedbackBody, resources: ResourcesDep, principal: SearchPrincipal) -> FeedbackResponseBody:
    """Record that the caller clicked the hit at `position` of the search `request_id` (logged in the background);
    404 unless that search was made by this key's tenant (a key spanning every tenant may name any search)."""
    request_ids = RequestIds(resources.redis, ttl_s=resources.settings.redis.job_ttl_s)
    owner = request_ids.tenant_of(body.request_id, caller=principal.tenant)
    accepted = resources.analytics.record_click(
        request_id=body.request_id, doc_id=body.doc_id, position=body.position, chunk_id=body.chunk_id,
        unit_id=body.user_id or body.session_id, tenant=(owner,) if owner else ())
    return FeedbackResponseBody(accepted=accepted)
