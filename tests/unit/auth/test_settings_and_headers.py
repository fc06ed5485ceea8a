"""Auth settings (prod refuses auth off) and where the API reads a key from."""

from __future__ import annotations

import pytest
from starlette.requests import Request

from search_platform.config import SettingsError, load_settings
from search_platform.service.auth import presented_key

PROD_PASSWORD = "a-long-enough-password-1234"


def test_prod_refuses_auth_disabled():
    with pytest.raises(SettingsError, match=r"auth\.enabled"):
        load_settings(environment="prod", auth={"enabled": False},
                      elasticsearch={"password": PROD_PASSWORD, "service_password": "another-long-enough-password"})


def test_auth_is_on_by_default():
    settings = load_settings(environment="test", elasticsearch={"password": "x"})
    assert settings.auth.enabled is True
    assert settings.auth.rate_limit_per_minute >= 1


def _request(*headers: tuple[str, str]) -> Request:
    return Request({"type": "http", "headers": [(k.encode(), v.encode()) for k, v in headers]})


@pytest.mark.parametrize(("headers", "expected"), [
    ((("authorization", "Bearer sp_abc"),), "sp_abc"),
    ((("authorization", "bearer   sp_abc  "),), "sp_abc"),
    ((("x-api-key", "sp_abc"),), "sp_abc"),
    ((("authorization", "Basic Zm9vOmJhcg=="), ("x-api-key", "sp_x")), "sp_x"),
    ((("authorization", "Bearer "),), None),
    ((), None),
])
def test_the_key_comes_from_bearer_or_x_api_key(headers, expected):
    assert presented_key(_request(*headers)) == expected


def test_prod_needs_a_strong_distinct_service_password():
    strong = "another-long-enough-password-5678"
    with pytest.raises(SettingsError, match="SERVICE_PASSWORD"):
        load_settings(environment="prod", elasticsearch={"password": PROD_PASSWORD, "service_password": ""})
    with pytest.raises(SettingsError, match="differ"):
        load_settings(environment="prod", elasticsearch={"password": PROD_PASSWORD, "service_password": PROD_PASSWORD})
    settings = load_settings(environment="prod", elasticsearch={"password": PROD_PASSWORD, "service_password": strong})
    assert settings.elasticsearch.data_credentials == ("sp-service", strong)
