import os

import pytest

from specbench import server_config
from specbench.server_config import SpecProfile


def test_force_spec_v1_sets_env(monkeypatch):
    envs = pytest.importorskip("sglang.srt.environ").envs
    monkeypatch.delenv("SGLANG_ENABLE_SPEC_V2", raising=False)
    server_config.force_spec_v1()
    assert os.environ["SGLANG_ENABLE_SPEC_V2"] == "0"
    assert envs.SGLANG_ENABLE_SPEC_V2.get() is False


def test_describe_mentions_mode(monkeypatch):
    pytest.importorskip("sglang.srt.environ")
    envs = pytest.importorskip("sglang.srt.environ").envs
    with envs.SGLANG_ENABLE_SPEC_V2.override(True):
        text = server_config.describe(SpecProfile(name="p", target_model="m"))
    assert "spec-v2" in text


def test_profile_defaults():
    profile = SpecProfile(name="p", target_model="m")
    assert profile.block_size == 16
    assert profile.draft_window_size is None
