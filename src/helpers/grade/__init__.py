"""Stage 2, grade: answer extraction and grading (math-verify, letters, labels, the code sandbox), attempts and
per-problem estimates, agreement with a source's own labels. Imports core and collect; must not import analyze,
publish or cli. Model-written code runs only in the sandbox's subprocess, never here."""
