import CustomDump
import Testing

extension PluginTester {
    /// Checks that `record`'s change is the one `expected` describes (see ``Exhaustivity``).
    func check(_ record: ItemRecord<S>, _ expected: ((inout S) throws -> Void)?, sourceLocation: SourceLocation) {
        var expectedState = exhaustivity == .on ? record.before : record.after
        do {
            try expected?(&expectedState)
        } catch {
            fail("the assertion closure for \(record.name) threw: \(error)", at: sourceLocation)
            return
        }
        let problem: String
        if expectedState != record.after {
            problem =
                if expected == nil { "\(record.name) changed the state, but no change was expected" }
                else if record.before == record.after { "\(record.name) was expected to change the state, but it did not" }
                else { "the state after \(record.name) does not match the expectation" }
        } else if exhaustivity == .on, expected != nil, record.before == record.after {
            fail(
                "\(record.name) was expected to change the state, but it did not, and the assertion closure "
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
