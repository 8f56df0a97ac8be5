"""Which bytes can matter to a rule: the prefilters a run applies before parsing."""
