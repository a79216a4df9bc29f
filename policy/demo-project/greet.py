"""A tiny module for the demo project: one function and its tests (test_greet.py)."""


def greet(name: str) -> str:
    """A greeting for `name`; an empty or blank name is greeted as "world"."""
    return f"Hello, {name.strip() or 'world'}!"


if __name__ == "__main__":
    print(greet("demo"))
