import MoonbladeTesting

/// A spec case and how its run ended, as `moonblade test` reports it.
struct SpecOutcome {
    var specCase: LuaSpecCase
    var result: LuaSpecResult

    var passed: Bool { result == .passed }

    /// Why the case failed, or nil if it passed.
    var failure: LuaSpecFailure? {
        guard case .failed(let failure) = result else { return nil }
        return failure
    }

    /// `ok   counter: counter.reset sets the counter to zero`, or `FAIL todo: … — <file>:<line>: <message>`
    /// with the rest of a several-line message (an assertion's expected and actual values) indented below.
    var report: String {
        guard let failure else { return "ok   \(specCase.name)" }
        return "FAIL \(specCase.name) — \(failure)"
            .split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\n     ")
    }
}
