"""One exception type whose message is a single line a researcher can act on."""


class CostOfPassError(Exception):
    """A user-facing error: bad parameters, missing data, price or key, or over budget.

    The pipeline prints ``str(err)`` as one line and exits non-zero before any call is made.
    """

    def __init__(self, message: str):
        from helpers.core.redaction import redact

        super().__init__(redact(" ".join(str(message).split())))


class MissingData(CostOfPassError):
    """A task's benchmark file is not in the data directory (a set that needs it cannot run here)."""


def run_command(action) -> int:
    """Run a command's action: 0 on success; a CostOfPassError is one line on stderr and exit code 2."""
    import sys

    try:
        action()
    except KeyboardInterrupt:  # stopped here, outside any stage's kernel
        print("stopped: nothing is lost that was recorded; run the same command again to resume", file=sys.stderr)
        return 130
    except CostOfPassError as err:
        if type(err).__name__ == "Interrupted":
            print(f"{err}: every call recorded is kept; run the same command again to resume", file=sys.stderr)
            return 130
        print(f"error: {err}", file=sys.stderr)
        return 2
    except OSError as err:  # a read-only, full or vanished output directory, whatever the stage: one line
        where = f"{err.filename}: " if err.filename else ""
        print(f"error: {where}{err.strerror or type(err).__name__} (is the output directory read-only, full or gone?)",
              file=sys.stderr)
        return 2
    return 0
