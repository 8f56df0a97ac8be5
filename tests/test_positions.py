"""Exact positions (issue 16 item 4): a finding points at the line and column of the
offending token, also when the construct spans several lines."""

from __future__ import annotations

from migrator.catalog import NEWEST_RELEASE
from migrator.run import pipeline
from migrator.run.engine import Options


def where(path: str, text: str, target: str = NEWEST_RELEASE) -> list[tuple[int, int, str]]:
    result = pipeline.process_bytes(path, text.encode(), Options(mode="lint", target_version=target))
    assert result.error is None, result.error
    return [(f.line, f.column, f.code) for f in result.findings]


def test_names_of_a_parenthesised_import_are_reported_on_their_own_lines() -> None:
    source = ("from sglang.srt.speculative.dflash_info import (\n"
              "    DFlashVerifyInput,\n"
              "    _compute_paged_keep_slots,\n"
              ")\n"
              "from sglang.srt.speculative.dflash_utils import (\n"
              "    validate_dflash_request,\n"
              "    compute_dflash_accept_len_and_bonus,\n"
              ")\n")
    assert where("fork/a.py", source) == [(3, 4, "DFM104"), (7, 4, "DFM303")]


def test_todo_of_a_parenthesised_import_still_goes_above_the_statement() -> None:
    source = "from sglang.srt.speculative.dflash_info import (\n    _compute_paged_keep_slots,\n)\n"
    result = pipeline.process_bytes("fork/a.py", source.encode(), Options(mode="fix", target_version=NEWEST_RELEASE))
    assert result.new_bytes.decode().startswith("# TODO(dflash-migrate): DFM104")


def test_multi_line_shell_string_points_at_the_line_holding_the_variable() -> None:
    text = ('echo "{\\"SGLANG_ENABLE_SPEC_V2\\": \\"0\\"}" > cfg.json\n'
            'CMD="echo one\n'
            '  SGLANG_ENABLE_SPEC_V2=0 python -m x"\n'
            "ARGS='--a\n--b SGLANG_ENABLE_SPEC_V2 SGLANG_ENABLE_SPEC_V2'\n")
    assert where("run.sh", text) == [(1, 9, "DFM201"), (3, 2, "DFM201"), (5, 4, "DFM201"), (5, 26, "DFM201")]


def test_yaml_run_block_and_dockerfile_continuation() -> None:
    yaml_text = ("steps:\n  - run: |\n      echo hi\n      export SGLANG_ENABLE_SPEC_V2=0\n"
                 "      python -m sglang.launch_server\n")
    assert where("ci.yml", yaml_text) == [(4, 13, "DFM201")]
    docker = "RUN echo hi && \\\n    export SGLANG_ENABLE_SPEC_V2=0 && \\\n    python -m sglang.launch_server\n"
    assert where("Dockerfile", docker) == [(2, 11, "DFM201")]
