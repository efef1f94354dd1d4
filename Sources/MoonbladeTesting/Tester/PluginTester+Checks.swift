import CustomDump
import Testing

extension PluginTester {
    /// Checks that the change of `record`, the item `name`, is the one `expected` describes (see
    /// ``Exhaustivity``).
    func check(
        _ record: ItemRecord<S>, named name: String, _ expected: ((inout S) throws -> Void)?, sourceLocation: SourceLocation
    ) {
        var expectedState = exhaustivity == .on ? record.before : record.after
        do {
            try expected?(&expectedState)
        } catch {
            fail("the assertion closure for \(name) threw: \(error)", at: sourceLocation)
            return
        }
        let problem: String
        if expectedState != record.after {
            problem =
                if expected == nil { "\(name) changed the state, but no change was expected" } else if record.before == record.after {
                    "\(name) was expected to change the state, but it did not"
                } else { "the state after \(name) does not match the expectation" }
        } else if exhaustivity == .on, expected != nil, record.before == record.after {
            fail(
                "\(name) was expected to change the state, but it did not, and the assertion closure "
                    + "changed nothing either; omit the closure when no change is expected", at: sourceLocation)
            return
        } else {
            return
        }
        let difference = diff(expectedState, record.after).map { "\n\n\($0)" } ?? ""
        fail("\(problem): (−expected +actual)\(difference)", at: sourceLocation)
    }

    func fail(_ message: String, at sourceLocation: SourceLocation) {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }
}
