"""The facade: one entry point, :class:`~.memory.Memory`, for everything a face needs.

The CLI, the hooks, the job worker and the MCP server call the facade and nothing below it
(except the errors and the model types they print). The facade picks the extractor
(:mod:`.choice`), runs the session-end flow (sync and async share one flow), works the job queue
(:mod:`.jobs`), and turns the layers' results into reports (:mod:`.reports`).
"""
