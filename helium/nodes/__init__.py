"""Node functions of the agent loop, grouped by concern: model, permissions, tools."""
