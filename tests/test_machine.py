"""The machine description stored beside benchmark figures."""

from pdbsearch.machine import machine_info


def test_machine_info_names_cores_cpu_and_versions():
    info = machine_info()
    assert info["cores"] >= 1
    assert info["cpu"] and info["python"].count(".") == 2
    assert info["numba"] and info["numpy"]
    assert info["load_average"] is None or len(info["load_average"]) == 3
