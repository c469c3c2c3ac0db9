"""Plain data across the sandbox's channel: the only thing a graded program can hand to the harness that judges it.

A value is plain when it is built from None, bool, int, float, complex, str, bytes, list, tuple, dict, set and
frozenset. ``encode`` turns one into JSON text (containers other than list as one-key objects: ``{"t": [...]}`` a
tuple, ``{"d": [[k, v], ...]}`` a dict, ``{"s"|"f": [...]}`` a set or frozenset, ``{"b": base64}`` bytes, ``{"c": [re,
im]}`` a complex); ``decode`` builds fresh built-in objects from it and refuses anything else. The harness compares
what it decoded, with built-in types' own ``==``, so an object whose ``__eq__`` always says yes cannot cross. Frames
on a descriptor are a 4-byte big-endian length and that many bytes of UTF-8 JSON (``write_frame``/``read_frame``).
A job's first frame, from the grader to the worker, is a ``JobHeader``.
Standard library only: this file runs inside the boundary too.
"""

from __future__ import annotations

import base64
import json
import math
import os
import struct
import time
from typing import Literal, NamedTuple

MAX_FRAME = 64 << 20  # bytes of one message
MAX_DEPTH = 200  # nesting of containers
_TAGS = {"t", "d", "s", "f", "b", "c"}
DEADLINE: list[float] = []  # the harness's: the process CPU time (``time.process_time``) decoding must end by
_CHECK_EVERY = 256  # members of a list, set or dict between two looks at the deadline


class NotPlain(ValueError):
    """A value (or a message) that is not plain data."""


class OverBudget(NotPlain):
    """Decoding a message would cost the reader more CPU time than its budget (``DEADLINE``): e.g. members of a set
    or keys of a dict that all share one hash, which make each insertion as slow as the ones before it."""


class BadHeader(ValueError):
    """A job's first frame that is not a ``JobHeader`` (one line saying why)."""


class JobHeader(NamedTuple):
    """A job's first frame: what the worker needs to run one program (``sandbox.Sandbox`` writes it, ``sandbox_server``
    reads it). Immutable; ``from_dict`` takes exactly these fields, each of its type, and nothing else, so a header
    cannot set what only the worker decides (whether it is isolated, its scratch directory). A ``NamedTuple`` rather
    than a dataclass: ``typing`` is in the worker already (``PRELOAD``), ``dataclasses`` would bring ``inspect`` and
    ``ast`` into every job's process."""

    id: int
    """The job's number in its pool (its answer carries it back)."""
    mode: Literal["split", "whole"]
    """``split``: the hidden tests run in the harness and call the program over the channel; ``whole``: program,
    tests and ``check`` run together in the program's process."""
    entry_point: str
    """The function the tests check."""
    calls: tuple[str, ...]
    """The functions the harness may call in the program's process: the entry point first, then those only the
    solution defines (``programs.CodeJob.calls``)."""
    cpu_s: int
    """The program's CPU limit (seconds)."""
    memory_mb: int
    """The program's address space (MiB)."""
    backstop_s: float
    """How long the program may sleep, neither running nor waiting for a CPU (seconds)."""
    hook: bool = True
    """Whether the program runs under the audit hook (a second line, never the boundary)."""

    def to_dict(self) -> dict:
        """The header as the frame's JSON object."""
        return {**self._asdict(), "calls": list(self.calls)}

    @classmethod
    def from_dict(cls, data) -> JobHeader:
        """The header of a frame's JSON object, checked (``BadHeader``)."""
        if type(data) is not dict:
            raise BadHeader(f"a job header is a JSON object, not {type(data).__name__}")
        if set(data) != set(cls._fields):
            wrong = ", ".join(sorted(set(data) ^ set(cls._fields)))
            raise BadHeader(f"a job header has the fields {', '.join(cls._fields)} (not so: {wrong})")
        calls = data["calls"]
        if type(calls) is not list or not calls or any(type(c) is not str for c in calls):
            raise BadHeader("a job header's 'calls' is a list of one or more function names")
        return cls(**{**data, "calls": tuple(calls)}).checked()

    def checked(self) -> JobHeader:
        """The header itself where every field holds a value of its type and range; ``BadHeader`` otherwise."""
        for name, ok in (("id", type(self.id) is int and self.id >= 0), ("mode", self.mode in ("split", "whole")),
                         ("entry_point", type(self.entry_point) is str and self.entry_point != ""),
                         ("calls", type(self.calls) is tuple and len(self.calls) > 0
                          and all(type(c) is str for c in self.calls)),
                         ("cpu_s", type(self.cpu_s) is int and self.cpu_s >= 1),
                         ("memory_mb", type(self.memory_mb) is int and self.memory_mb >= 1),
                         ("backstop_s", type(self.backstop_s) in (int, float) and 0 < self.backstop_s < math.inf),
                         ("hook", type(self.hook) is bool)):
            if not ok:
                raise BadHeader(f"a job header's {name!r} is {getattr(self, name)!r:.60}")
        return self


def _spend() -> None:
    if DEADLINE and time.process_time() > DEADLINE[0]:
        raise OverBudget("a message that costs its reader more CPU time than the program's limit")


def to_json(value, depth: int = 0):
    """The JSON-ready form of ``value``; subclasses of the plain types are sent as their base (a ``Counter`` as a
    dict); anything else raises ``NotPlain`` naming its type."""
    if depth > MAX_DEPTH:
        raise NotPlain("nested too deeply")
    if value is None:
        return None
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, complex):
        return {"c": [value.real, value.imag]}
    if isinstance(value, (bytes, bytearray)):
        return {"b": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, list):
        return [to_json(v, depth + 1) for v in value]
    if isinstance(value, tuple):
        return {"t": [to_json(v, depth + 1) for v in value]}
    if isinstance(value, dict):
        return {"d": [[to_json(k, depth + 1), to_json(v, depth + 1)] for k, v in value.items()]}
    if isinstance(value, (set, frozenset)):
        return {"f" if isinstance(value, frozenset) else "s": [to_json(v, depth + 1) for v in value]}
    raise NotPlain(f"a {type(value).__name__} is not plain data")


def from_json(data, depth: int = 0):
    """Fresh built-in objects from the JSON form; ``NotPlain`` for any other shape."""
    if depth > MAX_DEPTH:
        raise NotPlain("nested too deeply")
    kind = type(data)
    if data is None or kind in (bool, int, float, str):
        return data
    if kind is list:
        return _items(data, depth)
    if kind is not dict or len(data) != 1 or next(iter(data)) not in _TAGS:
        raise NotPlain("an unknown object in a message")
    tag, body = next(iter(data.items()))
    if tag == "b":
        if type(body) is not str:
            raise NotPlain("bytes that are not base64 text")
        return base64.b64decode(body.encode("ascii"), validate=True)
    if type(body) is not list:
        raise NotPlain(f"a '{tag}' whose body is not a list")
    if tag == "c":
        if len(body) != 2 or any(type(x) not in (int, float) for x in body):
            raise NotPlain("a complex that is not two numbers")
        return complex(body[0], body[1])
    return _container(tag, _items(body, depth))


def _items(data: list, depth: int) -> list:
    """``from_json`` of each member of a list, the deadline looked at every ``_CHECK_EVERY`` members (``OverBudget``):
    a reply of millions of small members costs the program's budget, not the harness's time beyond it."""
    out = []
    for i, v in enumerate(data):
        if i % _CHECK_EVERY == 0:
            _spend()
        out.append(from_json(v, depth + 1))
    return out


def _container(tag: str, items: list):
    """A tuple, set, frozenset or dict of decoded ``items``."""
    try:
        if tag == "t":
            return tuple(items)
        if tag == "d" and any(type(kv) is not list or len(kv) != 2 for kv in items):
            raise NotPlain("a dict item that is not a pair")
        pairs: dict = {}
        members: set = set()
        for i, item in enumerate(items):  # one at a time, the deadline looked at as it goes (``OverBudget``)
            if i % _CHECK_EVERY == 0:
                _spend()
            if tag == "d":
                pairs[item[0]] = item[1]
            else:
                members.add(item)
        return pairs if tag == "d" else frozenset(members) if tag == "f" else members
    except TypeError as exc:  # an unhashable key or member
        raise NotPlain(str(exc)) from None


def encode(value) -> bytes:
    return json.dumps(to_json(value), allow_nan=True).encode("utf-8")


def decode(raw: bytes):
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise NotPlain(f"a message that is not JSON ({type(exc).__name__})") from None
    return from_json(data)


def write_frame(fd: int, payload: bytes, wait=None) -> None:
    """Send one message on ``fd``. ``wait(fd)``, when given, is called before every write and returns once ``fd`` is
    writable: a reader that stops reading a large message (a pipe holds 64 KiB) and computes is still watched while
    the writer waits (``fd`` is then non-blocking, so a write never blocks past the watch)."""
    if len(payload) > MAX_FRAME:
        raise NotPlain(f"a message of {len(payload)} bytes (at most {MAX_FRAME})")
    data = memoryview(struct.pack(">I", len(payload)) + payload)
    if wait is not None:
        os.set_blocking(fd, False)
    while data:
        if wait is not None:
            wait(fd)
        try:
            data = data[os.write(fd, data):]
        except BlockingIOError:
            continue


def _read_exactly(fd: int, n: int, wait=None) -> bytes | None:
    chunks, left = [], n
    while left:
        if wait is not None:
            wait(fd)  # until ``fd`` has bytes to read (the harness watches the writer's CPU clock meanwhile)
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, wait=None) -> bytes | None:
    """The next message on ``fd``, or None at its end (the writer is gone); ``NotPlain`` for an oversized one.
    ``wait(fd)``, when given, is called before every read and returns once ``fd`` is readable: a writer that sends
    part of a frame and then computes is still watched while the reader waits for the rest."""
    head = _read_exactly(fd, 4, wait)
    if head is None:
        return None
    (size,) = struct.unpack(">I", head)
    if size > MAX_FRAME:
        raise NotPlain(f"a message of {size} bytes (at most {MAX_FRAME})")
    return _read_exactly(fd, size, wait)
