"""The faces: thin layers a person or an agent talks to.

- :mod:`.cli`: the ``everbot-memory`` command (typer);
- :mod:`.hooks`: the Claude Code hooks; :mod:`.worker`: the detached job worker they start;
- :mod:`.mcp`: the MCP server.

Each parses its input, makes one call to the facade (:mod:`everbot_memory.facade`) and prints
the result. A face holds no rules and imports nothing below the facade except the errors and
the model types it prints.
"""
