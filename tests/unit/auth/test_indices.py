"""Sealed indices: grants checked when a key is created and on every request, with hostile names."""

from __future__ import annotations

import pytest

from search_platform.auth.errors import KeyPolicyError, PermissionDeniedError
from search_platform.auth.indices import PLATFORM_PREFIX, IndexPolicy, matches, tenant_namespace

POLICY = IndexPolicy.build(default_alias="sp-chunks", log_alias="sp-test-search-logs")


def test_the_platform_prefix_is_the_service_user_s_index_pattern():
    from infra.es_security import INDEX_PATTERNS

    assert (f"{PLATFORM_PREFIX}*",) == INDEX_PATTERNS


def test_grants_are_names_or_prefixes():
    assert matches("sp-a", "sp-a") and not matches("sp-a", "sp-ab")
    assert matches("sp-a*", "sp-ab") and not matches("sp-a*", "sp-b")


def test_a_tenant_key_without_grants_gets_the_shared_alias_and_its_namespace():
    assert POLICY.grants_for("acme", ()) == ("sp-chunks", "sp-tenant-acme.*")
    assert POLICY.grants_for(None, ()) == ()
    assert POLICY.grants_for("acme", ("sp-acme-docs",)) == ("sp-acme-docs",)


def test_no_tenant_s_namespace_is_a_prefix_of_another_s():
    assert not tenant_namespace("a-b").startswith(tenant_namespace("a"))
    POLICY.authorize("sp-tenant-a.docs", tenant="a", grants=())
    with pytest.raises(PermissionDeniedError, match="another tenant"):
        POLICY.authorize("sp-tenant-a-b.docs", tenant="a", grants=())


@pytest.mark.parametrize("index", [
    "sp-search-logs", "sp-search-logs-000001", "sp-test-search-logs-000002", "sp-eval-0123abcd",
])
def test_tenant_keys_never_reach_the_platform_s_indices(index):
    with pytest.raises(PermissionDeniedError, match="reserved for the platform"):
        POLICY.authorize(index, tenant="acme", grants=("sp-*",))  # even with a (legacy) broad grant
    POLICY.authorize(index, tenant=None, grants=())  # an admin key may


@pytest.mark.parametrize("index", ["sp-chunks-v1", "sp-other", "sp-tenant-evil.docs", "sp-chunksx", "sp-chunk"])
def test_a_tenant_key_is_refused_indices_outside_its_grants(index):
    with pytest.raises(PermissionDeniedError):
        POLICY.authorize(index, tenant="acme", grants=())


@pytest.mark.parametrize(("index", "tenant"), [("other-index", None), ("chunks", "acme"), ("xsp-chunks", None)])
def test_indices_outside_the_platform_are_refused_for_every_key(index, tenant):
    with pytest.raises(PermissionDeniedError, match="outside the platform"):
        POLICY.authorize(index, tenant=tenant, grants=())


def test_an_admin_key_with_grants_is_held_to_them():
    POLICY.authorize("sp-x", tenant=None, grants=("sp-x",))
    with pytest.raises(PermissionDeniedError, match="may use: sp-x"):
        POLICY.authorize("sp-y", tenant=None, grants=("sp-x",))


@pytest.mark.parametrize("grant", [
    "sp-*", "sp-s*", "sp-search-logs", "sp-search*", "sp-eval-x", "sp-tenant-*", "sp-tenant-other.*",
    "sp-tenant-acm*", "sp-test-search-logs*",
])
def test_tenant_grants_that_reach_others_are_refused_at_creation(grant):
    with pytest.raises(KeyPolicyError):
        POLICY.check_grants("acme", [grant])


@pytest.mark.parametrize("grant", ["not-sp", "sp-UPPER", "sp-a**", "sp-a b", "sp-*x", "", ".sp-hidden"])
def test_malformed_grants_are_refused(grant):
    with pytest.raises(KeyPolicyError, match="index grant"):
        POLICY.check_grants(None, [grant])


def test_good_grants_pass_and_are_deduplicated():
    assert POLICY.check_grants("acme", ["sp-tenant-acme.*", "sp-acme-docs", "sp-acme-docs"]) == (
        "sp-tenant-acme.*", "sp-acme-docs")
    assert POLICY.check_grants(None, ["sp-*"]) == ("sp-*",)
