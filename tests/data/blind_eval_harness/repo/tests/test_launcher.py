from specbench.gateway.launcher import BackendSpec, build_command, build_env


def test_dflash_command_has_block_size():
    cmd = build_command(BackendSpec(model="m", draft_model="d", port=30000, block_size=8))
    assert cmd[cmd.index("--speculative-dflash-block-size") + 1] == "8"


def test_window_flag_spelling():
    cmd = build_command(
        BackendSpec(model="m", draft_model="d", port=30000, draft_window_size=512)
    )
    assert "--speculative-dflash-draft-window-size" in cmd
    assert "--speculative-draft-window-size" not in cmd


def test_env_forces_spec_v1_for_dflash():
    env = build_env(BackendSpec(model="m", draft_model="d", port=30000))
    assert env["SGLANG_ENABLE_SPEC_V2"] == "false"


def test_env_default_for_plain_backend():
    env = build_env(BackendSpec(model="m", draft_model=None, port=30001))
    assert env.get("SGLANG_ENABLE_SPEC_V2") == "0"
    assert "--disable-overlap-schedule" not in build_command(
        BackendSpec(model="m", draft_model=None, port=30001)
    )
