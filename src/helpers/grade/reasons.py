"""What a verdict's reason may say of an exception (issue 63 item 7): its type's name, and its message only where the
message is one of CPython's own that carries no data of the call (``list index out of range``, ``name 'x' is not
defined``), never a program's own words or a hidden input.

A reason is stored, cached and published (``grader_disagreements``, the caveats): a program that writes it could put a
link, a formula, reversed or invisible text, or the hidden inputs it was called with in front of the report's reader.
So the harness keeps only what no program chooses beyond a name: the exception type's name (an identifier, else
"an exception of the program's own type"), which side raised it (the program, or a hidden test's assertion), and a
message matched whole by one of the patterns below, whose only free parts are identifiers and counts; an identifier
that is one of the failing call's inputs drops the message. Standard library only: the sandbox's worker imports this
file (it is copied into the boundary beside ``sandbox_server.py``).
"""

import re

IDENT = r"[A-Za-z_][A-Za-z0-9_.]{0,59}"
_I, _N = f"'{IDENT}'", r"\d{1,9}"
_F = rf"(<lambda>|{IDENT})"  # a function's name
_OWN = [  # CPython's messages (3.9–3.13) with nothing of the call's data in them
    r"(list|string|tuple|range|bytearray|bytes|array|deque) index out of range",
    r"(integer |float )?division( or modulo)? by zero", r"(integer|float) modulo( by zero)?", r"division by zero",
    rf"name {_I} is not defined", rf"cannot access (local|free) variable {_I} where it is not associated with a value",
    rf"local variable {_I} referenced before assignment",
    rf"free variable {_I} referenced before assignment in enclosing scope",
    rf"No module named {_I}", rf"cannot import name {_I} from {_I}( \(unknown location\))?",
    rf"{_I} object is not (subscriptable|callable|iterable|an iterator|reversible)",
    rf"{_I} object has no attribute {_I}", rf"(type object|module) {_I} has no attribute {_I}",
    rf"{_I} object does not support item (assignment|deletion)",
    rf"{_I} object cannot be interpreted as an integer", rf"object of type {_I} has no len\(\)",
    rf"unsupported operand type\(s\) for [^\s\w']{{1,3}}: {_I} and {_I}",
    rf"unsupported operand type\(s\) for (pow\(\)|\*\* or pow\(\)): {_I} and {_I}",
    rf"'[<>]=?' not supported between instances of {_I} and {_I}",
    rf'can only concatenate (str|list|tuple) \(not "{IDENT}"\) to (str|list|tuple)',
    rf"bad operand type for unary [-+~]: {_I}", rf"unhashable type: {_I}",
    rf"can't multiply sequence by non-int of type {_I}", rf"argument of type {_I} is not iterable",
    rf"string indices must be integers(, not {_I})?", rf"(list|tuple) indices must be integers or slices, not {IDENT}",
    rf"{_F}\(\) takes (from )?{_N} (to {_N} )?positional arguments? but {_N} (was|were) given",
    rf"{_F}\(\) takes no arguments", rf"{_F}\(\) missing {_N} required (positional|keyword-only) arguments?: "
    rf"{_I}((, {_I})*,? and {_I})?",
    rf"{_F}\(\) got an unexpected keyword argument {_I}",
    rf"{_F}\(\) argument( {_N})? must be [a-z ,-]{{1,80}}, not {_I}",
    rf"{_F} expected (at most |at least )?{_N} arguments?, got {_N}",
    r"maximum recursion depth exceeded( in comparison| while calling a Python object| in __instancecheck__)?",
    r"math domain error", r"math range error", r"(int|float) too large to convert to (float|int)",
    r"cannot convert float (NaN|infinity) to integer", r"Exceeds the limit \(\d+ digits\) for integer string conversion.*",
    r"pop from (an )?empty (list|deque|set)", r"pop index out of range",
    r"list\.remove\(x\): x not in list", r"(min|max)\(\) (arg is an empty sequence|iterable argument is empty)",
    rf"not enough values to unpack \(expected {_N}, got {_N}\)",
    rf"too many values to unpack \(expected {_N}(, got {_N})?\)", r"substring not found",
    r"empty separator", r"generator already executing", r"dictionary changed size during iteration",
    r"Set changed size during iteration", r"index out of range", r"list assignment index out of range",
    r"\[Errno \d{1,4}\] [A-Za-z ]{1,60}", r"\[Errno \d{1,4}\] [A-Za-z ]{1,60}: '[\w.-]{0,60}'",
    r"the program ended before it answered",
]
_SYNTAX = re.compile(r"[a-z][a-z ,':()\-]{0,80}\(<solution>, line \d{1,6}\)")  # a compile error of the program
OWN = re.compile("|".join(f"(?:{p})" for p in _OWN))
_TYPE = re.compile(IDENT)
_NAMES = re.compile(r"[A-Za-z_][A-Za-z0-9_.]*")


def type_name(name: str) -> str:
    """An exception type's name as a reason may say it: an identifier, else a plain phrase."""
    return name if _TYPE.fullmatch(name) else "an exception of the program's own type"


def kept_message(name: str, message: str, inputs: tuple = ()) -> str | None:
    """``message`` where it is CPython's own and none of its identifiers is one of ``inputs`` (the failing call's
    arguments), else None (not kept)."""
    if not message:
        return ""
    if not (OWN.fullmatch(message) or (name in ("SyntaxError", "IndentationError", "TabError")
                                       and _SYNTAX.fullmatch(message))):
        return None
    words = set(_NAMES.findall(message))
    if any(isinstance(x, str) and x in words for x in _flat(inputs)):
        return None
    return message


def _flat(values, depth: int = 0):
    """The strings among ``values`` (lists, tuples, dicts' keys and values, three levels deep)."""
    for v in values:
        if isinstance(v, str):
            yield v
        elif depth < 3 and isinstance(v, (list, tuple)):
            yield from _flat(v, depth + 1)
        elif depth < 3 and isinstance(v, dict):
            yield from _flat([*v.keys(), *v.values()], depth + 1)


def reason(name: str, message: str, by_program: bool, inputs: tuple = ()) -> str:
    """A reason for an exception of type ``name`` with ``message``: raised by the program (in its own process), or on
    the harness's side (a hidden test's assertion says only that a hidden test failed)."""
    kind = type_name(name)
    if not by_program and name == "AssertionError":
        return "AssertionError: a hidden test failed"
    kept = kept_message(name, message, inputs)
    if kept is None:
        return f"{kind} (raised in the program's process; its message is not kept)" if by_program else \
            f"{kind} (in the hidden tests; its message is not kept)"
    return f"{kind}: {kept}" if kept else kind
