import pytest

from search_platform.config import SettingsError, load_settings


def test_missing_password_names_the_env_var(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SP_ELASTICSEARCH__PASSWORD", raising=False)
    with pytest.raises(SettingsError, match="SP_ELASTICSEARCH__PASSWORD"):
        load_settings()


def test_bad_value_names_the_setting(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SP_ELASTICSEARCH__PASSWORD", "a-long-enough-password")
    monkeypatch.setenv("SP_RETRIEVAL__TOP_K", "0")
    with pytest.raises(SettingsError, match="SP_RETRIEVAL__TOP_K"):
        load_settings()


def test_nested_env_and_secret(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SP_ELASTICSEARCH__PASSWORD", "a-long-enough-password")
    monkeypatch.setenv("SP_RETRIEVAL__RRF_K", "30")
    settings = load_settings()
    assert settings.retrieval.rrf_k == 30
    assert "a-long-enough-password" not in repr(settings)


def test_dotenv_file_is_read(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SP_ELASTICSEARCH__PASSWORD", raising=False)
    (tmp_path / ".env").write_text("SP_ELASTICSEARCH__PASSWORD=from-dotenv-file-123\n")
    assert load_settings().elasticsearch.password.get_secret_value() == "from-dotenv-file-123"


def test_prod_refuses_weak_password(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SP_ELASTICSEARCH__PASSWORD", "short")
    monkeypatch.setenv("SP_ENVIRONMENT", "prod")
    with pytest.raises(SettingsError, match="16 characters"):
        load_settings()


def test_overlap_must_be_smaller_than_chunk(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SP_ELASTICSEARCH__PASSWORD", "a-long-enough-password")
    with pytest.raises(SettingsError, match="overlap"):
        load_settings(chunking={"max_tokens": 32, "overlap_tokens": 32})


def test_rerank_is_off_by_default_with_its_defaults():
    from search_platform.config import RerankSettings

    rerank = RerankSettings()
    assert (rerank.enabled, rerank.model_path, rerank.top_n, rerank.budget_ms, rerank.batch_size,
            rerank.max_length) == (False, None, 50, 500, 16, 256)


def test_rerank_enabled_without_a_model_path_names_the_env_var(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SP_ELASTICSEARCH__PASSWORD", "a-long-enough-password")
    monkeypatch.setenv("SP_RERANK__ENABLED", "true")
    with pytest.raises(SettingsError, match="SP_RERANK__MODEL_PATH"):
        load_settings()


def test_rerank_model_path_must_exist(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SP_ELASTICSEARCH__PASSWORD", "a-long-enough-password")
    monkeypatch.setenv("SP_RERANK__ENABLED", "true")
    monkeypatch.setenv("SP_RERANK__MODEL_PATH", str(tmp_path / "missing"))
    with pytest.raises(SettingsError, match=r"SP_RERANK__MODEL_PATH=.*missing is not a directory"):
        load_settings()
    (tmp_path / "missing").mkdir()
    settings = load_settings()
    assert (settings.rerank.enabled, settings.rerank.model_path) == (True, tmp_path / "missing")


def test_a_route_table_naming_one_route_keeps_the_others_defaults(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SP_ELASTICSEARCH__PASSWORD", "a-long-enough-password")
    monkeypatch.setenv("SP_RETRIEVAL__ROUTE_WEIGHTS", '{"lexical": {"bm25": 1.0, "dense": 0.1}}')
    weights = {route: (arm.bm25, arm.dense) for route, arm in load_settings().retrieval.route_weights.items()}
    assert weights == {"lexical": (1.0, 0.1), "semantic": (0.3, 1.0), "mixed": (1.0, 1.0)}
