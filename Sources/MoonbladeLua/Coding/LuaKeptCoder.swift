/// A coder's settings (`LuaEncoder`, `LuaDecoder`), as the kept coder holds them between uses.
protocol LuaCoderSettings {
    /// The default settings.
    init()
    /// Whether these are the default settings, which hold no references.
    var isDefault: Bool { get }
}

/// A root encoder or decoder that a VM keeps between uses (see ``LuaKeptCoder``).
protocol LuaReusableCoder: AnyObject {
    associatedtype Options: LuaCoderSettings
    init(state: OpaquePointer, options: Options)
    /// The settings of the use under way; the defaults between uses.
    var options: Options { get set }
    /// The keyed containers it hands out and keeps (see ``LuaKeptContainers``), which hold it in turn.
    var keptContainers: LuaKeptContainers { get set }
    /// Readies it for another use on `state` (any thread of its VM), keeping its buffers and what it
    /// learnt about types, but nothing of the last use's state.
    func prepareForReuse(state: OpaquePointer)
    /// Lets go of what the last use held (child coders, the resident state's tables), so that a kept
    /// coder keeps nothing of a caller's alive between uses.
    func releaseAfterUse()
}

/// The one root coder of a kind a VM keeps (in its ``LuaRuntime``), so that a small push or decode
/// allocates nothing of its own and what the coder learnt about types lasts. A use that starts while
/// another is under way (an `encode(to:)` or `init(from:)` reaching the same VM) gets a coder of its
/// own. Used under the VM's one-thread rule.
struct LuaKeptCoder<Coder: LuaReusableCoder> {
    private var kept: Coder?
    private var inUse = false

    /// The kept coder readied for a use on `state` with `options`, or a fresh one while it is busy.
    /// Hand it back with ``giveBack(_:)``.
    @inline(__always)
    mutating func take(state: OpaquePointer, options: Coder.Options) -> Coder {
        guard !inUse else { return Coder(state: state, options: options) }
        inUse = true
        if let kept {
            kept.prepareForReuse(state: state)
            // Between uses it holds the default settings: most uses give those, and need no copy.
            if !options.isDefault { kept.options = options }
            return kept
        }
        let made = Coder(state: state, options: options)
        kept = made
        return made
    }

    /// Ends a use of `coder`: the kept one lets go of what the use held, a fresh one of everything.
    @inline(__always)
    mutating func giveBack(_ coder: Coder) {
        guard coder === kept else { return coder.keptContainers.removeAll() }
        coder.releaseAfterUse()
        // The caller's settings, and their `userInfo`, are not kept alive.
        if !coder.options.isDefault { coder.options = Coder.Options() }
        inUse = false
    }

    /// Lets the kept coder go (its VM's runtime is going).
    mutating func discard() {
        kept?.keptContainers.removeAll()
        kept = nil
    }
}
