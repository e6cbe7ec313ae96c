/* vmtest: the ACPI _CST that gives the vCPUs of a QEMU x86 guest acpi_idle cpuidle states;
 * run.sh compiles it and loads it from the initrd (ACPI table upgrade), with a second table it
 * writes for the guest's CPU count: one "Method (_CST) { Return (\_SB.VCST) }" per processor
 * object \_SB.CPUS.C000, C001, ... (QEMU names them C%03X), all returning this one package.
 * All three are FFixedHW entries of type C1, which acpi_idle enters with HLT ("ACPI HLT"):
 * SystemIO C2/C3 (an inb) return at once under QEMU, so the vCPU spins through hundreds of
 * thousands of periods a second, the test takes 5x longer and their residency means nothing.
 * Latencies 1, 50, 400 us give target residencies 2, 100, 800 us (latency_factor 2). */
DefinitionBlock ("", "SSDT", 2, "VMTEST", "CSTTABLE", 1) {
  Scope (\_SB) {
    Name (VCST, Package () { 3,
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 1, 1000 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 50, 500 },
      Package () { ResourceTemplate () { Register (FFixedHW, 0, 0, 0) }, 1, 400, 100 }
    })
  }
}
