"""Thin HTTP gateway in front of one or more sglang servers."""
