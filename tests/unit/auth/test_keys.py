"""API key format, hashing, scopes and the key policy (pure parts; the Redis store is integration-tested)."""

from __future__ import annotations

import hashlib

import pytest

from search_platform.auth.errors import AuthenticationError, KeyPolicyError
from search_platform.auth.keys import (
    ApiKey,
    Scope,
    check_policy,
    format_key,
    from_fields,
    hash_secret,
    new_key_material,
    parse_scopes,
    split_key,
    to_fields,
)


def test_a_formatted_key_splits_back_into_id_and_secret():
    key_id, secret = new_key_material()
    presented = format_key(key_id, secret)
    assert presented.startswith(f"sp_{key_id}_")
    assert split_key(presented) == (key_id, secret)


def test_secrets_may_contain_underscores_and_dashes():
    assert split_key("sp_0123456789abcdef_a_b-c_d-e_f-g_h-i_j-k_") == ("0123456789abcdef", "a_b-c_d-e_f-g_h-i_j-k_")


@pytest.mark.parametrize("presented", ["", "Bearer x", "sp_short_secret", "sp_0123456789ABCDEF_" + "a" * 43,
                                       "xx_0123456789abcdef_" + "a" * 43, "sp_0123456789abcdef_" + "a" * 5,
                                       "sp_0123456789abcdef_" + "a" * 40 + "!"])
def test_malformed_keys_are_refused(presented):
    with pytest.raises(AuthenticationError, match="malformed"):
        split_key(presented)


def test_fresh_material_is_unique():
    assert len({new_key_material() for _ in range(100)}) == 100


def test_the_hash_is_hmac_sha256_keyed_by_the_pepper():
    import hmac

    assert hash_secret("s3cret") == hmac.new(b"", b"s3cret", hashlib.sha256).hexdigest()
    assert hash_secret("s3cret", "pepper") == hmac.new(b"pepper", b"s3cret", hashlib.sha256).hexdigest()
    assert hash_secret("s3cret", "pepper") != hash_secret("s3cret")
    assert "s3cret" not in hash_secret("s3cret")


def test_scopes_parse_from_a_comma_list():
    assert parse_scopes("search, ingest") == frozenset({Scope.SEARCH, Scope.INGEST})
    assert parse_scopes(["admin"]) == frozenset({Scope.ADMIN})


@pytest.mark.parametrize(("raw", "message"), [("", "at least one scope"), ("search,delete", "unknown scope")])
def test_bad_scopes_are_named(raw, message):
    with pytest.raises(KeyPolicyError, match=message):
        parse_scopes(raw)


def test_a_key_without_a_tenant_must_be_admin():
    with pytest.raises(KeyPolicyError, match="admin scope"):
        check_policy(name="n", scopes=frozenset({Scope.SEARCH}), tenant=None, rate_limit_per_minute=None)
    check_policy(name="n", scopes=frozenset({Scope.ADMIN}), tenant=None, rate_limit_per_minute=None)
    check_policy(name="n", scopes=frozenset({Scope.SEARCH}), tenant="acme", rate_limit_per_minute=None)


@pytest.mark.parametrize(("name", "tenant", "limit", "message"), [
    ("  ", "acme", None, "name"),
    ("n", "two words", None, "tenant"),
    ("n", "", None, "tenant"),
    ("n", "acme", 0, "rate limit"),
])
def test_policy_refuses_bad_fields(name, tenant, limit, message):
    with pytest.raises(KeyPolicyError, match=message):
        check_policy(name=name, scopes=frozenset({Scope.SEARCH}), tenant=tenant, rate_limit_per_minute=limit)


def test_fields_round_trip_and_hold_only_the_hash():
    key = ApiKey(key_id="0123456789abcdef", name="ci", scopes=frozenset({Scope.SEARCH, Scope.INGEST}),
                 tenant="acme", rate_limit_per_minute=30, created_at=1700000000.5)
    fields = to_fields(key, hash_secret("the-secret"))
    assert "the-secret" not in "".join(fields.values())
    assert fields["scopes"] == "ingest,search"
    assert from_fields(fields) == key
    revoked = ApiKey(key_id="0123456789abcdef", name="ci", scopes=frozenset({Scope.ADMIN}), tenant=None,
                     rate_limit_per_minute=None, created_at=1.0, revoked=True, revoked_at=2.0)
    assert from_fields(to_fields(revoked, "h")) == revoked


@pytest.mark.parametrize("tenant", ["pa:x", "*", "Acme", "a.b", "-lead", "x" * 64, "ü"])
def test_tenants_outside_the_safe_alphabet_are_refused(tenant):
    with pytest.raises(KeyPolicyError, match="tenant must be"):
        check_policy(name="n", scopes=frozenset({Scope.SEARCH}), tenant=tenant, rate_limit_per_minute=None)


def test_index_grants_survive_the_round_trip():
    key = ApiKey(key_id="0" * 16, name="n", scopes=frozenset({Scope.SEARCH}), tenant="acme",
                 rate_limit_per_minute=None, created_at=1.0, indices=("sp-tenant-acme.*", "sp-chunks"))
    assert from_fields(to_fields(key, "h")) == key
    legacy = {k: v for k, v in to_fields(key, "h").items() if k != "indices"}
    assert from_fields(legacy).indices == ()
