"""Applying edits to bytes: splices where they suffice, libcst for structural edits."""
