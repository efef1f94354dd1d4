extension String {
    /// The text of a Lua resource embedded in the binary (`.embedInCode` in Package.swift), as a chunk
    /// to load.
    ///
    /// Embedded, so a deployed executable needs no resource folder beside it. The file's final line
    /// break is dropped, so that chunks joined into one keep the line numbers they are written with.
    package init(luaResource bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        self = text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
