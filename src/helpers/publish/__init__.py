"""Stage 4, publish: the artifact catalog and the report's order, tables, figures, display names, the report, the
site and the browser check; text is escaped where it is rendered (``safe``). Imports core and the stages before it;
must not import cli."""
