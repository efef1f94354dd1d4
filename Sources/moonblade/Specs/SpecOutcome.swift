import MoonbladeTesting

/// A spec case and how its run ended, as `moonblade test` reports it.
struct SpecOutcome {
    var specCase: LuaSpecCase
    var result: LuaSpecResult

    /// Whether the case did not fail: it passed, or is pending.
    var passed: Bool { failure == nil }

    var isPending: Bool { result == .pending }

    /// Why the case failed, or nil if it passed.
    var failure: LuaSpecFailure? {
        guard case .failed(let failure) = result else { return nil }
        return failure
    }

    /// `ok   counter: counter.reset sets the counter to zero`, `pend <case>` for a pending one, or
    /// `FAIL todo: … — <file>:<line>: <message>` with the rest of a several-line message (an
    /// assertion's expected and actual values) indented below.
    var report: String {
        if isPending { return "pend \(specCase.name)" }
        guard let failure else { return "ok   \(specCase.name)" }
        return "FAIL \(specCase.name) — \(failure)"
            .split(separator: "\n", omittingEmptySubsequences: false)
            .joined(separator: "\n     ")
    }
}
