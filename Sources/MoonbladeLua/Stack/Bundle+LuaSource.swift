import Foundation

extension Bundle {
    /// The text of the Lua resource `Lua/<name>.lua` in this bundle, as a chunk to load.
    ///
    /// The file's final line break is dropped, so that chunks joined into one keep the line numbers
    /// they are written with. A missing file is a packaging fault (the target's `resources` lost it),
    /// not bad input, so it stops the program with the path it looked in.
    package func luaSource(named name: String) -> String {
        guard let url = url(forResource: name, withExtension: "lua", subdirectory: "Lua"),
            let text = try? String(contentsOf: url, encoding: .utf8)
        else { fatalError("the Lua resource Lua/\(name).lua is missing from \(bundlePath)") }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
