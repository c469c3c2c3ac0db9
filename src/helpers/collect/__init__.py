"""Stage 1, collect: the plan of calls, the budget, calling with retries, the record store, preflight checks,
backends (simulated, llama.cpp, OpenAI-compatible HTTP) and importers of records others made. Imports core only;
must not import grade, analyze, publish or cli."""
