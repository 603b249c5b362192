"""The repository stands alone: licence, changelog, buf.gen.yaml, the proto file
options other languages' generators read, and one version everywhere."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

import referee
from referee import cli_help

ROOT = Path(__file__).resolve().parent.parent
PROTOS = sorted((ROOT / "protos" / "referee" / "v1").glob("*.proto"))
BIN = Path(sys.executable).parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: Options every file of the package sets, with one value for all (buf lint PACKAGE_SAME_*).
SAME_OPTIONS = (
    "csharp_namespace",
    "go_package",
    "java_multiple_files",
    "java_package",
    "objc_class_prefix",
    "php_namespace",
    "ruby_package",
    "swift_prefix",
)


def test_licence_is_the_one_pyproject_names() -> None:
    assert PYPROJECT["project"]["license"] == {"text": "MIT"}
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text


def test_one_version_everywhere() -> None:
    version = PYPROJECT["project"]["version"]
    assert referee.__version__ == version
    assert (
        cli_help.version_text("referee") == f"referee {version} (game-referee, protocol referee.v1)"
    )
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "## [Unreleased]" in changelog
    released = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", changelog, flags=re.M)
    assert released and released[0] == version


def _options(path: Path) -> dict[str, str]:
    return dict(re.findall(r"^option (\w+) = (.+);$", path.read_text(encoding="utf-8"), re.M))


def test_proto_files_name_their_packages_for_other_languages() -> None:
    found = {path.name: _options(path) for path in PROTOS}
    assert len(found) == 5
    first = found["referee.proto"]
    for name, options in found.items():
        for option in SAME_OPTIONS:
            assert options.get(option) == first[option], (name, option)
        outer = options["java_outer_classname"].strip('"')
        assert outer == "".join(w.title() for w in Path(name).stem.split("_")) + "Proto"
    assert first["go_package"].endswith(';refereev1"')
    assert first["java_multiple_files"] == "true"


def test_generated_python_carries_the_options() -> None:
    from referee.v1 import referee_pb2

    options = referee_pb2.DESCRIPTOR.GetOptions()
    assert options.java_package == "org.gamereferee.referee.v1"
    assert options.csharp_namespace == "GameReferee.Referee.V1"


def test_buf_gen_yaml_is_a_v2_template_for_protos(tmp_path: Path) -> None:
    template = yaml.safe_load((ROOT / "buf.gen.yaml").read_text(encoding="utf-8"))
    assert template["version"] == "v2"
    assert template["inputs"] == [{"directory": "protos"}]
    plugins = template["plugins"]
    languages = {plugin["out"].split("/")[1] for plugin in plugins}
    assert {"go", "java", "csharp"} <= languages
    assert all(plugin["out"].startswith("gen/") for plugin in plugins)
    assert not [plugin for plugin in plugins if "remote" in plugin], "no hosted plugin"
    assert "/gen/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    # The same template with one local plugin shows that buf reads it and finds the protos
    # (protoc-gen-mypy is a dev dependency).
    buf, mypy_plugin = BIN / "buf", BIN / "protoc-gen-mypy"
    if not buf.exists() or not mypy_plugin.exists():
        pytest.skip("buf or protoc-gen-mypy not installed")
    template["plugins"] = [{"local": str(mypy_plugin), "out": str(tmp_path / "out")}]
    local = tmp_path / "buf.gen.yaml"
    local.write_text(yaml.safe_dump(template), encoding="utf-8")
    subprocess.run(
        [str(buf), "generate", "--template", str(local)], cwd=ROOT, check=True, timeout=120
    )
    assert (tmp_path / "out" / "referee" / "v1" / "referee_pb2.pyi").is_file()


def test_buf_breaking_holds_v1_to_its_baseline(tmp_path: Path) -> None:
    """`make lint` runs buf breaking against the committed baseline (docs/versioning.md): the
    protos pass, and a field renamed in a copy of them does not."""
    buf = BIN / "buf"
    if not buf.exists():
        pytest.skip("buf not installed")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "buf breaking --against breaking-baseline.binpb" in makefile
    baseline = ROOT / "protos" / "breaking-baseline.binpb"
    command = [str(buf), "breaking", "--against", str(baseline)]
    subprocess.run(command, cwd=ROOT / "protos", check=True, timeout=120)
    copy = tmp_path / "protos"
    subprocess.run(["cp", "-r", str(ROOT / "protos"), str(copy)], check=True)
    service = copy / "referee" / "v1" / "referee.proto"
    text = service.read_text(encoding="utf-8")
    service.write_text(text.replace("string game_type = 1;", "string game_kind = 1;", 1))
    broken = subprocess.run(command, cwd=copy, capture_output=True, text=True, timeout=120)
    assert broken.returncode != 0
    assert "game_type" in broken.stdout + broken.stderr


def test_every_request_and_response_field_says_its_behaviour() -> None:
    """google.api.field_behavior on every field of every call's request (REQUIRED or
    OPTIONAL) and response (OUTPUT_ONLY): docs/versioning.md's promise that a field's
    requiredness does not change rests on it being written down."""
    from google.api import field_behavior_pb2

    from referee.v1 import referee_pb2

    service = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
    required = []
    for method in service.methods:
        for message, allowed in (
            (method.input_type, {field_behavior_pb2.REQUIRED, field_behavior_pb2.OPTIONAL}),
            (method.output_type, {field_behavior_pb2.OUTPUT_ONLY}),
        ):
            for field in message.fields:
                behaviour = list(field.GetOptions().Extensions[field_behavior_pb2.field_behavior])
                assert len(behaviour) == 1 and behaviour[0] in allowed, field.full_name
                if behaviour[0] == field_behavior_pb2.REQUIRED:
                    required.append(field.full_name)
    assert "referee.v1.SubmitCommandRequest.command_id" in required
    assert "referee.v1.ListGamesRequest.page_size" not in required
