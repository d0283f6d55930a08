#!/usr/bin/env python3
"""Validate a JSON document against a JSON schema (draft 4 or later).

usage: validate_json.py SCHEMA DOCUMENT

Exit 0 when valid; 1 with each violation on stderr (its path in the
document and the schema's message); 2 when a file cannot be read.
"""
import json
import sys

import jsonschema


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    try:
        with open(argv[1], encoding="utf-8") as f:
            schema = json.load(f)
        with open(argv[2], encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"validate_json: {e}", file=sys.stderr)
        return 2
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errors:
        where = "/" + "/".join(str(p) for p in e.absolute_path)
        print(f"{argv[2]}: {where}: {e.message}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
