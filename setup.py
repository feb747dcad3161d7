"""Package discovery: every folder with an `__init__.py` under the project's top-level
folders becomes a subpackage of `hustings`, so a new folder can never be left out.

The metadata lives in pyproject.toml; only the package map is computed here, because
setuptools' own discovery cannot prefix the top-level folders with `hustings.`.
"""

from pathlib import Path

from setuptools import setup

HERE = Path(__file__).parent
TOP_LEVEL = ("dsl", "interpreter", "schemas", "tools", "content")


def package_map() -> dict[str, str]:
    found = {}
    for top in TOP_LEVEL:
        for init in sorted((HERE / top).rglob("__init__.py")):
            folder = init.parent.relative_to(HERE)
            found["hustings." + ".".join(folder.parts)] = folder.as_posix()
    return found


PACKAGES = package_map()
setup(packages=list(PACKAGES), package_dir=PACKAGES)
