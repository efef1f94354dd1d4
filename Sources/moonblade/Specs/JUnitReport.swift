import Foundation

/// Spec outcomes as JUnit XML, the report format CI systems read: one `testsuite` per plugin, one
/// `testcase` per spec case, a `failure` element with the message and place for each failed case.
struct JUnitReport {
    var outcomes: [SpecOutcome]

    init(_ outcomes: [SpecOutcome]) {
        self.outcomes = outcomes
    }

    var xml: String {
        let suites = Dictionary(grouping: outcomes, by: \.specCase.plugin)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="moonblade" tests="\#(outcomes.count)" failures="\#(failureCount(outcomes))">"#,
        ]
        for plugin in suites.keys.sorted() {
            let cases = suites[plugin]!
            lines.append(
                #"  <testsuite name="\#(plugin.xmlEscaped(inAttribute: true))" tests="\#(cases.count)" failures="\#(failureCount(cases))">"#)
            lines += cases.map(testcase)
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    private func failureCount(_ outcomes: [SpecOutcome]) -> Int {
        outcomes.count { !$0.passed }
    }

    /// `classname` is the plugin and the spec file (`todo.todo_spec`), `name` the describe and it names.
    private func testcase(_ outcome: SpecOutcome) -> String {
        let specCase = outcome.specCase
        let specFile = URL(fileURLWithPath: specCase.file).deletingPathExtension().lastPathComponent
        let attributes = [
            ("classname", "\(specCase.plugin).\(specFile)"), ("name", specCase.names.joined(separator: " ")),
            ("file", specCase.file), ("line", "\(specCase.line)"),
        ].map { #"\#($0)="\#($1.xmlEscaped(inAttribute: true))""# }.joined(separator: " ")
        if outcome.isPending { return "    <testcase \(attributes)><skipped message=\"pending\"/></testcase>" }
        guard let failure = outcome.failure else { return "    <testcase \(attributes)/>" }
        let summary = failure.message.prefix { $0 != "\n" }
        return """
                <testcase \(attributes)>
                  <failure message="\(String(summary).xmlEscaped(inAttribute: true))" type="failure">\(failure.description.xmlEscaped(inAttribute: false))</failure>
                </testcase>
            """
    }
}

extension String {
    /// The text with XML's special characters as entities, for element text or, `inAttribute`, for a
    /// quoted attribute value (where a parser would turn a plain line break or tab into a space).
    fileprivate func xmlEscaped(inAttribute: Bool) -> String {
        var escaped = ""
        for character in unicodeScalars {
            switch character {
            // Kept as they are in element text; as character references in an attribute.
            case "\n", "\t", "\r":
                if inAttribute {
                    escaped += "&#\(character.value);"
                } else {
                    escaped.unicodeScalars.append(character)
                }
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            // Characters XML 1.0 cannot hold at all (other control characters, and the noncharacters
            // U+FFFE and U+FFFF, which a Lua string can spell) become a visible mark.
            case _ where character.value < 0x20 || character.value == 0xFFFE || character.value == 0xFFFF:
                escaped += "\u{FFFD}"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
