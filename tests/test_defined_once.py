"""E124: a procedure, function or reaction defined in two rules files of a pack. Which
one counted used to depend on the order the files were read in, and `check` said
nothing; now the second definition is refused where it is written, naming the first."""

from __future__ import annotations

import pytest
from minipack import make_pack

from hustings.dsl.loading import check_pack

DEFINITIONS = {
    "procedure": "procedures:\n  helper:\n    body: |\n      say \"{n}\"\n",
    "function": "functions:\n  helper:\n    params: [x]\n    expr: x * {n}\n",
    "reaction": ("reactions:\n  helper:\n    whenever: scored\n    body: |\n"
                 "      say \"{n}\"\n"),
}


@pytest.mark.parametrize("kind", sorted(DEFINITIONS))
def test_a_name_defined_in_two_rules_files_is_refused_at_the_second(tmp_path, kind):
    text = DEFINITIONS[kind]
    pack = make_pack(tmp_path, rules={"rules/20-a.yaml": text.replace("{n}", "2"),
                                      "rules/30-b.yaml": text.replace("{n}", "3")})
    found = [d for d in check_pack(pack).report.diagnostics if d.code == "E124"]
    assert [d.message for d in found] == [
        f"{kind} 'helper' is defined again; it is already defined at "
        f"{pack / 'rules' / '20-a.yaml'}:2:3"]
    assert found[0].source.path.endswith("30-b.yaml")
    assert (found[0].source.line, found[0].source.column) == (2, 3)


@pytest.mark.parametrize("kind", sorted(DEFINITIONS))
def test_one_definition_is_fine(tmp_path, kind):
    pack = make_pack(tmp_path, rules={"rules/20-a.yaml": DEFINITIONS[kind].replace("{n}", "2")})
    assert [d.code for d in check_pack(pack).report.errors] == []
