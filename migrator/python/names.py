"""Facts about Python names that the analysis, the fork index, release fitting and the probes
share, one home each: which exceptions catch a failed import, a class's ancestors, a
module's ``__all__``, its function definitions."""

from __future__ import annotations

import ast
from collections import deque

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterable, Iterator

#: The exception names a handler catches a failed import statement with: ``ImportError``
#: (``ModuleNotFoundError`` is one) or a base class of it. A fallback for an import needs one.
#: The failed-import exceptions themselves: a ``try`` whose handler names one of these is a
#: written fallback (``migrator.python.fallbacks``); a broad ``except Exception`` is not one.
IMPORT_ERROR_NAMES = frozenset({"ImportError", "ModuleNotFoundError"})
IMPORT_ERRORS = IMPORT_ERROR_NAMES | {"Exception", "BaseException"}
#: What a reference to a name that a release lacks raises: an import error, or
#: ``AttributeError`` for ``module.Name`` and a removed member (the shim's removed-attribute
#: error is one). A version guard, and an optional reference in ``verify``, catch either.
MISSING_NAME_ERRORS = IMPORT_ERRORS | {"AttributeError"}
#: The statements with ``except`` handlers: ``try``, and ``try``/``except*`` from Python 3.11.
TRY_STATEMENTS: tuple[type[ast.stmt], ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))


#: The fields of the statements that hold statements: a definition is a statement, so these
#: are all a search for definitions needs to visit.
_STATEMENT_BODIES: dict[type[ast.AST], tuple[str, ...]] = {
    **dict.fromkeys((ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.With, ast.AsyncWith,
                     ast.ExceptHandler, ast.match_case), ("body",)),
    **dict.fromkeys((ast.If, ast.For, ast.AsyncFor, ast.While), ("body", "orelse")),
    **dict.fromkeys(TRY_STATEMENTS, ("body", "handlers", "orelse", "finalbody")),
    ast.Match: ("cases",),
}


def function_definitions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Every function and method definition of the module, nested ones too, in ``ast.walk``'s
    order (breadth first, fields in their order: a statement's ancestors are all statements,
    so its depth is the same in both walks), which a TODO naming several keeps. Only
    statement bodies are searched (``ast.walk`` would visit every expression of a large
    module, and a lint asks this of every module with findings)."""
    queue: deque[ast.AST] = deque(tree.body)
    while queue:
        node = queue.popleft()
        fields = _STATEMENT_BODIES.get(type(node))
        if fields is None:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node
        for field in fields:
            queue.extend(getattr(node, field))


def parameter_names(arguments: ast.arguments) -> list[str]:
    """The named parameters of a signature, in order: positional-only, positional or keyword,
    keyword-only (not ``*args``/``**kwargs``)."""
    return [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]


def catches(handler: ast.ExceptHandler, errors: frozenset[str]) -> bool:
    """Whether ``handler`` catches one of ``errors``, named bare or as an attribute
    (``except (ValueError, builtins.ImportError)``): the one reading of a handler's types. A
    bare ``except:`` catches everything; a caller that wants it named tests ``handler.type``."""
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any((getattr(kind, "id", None) or getattr(kind, "attr", None)) in errors for kind in kinds)


def class_ancestors(qualname: str, bases_of: Callable[[str], Iterable[str]]) -> frozenset[str]:
    """``qualname`` and every class it derives from through ``bases_of`` (cycles end): the
    one ancestor walk, for a file's analysis and for the fork index."""
    seen: set[str] = set()
    stack = [qualname]
    while stack:
        current = stack.pop()
        if current not in seen:
            seen.add(current)
            stack.extend(bases_of(current))
    return frozenset(seen)


def all_assignments(tree: ast.Module) -> list[tuple[bool, tuple[str, ...]]]:
    """Every module-level assignment to ``__all__`` of a list or tuple, in order: (``+=``,
    its strings). The one reader of ``__all__``; each caller decides how they combine."""
    found: list[tuple[bool, tuple[str, ...]]] = []
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
            targets = [statement.target]
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            continue
        if isinstance(statement.value, (ast.List, ast.Tuple)):
            found.append((isinstance(statement, ast.AugAssign), tuple(
                e.value for e in statement.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))))
    return found


def all_names(tree: ast.Module) -> tuple[str, ...] | None:
    """The strings of a module-level ``__all__`` as Python ends with them: a plain assignment
    replaces what came before, ``+=`` extends it (None: no ``__all__``)."""
    names: list[str] | None = None
    for extends, strings in all_assignments(tree):
        names = [*(names or []), *strings] if extends else list(strings)
    return tuple(names) if names is not None else None
