import Foundation
import Testing

/// One `it` of a Lua spec file, found by ``LuaSpecRunner/discover(pluginsIn:)``.
///
/// A spec file that does not load (a syntax error, an error at its top level) is one case, named
/// after the file, that fails with that error, so a broken file is never silently skipped.
public struct LuaSpecCase: Sendable, Hashable, Codable {
    /// The plugin the spec belongs to (its folder's name).
    public var plugin: String
    /// The plugin's folder, loaded into the case's fresh store.
    public var pluginDirectory: String
    /// The spec file's path.
    public var file: String
    /// The enclosing `describe` names and then the `it` name.
    public var names: [String]
    /// The line of the `it`.
    public var line: Int
    /// The case's position among the file's cases (0-based), how the runner finds it again.
    public var index: Int
    /// Why the file did not load, for the case that stands for a broken file.
    public var loadFailure: LuaSpecFailure?

    /// `counter: counter.increment adds one`.
    public var name: String { "\(plugin): \(names.joined(separator: " "))" }

    /// The `#words` of its `describe` and `it` names, without the mark: `it("syncs #slow")` is `slow`.
    public var tags: [String] {
        names.flatMap { name in
            name.split(whereSeparator: \.isWhitespace).compactMap { word -> String? in
                guard word.hasPrefix("#"), word.count > 1 else { return nil }
                return String(word.dropFirst())
            }
        }
    }

    /// How messages name the spec file: `counter/spec/counter_spec.lua`.
    var chunkName: String {
        "\(plugin)/spec/\(URL(fileURLWithPath: file).lastPathComponent)"
    }
}

extension LuaSpecCase: CustomTestStringConvertible {
    public var testDescription: String { name }
}
