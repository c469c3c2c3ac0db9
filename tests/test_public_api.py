"""The package uses only the public interfaces of the kernel machinery it builds on (issue 64, item 1): no name with a
leading underscore of jupyter_client, nbclient, papermill, ipykernel or CPython's ``atexit`` is imported, read,
called or overridden anywhere in ``src/helpers``.

Two scans, each told apart from the project's own private names without an allow-list:

- the source (``ast``): an import of a private name or module of those packages; an attribute with a leading
  underscore read through a name bound to one of them (``atexit._run_exitfuncs``, ``jupyter_client.manager._x``);
  ``super()._name`` (a base class's private method), anywhere;
- the classes (imported): in every class of the package whose bases include one of those packages' classes (the kernel
  manager, a mixin of it, the provisioner), a private name it defines that a base of theirs defines too (an override),
  and ``self._name`` read where no class of the package in its bases defines or assigns ``_name`` (the base's own).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("jupyter_client", "nbclient", "papermill", "ipykernel", "atexit")


def private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def theirs(module: str) -> bool:
    return module.split(".")[0] in PACKAGES


def bound_names(tree: ast.AST) -> set[str]:
    """The names a module binds to those packages or to anything imported from them."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update((a.asname or a.name.split(".")[0]) for a in node.names if theirs(a.name))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and theirs(node.module or ""):
            names.update(a.asname or a.name for a in node.names)
    return names


def source_uses(text: str) -> list[str]:
    """Every use of a private name of those packages the source shows, as "line: what"."""
    tree = ast.parse(text)
    bound, found = bound_names(tree), []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names
                      if theirs(a.name) and any(private(p) for p in a.name.split("."))]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and theirs(node.module or ""):
            found += [f"{node.lineno}: from {node.module} import {a.name}" for a in node.names
                      if private(a.name) or any(private(p) for p in (node.module or "").split("."))]
        elif isinstance(node, ast.Attribute) and private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
            elif isinstance(root, ast.Call) and isinstance(root.func, ast.Name) and root.func.id == "super":
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def own_and_read(klass: type) -> tuple[set[str], set[str]]:
    """(private names the class's body defines or assigns to ``self``, private names it reads from ``self``); not
    what a metaclass adds to every class (``abc``'s, ``traitlets``'), which is no override of the class's."""
    own: set[str] = set()
    read: set[str] = set()
    try:
        text = textwrap.dedent(inspect.getsource(klass))
    except (OSError, TypeError):  # made by ``type()`` (``kernels.kernel_manager_class``): no body of its own
        return own, read
    body = ast.parse(text).body[0]
    for node in body.body if isinstance(body, ast.ClassDef) else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            own.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                own.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    own = {n for n in own if private(n)}
    for node in ast.walk(body):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                and private(node.attr):
            (own if isinstance(node.ctx, ast.Store) else read).add(node.attr)
    return own, read


def class_uses(klass: type, package: str = "helpers") -> list[str]:
    """The private names of those packages' classes that ``klass`` (or a class of ``package`` among its bases)
    overrides or reads from ``self``, as "Class.name"."""
    ours = [k for k in klass.__mro__ if k.__module__.split(".")[0] == package]
    foreign = [k for k in klass.__mro__ if theirs(k.__module__)]
    if not foreign:
        return []
    seen = {k: own_and_read(k) for k in ours}
    own_everywhere = set().union(*(own for own, _ in seen.values()))
    found = []
    for k, (own, read) in seen.items():
        found += [f"{k.__name__}.{n} overrides {b.__module__}.{b.__name__}.{n}" for n in sorted(own)
                  for b in foreign if n in vars(b)]
        found += [f"{k.__name__} reads self.{n}" for n in sorted(read - own_everywhere)]
    return found


def package_modules() -> dict[str, Path]:
    root = SRC / "helpers"
    return {".".join(p.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__"): p
            for p in sorted(root.rglob("*.py"))}


def test_no_private_name_of_the_kernel_machinery_in_the_source():
    found = [f"{path.relative_to(SRC)}:{use}" for path in package_modules().values()
             for use in source_uses(path.read_text(encoding="utf-8"))]
    assert not found, "private names of jupyter_client/nbclient/papermill/ipykernel/atexit used:\n" + "\n".join(found)


def test_no_class_overrides_or_reads_a_private_name_of_the_kernel_machinery():
    from helpers.core import kernels

    classes = [kernels.kernel_manager_class(keys) for keys in (True, False)]
    for name, path in package_modules().items():
        if bound_names(ast.parse(path.read_text(encoding="utf-8"))):  # a module that uses one of those packages
            module = importlib.import_module(name)
            classes += [c for c in vars(module).values() if inspect.isclass(c) and c.__module__ == name]
    assert any(theirs(b.__module__) for c in classes for b in c.__mro__)  # the scan sees the kernel manager
    found = sorted({use for c in classes for use in class_uses(c)})
    assert not found, "\n".join(found)


def test_the_scans_see_what_the_kernels_used_to_do():
    """The uses issue 64 removed are each found; the project's own private names are not."""
    old = textwrap.dedent("""
        import atexit
        from jupyter_client.manager import KernelManager as _Manager
        from jupyter_client.provisioning.local_provisioner import _private
        class _LocalKernel(_Manager):
            async def launch(self, cmd, **kw):
                await super()._async_launch_kernel(cmd, **kw)
                self._own = 1
                _Manager._reconcile_connection_info(self, {})
        def child():
            atexit._run_exitfuncs()
            helper = _LocalKernel()
            helper._preload()
    """)
    assert sorted(u.split(": ", 1)[1] for u in source_uses(old)) == [
        "_Manager._reconcile_connection_info", "atexit._run_exitfuncs",
        "from jupyter_client.provisioning.local_provisioner import _private", "super()._async_launch_kernel"]

    from jupyter_client.manager import KernelManager
    from jupyter_client.provisioning import LocalProvisioner

    class Mixin:
        async def _async_launch_kernel(self, kernel_cmd, **kw):  # overrides the manager's private hook
            self._reconcile_connection_info({})  # the manager's private method
            self._mine = 1

        def mine(self):
            return self._mine

    class Provisioner(LocalProvisioner):
        def _private_of_ours(self):
            return self._private_of_ours

    assert class_uses(type("M", (Mixin, KernelManager), {}), package=__name__) == [
        "Mixin._async_launch_kernel overrides jupyter_client.manager.KernelManager._async_launch_kernel",
        "Mixin reads self._reconcile_connection_info"]
    assert class_uses(Provisioner, package=__name__) == []
