// The declaration in FuzzDriver.h is all this target carries: libFuzzer (linked by -sanitize=fuzzer)
// defines the function. A C target needs one source file.
#include "FuzzDriver.h"
