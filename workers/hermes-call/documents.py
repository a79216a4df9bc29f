"""Hermes' own document extraction (tools/read_extract.py), for read_file.

``extract``: ``{"path": display path, "data": base64 of the file's bytes}`` -> ``{"text": ...}``, the
Markdown Hermes' ``extract_document_bytes(data, path)`` makes of it (PDF, Office and OpenDocument
files, RTF, EPUB, notebooks, ...). The gateway has already read the bytes under its own path rules,
so Hermes never opens a path here. Hermes' refusal (``ExtractionError``: an unsupported type, a file
too large, a converter that is not installed) is answered as ``{"refused": message}``.
"""

import base64


def handle(op, payload, commit):  # extraction changes nothing: it never commits
    if op != "extract":
        raise KeyError(op)
    from tools.read_extract import ExtractionError, extract_document_bytes

    data = base64.b64decode(payload["data"], validate=True)
    try:
        return {"text": extract_document_bytes(data, payload["path"])}
    except ExtractionError as exc:
        return {"refused": str(exc)}
