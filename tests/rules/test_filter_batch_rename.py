"""Valid/invalid cases for DFM319 in migrator/python/rules/filter_batch.py: 0.5.22 renamed
``ScheduleBatch.filter_batch``'s first parameter ``chunked_req_to_exclude`` -> ``reqs_to_exclude``."""

from __future__ import annotations

from codemod_helpers import codes, migrate

SOURCE = """
def drop(batch, chunked_req, keep):
    batch.filter_batch(chunked_req_to_exclude=chunked_req)
    batch.filter_batch(keep_indices=keep, chunked_req_to_exclude=chunked_req)
    batch.filter_batch(chunked_req)
    batch.filter_batch()
"""


def test_a_target_of_0_5_22_or_newer_gets_upstreams_keyword() -> None:
    fixed, findings = migrate(SOURCE, target="0.5.22")
    assert codes(findings) == ["DFM319", "DFM319"] and all(f.fix.applicability == "safe" for f in findings)
    assert "batch.filter_batch(reqs_to_exclude=chunked_req)" in fixed
    assert "batch.filter_batch(keep_indices=keep, reqs_to_exclude=chunked_req)" in fixed
    assert "chunked_req_to_exclude" not in fixed and "TODO" not in fixed


def test_a_target_across_0_5_22_gets_the_positional_form_every_release_takes() -> None:
    fixed, findings = migrate(SOURCE, releases=("0.5.20", "0.5.21", "0.5.22", "0.5.23"))
    assert codes(findings) == ["DFM319", "DFM319"] and all(f.fix.applicability == "safe" for f in findings)
    assert fixed.count("batch.filter_batch(chunked_req)") == 2
    assert "batch.filter_batch(chunked_req, keep_indices=keep)" in fixed
    assert "_to_exclude" not in fixed and "TODO" not in fixed


def test_the_old_keyword_still_works_up_to_0_5_21() -> None:
    assert migrate(SOURCE, target="0.5.21")[1] == []


def test_what_cannot_be_rewritten_blindly_gets_a_todo_or_an_unsafe_fix() -> None:
    for call in ("batch.filter_batch(**options)",
                 "batch.filter_batch(keep_indices=f(), chunked_req_to_exclude=g())"):
        source = f"def drop(batch, options):\n    {call.replace('**options', 'chunked_req_to_exclude=r, **options')}\n"
        fixed, findings = migrate(source, releases=("0.5.21", "0.5.22"))
        assert codes(findings) == ["DFM319"] and findings[0].fix.applicability == "manual", call
    own = "def filter_batch(self, chunked_req_to_exclude=None):\n    pass\n\n\n" + SOURCE.lstrip()
    _, findings = migrate(own, target="0.5.22")
    assert {f.fix.applicability for f in findings if f.code == "DFM319"} == {"unsafe"}
    assert all("filter_batch` in this file" in f.message for f in findings if f.code == "DFM319")
