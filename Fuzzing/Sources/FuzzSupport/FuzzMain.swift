import FuzzDriver

/// Runs libFuzzer on `test` with the command line's flags and corpus folders; returns its exit status.
public func runFuzzer(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt {
    var argc = CommandLine.argc
    // libFuzzer reads the array and may reorder it, never frees it: the process's own argv will do.
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    return LLVMFuzzerRunDriver(&argc, &argv, test)
}
