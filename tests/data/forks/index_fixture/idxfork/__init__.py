"""idxfork: a fork index fixture."""
