"""A file tool's schema as Hermes' registry renders it (tools/registry.py get_definitions: the static
schema with its dynamic overrides, e.g. patch's V4A layer for OpenAI-family main models), for the
fidelity schema cases: its property names, in order, and its required ones, sorted."""

from tools.registry import registry


def schema_summary(name):
    import tools.file_tools  # noqa: F401  (registers the file tools)

    definitions = registry.get_definitions({name}, quiet=True)
    if definitions:
        rendered = definitions[0].get("function", definitions[0])
        parameters = rendered.get("parameters") or {}
    else:  # the tool's requirements check failed here: its static schema
        parameters = (registry.get_schema(name) or {}).get("parameters") or {}
    return {"properties": list((parameters.get("properties") or {}).keys()),
            "required": sorted(parameters.get("required") or [])}
