import pytest


@pytest.fixture(autouse=True)
def _spec_v1_env(monkeypatch):
    """Every test runs with the V1 speculative worker, like production."""
    monkeypatch.setenv("SGLANG_ENABLE_SPEC_V2", "0")
    monkeypatch.delenv("SPECBENCH_UPSTREAMS", raising=False)
    yield


@pytest.fixture
def fake_meta_info():
    return {"spec_verify_ct": 4, "completion_tokens": 20}
