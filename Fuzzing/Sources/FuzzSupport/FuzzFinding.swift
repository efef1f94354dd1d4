#if canImport(Glibc)
import Glibc
#endif

/// Stops the fuzzer at a finding: prints what differs and crashes, so libFuzzer saves the input.
public func fuzzFinding(_ message: @autoclosure () -> String) -> Never {
    var text = "FINDING: \(message())\n"
    text.withUTF8 { buffer in _ = write(2, buffer.baseAddress, buffer.count) }
    fatalError("fuzz finding")
}
