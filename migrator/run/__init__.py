"""A run: options, files, git narrowing, the pool, the per-file pipeline, the fork pass, the write and the exit code."""
