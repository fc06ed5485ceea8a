"""Tenant isolation: filters narrowed to the key's tenant, documents stamped or rejected."""

from __future__ import annotations

import pytest

from search_platform.auth.errors import PermissionDeniedError
from search_platform.auth.tenancy import restrict_filters, stamp_tenant, tenant_violation
from search_platform.backends.elasticsearch.filters import filter_clauses
from search_platform.domain.models import Filters


def test_a_key_without_a_tenant_keeps_the_filters():
    filters = Filters(tenants=("a", "b"), tags=("x",))
    assert restrict_filters(filters, None) is filters


def test_no_tenant_filter_becomes_the_keys_tenant():
    assert restrict_filters(Filters(tags=("x",)), "a") == Filters(tags=("x",), tenants=("a",))


def test_a_filter_naming_the_tenant_among_others_is_narrowed_to_it():
    assert restrict_filters(Filters(tenants=("b", "a", "c")), "a").tenants == ("a",)


def test_a_filter_naming_only_other_tenants_is_forbidden():
    with pytest.raises(PermissionDeniedError, match=r"bound to tenant 'a'.*b, c"):
        restrict_filters(Filters(tenants=("c", "b")), "a")


def test_the_tenant_reaches_the_clauses_both_legs_apply():
    clauses = filter_clauses(restrict_filters(Filters(doc_ids=("d1",)), "a"))
    assert {"terms": {"tenant": ["a"]}} in clauses


def test_documents_are_stamped_with_the_keys_tenant():
    assert stamp_tenant({"doc_id": "d"}, "a") == {"doc_id": "d", "tenant": "a"}
    assert stamp_tenant({"doc_id": "d", "tenant": "a"}, "a") == {"doc_id": "d", "tenant": "a"}
    assert stamp_tenant({"doc_id": "d", "tenant": "b"}, None) == {"doc_id": "d", "tenant": "b"}
    assert stamp_tenant("not a dict", "a") == "not a dict"


def test_a_document_naming_another_tenant_is_a_violation():
    assert tenant_violation({"doc_id": "d", "tenant": "b"}, "a") == "tenant 'b' is not this API key's tenant 'a'"
    assert tenant_violation({"doc_id": "d", "tenant": "a"}, "a") is None
    assert tenant_violation({"doc_id": "d"}, "a") is None
    assert tenant_violation({"doc_id": "d", "tenant": "b"}, None) is None
