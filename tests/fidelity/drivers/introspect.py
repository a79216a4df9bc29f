"""How a hermes_tools module is described for comparison, the same code on both sides: Hermes'
generated stub (hermes_tools.py driver) and the gateway's module (sent as the text of an
execute_code script by hermes-tools.test.ts)."""

import inspect


def _name(annotation):
    return getattr(annotation, "__name__", str(annotation))


def describe(fn):
    """A function's inspect.signature: each parameter's name, kind, default and annotation."""
    sig = inspect.signature(fn)
    params = []
    for p in sig.parameters.values():
        params.append({
            "name": p.name,
            "kind": p.kind.name,
            "default": None if p.default is inspect.Parameter.empty else repr(p.default),
            "has_default": p.default is not inspect.Parameter.empty,
            "annotation": None if p.annotation is inspect.Parameter.empty else _name(p.annotation),
        })
    ret = sig.return_annotation
    return {"parameters": params, "returns": None if ret is inspect.Signature.empty else _name(ret)}


def public_functions(module):
    """The functions the module itself defines whose names do not start with an underscore."""
    return sorted(n for n, f in vars(module).items() if inspect.isfunction(f) and not n.startswith("_") and f.__module__ == module.__name__)
