"""Valid/invalid cases for migrator/python/rules/verify_input.py."""

from __future__ import annotations

from codemod_helpers import codes, migrate

HEADER = "from sglang.srt.speculative.dflash_info import DFlashVerifyInput\n"


def test_verify_call_on_known_value() -> None:
    new, findings = migrate(HEADER + "v = DFlashVerifyInput()\nout = v.verify(batch=b, logits_output=o, page_size=1)\n")
    assert codes(findings) == ["DFM105"]
    assert "# TODO(dflash-migrate): DFM105" in new


def test_v1_and_v2_prepare_forms() -> None:
    source = HEADER + (
        "def step(v: DFlashVerifyInput, batch, page_size, target_worker):\n"
        "    v.prepare_for_verify(batch, page_size)\n"
        "    v.prepare_for_verify(batch, 16)\n"
        "    v.prepare_for_verify(batch, self_page, build_custom_mask=False)\n"
        "    v.prepare_for_verify(batch, target_worker)\n"
    )
    _, findings = migrate(source)
    assert codes(findings) == ["DFM110"] * 3
    assert {f.line for f in findings} == {3, 4, 5}


def test_num_tokens_rename_follows_target() -> None:
    source = HEADER + "def n(v: 'DFlashVerifyInput'):\n    return v.num_tokens_per_batch\n"
    assert migrate(source, target="0.5.15")[1] == []
    new, findings = migrate(source, target="0.5.16")
    assert "return v.num_tokens_per_req" in new and codes(findings) == ["DFM302"]


def test_other_verify_inputs_untouched() -> None:
    source = (
        "from sglang.srt.speculative.ddtree_info import DDTreeVerifyInput\n"
        "v = DDTreeVerifyInput()\nv.verify(batch=1)\nv.prepare_for_verify(b, 1)\nv.num_tokens_per_batch\n"
    )
    assert migrate(source) == (source, [])


def test_override_of_verify_in_subclass() -> None:
    source = HEADER + "class Mine(DFlashVerifyInput):\n    def verify(self, *, batch, logits_output, page_size):\n        pass\n"
    _, findings = migrate(source)
    assert codes(findings) == ["DFM105"]


def test_v1_keyword_only_verify_on_an_untyped_receiver_is_a_finding() -> None:
    source = """
    from sglang.srt.speculative.dflash_worker import DFlashWorker

    def step(batch, out, ps):
        verify_input = batch.spec_info
        bonus, commit_lens, hidden, per_req = verify_input.verify(batch=batch, logits_output=out, page_size=ps)
        return bonus
    """
    _, findings = migrate(source)
    assert "DFM105" in [f.code for f in findings]


def test_positional_verify_of_eagle_and_ngram_is_left_alone() -> None:
    source = """
    from sglang.srt.speculative.dflash_worker import DFlashWorker

    def step(self, batch, verify_input, logits_output, vocab_mask):
        return verify_input.verify(batch, logits_output, self.page_size, vocab_mask)
    """
    _, findings = migrate(source)
    assert "DFM105" not in [f.code for f in findings]


def test_v1_prepare_for_verify_form_on_a_typed_receiver() -> None:
    _, findings = migrate(
        """
        from sglang.srt.speculative.dflash_info import DFlashVerifyInput

        def annotated(vi: DFlashVerifyInput, batch, ps):
            vi.prepare_for_verify(batch, ps)

        def narrowed(batch, ps, worker):
            verify_input = batch.spec_info
            if isinstance(verify_input, DFlashVerifyInput):
                verify_input.prepare_for_verify(batch, ps)
                verify_input.prepare_for_verify(batch, self.target_worker)
                verify_input.prepare_for_verify(batch, worker)
            other = batch.draft_info
            other.prepare_for_verify(batch, ps)
        """,
        target="0.5.17",
    )
    assert [f.line for f in findings if f.code == "DFM110"] == [5, 10]


def test_renamed_field_on_an_untyped_parameter_is_a_todo() -> None:
    new, findings = migrate(
        """
        from sglang.srt.speculative.dflash_info import DFlashVerifyInput  # noqa: F401

        def tokens(verify_input):
            return verify_input.num_tokens_per_batch
        """,
        target="0.5.16",
    )
    assert codes(findings) == ["DFM302"] and "TODO(dflash-migrate): DFM302" in new
    assert migrate("def tokens(batcher):\n    return batcher.num_tokens_per_batch\n", target="0.5.16")[1] == []
    assert migrate(HEADER + "def tokens(v):\n    return v.num_tokens_per_batch\n", target="0.5.15")[1] == []


def test_other_algorithms_verify_and_v2_calls_after_narrowing() -> None:
    _, findings = migrate(
        """
        from sglang.srt.speculative.dflash_info import DFlashVerifyInput
        from sglang.srt.speculative.spec_info import SpecInput

        class TreeVerifyInput(SpecInput):
            def verify(self, *, batch, logits_output, page_size):
                return batch

        def step(batch, out, ps, spec, worker):
            verify_input = TreeVerifyInput()
            verify_input.verify(batch=batch, logits_output=out, page_size=ps)
            if isinstance(spec, TreeVerifyInput):
                spec.verify(batch=batch, logits_output=out, page_size=ps)
            if isinstance(spec, DFlashVerifyInput):
                spec.prepare_for_verify(batch, worker.target_worker)
                return spec.num_tokens_per_req, spec.verify(batch=batch, logits_output=out, page_size=ps)
            return None
        """,
        target="0.5.23",
    )
    assert [(f.line, f.code) for f in findings] == [(16, "DFM105")]  # only the narrowed V1 verify
