"""Stage 0, core: parameters, paths, errors, redaction, the run context, the registries (tasks, methods, models,
prices and the dated ledger, experts, prompts) and the one generative model of simulated records. Must not import
any stage (collect, grade, analyze, publish, cli): everything else imports it."""
