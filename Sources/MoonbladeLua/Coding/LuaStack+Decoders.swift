extension LuaStack {
    /// The VM's kept root decoder, set up for a decode with `options` (a new one while it is in use):
    /// for a decode that drives the decoder itself, such as the resident state's cache. Give it back
    /// with ``giveBack(_:)`` when the decode is done.
    package func takeDecoder(options: LuaDecoder) -> LuaValueDecoder {
        runtime.decoders.take(state: state, options: options)
    }

    /// Gives back a decoder ``takeDecoder(options:)`` handed out.
    package func giveBack(_ decoder: LuaValueDecoder) {
        runtime.decoders.giveBack(decoder)
    }
}
