"""State schemas and the project store (checkpoints, runs index, audit log, tool ledger)."""
