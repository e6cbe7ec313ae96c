/* vmtest: gives the 4 vCPUs of a QEMU x86 guest an ACPI _CST so acpi_idle registers
 * cpuidle states; run.sh compiles it and loads it from the initrd (ACPI table upgrade).
 * All three are FFixedHW entries of type C1, which acpi_idle enters with HLT ("ACPI HLT"):
 * SystemIO C2/C3 (an inb) return at once under QEMU, so the vCPU spins through hundreds of
 * thousands of periods a second, the test takes 5x longer and their residency means nothing.
 * Latencies 1, 50, 400 us give target residencies 2, 100, 800 us (latency_factor 2). */
DefinitionBlock ("", "SSDT", 2, "VMTEST", "CSTTABLE", 1) {
  External (\_SB.CPUS.C000, DeviceObj)
  External (\_SB.CPUS.C001, DeviceObj)
  External (\_SB.CPUS.C002, DeviceObj)
  External (\_SB.CPUS.C003, DeviceObj)
  Scope (\_SB.CPUS.C000) {
    Name (_CST, Package () { 3,
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 1, 1000 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 50, 500 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 400, 100 }
    })
  }
  Scope (\_SB.CPUS.C001) {
    Name (_CST, Package () { 3,
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 1, 1000 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 50, 500 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 400, 100 }
    })
  }
  Scope (\_SB.CPUS.C002) {
    Name (_CST, Package () { 3,
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 1, 1000 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 50, 500 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 400, 100 }
    })
  }
  Scope (\_SB.CPUS.C003) {
    Name (_CST, Package () { 3,
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 1, 1000 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 50, 500 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 400, 100 }
    })
  }
}
