#!/usr/bin/python3
"""Every register, flag bit and field of the register map has a name in the
PCIe transaction log (testbench/cmake/pcie_log.cmake runs this): fails when
one is added to models/common/isvp/register_map.h but not to
models/common/register_names.cpp (registers, ERROR_STATUS bits, fields) or
models/qdma/qdma_formats.cpp (descriptor flags).

  register_names_complete.py REGISTER_MAP_H REGISTER_NAMES_CPP QDMA_FORMATS_CPP
"""

import re
import sys

# Window bases and strides: what lies in them is named entry by entry.
NOT_REGISTERS = {"QUEUE_BASE", "QUEUE_STRIDE", "DOORBELL_BASE", "DOORBELL_STRIDE", "MSIX_ENTRY_BYTES", "MSIX_TABLE", "ACCELERATOR_BASE",
                 "ACCELERATOR_END", "PIO_STRIDE", "KERNEL_BASE", "KERNEL_END", "CGRA_BASE", "CGRA_END",
                 "KERNEL_ARG_BASE", "KERNEL_RESULT_BASE"}
# A field whose decoded name is spelled differently.
FIELD_SPELLING = {"color": "colour"}


def main():
    register_map, names_cpp, formats_cpp = (open(path).read() for path in sys.argv[1:4])
    names = set(re.findall(r'"([A-Za-z0-9_]+)"', names_cpp)) | set(re.findall(r'"([A-Za-z0-9_]+)"', formats_cpp))
    missing = []
    registers = re.findall(r"inline constexpr std::uint32_t ([A-Z][A-Z0-9_]+) =", register_map)
    for name in registers:
        if name in NOT_REGISTERS:
            continue
        candidates = {name, re.sub(r"_BASE$", "", name), re.sub(r"^H2C_", "", name)}
        if not candidates & names:
            missing.append(f"register or bit {name}")
    fields = re.findall(r"inline constexpr Field ([A-Z][A-Z0-9_]+)", register_map)
    for name in fields:
        spelled = FIELD_SPELLING.get(name.lower(), name.lower())
        if spelled not in names:
            missing.append(f"field {name} (decoded as '{spelled}')")
    if missing:
        print("FAIL: register_map.h declares names the PCIe transaction log does not use: " + ", ".join(missing))
        sys.exit(1)
    print(f"{len(registers) - len(NOT_REGISTERS)} registers and bits, {len(fields)} fields named: 1 passed, 0 failed")


if __name__ == "__main__":
    main()
