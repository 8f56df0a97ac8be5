"""The sha256 of the sglang wheels this tool downloads from PyPI (``migrator.releases.wheels``),
one per release the catalog knows (``catalog.RELEASES`` is read from it): the wheel pip
picks for CPython 3.11 on x86-64 Linux (``py3-none-any`` where a release has one). A cached wheel of that name whose bytes differ
is refused, whoever put it in the cache; wheels of other names (another Python, another
platform) are checked against the hash recorded when they were downloaded.
``tests/test_catalog_truth.py`` checks this table against the wheels PyPI serves.
"""

from __future__ import annotations

WHEEL_SHA256: dict[str, str] = {
    "sglang-0.5.8-py3-none-any.whl":
        "b7fbd890f6edd87f46c6e3ce72d592316af316f183c9bd999c3cc44b20fa2451",
    "sglang-0.5.9-py3-none-any.whl":
        "8a936c4d25fea605f44254e533cff2144c73ceffbc1f8738aba393461bbb64d1",
    "sglang-0.5.10-py3-none-any.whl":
        "ac8855a5d57dac8831fee526bca5212f1ae451f378e2ab08b3baecbc4deb4076",
    "sglang-0.5.11-cp311-cp311-manylinux_2_34_x86_64.whl":
        "fe0748beaff218d3e16c9018a5e19f018db06fc3c7ac4f90d2f93da1cf074b6f",
    "sglang-0.5.12-cp311-cp311-manylinux_2_34_x86_64.whl":
        "4ed786a38655851fd055ef57380c34d29b87753b53f63457309f51e5bf48c2e6",
    "sglang-0.5.13-cp311-cp311-manylinux_2_34_x86_64.whl":
        "9d26266ab7e99165098f9e173f4a5a0ef6a0b64a6f30ef0b5ee859eead37e75a",
    "sglang-0.5.14-cp311-cp311-manylinux_2_34_x86_64.whl":
        "4fe16056b45c8aca00f5f90ceb174dc3a62a3f5dccf159c791370795cd00fc99",
    "sglang-0.5.15-cp311-cp311-manylinux_2_34_x86_64.whl":
        "21492759b4b99e117bd81610f633422f3fdae2896c2cde6931eab886deccc44f",
    "sglang-0.5.16-cp311-cp311-manylinux_2_34_x86_64.whl":
        "d5f345a18953dd35df568ac56bdcb7f5ee910ab39efea4469b714556d1070713",
    "sglang-0.5.17-cp311-cp311-manylinux_2_34_x86_64.whl":
        "575e38f5683624ded3b4bb267f637a098e5ed37d13a1d1ff5ea09bd781a04d16",
    "sglang-0.5.18-cp311-cp311-manylinux_2_34_x86_64.whl":
        "e97b585dd2d5db2802599feba47c84cce972f5e1231a6816fef996200207b5cf",
    "sglang-0.5.19-cp311-cp311-manylinux_2_34_x86_64.whl":
        "425e87377e725d03db8262382008f3fd9561a6cf5d82f485f8b9929f02ffe12b",
    "sglang-0.5.20-cp311-cp311-manylinux_2_34_x86_64.whl":
        "1573527042f4f6b4ead838302818595fc77fdc611dbcc2e40cd150fbc8f8513c",
    "sglang-0.5.21-cp311-cp311-manylinux_2_34_x86_64.whl":
        "96c029f75dec99baa33a5db3d41b1bebefdd6bcfba3a2f7c807fe1cf49a87c20",
    "sglang-0.5.22-cp311-cp311-manylinux_2_34_x86_64.whl":
        "cc9a0f15bd8f877a0584fdb7a1702240177a1f1cc8d17c978715161717b9037b",
    "sglang-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl":
        "00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937",
}

#: The release of each wheel above (``sglang-0.5.14-cp311-...whl`` -> ``0.5.14``): the releases
#: the catalog knows (``catalog.RELEASES``). Adding a release is adding its wheel here.
WHEEL_RELEASES: tuple[str, ...] = tuple(name.split("-")[1] for name in WHEEL_SHA256)
