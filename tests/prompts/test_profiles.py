"""Model profiles: built-ins, user files (TOML/YAML), errors."""

from __future__ import annotations

import pytest

from ramseygadgets.prompts.profiles import (
    BUILTIN_PROFILES,
    ModelProfile,
    ProfileError,
    get_profile,
    load_profiles,
    profile_for_model,
)


def test_builtin_profiles_match_the_paper():
    assert set(BUILTIN_PROFILES) == {
        "default",
        "llama-3.1-8b",
        "gemma-4-31b",
        "gpt-oss-120b",
        "qwen3-235b",
        "deepseek-r1",
    }
    assert all(p.max_tokens == 32768 for p in BUILTIN_PROFILES.values())
    llama = get_profile("llama-3.1-8b")
    assert (llama.temperature, llama.top_p, llama.system_prompt) == (0.6, 0.9, True)
    qwen = get_profile("qwen3-235b")
    assert (qwen.temperature, qwen.top_p, qwen.top_k, qwen.repetition_penalty) == (
        0.7,
        0.8,
        20,
        1.05,
    )
    r1 = get_profile("deepseek-r1")
    assert (r1.temperature, r1.top_p, r1.system_prompt, r1.assistant_prefix) == (
        0.6,
        0.95,
        False,
        "<think>\n",
    )
    assert get_profile("gemma-4-31b").system_prefix == ("<|think|>",)
    oss = get_profile("gpt-oss-120b")
    assert (oss.temperature, oss.top_p, oss.reasoning_effort) == (1.0, 1.0, "high")
    default = get_profile(None)
    assert default.name == "default" and default.request_params() == {"max_tokens": 32768}


def test_model_ids_select_profiles():
    assert profile_for_model("meta-llama/Llama-3.1-8B-Instruct").name == "llama-3.1-8b"
    assert profile_for_model("deepseek-ai/DeepSeek-R1-0528").name == "deepseek-r1"
    assert profile_for_model("some/unknown-model").name == "default"
    assert get_profile("google/gemma-4-31b-it").name == "gemma-4-31b"


def test_request_and_sampling_params():
    qwen = get_profile("qwen3-235b")
    assert qwen.request_params() == {
        "max_tokens": 32768,
        "temperature": 0.7,
        "top_p": 0.8,
        "extra_body": {"top_k": 20, "repetition_penalty": 1.05},
    }
    assert qwen.sampling_params() == {
        "temperature": 0.7,
        "top_p": 0.8,
        "top_k": 20,
        "repetition_penalty": 1.05,
        "max_tokens": 32768,
    }


def test_user_profiles_from_toml_and_yaml(tmp_path):
    toml = tmp_path / "p.toml"
    toml.write_text(
        '[profiles.mine]\nbase = "deepseek-r1"\nmodels = ["my-org/*"]\ntemperature = 0.3\n'
        "chat_template_kwargs = { enable_thinking = true }\n"
    )
    mine = load_profiles(toml)["mine"]
    assert (mine.temperature, mine.top_p, mine.system_prompt) == (0.3, 0.95, False)
    assert mine.request_params()["extra_body"] == {
        "chat_template_kwargs": {"enable_thinking": True}
    }
    assert get_profile("my-org/model-x", profiles_file=toml).name == "mine"
    yml = tmp_path / "p.yaml"
    yml.write_text("llama-3.1-8b:\n  temperature: 0.1\n  top_p: 0.5\n")
    assert get_profile("llama-3.1-8b", profiles_file=yml).temperature == 0.1  # user files override


@pytest.mark.parametrize(
    "content, suffix, words",
    [
        ("[profiles.x]\ntemperature = -1\n", ".toml", "temperature"),
        ("[profiles.x]\nbogus = 1\n", ".toml", "bogus"),
        ("[profiles.x]\nbase = 'nope'\n", ".toml", "unknown base"),
        ("[profiles.x\n", ".toml", "not valid TOML"),
        ("x: [1, 2\n", ".yaml", "not valid YAML"),
        ("x: 3\n", ".yml", "must be a table"),
        ("", ".json", "must end in"),
    ],
)
def test_bad_profile_files_raise_one_clear_error(tmp_path, content, suffix, words):
    path = tmp_path / f"profiles{suffix}"
    path.write_text(content)
    with pytest.raises(ProfileError, match=words):
        load_profiles(path)


def test_unknown_profile_suggests_names(tmp_path):
    with pytest.raises(ProfileError, match="did you mean gemma-4-31b"):
        get_profile("gemma")
    with pytest.raises(ProfileError, match="cannot read"):
        load_profiles(tmp_path / "missing.toml")
    assert isinstance(get_profile(ModelProfile(name="inline")), ModelProfile)
