"""The service user's role file and which credentials each client uses."""

from __future__ import annotations

import yaml
from pydantic import SecretStr

from infra.es_security import ROLE_NAME, render_roles
from search_platform.config import ElasticsearchSettings


def test_the_role_grants_sp_indices_and_cluster_monitor_only():
    roles = yaml.safe_load(render_roles())
    assert roles == {ROLE_NAME: {
        "cluster": ["monitor"],
        "indices": [{"names": ["sp-*"],
                     "privileges": ["read", "write", "create_index", "manage", "view_index_metadata"]}],
    }}


def test_data_paths_use_the_service_user_when_it_has_a_password():
    settings = ElasticsearchSettings(password=SecretStr("admin-pw"), service_password=SecretStr("service-pw"))
    assert settings.data_credentials == ("sp-service", "service-pw")


def test_without_a_service_password_data_paths_fall_back_to_the_superuser():
    settings = ElasticsearchSettings(password=SecretStr("admin-pw"))
    assert settings.data_credentials == ("elastic", "admin-pw")
