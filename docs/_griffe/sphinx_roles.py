"""Sphinx roles in the docstrings (:class:`~a.B`, :func:`f`, ...) as links of the API reference.

The docstrings cross-reference with Sphinx roles, as Optuna's do; mkdocstrings renders Markdown,
where a role would stay literal text. This griffe extension (``mkdocs.yml``, python handler
``extensions``) rewrites every role of a loaded docstring into an optional autorefs link: a link
when the site documents the target, plain code otherwise, without a warning. Names are resolved in
the docstring's scope, as Sphinx resolves them (``:class:`CoreSampler``` in a module that imports
it links to its definition); ``~`` shows the last component only, as in Sphinx.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj):`(?P<target>[^`]+)`")


def resolve(obj: griffe.Object, target: str) -> str:
    """The full path of ``target`` (``"Observations.cleaned"``, ``"shared_core.registry"``)
    seen from ``obj``; ``target`` itself if its first component is not in scope."""
    head, _, rest = target.partition(".")
    try:
        path = obj.resolve(head)
    except griffe.NameResolutionError:
        return target
    return f"{path}.{rest}" if rest else path


def link(obj: griffe.Object, role: re.Match[str]) -> str:
    """The autorefs element for one role."""
    target = role["target"].strip()
    if explicit := re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>", target):
        title, target = explicit["title"], explicit["target"]
    else:
        title = target.lstrip("~")
        title = title.rsplit(".", 1)[-1] if target.startswith("~") else title
        target = target.lstrip("~")
    identifier = html.escape(resolve(obj, target.lstrip(".")), quote=True)
    code = f"<code>{html.escape(title)}</code>"
    return f'<autoref identifier="{identifier}" optional>{code}</autoref>'


def rewrite(obj: griffe.Object, text: str) -> str:
    """``text`` with its Sphinx roles replaced by autorefs elements."""
    return ROLE.sub(lambda role: link(obj, role), text)


def rewrite_all(obj: griffe.Object) -> None:
    """Rewrite the docstrings of ``obj`` and of its members, recursively (aliases are rewritten
    where they are defined)."""
    if obj.docstring is not None:
        obj.docstring.value = rewrite(obj, obj.docstring.value)
    for member in obj.members.values():
        if not member.is_alias:
            rewrite_all(member)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring once a package is loaded (its names then resolve)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:  # griffe >= 2
        rewrite_all(pkg)

    def on_package_loaded(self, *, pkg: griffe.Module, **kwargs: Any) -> None:  # griffe 1
        rewrite_all(pkg)
