/// A place in Lua source code: the chunk name as Lua shows it and a line number.
public struct LuaLocation: Sendable, Hashable, CustomStringConvertible {
    /// The chunk name as Lua prints it, e.g. `todo/plugin.lua`.
    public var source: String
    /// The 1-based line.
    public var line: Int

    /// The place `line` of the chunk named `source` (`todo/plugin.lua`).
    public init(source: String, line: Int) {
        self.source = source
        self.line = line
    }

    /// `source:line`, the form Lua itself uses in messages.
    public var description: String { "\(source):\(line)" }

    /// Reads the `source:line:` prefix Lua puts on syntax and `error()` messages.
    ///
    /// Chunk names may themselves contain colons, so this looks for the first `:<digits>:`.
    package init?(messagePrefix message: String) {
        var searchStart = message.startIndex
        while let colon = message[searchStart...].firstIndex(of: ":") {
            let digitsStart = message.index(after: colon)
            let digitsEnd = message[digitsStart...].firstIndex { !$0.isASCII || !$0.isNumber }
            if let digitsEnd, digitsEnd > digitsStart, message[digitsEnd] == ":",
                let line = Int(message[digitsStart..<digitsEnd])
            {
                self.init(source: String(message[..<colon]), line: line)
                return
            }
            searchStart = digitsStart
        }
        return nil
    }
}
