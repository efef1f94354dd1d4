import Foundation

/// `luac5.4` on the PATH, if installed (Scripts/bootstrap installs Debian's `lua5.4` for it).
public let luacPath: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
    .split(separator: ":").map { "\($0)/luac5.4" }
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// Compiles `source` with `luac5.4 -p`; returns its complaint, or nil when it compiles.
public func luacComplaint(about source: String) throws -> String? {
    let scratch = ScratchDirectory()
    let file = scratch.url.appendingPathComponent("definitions.lua")
    try source.write(to: file, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: luacPath!)
    process.arguments = ["-p", file.path]
    let errors = Pipe()
    process.standardError = errors
    try process.run()
    let complaint = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return process.terminationStatus == 0 ? nil : String(decoding: complaint, as: UTF8.self)
}
