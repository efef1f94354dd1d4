// libFuzzer's driver, called from a harness's own `main` (SwiftPM gives a Swift executable its entry
// point under another name, so libFuzzer's `main` cannot be the program's).

#ifndef MOONBLADE_FUZZ_DRIVER_H
#define MOONBLADE_FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the program's arguments on `test`, as libFuzzer's own `main` would.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

#endif
